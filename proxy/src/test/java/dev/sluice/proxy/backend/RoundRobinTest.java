package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Balance;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.config.model.Timeouts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Smooth weighted round robin as HAProxy's {@code balance roundrobin} orders it. */
class RoundRobinTest {

    /** A backend with servers s1..sN of the given weights, built the way the runtime builds it. */
    static Backend backend(int... weights) {
        Proxy config = new Proxy("be", ProxyKind.BACKEND, new SourceRef("test.cfg", 1), Mode.HTTP, List.of(), 0, Timeouts.NONE,
            new HttpOptions(HttpOptions.ConnectionMode.KEEP_ALIVE, null), List.of(), List.of(), List.of(), List.of(), List.of(), null,
            Balance.DEFAULT,
            List.of(), dev.sluice.config.model.Logging.NONE, dev.sluice.config.model.ErrorPages.NONE);
        List<Backend.ResolvedServer> servers = new ArrayList<>();
        for (int i = 0; i < weights.length; i++) {
            servers.add(new Backend.ResolvedServer("s" + (i + 1), new InetSocketAddress(InetAddress.getLoopbackAddress(), 8001 + i),
                weights[i], false));
        }
        return new Backend(config, servers, 1, null);
    }

    private static List<String> picks(Backend b, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Server s = b.pickServer();
            out.add(s == null ? null : s.name());
        }
        return out;
    }

    private static List<String> names(String... n) {
        return List.of(n);
    }

    private static List<String> repeat(List<String> cycle, int times) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            out.addAll(cycle);
        }
        return out;
    }

    /** The schedule of one cycle, as server names. */
    private static List<String> cycle(int... weights) {
        Backend b = backend(weights);
        Server[] servers = b.servers().toArray(new Server[0]);
        int[] s = RoundRobin.buildSchedule(servers);
        List<String> out = new ArrayList<>();
        for (int i : s) {
            out.add(servers[i].name());
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
    }

    @Test
    void equalWeightsGiveStrictDeclarationOrder() {
        assertThat(picks(backend(1, 1, 1, 1), 12)).isEqualTo(repeat(names("s1", "s2", "s3", "s4"), 3));
        assertThat(picks(backend(10, 10, 10), 9)).isEqualTo(repeat(names("s1", "s2", "s3"), 3));
        assertThat(picks(backend(256, 256), 4)).isEqualTo(names("s1", "s2", "s1", "s2"));
    }

    @Test
    void equalWeightsCycleIsOnePickPerServer() {
        assertThat(cycle(1, 1, 1, 1)).containsExactly("s1", "s2", "s3", "s4");
        assertThat(cycle(7, 7, 7)).containsExactly("s1", "s2", "s3");
    }

    @Test
    void singleServer() {
        assertThat(picks(backend(1), 3)).containsExactly("s1", "s1", "s1");
        assertThat(picks(backend(100), 3)).containsExactly("s1", "s1", "s1");
    }

    @Test
    void fiveOneOneIsSmooth() {
        List<String> expected = names("s1", "s1", "s2", "s1", "s3", "s1", "s1");
        assertThat(cycle(5, 1, 1)).isEqualTo(expected);
        assertThat(picks(backend(5, 1, 1), 21)).isEqualTo(repeat(expected, 3));
        // weights are reduced by their gcd: the same schedule
        assertThat(cycle(10, 2, 2)).isEqualTo(expected);
        assertThat(cycle(250, 50, 50)).isEqualTo(expected);
    }

    @Test
    void smallWeightedSchedules() {
        assertThat(cycle(2, 1)).containsExactly("s1", "s2", "s1");
        assertThat(cycle(3, 1)).containsExactly("s1", "s1", "s2", "s1");
        assertThat(cycle(1, 2)).containsExactly("s2", "s1", "s2");
        // a tie goes to the first declared server
        assertThat(cycle(1, 3)).containsExactly("s2", "s1", "s2", "s2");
        assertThat(cycle(2, 2, 1)).containsExactly("s1", "s2", "s3", "s1", "s2");
        assertThat(cycle(4, 2)).containsExactly("s1", "s2", "s1");
    }

    private static final int[][] WEIGHT_SETS = {{1}, {1, 1}, {2, 1}, {5, 1, 1}, {3, 2, 1}, {1, 2, 3, 4}, {10, 1}, {7, 5, 3, 1},
        {256, 1, 1}, {100, 50, 25, 13, 7}, {3, 3, 2}, {9, 6, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, {17, 13, 11, 7, 5, 3, 2}};

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
            List<String> c = cycle(w);
            assertThat(c).as("cycle length of %s", java.util.Arrays.toString(w)).hasSize(total / g);
            // three cycles of picks: each cycle holds exactly weight/gcd picks of each server
            List<String> p = picks(backend(w), 3 * c.size());
            for (int k = 0; k < 3; k++) {
                List<String> one = p.subList(k * c.size(), (k + 1) * c.size());
                assertThat(one).isEqualTo(c);
                for (int i = 0; i < w.length; i++) {
                    assertThat(Collections.frequency(one, "s" + (i + 1))).as("picks of s%d with %s", i + 1, java.util.Arrays.toString(w))
                        .isEqualTo(w[i] / g);
                }
            }
        }
    }

    @Test
    void schedulesAreSmooth() {
        for (int[] w : WEIGHT_SETS) {
            int g = 0;
            int total = 0;
            for (int x : w) {
                g = gcd(g, x);
                total += x;
            }
            List<String> c = cycle(w);
            int len = total / g;
            for (int i = 0; i < w.length; i++) {
                String name = "s" + (i + 1);
                int wi = w[i] / g;
                // never more in a row than its share allows: ceil(w / (everything else)) within a cycle
                int others = len - wi;
                int longest = 0;
                int run = 0;
                for (String s : c) {
                    run = s.equals(name) ? run + 1 : 0;
                    longest = Math.max(longest, run);
                }
                int allowed = others == 0 ? len : (wi + others - 1) / others;
                assertThat(longest).as("longest run of %s in %s: %s", name, java.util.Arrays.toString(w), c).isLessThanOrEqualTo(allowed);
                // the picks of a server spread over the cycle: after k picks it had its share of them, rounded either way
                int count = 0;
                for (int k = 1; k <= len; k++) {
                    if (c.get(k - 1).equals(name)) {
                        count++;
                    }
                    double share = (double) k * wi / len;
                    assertThat((double) count).as("%s after %d picks in %s: %s", name, k, java.util.Arrays.toString(w), c)
                        .isBetween(Math.floor(share) - 1, Math.ceil(share) + 1);
                }
            }
        }
    }

    @Test
    void heaviestServerStartsAndTiesGoToTheFirstDeclared() {
        assertThat(cycle(1, 5, 1).getFirst()).isEqualTo("s2");
        assertThat(cycle(3, 3, 1).subList(0, 2)).containsExactly("s1", "s2");
        assertThat(cycle(1, 3, 3).subList(0, 2)).containsExactly("s2", "s3");
    }

    @Test
    void zeroWeightServersAreNeverPicked() {
        assertThat(picks(backend(1, 0, 1), 6)).containsExactly("s1", "s3", "s1", "s3", "s1", "s3");
        assertThat(picks(backend(0, 2, 0, 1), 6)).containsExactly("s2", "s4", "s2", "s2", "s4", "s2");
        assertThat(cycle(0, 5, 1, 1)).containsExactly("s2", "s2", "s3", "s2", "s4", "s2", "s2");
        assertThat(picks(backend(0, 0, 3), 3)).containsExactly("s3", "s3", "s3");
    }

    @Test
    void allZeroWeightsGiveNoServer() {
        Backend b = backend(0, 0, 0);
        assertThat(b.pickServer()).isNull();
        assertThat(b.pickServer()).isNull();
        assertThat(b.servers()).noneMatch(Server::usable);
        assertThat(cycle(0, 0)).isEmpty();
    }

    @Test
    void noServersGiveNoServer() {
        assertThat(backend().pickServer()).isNull();
        assertThat(new RoundRobin(new Server[0]).pick()).isNull();
    }

    @Test
    void rebuildWithUnchangedWeightsKeepsTheRotation() {
        Backend b = backend(5, 1, 1);
        Server[] servers = b.servers().toArray(new Server[0]);
        RoundRobin rr = new RoundRobin(servers);
        List<String> before = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            before.add(rr.pick().name());
        }
        rr.rebuild();
        List<String> after = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            after.add(rr.pick().name());
        }
        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        assertThat(all).containsExactly("s1", "s1", "s2", "s1", "s3", "s1", "s1");
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
                    local.merge(b.pickServer().name(), 1, Integer::sum);
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
}
