package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A graceful stop (SIGUSR1, or a new process started with {@code -sf}) as HAProxy does it: the listeners
 * close (a new process may already listen on the same ports), idle connections close at once, a request in
 * progress gets its whole response with {@code Connection: close}, and the process exits with its last
 * connection, or at {@code hard-stop-after}.
 */
class GracefulStopTest {

    private static String config(int port, int origin, String global) {
        return """
                global
                %s
                defaults
                    mode http
                    timeout client 30s
                    timeout server 30s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    server o1 127.0.0.1:%d
                """.formatted(global, port, origin);
    }

    static void signal(long pid, String sig) throws Exception {
        assertThat(new ProcessBuilder(Program.KILL.require(), "-" + sig, Long.toString(pid)).start().waitFor()).isZero();
    }

    /** An origin that answers /slow only once {@code release} opens, everything else at once. */
    static Origin origin(CountDownLatch slowArrived, CountDownLatch release) {
        return Origin.start("o1", (r, out) -> {
            if (r.target().equals("/slow")) {
                slowArrived.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Origin.respond(out, 200, "OK", Origin.headers(), ("done " + r.target() + "\n").getBytes(StandardCharsets.US_ASCII));
            return true;
        });
    }

    static boolean connects(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void idleConnectionsCloseAndARequestInProgressFinishesBeforeTheProcessExits() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Origin o = origin(arrived, release)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), ""), port);
                    RawClient idle = new RawClient(port);
                    RawClient busy = new RawClient(port)) {
                assertThat(idle.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                busy.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                signal(s.pid(), "USR1");
                // the idle keep-alive connection is closed by the proxy, without waiting for its timeout
                assertThat(idle.closedByPeerBeforeTimeout()).isTrue();
                for (int i = 0; i < 100 && connects(port); i++) {
                    Thread.sleep(20);
                }
                assertThat(connects(port)).as("the listener is closed").isFalse();
                assertThat(s.process().isAlive()).as("a request is still in progress").isTrue();
                release.countDown();
                RawClient.Response r = busy.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("done /slow\n");
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(s.process().waitFor(10, TimeUnit.SECONDS)).as("the process exits with its last connection").isTrue();
            }
        }
    }

    /**
     * Over HTTP/2 the stop is announced with GOAWAY NO_ERROR whose last stream id covers the stream in
     * progress: the client knows that stream will complete and that new ones go to a new connection; the
     * stream completes, then the connection closes and the process exits.
     */
    @Test
    void http2ClientsGetGoAwayAndTheStreamInProgressCompletes() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Origin o = origin(arrived, release)) {
            int port = Ports.free();
            String cfg = config(port, o.port(), "").replace("bind 127.0.0.1:" + port, "bind 127.0.0.1:" + port + " proto h2");
            try (Sluice s = Sluice.start(cfg, port); H2RawClient c = new H2RawClient(port)) {
                c.headers(1, true, MalformedHttp2Test.fields(":path=/first"));
                assertThat(c.decode(c.awaitStream(1)).status().toString()).isEqualTo("200");
                assertThat(new String(c.body(1), StandardCharsets.US_ASCII)).isEqualTo("done /first\n");
                c.headers(3, true, MalformedHttp2Test.fields(":path=/slow"));
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                signal(s.pid(), "USR1");
                H2RawClient.Frame g = c.awaitGoAway();
                assertThat(g).as("GOAWAY").isNotNull();
                assertThat(g.errorCode()).as("NO_ERROR").isZero();
                assertThat(g.lastStreamId()).as("last stream id").isEqualTo(3);
                for (int i = 0; i < 100 && connects(port); i++) {
                    Thread.sleep(20);
                }
                assertThat(connects(port)).as("the listener is closed").isFalse();
                assertThat(s.process().isAlive()).as("a stream is still in progress").isTrue();
                release.countDown();
                H2RawClient.Frame h = c.awaitStream(3);
                assertThat(h.type()).isEqualTo(H2RawClient.HEADERS);
                assertThat(c.decode(h).status().toString()).isEqualTo("200");
                assertThat(new String(c.body(3), StandardCharsets.US_ASCII)).isEqualTo("done /slow\n");
                assertThat(c.drain(10000)).as("the connection closes after its last stream").isTrue();
                assertThat(s.process().waitFor(10, TimeUnit.SECONDS)).as("the process exits with its last connection").isTrue();
            } finally {
                release.countDown();
            }
        }
    }

    /**
     * A connection accepted before the stop whose request comes after it is answered (Connection: close), as HAProxy
     * answers it: only connections idle after an exchange close at once. A client sends its request a round trip after
     * the handshake, so at every reload some connections are in this state; closing them would lose their requests.
     */
    @Test
    void aConnectionAcceptedBeforeTheStopStillGetsItsFirstRequestAnswered() throws Exception {
        String cfg = """
                defaults
                    mode http
                    timeout client 30s
                    timeout server 30s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string ok
                """;
        int port = Ports.free();
        String haproxy = Program.HAPROXY.require();
        Path hcfg = Sluice.writeConfig(cfg.formatted(port));
        Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                .redirectOutput(hcfg.resolveSibling("haproxy.log").toFile()).start();
        try {
            SocketHandoverTest.awaitPort("127.0.0.1", port, h);
            assertThat(lateFirstRequest(port, h.pid())).as("HAProxy").isEqualTo("200 close");
            assertThat(h.waitFor(10, TimeUnit.SECONDS)).as("HAProxy exits after it").isTrue();
        } finally {
            h.destroy();
        }
        int port2 = Ports.free();
        try (Sluice s = Sluice.start(cfg.formatted(port2), port2)) {
            assertThat(lateFirstRequest(port2, s.pid())).as("Sluice").isEqualTo("200 close");
            assertThat(s.process().waitFor(10, TimeUnit.SECONDS)).as("Sluice exits after it").isTrue();
        }
    }

    /** Connects, lets the process stop (SIGUSR1), then sends a request: its status and Connection header. */
    private static String lateFirstRequest(int port, long pid) throws Exception {
        try (RawClient c = new RawClient(port)) {
            // accepted by now
            Thread.sleep(300);
            signal(pid, "USR1");
            for (int i = 0; i < 100 && connects(port); i++) {
                Thread.sleep(20);
            }
            assertThat(connects(port)).as("the listener is closed").isFalse();
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read();
            return r.status() + " " + r.header("connection");
        }
    }

    @Test
    void hardStopAfterBoundsTheWait() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Origin o = origin(arrived, release)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "    hard-stop-after 500ms"), port); RawClient busy = new RawClient(port)) {
                busy.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                signal(s.pid(), "USR1");
                assertThat(s.process().waitFor(10, TimeUnit.SECONDS)).as("stopped at hard-stop-after").isTrue();
                assertThat(busy.closedByPeerBeforeTimeout()).isTrue();
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void aNewProcessTakesTheSamePortWithSfWhileTheOldOneFinishes() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Origin o = origin(arrived, release)) {
            int port = Ports.free();
            Path cfg = Sluice.writeConfig(config(port, o.port(), ""));
            try (Sluice old = Sluice.start(cfg, List.of(), Map.of(), port); RawClient busy = new RawClient(port)) {
                busy.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                try (Sluice fresh = Sluice.start(cfg, List.of("-sf", Long.toString(old.pid())), Map.of(), port)) {
                    // new connections reach the new process once the old one closed its listener
                    CompletableFuture<Boolean> oldExited = old.process().onExit().thenApply(p -> true);
                    for (int i = 0; i < 20; i++) {
                        try (RawClient c = new RawClient(port)) {
                            assertThat(c.send("GET /n" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                        }
                    }
                    assertThat(old.process().isAlive()).as("the old process still serves its request").isTrue();
                    release.countDown();
                    assertThat(busy.read().status()).isEqualTo(200);
                    assertThat(oldExited.get(10, TimeUnit.SECONDS)).isTrue();
                    assertThat(fresh.process().isAlive()).isTrue();
                }
            } finally {
                release.countDown();
            }
        }
    }
}
