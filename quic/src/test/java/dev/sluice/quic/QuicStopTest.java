package dev.sluice.quic;

import static dev.sluice.quic.ClosingConnectionsTest.await;
import static dev.sluice.quic.ClosingConnectionsTest.count;
import static dev.sluice.quic.ClosingConnectionsTest.echo;
import static dev.sluice.quic.ClosingConnectionsTest.live;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Stopping a QUIC bind: a soft stop keeps the sockets for the live connections and the closing records and
 * takes no new connection; the sockets close once both are gone. A hard stop closes every connection with a
 * CONNECTION_CLOSE the clients receive.
 */
class QuicStopTest {

    @Test
    void aSoftStopKeepsServingLiveConnectionsTakesNoNewOneAndClosesWhenTheyAreGone() throws Exception {
        try (TestQuic server = new TestQuic(false, 0); TestQuic.Client c = server.connect(TestQuic.ALPN)) {
            assertThat(echo(c, "before")).isEqualTo("before");
            // an event the application ignores: the connection stays, as an HTTP/3 one with a request in progress
            server.listener.softStop("ignored");
            assertThat(echo(c, "during")).isEqualTo("during");
            try (TestQuic.Client late = server.connect(TestQuic.ALPN)) {
                assertThat(late.quic).as("no new connection while stopping").isNull();
            }
            assertThat(server.listener.counters().refusedWhileStopping()).isPositive();
            assertThat(server.listener.counters().connections()).isEqualTo(1);
            assertThat(server.listener.isClosed()).isFalse();
            c.quic.close().sync();
            await(server.listener::isClosed);
            assertThat(server.listener.counters().closingRecords()).isZero();
        }
    }

    @Test
    void aConnectionClosedOnSoftStopBecomesARecordThatHoldsTheSocketUntilItsDeadline() throws Exception {
        try (TestQuic server = new TestQuic(false, 0); TestQuic.Client c = server.connect(TestQuic.ALPN)) {
            CompletableFuture<QuicConnectionCloseEvent> closed = closeEvent(c);
            assertThat(echo(c, "x")).isEqualTo("x");
            long start = System.nanoTime();
            server.listener.softStop(TestQuic.CLOSE_EVENT);
            QuicConnectionCloseEvent e = closed.get(2, TimeUnit.SECONDS);
            assertThat(e.isApplicationClose()).isTrue();
            assertThat(e.error()).isEqualTo(TestQuic.APP_ERROR);
            await(() -> server.listener.counters().closingRecords() == 1);
            assertThat(live(server)).isZero();
            // the record (1 s with this client's max_ack_delay) keeps the socket open, then goes with it: whenever
            // the record was not freed yet (read after the other observation), the socket is open and lists it;
            // once the socket is closed, the record was freed (however late this loop looks)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (true) {
                boolean closedNow = server.listener.isClosed();
                int listed = closedNow ? -1 : count(server);
                boolean freed = server.listener.counters().recordsFreed() == 1;
                if (!freed) {
                    assertThat(closedNow).as("a closing record holds the socket").isFalse();
                    assertThat(listed).isEqualTo(1);
                }
                if (closedNow) {
                    assertThat(freed).as("the socket closed once its last record went").isTrue();
                    break;
                }
                assertThat(System.nanoTime()).as("the socket closes within 5 s").isLessThan(deadline);
                Thread.sleep(5);
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(ms).isGreaterThanOrEqualTo(900);
            assertThat(server.listener.counters().recordsFreed()).isEqualTo(1);
        }
    }

    @Test
    void aHardStopClosesEveryConnectionWithAConnectionCloseTheClientReceives() throws Exception {
        try (TestQuic server = new TestQuic(false, 0); TestQuic.Client c = server.connect(TestQuic.ALPN)) {
            CompletableFuture<QuicConnectionCloseEvent> closed = closeEvent(c);
            assertThat(echo(c, "x")).isEqualTo("x");
            server.listener.stop();
            // well before the client's 10 s idle timeout
            QuicConnectionCloseEvent e = closed.get(2, TimeUnit.SECONDS);
            assertThat(e.isApplicationClose()).isFalse();
            await(server.listener::isClosed);
        }
    }

    static CompletableFuture<QuicConnectionCloseEvent> closeEvent(TestQuic.Client c) {
        CompletableFuture<QuicConnectionCloseEvent> closeEvent = new CompletableFuture<>();
        c.quic.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof QuicConnectionCloseEvent e) {
                    closeEvent.complete(e);
                }
            }
        });
        return closeEvent;
    }
}
