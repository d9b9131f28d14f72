package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Backends.picks;
import static dev.sluice.proxy.backend.Backends.server;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@code balance first} and {@code balance random(<draws>)}. */
class FirstAndRandomTest {

    @Test
    void firstFillsTheLowestIdFirst() {
        Backend b = Backends.of("balance first\nserver s1 maxconn 2\nserver s2 maxconn 1\nserver s3 maxconn 2");
        assertThat(picks(b, 6, false)).containsExactly("s1", "s1", "s2", "s3", "s3", null);
        server(b, "s2").streamEnded();
        assertThat(picks(b, 1, false)).containsExactly("s2");
        server(b, "s1").streamEnded();
        assertThat(picks(b, 1, false)).containsExactly("s1");
    }

    @Test
    void firstOrdersByIdNotDeclaration() {
        Backend b = Backends.of("balance first\nserver a id 4 maxconn 1\nserver b id 3 maxconn 1\nserver c maxconn 1");
        // HAProxy's numbering: the counter moves on with every server, so c gets 5 (3 and 4 are taken)
        assertThat(b.servers()).extracting(Server::id).containsExactly(4, 3, 5);
        assertThat(picks(b, 4, false)).containsExactly("b", "a", "c", null);
    }

    @Test
    void firstWithoutMaxconnAlwaysTakesTheFirst() {
        Backend b = Backends.of("balance first\n" + Backends.servers("", 1, 5, 9));
        assertThat(picks(b, 5, false)).containsOnly("s1");
    }

    @Test
    void firstUnderContentionNeverOverfills() throws Exception {
        Backend b = Backends.of("balance first\nserver s1 maxconn 2\nserver s2 maxconn 2\nserver s3 maxconn 2");
        AtomicInteger over = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                for (int i = 0; i < 20_000; i++) {
                    Server s = b.pickServer();
                    if (s != null) {
                        if (s.activeStreams() > 2) {
                            over.incrementAndGet();
                        }
                        s.streamEnded();
                    }
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(over.get()).isZero();
        assertThat(b.activeStreams()).isZero();
    }

    @Test
    void randomRespectsWeights() {
        Backend b = Backends.of("balance random(1)\n" + Backends.servers("", 1, 3));
        List<String> p = picks(b, 20_000);
        int s2 = Collections.frequency(p, "s2");
        assertThat(s2).isBetween(12_000, 18_000);
    }

    @Test
    void twoDrawsAvoidTheLoadedServer() {
        // one draw lands on s2 with the share of the ring s2 covers (not exactly a half with 16 points each)
        Backend one = Backends.of("balance random(1)\n" + Backends.servers("", 1, 1));
        for (int i = 0; i < 50; i++) {
            server(one, "s1").streamStarted();
        }
        double share = Collections.frequency(picks(one, 20_000), "s2") / 20_000.0;
        assertThat(share).isBetween(0.25, 0.75);
        // two draws: the idle s2 wins unless both draws land on the loaded s1
        Backend b = Backends.of("balance random\n" + Backends.servers("", 1, 1));
        Server s1 = server(b, "s1");
        for (int i = 0; i < 50; i++) {
            s1.streamStarted();
        }
        double toS2 = Collections.frequency(picks(b, 20_000), "s2") / 20_000.0;
        assertThat(toS2).isCloseTo(1 - (1 - share) * (1 - share), org.assertj.core.data.Offset.offset(0.03));
    }

    @Test
    void manyDrawsConvergeToLeastLoaded() {
        Backend b = Backends.of("balance random(10)\n" + Backends.servers("", 1, 1, 1, 1));
        List<String> p = picks(b, 4000, false);
        for (String s : List.of("s1", "s2", "s3", "s4")) {
            assertThat(Collections.frequency(p, s)).isBetween(900, 1100);
        }
    }

    @Test
    void randomGivesNoServerWhenTheChosenOneIsFull() {
        Backend b = Backends.of("balance random(1)\nserver s1 maxconn 1");
        assertThat(picks(b, 2, false)).containsExactly("s1", null);
    }
}
