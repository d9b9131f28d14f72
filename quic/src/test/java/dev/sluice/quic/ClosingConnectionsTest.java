package dev.sluice.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The closing state end to end, over loopback with a real QUIC client: a connection the server closes
 * becomes a compact record that answers for it.
 */
class ClosingConnectionsTest {

    @Test
    void aLostConnectionCloseIsLearnedFromTheRecordNotFromTheIdleTimeout() throws Exception {
        try (TestQuic server = new TestQuic(false, 1); TestQuic.Client c = server.connect(TestQuic.ALPN)) {
            CompletableFuture<QuicConnectionCloseEvent> closeEvent = new CompletableFuture<>();
            c.quic.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    if (evt instanceof QuicConnectionCloseEvent e) {
                        closeEvent.complete(e);
                    }
                }
            });
            assertThat(echo(c, "hello")).isEqualTo("hello");
            c.send("close", new ChannelInboundHandlerAdapter());
            await(() -> count(server) == 1);
            assertThat(server.listener.counters().knobDrops.sum()).isEqualTo(1);
            List<ClosingConnection> r = server.records();
            // the client never got the CONNECTION_CLOSE: its next packet reaches the record, which answers
            long start = System.nanoTime();
            c.quic.createStream(io.netty.handler.codec.quic.QuicStreamType.BIDIRECTIONAL, new ChannelInboundHandlerAdapter())
                    .addListener(f -> {
                        if (f.isSuccess()) {
                            ((io.netty.channel.Channel) f.getNow()).writeAndFlush(io.netty.buffer.Unpooled.copiedBuffer("more".getBytes()));
                        }
                    });
            // (the client's channel itself closes only after its own draining period, 3 x its PTO)
            QuicConnectionCloseEvent e = closeEvent.get(1, TimeUnit.SECONDS);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(e.isApplicationClose()).isTrue();
            assertThat(e.error()).isEqualTo(TestQuic.APP_ERROR);
            assertThat(server.listener.counters().closeResends()).isGreaterThanOrEqualTo(1);
            assertThat(ms).isLessThan(1000);
            assertThat(r).singleElement().satisfies(x -> {
                assertThat(x.validated).isTrue();
                assertThat(x.datagramLength()).isBetween(20, 1500);
            });
            assertThat(server.listener.counters().closingRecords()).isEqualTo(1);
            assertThat(server.live()).isZero();
        }
    }

    @Test
    void packetsWithAnyCidOfTheConnectionGetTheSameAnswerOnALinearBackOffUntilTheDeadline() throws Exception {
        try (TestQuic server = new TestQuic(false, 0); TestQuic.Client c = server.connect(TestQuic.ALPN)) {
            assertThat(echo(c, "hi")).isEqualTo("hi");
            c.send("close", new ChannelInboundHandlerAdapter());
            await(() -> count(server) == 1);
            ClosingConnection rec = server.records().getFirst();
            byte[] expected = rec.datagram.clone();
            QuicCounters counters = server.listener.counters();
            long reached = counters.closingDatagrams();
            long resent = counters.closeResends();
            try (DatagramSocket raw = new DatagramSocket()) {
                raw.setSoTimeout(5000);
                Random rnd = new Random(1);
                // ten packets, each to a different CID that shares the connection's prefix (as later CIDs do)
                for (int i = 0; i < 10; i++) {
                    raw.send(shortHeader(rec.prefix, rnd, 1200, server));
                }
                // the record saw all ten: it answered four of them, after the 1st, 3rd, 6th and 10th datagram
                await(() -> counters.closingDatagrams() == reached + 10);
                assertThat(counters.closeResends() - resent).isEqualTo(4);
                for (int i = 0; i < 4; i++) {
                    assertThat(receive(raw)).isEqualTo(expected);
                }
                // tiny packets from an address that never was the peer: never more than 3x what it sent. Five of
                // them reach the next point of the back-off (the 15th datagram), where the limit decides
                int tiny = Cids.LENGTH + 1;
                boolean allowed = expected.length <= 3 * tiny;
                long drops = counters.closeAmplificationDrops();
                for (int i = 0; i < 5; i++) {
                    raw.send(shortHeader(rec.prefix, rnd, tiny, server));
                }
                await(() -> counters.closingDatagrams() == reached + 15);
                assertThat(counters.closeResends() - resent).as("a re-send only within 3x the tiny packet").isEqualTo(allowed ? 5 : 4);
                assertThat(counters.closeAmplificationDrops() - drops).isEqualTo(allowed ? 0 : 1);
                if (allowed) {
                    assertThat(receive(raw)).isEqualTo(expected);
                }
                // after the deadline the record is gone and nothing answers: three packets for it, then one the
                // codec answers (version negotiation); the first answer on this socket is the latter
                long left = rec.deadline - System.nanoTime();
                assertThat(left).isLessThanOrEqualTo(ClosingConnections.MAX_LIFETIME_NANOS);
                await(() -> count(server) == 0);
                for (int i = 0; i < 3; i++) {
                    raw.send(shortHeader(rec.prefix, rnd, 1200, server));
                }
                raw.send(unknownVersion(rnd, server));
                byte[] answer = receive(raw);
                assertThat(answer[0] & 0x80).as("a long header").isNotZero();
                assertThat(Arrays.copyOfRange(answer, 1, 5)).as("version negotiation (version 0)").containsExactly(0, 0, 0, 0);
                assertThat(counters.closingDatagrams()).isEqualTo(reached + 15);
                assertThat(counters.closeResends() - resent).isEqualTo(allowed ? 5 : 4);
            }
        }
    }

    @Test
    void aCloseByThePeerKeepsNothing() throws Exception {
        try (TestQuic server = new TestQuic(false, 0); TestQuic.Client c = server.connect(TestQuic.ALPN)) {
            assertThat(echo(c, "x")).isEqualTo("x");
            assertThat(server.live()).isEqualTo(1);
            c.quic.close().sync();
            await(() -> live(server) == 0);
            assertThat(count(server)).isZero();
            assertThat(server.listener.counters().peerCloses()).isEqualTo(1);
            assertThat(server.listener.counters().closingRecords()).isZero();
        }
    }

    @Test
    void aHandshakeTheStackFailsIsFreedAtOnce() throws Exception {
        // quiche fails the TLS handshake (no common ALPN) and reports it; the connection is closed and freed at
        // once rather than kept through a draining period. quiche sends no CONNECTION_CLOSE for this failure,
        // so there is nothing to keep: no record.
        try (TestQuic server = new TestQuic(false, 0); TestQuic.Client c = server.connect("no-such-protocol")) {
            assertThat(c.quic).as("the handshake fails").isNull();
            await(() -> server.listener.counters().connections() >= 1);
            await(() -> live(server) == 0);
            assertThat(server.listener.counters().halfOpen()).isZero();
            assertThat(count(server)).isZero();
        }
    }

    @Test
    void aProtocolErrorTheQuicStackDetectsIsClosedAtOnceAndKeptAsARecord() throws Exception {
        // the client sends a STREAM frame on stream 3, a server-initiated unidirectional stream it may not send on:
        // quiche fails the packet with STREAM_STATE_ERROR and queues its CONNECTION_CLOSE; Netty reports the error
        // to the connection's pipeline, where the tracker closes the connection through the capture
        CompletableFuture<byte[]> secret = new CompletableFuture<>();
        try (TestQuic server = new TestQuic(false, 0);
                TestQuic.Client c = server.connect(TestQuic.ALPN, (engine, line) -> {
                    byte[] s = Forge1Rtt.clientTrafficSecret(line);
                    if (s != null) {
                        secret.complete(s);
                    }
                })) {
            CompletableFuture<QuicConnectionCloseEvent> closed = QuicStopTest.closeEvent(c);
            assertThat(echo(c, "hello")).isEqualTo("hello");
            byte[] serverCid = server.listener.perSocket(s -> s.live.iterator().next().channel().localAddress()).get(5, TimeUnit.SECONDS)
                    .stream().map(Cids::bytes).findFirst().orElseThrow();
            Forge1Rtt forge = new Forge1Rtt(secret.get(5, TimeUnit.SECONDS), c.quic.sslEngine().getSession().getCipherSuite());
            byte[] frames = new byte[32]; // STREAM (with length) on stream 3, 4 bytes, then PADDING
            byte[] stream = {0x0a, 0x03, 0x04, 'b', 'o', 'o', 'm'};
            System.arraycopy(stream, 0, frames, 0, stream.length);
            byte[] packet = forge.packet(serverCid, 100_000, frames);
            // from the client's own socket, past its codec
            c.datagram.pipeline().firstContext().writeAndFlush(
                    new io.netty.channel.socket.DatagramPacket(io.netty.buffer.Unpooled.wrappedBuffer(packet), server.address())).sync();
            QuicConnectionCloseEvent e = closed.get(2, TimeUnit.SECONDS);
            assertThat(e.isApplicationClose()).isFalse();
            assertThat(e.error()).as("STREAM_STATE_ERROR").isEqualTo(0x5);
            // freed at once (no draining period with the whole connection), the CONNECTION_CLOSE kept
            await(() -> live(server) == 0);
            assertThat(server.listener.counters().closingRecords()).isEqualTo(1);
            assertThat(server.records()).singleElement().satisfies(r -> assertThat(r.datagramLength()).isBetween(20, 1500));
        }
    }

    @Test
    void forcedRetryValidatesTheClientAddressFirst() throws Exception {
        try (TestQuic server = new TestQuic(true, 0); TestQuic.Client c = server.connect(TestQuic.ALPN)) {
            assertThat(echo(c, "retry")).isEqualTo("retry");
            assertThat(server.listener.counters().retries()).isEqualTo(1);
            assertThat(server.listener.counters().tokensValid()).isEqualTo(1);
            assertThat(server.listener.counters().tokensInvalid()).isZero();
        }
    }

    @Test
    void emptyDatagramsAreDropped() throws Exception {
        try (TestQuic server = new TestQuic(false, 0); DatagramSocket raw = new DatagramSocket()) {
            raw.send(new DatagramPacket(new byte[0], 0, server.address()));
            await(() -> server.listener.counters().emptyDatagrams() == 1);
            try (TestQuic.Client c = server.connect(TestQuic.ALPN)) {
                assertThat(echo(c, "still serving")).isEqualTo("still serving");
            }
        }
    }

    static DatagramPacket shortHeader(long prefix, Random rnd, int size, TestQuic server) {
        byte[] b = new byte[size];
        rnd.nextBytes(b);
        b[0] = (byte) (0x40 | (b[0] & 0x3f));
        for (int i = 0; i < 8; i++) {
            b[1 + i] = (byte) (prefix >>> (56 - 8 * i));
        }
        return new DatagramPacket(b, b.length, server.address());
    }

    /** A long-header packet of a version no one speaks: the server answers it with version negotiation. */
    static DatagramPacket unknownVersion(Random rnd, TestQuic server) {
        byte[] b = new byte[1200];
        rnd.nextBytes(b);
        b[0] = (byte) 0xc0; // an Initial
        b[1] = 0x1a;
        b[2] = 0x2a;
        b[3] = 0x3a;
        b[4] = 0x4a;
        b[5] = 8; // destination CID length, then 8 bytes
        b[14] = 8; // source CID length, then 8 bytes
        b[23] = 0; // no token
        return new DatagramPacket(b, b.length, server.address());
    }

    /** The next datagram (the socket's timeout bounds the wait; a timeout fails the test). */
    static byte[] receive(DatagramSocket s) throws Exception {
        byte[] buf = new byte[2048];
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        s.receive(p);
        return Arrays.copyOf(p.getData(), p.getLength());
    }

    static String echo(TestQuic.Client c, String text) throws Exception {
        CompletableFuture<String> got = new CompletableFuture<>();
        c.send(text, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                io.netty.buffer.ByteBuf b = (io.netty.buffer.ByteBuf) msg;
                got.complete(b.toString(io.netty.util.CharsetUtil.US_ASCII));
                b.release();
            }
        });
        return got.get(5, TimeUnit.SECONDS);
    }

    static int count(TestQuic s) {
        try {
            return s.closing();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static int live(TestQuic s) {
        try {
            return s.live();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static void await(BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 5 s");
            }
            Thread.sleep(5);
        }
    }
}
