package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Backends.picks;
import static dev.sluice.proxy.backend.Backends.server;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@code balance leastconn}: fewest current requests per weight, HAProxy's tree order among equals. */
class LeastConnTest {

    @Test
    void sequentialRequestsRotate() {
        Backend b = Backends.of("balance leastconn\n" + Backends.servers("", 1, 1, 1, 1));
        assertThat(picks(b, 9)).containsExactly("s1", "s2", "s3", "s4", "s1", "s2", "s3", "s4", "s1");
    }

    @Test
    void busyServersArePassedOver() {
        Backend b = Backends.of("balance leastconn\n" + Backends.servers("", 1, 1, 1));
        Server held = b.pickServer();
        assertThat(held.name()).isEqualTo("s1");
        // s1 holds one request: the others alternate, in the order they were last used
        assertThat(picks(b, 5)).containsExactly("s2", "s3", "s2", "s3", "s2");
        held.streamEnded();
        // s1 was released last: s3 and s2 come first
        assertThat(picks(b, 3)).containsExactly("s3", "s2", "s1");
    }

    @Test
    void concurrentRequestsSpreadByCount() {
        Backend b = Backends.of("balance leastconn\n" + Backends.servers("", 1, 1, 1));
        assertThat(picks(b, 6, false)).containsExactly("s1", "s2", "s3", "s1", "s2", "s3");
        assertThat(b.servers()).extracting(Server::activeStreams).containsExactly(2, 2, 2);
        server(b, "s2").streamEnded();
        server(b, "s2").streamEnded();
        assertThat(picks(b, 3, false)).containsExactly("s2", "s2", "s1");
    }

    @Test
    void weightsScaleTheCount() {
        // keys (n + 1) * 256 / weight: s1 at 512 with one request; s2 (weight 3) reaches 512 with four, then the tie
        // goes to the server whose load changed first (s1)
        Backend b = Backends.of("balance leastconn\n" + Backends.servers("", 1, 3));
        List<String> p = picks(b, 8, false);
        assertThat(p).containsExactly("s1", "s2", "s2", "s2", "s2", "s2", "s1", "s2");
        // effective weights: user weight times 16
        assertThat(LeastConn.key(0, 16)).isZero();
        assertThat(LeastConn.key(1, 16)).isEqualTo(512);
        assertThat(LeastConn.key(2, 48)).isEqualTo(256);
    }

    @Test
    void maxconnIsRespected() {
        Backend b = Backends.of("balance leastconn\nserver s1 maxconn 1\nserver s2 maxconn 2");
        assertThat(picks(b, 4, false)).containsExactly("s1", "s2", "s2", null);
    }

    @Test
    void manyThreadsNeverExceedMaxconn() throws Exception {
        Backend b = Backends.of("balance leastconn\nserver s1 maxconn 3\nserver s2 maxconn 3\nserver s3 maxconn 3");
        AtomicInteger over = new AtomicInteger();
        AtomicInteger got = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                for (int i = 0; i < 20_000; i++) {
                    Server s = b.pickServer();
                    if (s == null) {
                        continue;
                    }
                    got.incrementAndGet();
                    if (s.activeStreams() > 3) {
                        over.incrementAndGet();
                    }
                    s.streamEnded();
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(over.get()).isZero();
        assertThat(got.get()).isPositive();
        assertThat(b.servers()).allSatisfy(s -> assertThat(s.activeStreams()).isZero());
    }
}
