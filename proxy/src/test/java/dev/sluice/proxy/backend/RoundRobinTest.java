package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Backends.picks;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code balance roundrobin} in HAProxy's order (its weighted round robin replayed), lock-free. */
class RoundRobinTest {

    /** A roundrobin backend with servers s1..sN of the given weights. */
    static Backend backend(int... weights) {
        return Backends.of("balance roundrobin\n" + Backends.servers("", weights));
    }

    /** The cycle (after the prefix) for these weights, as server names. */
    private static List<String> cycle(int... weights) {
        List<String> out = new ArrayList<>();
        for (int i : FwrrSchedule.of(weights).cycle()) {
            out.add("s" + (i + 1));
        }
        return out;
    }

    private static List<String> repeat(List<String> cycle, int times) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            out.addAll(cycle);
        }
        return out;
    }

    @Test
    void backendExposesItsServers() {
        Backend b = backend(1, 2);
        assertThat(b.servers()).extracting(Server::name).containsExactly("s1", "s2");
        assertThat(b.servers()).extracting(Server::id).containsExactly(1, 2);
        assertThat(b.servers()).extracting(Server::weight).containsExactly(1, 2);
        assertThat(b.servers().getFirst().backend()).isSameAs(b);
        assertThat(b.servers().getFirst().toString()).isEqualTo("be/s1");
        assertThat(b.lb()).isInstanceOf(RoundRobin.class);
    }

    @Test
    void equalWeightsGiveStrictDeclarationOrder() {
        assertThat(picks(backend(1, 1, 1, 1), 12)).isEqualTo(repeat(List.of("s1", "s2", "s3", "s4"), 3));
        assertThat(picks(backend(10, 10, 10), 9)).isEqualTo(repeat(List.of("s1", "s2", "s3"), 3));
        assertThat(picks(backend(256, 256), 4)).containsExactly("s1", "s2", "s1", "s2");
        assertThat(cycle(7, 7, 7)).containsExactly("s1", "s2", "s3");
    }

    @Test
    void singleServer() {
        assertThat(picks(backend(1), 3)).containsExactly("s1", "s1", "s1");
        assertThat(picks(backend(100), 3)).containsExactly("s1", "s1", "s1");
    }

    /** Recorded from HAProxy 2.6 ({@code balance roundrobin}, one request per connection), 24 requests each. */
    @ParameterizedTest(name = "weights {0}")
    @CsvSource(delimiterString = " => ", value = {
            "5 1 1     => s1 s1 s1 s2 s1 s1 s3 s1 s1 s1 s2 s1 s1 s3 s1 s1 s1 s2 s1 s1 s3 s1 s1 s1",
            "10 2 2    => s1 s1 s1 s2 s1 s1 s3 s1 s1 s1 s2 s1 s1 s3 s1 s1 s1 s2 s1 s1 s3 s1 s1 s1",
            "3 1 2 1   => s1 s3 s1 s2 s3 s1 s4 s1 s3 s1 s2 s3 s1 s4 s1 s3 s1 s2 s3 s1 s4 s1 s3 s1",
            "2 1       => s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2",
            "1 2       => s2 s2 s1 s2 s2 s1 s2 s2 s1 s2 s2 s1 s2 s2 s1 s2 s2 s1 s2 s2 s1 s2 s2 s1",
            "2 2 1     => s1 s2 s1 s2 s3 s1 s2 s1 s2 s3 s1 s2 s1 s2 s3 s1 s2 s1 s2 s3 s1 s2 s1 s2",
            "1 3       => s2 s2 s2 s1 s2 s2 s2 s1 s2 s2 s2 s1 s2 s2 s2 s1 s2 s2 s2 s1 s2 s2 s2 s1",
            "3 3 2     => s1 s2 s1 s2 s3 s1 s2 s1 s3 s2 s1 s2 s3 s1 s2 s1 s3 s2 s1 s2 s3 s1 s2 s1",
            "7 5 3 1   => s1 s2 s1 s3 s2 s1 s1 s2 s3 s1 s2 s1 s4 s1 s3 s2 s1 s2 s1 s3 s2 s1 s1 s2",
            "4 2       => s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2 s1 s1 s2",
            "1 0 1     => s1 s3 s1 s3 s1 s3 s1 s3 s1 s3 s1 s3 s1 s3 s1 s3 s1 s3 s1 s3 s1 s3 s1 s3",
            "0 2 0 1   => s2 s2 s4 s2 s2 s4 s2 s2 s4 s2 s2 s4 s2 s2 s4 s2 s2 s4 s2 s2 s4 s2 s2 s4",
            "0 5 1 1   => s2 s2 s2 s3 s2 s2 s4 s2 s2 s2 s3 s2 s2 s4 s2 s2 s2 s3 s2 s2 s4 s2 s2 s2",
    })
    void weightedOrderIsHaproxys(String weights, String expected) {
        int[] w = Arrays.stream(weights.split(" ")).mapToInt(Integer::parseInt).toArray();
        assertThat(String.join(" ", picks(backend(w), 24))).isEqualTo(expected);
    }

    @Test
    void weightsAreReducedByTheirGcd() {
        assertThat(cycle(10, 2, 2)).isEqualTo(cycle(5, 1, 1));
        assertThat(cycle(250, 50, 50)).isEqualTo(cycle(5, 1, 1));
        assertThat(cycle(5, 1, 1)).containsExactly("s1", "s1", "s1", "s2", "s1", "s1", "s3");
    }

    @Test
    void aFewWeightSetsStartWithAPrefix() {
        // HAProxy's first pick of 3:3:2 is out of its cycle: s1 | s2 s1 s2 s3 s1 s2 s1 s3 | s2 ...
        FwrrSchedule.Schedule s = FwrrSchedule.of(new int[] {3, 3, 2});
        assertThat(s.prefix()).containsExactly(0);
        assertThat(s.cycle()).containsExactly(1, 0, 1, 2, 0, 1, 0, 2);
    }

    private static final int[][] WEIGHT_SETS = {{1}, {1, 1}, {2, 1}, {5, 1, 1}, {3, 2, 1}, {1, 2, 3, 4}, {10, 1}, {7, 5, 3, 1},
        {256, 1, 1}, {100, 50, 25, 13, 7}, {3, 3, 2}, {9, 6, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, {17, 13, 11, 7, 5, 3, 2},
        {14, 4, 4, 20, 11, 11}, {256, 255, 254, 253}};

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    @Test
    void eachCycleGivesEveryServerItsWeight() {
        for (int[] w : WEIGHT_SETS) {
            int g = 0;
            int total = 0;
            for (int x : w) {
                g = gcd(g, x);
                total += x;
            }
            FwrrSchedule.Schedule sched = FwrrSchedule.of(w);
            assertThat(sched.prefix().length).as("prefix of %s", Arrays.toString(w)).isLessThanOrEqualTo(2);
            List<String> c = cycle(w);
            assertThat(c).as("cycle length of %s", Arrays.toString(w)).hasSize(total / g);
            // after the prefix, three cycles of picks: each is the cycle, with exactly weight/gcd picks of each server
            List<String> p = picks(backend(w), sched.prefix().length + 3 * c.size());
            p = p.subList(sched.prefix().length, p.size());
            for (int k = 0; k < 3; k++) {
                List<String> one = p.subList(k * c.size(), (k + 1) * c.size());
                assertThat(one).isEqualTo(c);
                for (int i = 0; i < w.length; i++) {
                    assertThat(Collections.frequency(one, "s" + (i + 1))).as("picks of s%d with %s", i + 1, Arrays.toString(w))
                        .isEqualTo(w[i] / g);
                }
            }
        }
    }

    @Test
    void allZeroWeightsGiveNoServer() {
        Backend b = backend(0, 0, 0);
        assertThat(b.pickServer()).isNull();
        assertThat(b.pickServer()).isNull();
        assertThat(b.servers()).noneMatch(Server::usable);
        assertThat(b.hasUsableServer()).isFalse();
        assertThat(cycle(0, 0)).isEmpty();
    }

    @Test
    void noServersGiveNoServer() {
        assertThat(Backends.of("balance roundrobin").pickServer()).isNull();
        assertThat(new RoundRobin(new Server[0]).pick()).isNull();
    }

    @Test
    void rebuildWithUnchangedWeightsKeepsTheRotation() {
        Backend b = backend(5, 1, 1);
        List<String> all = new ArrayList<>(picks(b, 3));
        b.lb().rebuild();
        all.addAll(picks(b, 4));
        assertThat(all).containsExactly("s1", "s1", "s1", "s2", "s1", "s1", "s3");
    }

    @Test
    void aServerGoingDownLeavesTheCycleAndComesBack() {
        Backend b = backend(1, 1, 1);
        Server s2 = Backends.server(b, "s2");
        s2.setUp(false);
        assertThat(picks(b, 4)).containsOnly("s1", "s3").contains("s1", "s3");
        s2.setUp(true);
        assertThat(picks(b, 6)).containsOnly("s1", "s2", "s3").hasSize(6);
        assertThat(Collections.frequency(picks(b, 30), "s2")).isEqualTo(10);
    }

    @Test
    void fullServersAreSkipped() {
        Backend b = Backends.of("balance roundrobin\nserver s1 maxconn 1\nserver s2\nserver s3");
        assertThat(picks(b, 3, false)).containsExactly("s1", "s2", "s3");
        // s1 holds its one request: the rotation passes it over
        assertThat(picks(b, 4, false)).containsExactly("s2", "s3", "s2", "s3");
        Backends.server(b, "s1").streamEnded();
        assertThat(picks(b, 3, false)).containsExactly("s1", "s2", "s3");
    }

    @Test
    void concurrentPicksKeepExactProportions() throws Exception {
        Backend b = backend(5, 1, 1);
        int threads = 8;
        int perThread = 7 * 1000;
        Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = Thread.ofPlatform().start(() -> {
                Map<String, Integer> local = new HashMap<>();
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                for (int i = 0; i < perThread; i++) {
                    Server s = b.pickServer();
                    local.merge(s.name(), 1, Integer::sum);
                    s.streamEnded();
                }
                local.forEach((k, v) -> counts.computeIfAbsent(k, x -> new LongAdder()).add(v));
            });
            ts.add(th);
        }
        start.countDown();
        for (Thread th : ts) {
            th.join();
        }
        long total = (long) threads * perThread;
        assertThat(counts.get("s1").sum()).isEqualTo(total * 5 / 7);
        assertThat(counts.get("s2").sum()).isEqualTo(total / 7);
        assertThat(counts.get("s3").sum()).isEqualTo(total / 7);
        assertThat(b.servers()).allSatisfy(s -> assertThat(s.activeStreams()).isZero());
        assertThat(b.served()).isZero();
    }

    @Test
    void manyServersEqualWeights() {
        int n = 50;
        int[] w = IntStream.generate(() -> 1).limit(n).toArray();
        List<String> p = picks(backend(w), 2 * n);
        for (int i = 0; i < 2 * n; i++) {
            assertThat(p.get(i)).isEqualTo("s" + (i % n + 1));
        }
    }

    /** Equal weights take a shortcut (no replay): the same prefix and cycle as the replay, left-out servers included. */
    @Test
    void equalWeightsShortcutIsTheReplay() {
        java.util.Random r = new java.util.Random(7);
        for (int n = 1; n <= 300; n += 1 + n / 10) {
            for (int w : new int[] {1 * 16, 7 * 16, 256 * 16, 5}) {
                int[] e = new int[n];
                for (int i = 0; i < n; i++) {
                    e[i] = r.nextInt(4) == 0 ? 0 : w;
                }
                long positive = java.util.Arrays.stream(e).filter(x -> x > 0).count();
                if (positive == 0) {
                    continue;
                }
                FwrrSchedule.Schedule fast = FwrrSchedule.ofEffective(e);
                FwrrSchedule.Schedule replayed = FwrrSchedule.replay(e, (int) positive);
                assertThat(fast.prefix()).as("n=%d w=%d", n, w).isEqualTo(replayed.prefix());
                assertThat(fast.cycle()).as("n=%d w=%d", n, w).isEqualTo(replayed.cycle());
            }
        }
    }
}
