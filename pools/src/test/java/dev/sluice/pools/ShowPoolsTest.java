package dev.sluice.pools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShowPoolsTest {

    private static PoolStats stats(String name, long size, long alloc, long used, long cached, long avg, long failed,
                                   int users, String id, boolean shared) {
        return new PoolStats(name, size, alloc, used, cached, avg, failed, users, id, shared);
    }

    private static final List<PoolStats> LINES = List.of(
            stats("h2s", 192, 38, 38, 16, 34, 0, 6, "0x55d333d58940", true),
            stats("stream", 1024, 0, 0, 0, 0, 0, 1, "0x2", true),
            stats("buffer", 16384, 4, 4, 2, 1, 0, 1, "0x55d333f472c0", true),
            stats("quic_cc_conn_closed", 256, 10, 3, 1, 5, 7, 1, "0x3", false));

    @Test
    void rendersHaproxysFormatInListOrder() {
        assertThat(ShowPools.render(LINES, ShowPoolsArgs.ALL)).isEqualTo("""
                Dumping pools usage. Use SIGQUIT to flush them.
                  - Pool h2s (192 bytes) : 38 allocated (7296 bytes), 38 used (~16 by thread caches), needed_avg 34, 0 failures, 6 users, @0x55d333d58940 [SHARED]
                  - Pool stream (1024 bytes) : 0 allocated (0 bytes), 0 used (~0 by thread caches), needed_avg 0, 0 failures, 1 users, @0x2 [SHARED]
                  - Pool buffer (16384 bytes) : 4 allocated (65536 bytes), 4 used (~2 by thread caches), needed_avg 1, 0 failures, 1 users, @0x55d333f472c0 [SHARED]
                  - Pool quic_cc_con (256 bytes) : 10 allocated (2560 bytes), 3 used (~1 by thread caches), needed_avg 5, 7 failures, 1 users, @0x3
                Total: 4 pools, 75392 bytes allocated, 73600 used (~36096 by thread caches).
                """);
    }

    @Test
    void sortsByNameSizeOrUsage() {
        assertThat(names(ShowPools.render(LINES, ShowPoolsArgs.parse(List.of("byname")))))
                .containsExactly("buffer", "h2s", "quic_cc_con", "stream");
        assertThat(names(ShowPools.render(LINES, ShowPoolsArgs.parse(List.of("bysize")))))
                .containsExactly("buffer", "stream", "quic_cc_con", "h2s");
        // byusage: by bytes allocated, and pools with nothing allocated are left out (and not counted).
        String usage = ShowPools.render(LINES, ShowPoolsArgs.parse(List.of("byusage")));
        assertThat(names(usage)).containsExactly("buffer", "h2s", "quic_cc_con");
        assertThat(usage).contains("Total: 3 pools, 75392 bytes allocated");
    }

    @Test
    void matchKeepsPoolsWhoseTruncatedNameStartsWithThePrefix() {
        List<PoolStats> l = new ArrayList<>(LINES);
        l.add(stats("h2c", 64, 1, 1, 0, 1, 0, 1, "0x4", true));
        String out = ShowPools.render(l, ShowPoolsArgs.parse(List.of("match", "h2")));
        assertThat(names(out)).containsExactly("h2s", "h2c");
        assertThat(out).endsWith("Total: 2 pools, 7360 bytes allocated, 7360 used (~3072 by thread caches).\n");
        // The name is matched as HAProxy stores it: 11 characters.
        assertThat(names(ShowPools.render(l, ShowPoolsArgs.parse(List.of("match", "quic_cc_con")))))
                .containsExactly("quic_cc_con");
        assertThat(names(ShowPools.render(l, ShowPoolsArgs.parse(List.of("match", "quic_cc_conn"))))).isEmpty();
    }

    @Test
    void aLimitPrintsTheFirstLinesCountsAllAndSumsThePrintedOnes() {
        String out = ShowPools.render(LINES, ShowPoolsArgs.parse(List.of("bysize", "2")));
        assertThat(out).isEqualTo("""
                Dumping pools usage (limited to the first 2 entries). Use SIGQUIT to flush them.
                  - Pool buffer (16384 bytes) : 4 allocated (65536 bytes), 4 used (~2 by thread caches), needed_avg 1, 0 failures, 1 users, @0x55d333f472c0 [SHARED]
                  - Pool stream (1024 bytes) : 0 allocated (0 bytes), 0 used (~0 by thread caches), needed_avg 0, 0 failures, 1 users, @0x2 [SHARED]
                Total: 4 pools, 65536 bytes allocated, 65536 used (~32768 by thread caches).
                """);
        // As in HAProxy, a limit equal to the number of pools also says "limited".
        assertThat(ShowPools.render(LINES, ShowPoolsArgs.parse(List.of("4")))).startsWith("Dumping pools usage (limited to the first 4 entries).");
        assertThat(ShowPools.render(LINES, ShowPoolsArgs.parse(List.of("5")))).startsWith("Dumping pools usage. Use");
    }

    @Test
    void parsesWordsInAnyOrderLikeHaproxy() {
        assertThat(ShowPoolsArgs.parse(List.of())).isEqualTo(ShowPoolsArgs.ALL);
        assertThat(ShowPoolsArgs.parse(List.of("12", "match", "h2", "byname", "byusage")))
                .isEqualTo(new ShowPoolsArgs(ShowPoolsArgs.Order.BY_USAGE, "h2", 12));
        assertThat(ShowPoolsArgs.parse(List.of("7abc")).max()).isEqualTo(7);
        assertThat(ShowPoolsArgs.parse(List.of("99999999999")).max()).isEqualTo(Integer.MAX_VALUE);
        for (List<String> bad : List.of(List.of("bogus"), List.of("match"), List.of("match", ""), List.of("-1"),
                List.of("ByName"))) {
            assertThatThrownBy(() -> ShowPoolsArgs.parse(bad)).isInstanceOf(PoolCommandException.class)
                    .hasMessage("Expects either 'byname', 'bysize', 'byusage', 'match <pfx>', or a max number of output lines.\n");
        }
    }

    @Test
    void rendersALiveRegistryWithExternalLines() {
        PoolRegistry r = new PoolRegistry();
        // One bucket: needed_avg is fed per bucket with that bucket's used count, so with several buckets
        // it depends on where the two objects hash.
        Pool<Item> p = r.create("item", Item.class, 40, () -> new Item(0), i -> { }, PoolOptions.DEFAULT.withBucketBits(0));
        Item a = p.alloc();
        p.alloc();
        p.release(a);
        r.addExternal(() -> List.of(stats("netty-direct", 1, 4_194_304, 1_048_576, 0, 0, 0, 1, "0x0", false)));
        String id = "0x" + Integer.toHexString(System.identityHashCode(p));
        assertThat(ShowPools.render(r, ShowPoolsArgs.ALL)).isEqualTo("""
                Dumping pools usage. Use SIGQUIT to flush them.
                  - Pool item (48 bytes) : 2 allocated (96 bytes), 2 used (~1 by thread caches), needed_avg 1, 0 failures, 1 users, @%s [SHARED]
                  - Pool netty-direc (1 bytes) : 4194304 allocated (4194304 bytes), 1048576 used (~0 by thread caches), needed_avg 0, 0 failures, 1 users, @0x0
                Total: 2 pools, 4194400 bytes allocated, 1048672 used (~48 by thread caches).
                """.formatted(id));
        // show info reads the same figures as the Total line.
        assertThat(r.totals().allocatedBytes()).isEqualTo(4194400);
        assertThat(r.totals().usedBytes()).isEqualTo(1048672);
    }

    private static List<String> names(String out) {
        return out.lines().filter(l -> l.startsWith("  - Pool ")).map(l -> l.substring(9, l.indexOf(" ("))).toList();
    }
}
