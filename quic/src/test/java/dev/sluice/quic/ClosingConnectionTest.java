package dev.sluice.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The record's back-off and anti-amplification arithmetic, and the front handler on an embedded channel. */
class ClosingConnectionTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.7", 4433);
    private static final InetSocketAddress OTHER = new InetSocketAddress("192.0.2.8", 4433);

    private static ClosingConnection record(int datagramLength, long rx, long tx, boolean validated) {
        ClosingConnection r = new ClosingConnection();
        r.set(0x0f01020304050607L, PEER, new byte[datagramLength], rx, tx, validated, 0, 1_000_000_000L);
        return r;
    }

    @Test
    void reSendsAfterThe1st2nd3rdReceivedDatagram() {
        ClosingConnection r = record(50, 10_000, 10_000, true);
        List<Integer> resentAt = new ArrayList<>();
        for (int i = 1; i <= 21; i++) {
            if (r.onDatagram(1200, true)) {
                r.sent();
                resentAt.add(i);
            }
        }
        assertThat(resentAt).containsExactly(1, 3, 6, 10, 15, 21);
        assertThat(r.resends()).isEqualTo(6);
    }

    @Test
    void anUnvalidatedPeerGetsAtMostThreeTimesWhatItSent() {
        // closed during the handshake: it sent 1000 bytes, the server 3000 (with the close)
        ClosingConnection r = record(600, 1000, 3000, false);
        assertThat(r.onDatagram(100, true)).as("due, but 3000 + 600 > 3 x 1100").isFalse();
        assertThat(r.onDatagram(100, true)).as("not due").isFalse();
        // due again, and 3 x 1300 = 3900 >= 3000 + 600
        assertThat(r.onDatagram(100, true)).isTrue();
    }

    @Test
    void anotherAddressOnlyGetsAnAnswerWithinThreeTimesItsDatagram() {
        ClosingConnection r = record(60, 100_000, 100_000, true);
        assertThat(r.isPeer(PEER)).isTrue();
        assertThat(r.isPeer(OTHER)).isFalse();
        assertThat(r.isPeer(new InetSocketAddress("192.0.2.7", 4434))).isFalse();
        assertThat(r.onDatagram(19, false)).as("60 > 3 x 19").isFalse();
        assertThat(r.onDatagram(20, false)).isFalse(); // not due (2nd of 2)
        assertThat(r.onDatagram(20, false)).as("60 <= 3 x 20").isTrue();
        assertThat(r.peer()).isEqualTo(PEER);
        ClosingConnection v6 = new ClosingConnection();
        InetSocketAddress p6 = new InetSocketAddress("2001:db8::1", 443);
        v6.set(1, p6, new byte[1], 0, 0, true, 0, 0);
        assertThat(v6.isPeer(p6)).isTrue();
        assertThat(v6.peer()).isEqualTo(p6);
    }

    @Test
    void theFrontHandlerDropsEmptyDatagramsBothWaysAndCapturesTheCloseDatagram() {
        QuicCounters counters = new QuicCounters();
        ClosingConnections h = new ClosingConnections(null, counters, new AtomicInteger());
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ChannelFuture f = ch.writeAndFlush(new DatagramPacket(Unpooled.EMPTY_BUFFER, PEER));
        assertThat(f.isSuccess()).isTrue();
        assertThat((Object) ch.readOutbound()).isNull();
        ch.writeInbound(new DatagramPacket(Unpooled.buffer(0), PEER, OTHER));
        assertThat((Object) ch.readInbound()).isNull();
        assertThat(counters.emptyDatagrams()).isEqualTo(2);

        // what the codec writes to the peer while closing is held, then sent; the last datagram is kept
        h.beginCapture(PEER);
        ch.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), PEER));
        ch.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {4, 5}), OTHER));
        ch.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {6, 7, 8, 9}), PEER));
        ch.flush();
        DatagramPacket other = ch.readOutbound();
        assertThat(other.recipient()).isEqualTo(OTHER);
        other.release();
        assertThat((Object) ch.readOutbound()).isNull();
        ClosingConnection r = h.endCapture(0x0f00000000000001L, 5000, 4000, true, 50_000_000L);
        assertThat(r.datagram).containsExactly(6, 7, 8, 9);
        assertThat(r.tx).isEqualTo(4004);
        assertThat(h.size()).isEqualTo(1);
        DatagramPacket a = ch.readOutbound();
        DatagramPacket b = ch.readOutbound();
        assertThat(a.content().readableBytes()).isEqualTo(3);
        assertThat(b.content().readableBytes()).isEqualTo(4);
        a.release();
        b.release();

        // a datagram for that prefix is answered by the record, not passed on
        byte[] pkt = new byte[1200];
        pkt[0] = 0x40;
        pkt[1] = 0x0f;
        pkt[8] = 1;
        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(pkt), OTHER, PEER));
        assertThat((Object) ch.readInbound()).isNull();
        DatagramPacket answer = ch.readOutbound();
        assertThat(answer.recipient()).isEqualTo(PEER);
        assertThat(answer.content().readableBytes()).isEqualTo(4);
        answer.release();
        // another prefix goes on to the codec
        pkt[8] = 2;
        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(pkt), OTHER, PEER));
        DatagramPacket passed = ch.readInbound();
        assertThat(passed).isNotNull();
        passed.release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
        assertThat(h.size()).isZero();
    }

    @Test
    void theKnobDropsTheCloseDatagramAndNothingIsKeptWithoutOne() {
        QuicCounters counters = new QuicCounters();
        ClosingConnections h = new ClosingConnections(null, counters, new AtomicInteger(1));
        EmbeddedChannel ch = new EmbeddedChannel(h);
        h.beginCapture(PEER);
        assertThat(h.endCapture(1, 0, 0, true, 1)).as("nothing was written").isNull();
        h.beginCapture(PEER);
        ch.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {1}), PEER));
        assertThat(h.endCapture(2, 0, 0, true, 1)).isNotNull();
        assertThat((Object) ch.readOutbound()).as("dropped by the knob").isNull();
        assertThat(counters.knobDrops.sum()).isEqualTo(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void recordsGoBackToTheirPoolWithoutTheirDatagram() {
        dev.sluice.pools.Pool<ClosingConnection> pool = ClosingConnection.pool(new dev.sluice.pools.PoolRegistry(0));
        assertThat(pool.name()).isEqualTo("quic_conn_closed");
        assertThat(pool.size()).isEqualTo(96);
        ClosingConnections h = new ClosingConnections(pool, new QuicCounters(), new AtomicInteger());
        EmbeddedChannel ch = new EmbeddedChannel(h);
        h.beginCapture(PEER);
        ch.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), PEER));
        ClosingConnection r = h.endCapture(7, 100, 100, true, 1_000_000_000L);
        assertThat(r.datagram).hasSize(3);
        // the socket closes: its records are freed, through the pool's reset step
        ch.finishAndReleaseAll();
        assertThat(h.size()).isZero();
        assertThat(r.datagram).isNull();
        assertThat(r.prefix).isZero();
        assertThat(r.port).isZero();
        assertThat(pool.alloc()).as("from the thread's cache").isSameAs(r);
    }

    @Test
    void whileStoppingOnlyLiveConnectionsLongHeaderPacketsReachTheCodec() {
        QuicCounters counters = new QuicCounters();
        ClosingConnections h = new ClosingConnections(null, counters, new AtomicInteger());
        EmbeddedChannel ch = new EmbeddedChannel(h);
        long live = 0x0f00000000000abcL;
        int[] emptied = {0};
        h.stopAccepting(p -> p == live, () -> emptied[0]++);
        // a new connection's Initial (a client-chosen 8-byte DCID): dropped
        assertThat(passes(ch, longHeader(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))).isFalse();
        // one with a CID of our length but no live connection (a Retry's follow-up): dropped
        assertThat(passes(ch, longHeader(cid(0x0f00000000000defL)))).isFalse();
        assertThat(counters.refusedWhileStopping()).isEqualTo(2);
        // a handshake in progress, and short-header packets: on to the codec
        assertThat(passes(ch, longHeader(cid(live)))).isTrue();
        byte[] shortHeader = new byte[100];
        shortHeader[0] = 0x40;
        assertThat(passes(ch, shortHeader)).isTrue();
        assertThat(counters.refusedWhileStopping()).isEqualTo(2);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    private static boolean passes(EmbeddedChannel ch, byte[] datagram) {
        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(datagram), OTHER, PEER));
        DatagramPacket p = ch.readInbound();
        if (p == null) {
            return false;
        }
        p.release();
        return true;
    }

    private static byte[] cid(long prefix) {
        byte[] c = new byte[Cids.LENGTH];
        for (int i = 0; i < 8; i++) {
            c[i] = (byte) (prefix >>> (56 - 8 * i));
        }
        return c;
    }

    /** A QUIC v1 Initial packet header to {@code dcid}, padded to 1200 bytes. */
    private static byte[] longHeader(byte[] dcid) {
        byte[] b = new byte[1200];
        b[0] = (byte) 0xc3;
        b[4] = 1;
        b[5] = (byte) dcid.length;
        System.arraycopy(dcid, 0, b, 6, dcid.length);
        return b;
    }
}
