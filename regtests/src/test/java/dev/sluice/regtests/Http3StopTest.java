package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Stopping gracefully with HTTP/3 clients, as with HTTP/2 ones: on SIGUSR1 (or {@code -sf}) each HTTP/3
 * connection gets GOAWAY, its requests in progress finish, then it closes (H3_NO_ERROR); the QUIC sockets
 * stay open, taking no new connection, until no connection and no closing record remain, and the process
 * exits then (or at {@code hard-stop-after}). A new process started with {@code -sf} binds the same UDP port
 * (SO_REUSEPORT) and serves HTTP/3 there.
 */
class Http3StopTest {
    static TestPki.Issued cert;

    @BeforeAll
    static void pki() {
        cert = new TestPki("h3-stop-ca").leaf("localhost", "127.0.0.1");
    }

    private static String config(int port, int origin, String global, String frontend) {
        return """
                global
                    nbthread 2
                %s
                defaults
                    mode http
                    timeout client 30s
                    timeout server 30s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    bind quic4@127.0.0.1:%d ssl crt %s alpn h3
                %s
                    default_backend be
                backend be
                    server o1 127.0.0.1:%d
                """.formatted(global, port, port, cert.pem(), frontend, origin);
    }

    private static void signal(long pid, String sig) throws Exception {
        GracefulStopTest.signal(pid, sig);
    }

    /** An origin that answers /slow only once {@code release} opens, everything else at once (GracefulStopTest's). */
    private static Origin origin(CountDownLatch slowArrived, CountDownLatch release) {
        return GracefulStopTest.origin(slowArrived, release);
    }

    /**
     * A GET on its own connection, in the background (30 s to connect and idle: the client retries dropped Initials;
     * 30 s for the answer, not the client's usual 10: on a loaded CI machine the old process's exit and the new one's
     * first answers took longer once).
     */
    private static CompletableFuture<H3Client.Result> getAsync(int port, String path) {
        return CompletableFuture.supplyAsync(() -> {
            try (H3Client c = new H3Client(port, 25, 30_000, 30_000)) {
                return c.start(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", "127.0.0.1:" + port, ":path", path), null)
                        .get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void awaitClosed(Path adminSocket) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try {
                AdminClient.run(adminSocket, "show info\n");
            } catch (RuntimeException | AssertionError e) {
                // refused, or reset while the old process closes it (AdminClient reports a reset as an assertion)
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the old process was not told to stop");
    }

    @Test
    void aRequestInProgressFinishesIdleConnectionsGetGoAwayAndTheProcessExitsAfterTheLast() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Origin o = origin(arrived, release)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "", ""), port); H3Client idle = new H3Client(port);
                    H3Client busyClient = new H3Client(port, 25, 10_000, 30_000)) {
                assertThat(idle.send(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", "localhost", ":path", "/first"), null)
                        .status()).isEqualTo(200);
                CompletableFuture<H3Client.Result> busy = busyClient.start(
                        H3Client.fields(":method", "GET", ":scheme", "https", ":authority", "localhost", ":path", "/slow"), null);
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                signal(s.pid(), "USR1");
                // the idle connection: GOAWAY (its one request, on stream 0, was taken; nothing from 4 on), then
                // CONNECTION_CLOSE with H3_NO_ERROR
                assertThat(idle.goAway.get(5, TimeUnit.SECONDS)).isEqualTo(4L);
                QuicConnectionCloseEvent closed = idle.closed.get(5, TimeUnit.SECONDS);
                assertThat(closed.isApplicationClose()).isTrue();
                assertThat(closed.error()).as("H3_NO_ERROR").isEqualTo(0x100);
                // no new connection is taken while stopping (its packets are dropped)
                assertThatThrownBy(() -> new H3Client(port, 25, 1500).close()).isInstanceOf(Exception.class);
                assertThat(s.process().isAlive()).as("a request is still in progress").isTrue();
                release.countDown();
                H3Client.Result run = busy.get(30, TimeUnit.SECONDS);
                assertThat(run.status()).isEqualTo(200);
                assertThat(run.text()).isEqualTo("done /slow\n");
                // the busy connection got its GOAWAY too (its request on stream 0 taken: 4), then its close once
                // the request was done
                assertThat(busyClient.goAway.get(5, TimeUnit.SECONDS)).isEqualTo(4L);
                QuicConnectionCloseEvent busyClosed = busyClient.closed.get(5, TimeUnit.SECONDS);
                assertThat(busyClosed.isApplicationClose()).isTrue();
                assertThat(busyClosed.error()).as("H3_NO_ERROR").isEqualTo(0x100);
                assertThat(s.process().waitFor(10, TimeUnit.SECONDS)).as("the process exits with its last connection").isTrue();
                assertThat(s.process().exitValue()).isZero();
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void hardStopAfterClosesHttp3ConnectionsWithAConnectionClose() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Origin o = origin(arrived, release)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "    hard-stop-after 500ms", ""), port); H3Client busy = new H3Client(port)) {
                CompletableFuture<H3Client.Result> result = CompletableFuture.supplyAsync(() -> {
                    try {
                        return busy.send(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", "localhost", ":path", "/slow"), null);
                    } catch (Exception e) {
                        return null;
                    }
                });
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                long start = System.nanoTime();
                signal(s.pid(), "USR1");
                // at hard-stop-after the connection is closed with a CONNECTION_CLOSE, not left to the client's idle timeout
                QuicConnectionCloseEvent closed = busy.closed.get(5, TimeUnit.SECONDS);
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(400L, 4000L);
                assertThat(closed.error()).isZero();
                assertThat(s.process().waitFor(10, TimeUnit.SECONDS)).as("stopped at hard-stop-after").isTrue();
                H3Client.Result r = result.get(15, TimeUnit.SECONDS);
                assertThat(r == null || r.status() != 200).as("the request was cut").isTrue();
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void aNewProcessStartedWithSfServesHttp3OnTheSamePortWhileTheOldOneFinishes() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Origin o = origin(arrived, release)) {
            int port = Ports.free();
            Path oldAdmin = java.nio.file.Files.createTempDirectory("h3stop").resolve("old.sock");
            Path oldCfg = Sluice.writeConfig(config(port, o.port(), "    stats socket " + oldAdmin, "    http-response set-header x-gen 1"));
            Path newCfg = Sluice.writeConfig(config(port, o.port(), "", "    http-response set-header x-gen 2"));
            try (Sluice old = Sluice.start(oldCfg, List.of(), Map.of(), port)) {
                CompletableFuture<H3Client.Result> busy = getAsync(port, "/slow");
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                try (Sluice fresh = Sluice.start(newCfg, List.of("-sf", Long.toString(old.pid())), Map.of(), port)) {
                    // the TCP port answered (either process): wait until the new process told the old one to stop
                    // (it closes its stats socket then)
                    awaitClosed(oldAdmin);
                    // the new process bound the same UDP port (SO_REUSEPORT) beside the old one's sockets; the kernel
                    // spreads new clients over both, and the old one takes none: a client it drops retries, and
                    // reaches the new process (at the latest once the old one is gone)
                    List<CompletableFuture<H3Client.Result>> fresh4 = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        fresh4.add(getAsync(port, "/n" + i));
                    }
                    Thread.sleep(300);
                    assertThat(old.process().isAlive()).as("the old process still serves its request").isTrue();
                    release.countDown();
                    H3Client.Result slow = busy.get(30, TimeUnit.SECONDS);
                    assertThat(slow.status()).isEqualTo(200);
                    assertThat(slow.text()).isEqualTo("done /slow\n");
                    assertThat(slow.header("x-gen")).isEqualTo("1");
                    assertThat(old.process().waitFor(10, TimeUnit.SECONDS)).as("the old process exits").isTrue();
                    for (int i = 0; i < 4; i++) {
                        H3Client.Result r;
                        try {
                            r = fresh4.get(i).get(30, TimeUnit.SECONDS);
                        } catch (java.util.concurrent.TimeoutException e) {
                            // a client whose Initial the old process dropped retries on its backoff, which can outlast this
                            // wait on a loaded machine (seen once in a CI preview): the old one is gone now, so a new client
                            // reaches the new process, which is what this case is about
                            r = getAsync(port, "/n" + i).get(30, TimeUnit.SECONDS);
                        }
                        assertThat(r.status()).isEqualTo(200);
                        assertThat(r.header("x-gen")).isEqualTo("2");
                    }
                    assertThat(fresh.process().isAlive()).isTrue();
                }
            } finally {
                release.countDown();
            }
        }
    }

    /** Whether a UDP socket with SO_REUSEPORT can join {@code port} (only if every socket there has it too). */
    private static boolean canJoinWithReusePort(int port) throws Exception {
        try (java.nio.channels.DatagramChannel d = java.nio.channels.DatagramChannel.open()) {
            d.setOption(java.net.StandardSocketOptions.SO_REUSEPORT, true);
            d.bind(new java.net.InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (java.net.BindException e) {
            return false;
        }
    }

    @Test
    void noreuseportBindsTheQuicSocketWithoutSoReuseport() throws Exception {
        try (Origin o = Origin.start("o1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "", ""), port)) {
                assertThat(canJoinWithReusePort(port)).as("by default the QUIC sockets have SO_REUSEPORT").isTrue();
            }
            port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "    noreuseport", ""), port)) {
                assertThat(canJoinWithReusePort(port)).as("noreuseport: no other socket may join").isFalse();
                try (H3Client c = new H3Client(port)) {
                    assertThat(c.get("/one").status()).isEqualTo(200);
                }
            }
        }
    }
}
