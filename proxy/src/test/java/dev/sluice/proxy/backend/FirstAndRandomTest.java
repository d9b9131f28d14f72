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
        assertThat(b.served()).isZero();
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

    @Test
    void randomAvoidsThePreviousServerInEveryDraw() {
        // HAProxy's get_server_rnd hands srvtoavoid to each draw: a retry moving on never lands on it again
        for (String algo : List.of("random(1)", "random", "random(5)")) {
            Backend b = Backends.of("balance " + algo + "\n" + Backends.servers("", 1, 3, 1));
            Server s2 = server(b, "s2");
            for (int i = 0; i < 2000; i++) {
                Server s = b.pickServer(null, s2);
                assertThat(s).as(algo).isNotNull().isNotSameAs(s2);
                s.streamEnded();
            }
            assertThat(b.served()).isZero();
        }
        // alone, it is chosen again
        Backend one = Backends.of("balance random\nserver s1");
        Server s1 = server(one, "s1");
        assertThat(one.pickServer(null, s1)).isSameAs(s1);
    }

    @Test
    void ringLookupAvoidingGoesToTheNextPointOfAnotherServer() {
        Backend b = Backends.of("balance random\n" + Backends.servers("", 1, 2, 1));
        ConsistentRing ring = new ConsistentRing(b.servers().toArray(new Server[0]), false);
        java.util.Random rnd = new java.util.Random(42);
        for (int i = 0; i < 5000; i++) {
            int h = rnd.nextInt();
            Server closest = ring.lookup(h);
            Server other = closest == server(b, "s1") ? server(b, "s3") : server(b, "s1");
            // avoiding another server changes nothing; avoiding the closest one gives another server
            assertThat(ring.lookup(h, other)).isSameAs(closest);
            assertThat(ring.lookup(h, closest)).isNotNull().isNotSameAs(closest);
            assertThat(ring.lookup(h, null)).isSameAs(closest);
        }
    }

    @Test
    void twoDrawsGoToTheIdleServerUnlessBothLandOnTheBusyOne() {
        // random(2) with s1 at its maxconn: a draw on s2 wins (fewer served); both draws on s1 keep s1, which is full,
        // so the request gets no server (HAProxy queues it in the backend) rather than s2
        Backend b = Backends.of("balance random\nserver s1 maxconn 1\nserver s2");
        Server s1 = server(b, "s1");
        assertThat(s1.tryTake()).isTrue();
        List<String> p = picks(b, 4000);
        assertThat(p).doesNotContain("s1");
        int none = Collections.frequency(p, null);
        assertThat(none).isGreaterThan(0);
        assertThat(Collections.frequency(p, "s2")).isGreaterThan(none);
        // many draws: practically always the idle one
        Backend many = Backends.of("balance random(30)\nserver s1 maxconn 1\nserver s2");
        assertThat(server(many, "s1").tryTake()).isTrue();
        assertThat(picks(many, 2000)).containsOnly("s2");
    }

    @Test
    void randomWeightsFollowTheRingShare() {
        // random(1) is a weighted random pick: each server gets the share of the ring its points cover
        Backend b = Backends.of("balance random(1)\n" + Backends.servers("", 1, 2, 5));
        ConsistentRing ring = new ConsistentRing(b.servers().toArray(new Server[0]), false);
        java.util.Map<Server, Integer> byRing = new java.util.HashMap<>();
        java.util.Random rnd = new java.util.Random(7);
        for (int i = 0; i < 40_000; i++) {
            byRing.merge(ring.lookup(rnd.nextInt()), 1, Integer::sum);
        }
        List<String> p = picks(b, 40_000);
        for (String n : List.of("s1", "s2", "s3")) {
            double expected = byRing.get(server(b, n)) / 40_000.0;
            assertThat(Collections.frequency(p, n) / 40_000.0).as(n).isCloseTo(expected, org.assertj.core.data.Offset.offset(0.02));
        }
        assertThat(byRing.get(server(b, "s3"))).isGreaterThan(byRing.get(server(b, "s2"))).isGreaterThan(byRing.get(server(b, "s1")));
    }
}
