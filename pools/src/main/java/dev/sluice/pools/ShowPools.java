package dev.sluice.pools;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Renders {@code show pools} in HAProxy's format (its {@code dump_pools_to_trash}), from snapshots: a pure
 * function, so the admin socket (which prints it) and tests share it.
 *
 * <pre>
 * Dumping pools usage. Use SIGQUIT to flush them.
 *   - Pool h2s (192 bytes) : 38 allocated (7296 bytes), 38 used (~16 by thread caches), needed_avg 34, 0 failures, 6 users, @0x1b6d3586 [SHARED]
 * Total: 1 pools, 7296 bytes allocated, 7296 used (~3072 by thread caches).
 * </pre>
 *
 * As in HAProxy: names are cut to 11 characters (and matched and sorted that way); at most 1024 pools
 * are collected; {@code byusage} leaves out pools with nothing allocated; the header says
 * {@code (limited to the first N entries)} when at least N pools matched; the {@code Total} line counts
 * every matching pool but sums bytes over the printed ones only. Sorts are stable (HAProxy's qsort is not,
 * so ties may print in another order there).
 */
public final class ShowPools {
    /** HAProxy's POOLS_MAX_DUMPED_ENTRIES. */
    public static final int MAX_ENTRIES = 1024;

    /** HAProxy keeps 11 characters of a pool name (a 12-byte field with its terminator). */
    public static final int NAME_LENGTH = 11;

    private ShowPools() {
    }

    public static String render(PoolRegistry registry, ShowPoolsArgs args) {
        return render(registry.snapshot(), args);
    }

    public static String render(List<PoolStats> all, ShowPoolsArgs args) {
        List<PoolStats> lines = new ArrayList<>();
        for (PoolStats s : all) {
            if (lines.size() >= MAX_ENTRIES) {
                break;
            }
            if (args.order() == ShowPoolsArgs.Order.BY_USAGE && s.allocated() == 0) {
                continue;
            }
            if (args.prefix() != null && !shortName(s).startsWith(args.prefix())) {
                continue;
            }
            lines.add(s);
        }
        switch (args.order()) {
            case BY_NAME -> lines.sort(Comparator.comparing(ShowPools::shortName));
            case BY_SIZE -> lines.sort(Comparator.comparingLong(PoolStats::size).reversed());
            case BY_USAGE -> lines.sort(Comparator.comparingLong(PoolStats::allocatedBytes).reversed());
            case LIST -> { }
        }
        int max = args.max() == 0 || args.max() >= MAX_ENTRIES ? MAX_ENTRIES : args.max();
        StringBuilder out = new StringBuilder("Dumping pools usage");
        if (lines.size() >= max) {
            out.append(" (limited to the first ").append(max).append(" entries)");
        }
        out.append(". Use SIGQUIT to flush them.\n");
        long allocated = 0;
        long used = 0;
        long cached = 0;
        for (int i = 0; i < lines.size() && i < max; i++) {
            PoolStats s = lines.get(i);
            out.append("  - Pool ").append(shortName(s)).append(" (").append(s.size()).append(" bytes) : ")
                    .append(s.allocated()).append(" allocated (").append(s.allocatedBytes()).append(" bytes), ")
                    .append(s.used()).append(" used (~").append(s.cached()).append(" by thread caches), needed_avg ")
                    .append(s.neededAvg()).append(", ").append(s.failed()).append(" failures, ")
                    .append(s.users()).append(" users, @").append(s.id()).append(s.shared() ? " [SHARED]" : "")
                    .append('\n');
            allocated += s.allocatedBytes();
            used += s.usedBytes();
            cached += s.cachedBytes();
        }
        out.append("Total: ").append(lines.size()).append(" pools, ").append(allocated).append(" bytes allocated, ")
                .append(used).append(" used (~").append(cached).append(" by thread caches).\n");
        return out.toString();
    }

    private static String shortName(PoolStats s) {
        String n = s.name();
        return n.length() > NAME_LENGTH ? n.substring(0, NAME_LENGTH) : n;
    }
}
