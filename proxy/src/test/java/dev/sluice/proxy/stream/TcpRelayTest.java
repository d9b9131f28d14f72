package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay of a layer-4 stream on two fake sockets, on an embedded loop whose clock the test moves: bytes through both
 * ways with one flush per read batch, back-pressure, the client's bytes held while connecting, half-closes carried
 * both ways and the end when both are shut, failures, and each of HAProxy's timeouts (client, server, tunnel,
 * client-fin, server-fin), re-armed by activity and by a slow reader's progress, never running on a paused side.
 */
class TcpRelayTest {

    /** A socket as the relay sees it: what was written, flushed, whether it reads, its FIN. */
    static final class Peer implements TcpPeer {
        final List<ByteBuf> written = new ArrayList<>();
        boolean writable = true;
        long pending;
        boolean reading = true;
        int flushes;
        Runnable fin;
        boolean closed;
        /** Runs within {@link #flush}: a socket that drains at once tells its writability there, as Netty does. */
        Runnable onFlush;

        @Override
        public void write(ByteBuf data) {
            written.add(data);
            pending += data.readableBytes();
        }

        @Override
        public void flush() {
            flushes++;
            if (onFlush != null) {
                onFlush.run();
            }
        }

        @Override
        public boolean isWritable() {
            return writable;
        }

        @Override
        public long pendingBytes() {
            return pending;
        }

        @Override
        public void reading(boolean on) {
            reading = on;
        }

        @Override
        public void shutdownOutput(Runnable done) {
            fin = done;
        }

        @Override
        public void close() {
            closed = true;
        }

        /** What was written, as text; the buffers are released. */
        String text() {
            StringBuilder sb = new StringBuilder();
            for (ByteBuf b : written) {
                sb.append(b.toString(StandardCharsets.ISO_8859_1));
                b.release();
            }
            written.clear();
            return sb.toString();
        }

        /** The FIN asked for goes out now. */
        void finSent() {
            Runnable r = fin;
            fin = null;
            r.run();
        }
    }

    private final MockTicker ticker = Ticker.newMockTicker();
    private EmbeddedChannel anchor;
    private final List<String> events = new ArrayList<>();
    private final Peer clientPeer = new Peer();
    private final Peer serverPeer = new Peer();
    private TcpRelay relay;

    private final TcpRelay.Listener listener = new TcpRelay.Listener() {
        @Override
        public void relayEnded() {
            events.add("ended");
        }

        @Override
        public void sideFailed(boolean client) {
            events.add(client ? "client failed" : "server failed");
            // the stream ends: the relay with it
            relay.end();
        }

        @Override
        public void sideTimedOut(boolean client) {
            events.add(client ? "client timeout" : "server timeout");
            relay.end();
        }
    };

    @BeforeEach
    void setUp() {
        anchor = EmbeddedChannel.builder().ticker(ticker).build();
    }

    @AfterEach
    void tearDown() {
        clientPeer.text();
        serverPeer.text();
        if (relay != null) {
            relay.end();
        }
        anchor.finishAndReleaseAll();
    }

    /** A relay, timeouts in milliseconds (0: none), connected to the server unless {@code connect} is false. */
    private TcpRelay relay(long client, long server, long tunnel, long clientFin, long serverFin, boolean connect) {
        relay = new TcpRelay(listener, clientPeer, anchor.eventLoop(), client);
        relay.start();
        relay.timeouts(client, server, tunnel, clientFin, serverFin);
        if (connect) {
            relay.connected(serverPeer);
        }
        return relay;
    }

    private TcpRelay relay() {
        return relay(0, 0, 0, 0, 0, true);
    }

    private static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    private void advance(long millis) {
        ticker.advance(millis, TimeUnit.MILLISECONDS);
        for (int i = 0; i < 3; i++) {
            anchor.runPendingTasks();
        }
    }

    @Test
    void bytesGoThroughBothWaysFlushedOncePerReadBatch() {
        TcpRelay r = relay();
        r.received(r.client, bytes("hel"));
        r.received(r.client, bytes("lo"));
        assertThat(serverPeer.flushes).isZero();
        r.readComplete(r.client);
        assertThat(serverPeer.flushes).isEqualTo(1);
        assertThat(serverPeer.text()).isEqualTo("hello");
        r.received(r.server, bytes("world"));
        r.readComplete(r.server);
        assertThat(clientPeer.text()).isEqualTo("world");
        assertThat(r.client.bytesRead).isEqualTo(5);
        assertThat(r.server.bytesRead).isEqualTo(5);
        assertThat(events).isEmpty();
    }

    @Test
    void aSideThatCannotTakeMorePausesTheOtherUntilItDrains() {
        TcpRelay r = relay();
        serverPeer.writable = false;
        r.received(r.client, bytes("a lot"));
        // flushed at once: the bytes must move for the writability to come back
        assertThat(serverPeer.flushes).isEqualTo(1);
        assertThat(clientPeer.reading).isFalse();
        serverPeer.writable = true;
        r.writabilityChanged(r.server, true);
        assertThat(clientPeer.reading).isTrue();
        // the other direction is independent
        clientPeer.writable = false;
        r.received(r.server, bytes("back"));
        assertThat(serverPeer.reading).isFalse();
        assertThat(clientPeer.reading).isTrue();
    }

    @Test
    void aFlushThatDrainsAtOnceLeavesTheReaderReading() {
        TcpRelay r = relay();
        serverPeer.writable = false;
        serverPeer.onFlush = () -> {
            // the kernel took it all during the flush: writable again before the relay's write returns
            serverPeer.writable = true;
            r.writabilityChanged(r.server, true);
        };
        r.received(r.client, bytes("a lot"));
        assertThat(clientPeer.reading).isTrue();
    }

    @Test
    void theClientsBytesWaitForTheServerThenGoFirst() {
        TcpRelay r = relay(0, 0, 0, 0, 0, false);
        r.received(r.client, bytes("first "));
        assertThat(r.heldBytes()).isEqualTo(6);
        assertThat(clientPeer.reading).isTrue();
        r.received(r.client, Unpooled.wrappedBuffer(new byte[TcpRelay.HOLD_LIMIT]));
        // a full hold stops reading, as HAProxy's full buffer
        assertThat(clientPeer.reading).isFalse();
        // one contiguous buffer (content inspection reads it as the payload)
        assertThat(r.held().readableBytes()).isEqualTo(6 + TcpRelay.HOLD_LIMIT);
        assertThat(r.held().toString(0, 6, StandardCharsets.ISO_8859_1)).isEqualTo("first ");
        r.connected(serverPeer);
        assertThat(serverPeer.written).hasSize(1);
        assertThat(serverPeer.written.get(0).toString(0, 6, StandardCharsets.ISO_8859_1)).isEqualTo("first ");
        assertThat(serverPeer.flushes).isEqualTo(1);
        assertThat(clientPeer.reading).isTrue();
        assertThat(r.heldBytes()).isZero();
    }

    @Test
    void halfClosesAreCarriedAndTheRelayEndsWhenBothDirectionsAreShut() {
        TcpRelay r = relay();
        r.inputShut(r.client);
        // the FIN waits for what was written before it
        assertThat(serverPeer.fin).isNotNull();
        serverPeer.finSent();
        assertThat(events).isEmpty();
        // the other direction still flows
        r.received(r.server, bytes("answer"));
        r.readComplete(r.server);
        assertThat(clientPeer.text()).isEqualTo("answer");
        r.inputShut(r.server);
        assertThat(events).isEmpty();
        clientPeer.finSent();
        assertThat(events).containsExactly("ended");
        assertThat(r.ended()).isTrue();
    }

    @Test
    void aFinDuringTheConnectionGoesAfterTheHeldBytes() {
        TcpRelay r = relay(0, 0, 0, 0, 0, false);
        r.received(r.client, bytes("req"));
        r.inputShut(r.client);
        assertThat(serverPeer.fin).isNull();
        r.connected(serverPeer);
        assertThat(serverPeer.text()).isEqualTo("req");
        assertThat(serverPeer.fin).isNotNull();
    }

    @Test
    void aFailedSideIsReportedOnce() {
        TcpRelay r = relay();
        r.failed(r.server);
        assertThat(events).containsExactly("server failed");
        r.end();
        r.failed(r.client);
        r.received(r.client, bytes("late"));
        assertThat(events).containsExactly("server failed");
        assertThat(serverPeer.written).isEmpty();
    }

    @Test
    void anIdleClientTimesOutWithTimeoutClient() {
        relay(1000, 5000, 0, 0, 0, true);
        advance(999);
        assertThat(events).isEmpty();
        advance(2);
        assertThat(events).containsExactly("client timeout");
    }

    @Test
    void anIdleServerTimesOutWithTimeoutServer() {
        relay(5000, 1000, 0, 0, 0, true);
        advance(1001);
        assertThat(events).containsExactly("server timeout");
    }

    @Test
    void aServerThatTookTheClientsBytesAndSaysNothingTimesOutOneTimeoutAfterThem() {
        TcpRelay r = relay(5000, 1000, 0, 0, 0, true);
        advance(100);
        // the bytes leave in the flush that ends the read batch: their departure is not the server's progress
        serverPeer.onFlush = () -> serverPeer.pending = 0;
        r.received(r.client, bytes("x"));
        r.readComplete(r.client);
        advance(999);
        assertThat(events).isEmpty();
        advance(2);
        assertThat(events).containsExactly("server timeout");
    }

    @Test
    void beforeTheConnectionOnlyTheClientTimerRuns() {
        relay(1000, 200, 0, 0, 0, false);
        advance(500);
        assertThat(events).isEmpty();
        advance(600);
        assertThat(events).containsExactly("client timeout");
    }

    @Test
    void activityOnASideReArmsItsTimer() {
        TcpRelay r = relay(1000, 5000, 0, 0, 0, true);
        advance(800);
        r.received(r.client, bytes("x"));
        advance(800);
        // writes to the client count too (HAProxy refreshes a side's read timeout on write activity)
        r.received(r.server, bytes("y"));
        advance(800);
        assertThat(events).isEmpty();
        advance(300);
        assertThat(events).containsExactly("client timeout");
    }

    @Test
    void timeoutTunnelReplacesBothOnceConnected() {
        TcpRelay r = relay(100, 100, 3000, 0, 0, false);
        r.connected(serverPeer);
        advance(2000);
        assertThat(events).isEmpty();
        advance(1100);
        assertThat(events).hasSize(1);
    }

    @Test
    void afterAFinToTheClientItsReadTimeoutIsClientFin() {
        TcpRelay r = relay(5000, 10000, 0, 500, 0, true);
        // the server closes first: its FIN goes to the client, which then has client-fin to send its own
        r.inputShut(r.server);
        clientPeer.finSent();
        advance(501);
        assertThat(events).containsExactly("client timeout");
    }

    @Test
    void afterAFinToTheServerItsReadTimeoutIsServerFin() {
        TcpRelay r = relay(10000, 5000, 0, 0, 500, true);
        r.inputShut(r.client);
        serverPeer.finSent();
        advance(501);
        assertThat(events).containsExactly("server timeout");
    }

    @Test
    void withATunnelTimeoutAClientThatSentItsFinWaitsToBeWrittenToWithClientFin() {
        TcpRelay r = relay(0, 0, 10000, 400, 0, true);
        r.inputShut(r.client);
        serverPeer.finSent();
        // bytes for the client that it does not take
        clientPeer.writable = false;
        r.received(r.server, bytes("z"));
        advance(401);
        assertThat(events).containsExactly("client timeout");
    }

    @Test
    void aSlowReaderThatMakesProgressIsNotTimedOut() {
        TcpRelay r = relay(1000, 0, 0, 0, 0, true);
        clientPeer.writable = false;
        r.received(r.server, bytes("0123456789"));
        assertThat(serverPeer.reading).isFalse();
        advance(900);
        // the client took some of it, without the writability coming back
        clientPeer.pending = 5;
        advance(200);
        assertThat(events).isEmpty();
        advance(1000);
        assertThat(events).containsExactly("client timeout");
    }

    @Test
    void aPausedSideWithNothingPendingHasNoTimer() {
        TcpRelay r = relay(0, 1000, 0, 0, 0, true);
        // the server's reading is paused by the client's back-pressure: the relay does not wait on the server
        clientPeer.writable = false;
        r.received(r.server, bytes("data"));
        r.received(r.client, bytes("x"));
        serverPeer.pending = 0;
        r.server.refresh();
        advance(5000);
        assertThat(events).isEmpty();
    }
}
