package dev.sluice.config;

import dev.sluice.config.model.CpuMap;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Global keywords about the process itself that HAProxy takes with a {@code no} in front too: {@code set-dumpable}
 * (core dumps allowed again after the identity change), {@code insecure-fork-wanted} (starting other programs allowed),
 * and {@code cpu-map} (pinning the event-loop threads to CPUs), read with HAProxy 2.6's rules and messages. Registered
 * once at start-up; the parsers run on the parsing thread.
 */
final class CpuKeywords {
    private CpuKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);
    /** The global keywords HAProxy 2.6 takes with "no" (those Sluice has), and its message for the others. */
    static final Set<String> NEGATABLE = Set.of("set-dumpable", "insecure-fork-wanted");
    static final String NOT_NEGATABLE = "negation/default currently supported only for options, log, busy-polling, set-dumpable,"
            + " strict-limits, insecure-fork-wanted and numa-cpu-mapping.";
    /** HAProxy's bounds on a 64-bit machine: thread numbers 1 to 64 (LONGBITS), CPUs 0 to 1023 (CPU_SETSIZE). */
    private static final int MAX_THREADS = 64;
    private static final int MAX_CPUS = 1024;

    static void register(KeywordRegistry r) {
        r.register(new Keyword("set-dumpable", GLOBAL, "[no] set-dumpable",
                "Let the process dump core: once it runs as its user, its core and file size limits are raised to the most allowed"
                        + " and it is marked dumpable again (prctl), as HAProxy does; failures are warnings.",
                c -> {
                    if (c.atMost(0)) {
                        c.global().dumpable = !c.negated();
                    }
                }));
        r.register(new Keyword("insecure-fork-wanted", GLOBAL, "[no] insecure-fork-wanted",
                "Allow the process to start other programs (HAProxy refuses external checks without it).", c -> {
                    if (c.atMost(0)) {
                        c.global().insecureForkWanted = !c.negated();
                    }
                }));
        r.register(new Keyword("profiling.tasks", GLOBAL, "profiling.tasks on|auto|off",
                "HAProxy's per-task CPU and latency accounting. Read with HAProxy's values; Sluice has no per-task clock: with 'on',"
                        + " a notice says so, and cpu_ns_avg|tot and lat_ns_avg|tot stay 0 as HAProxy's do with it off (its default).",
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    String v = c.args().isEmpty() ? "" : c.args().get(0);
                    switch (v) {
                        case "on" -> c.notice("Sluice has no per-task CPU accounting: cpu_ns_avg|tot and lat_ns_avg|tot stay 0.");
                        case "auto", "off" -> {
                        }
                        default -> c.lineError("'profiling.tasks' expects either 'on', 'auto', or 'off' but got '" + v + "'.");
                    }
                }));
        r.register(new Keyword("cpu-map", GLOBAL, "cpu-map [auto:]<process>[/<thread-set>] <cpu-set>...",
                "Pin event-loop threads to CPUs (sched_setaffinity): '1' or '1/1' maps every thread, '1/<threads>' the threads named"
                        + " (1 to 64, ranges, all, odd, even); CPUs are numbers or ranges from 0 to 1023; with 'auto:' the n-th thread"
                        + " gets the n-th CPU. The JVM's own threads (garbage collector, compiler) are not pinned.",
                CpuKeywords::cpuMap));
    }

    private static void cpuMap(KeywordContext c) {
        List<String> a = c.args();
        if (a.size() < 2 || a.get(0).isEmpty() || a.get(1).isEmpty()) {
            c.lineError("cpu-map expects a process number  ('all', 'odd', 'even', a number from 1 to " + MAX_THREADS + " or a range), "
                    + " followed by a list of CPU ranges with numbers from 0 to " + (MAX_THREADS - 1) + ".");
            return;
        }
        String spec = a.get(0);
        boolean auto = spec.startsWith("auto:");
        if (auto) {
            spec = spec.substring(5);
        }
        int slash = spec.indexOf('/');
        BitSet proc = numbers(c, slash < 0 ? spec : spec.substring(0, slash));
        if (proc == null) {
            return;
        }
        BitSet threads = new BitSet();
        if (slash >= 0) {
            threads = numbers(c, spec.substring(slash + 1));
            if (threads == null) {
                return;
            }
        }
        BitSet cpus = new BitSet();
        for (String set : a.subList(1, a.size())) {
            if (set.isEmpty() || !Character.isDigit(set.charAt(0))) {
                c.lineError("cpu-map : '" + set + "' is not a CPU range.");
                return;
            }
            int dash = set.indexOf('-');
            long low = leadingNumber(set);
            long high = dash < 0 ? low : dash + 1 == set.length() ? MAX_CPUS - 1 : leadingNumber(set.substring(dash + 1));
            if (high < low) {
                long t = low;
                low = high;
                high = t;
            }
            if (high >= MAX_CPUS) {
                c.lineError("cpu-map : supports CPU numbers from 0 to " + (MAX_CPUS - 1) + ".");
                return;
            }
            cpus.set((int) low, (int) high + 1);
        }
        if (auto && proc.cardinality() != cpus.cardinality() && threads.cardinality() != cpus.cardinality()) {
            c.lineError("cpu-map : PROC/THREAD range and CPU sets must have the same size to be automatically bound");
            return;
        }
        // as HAProxy 2.6: no thread set, or thread 1 alone, maps the whole process; other process numbers than 1 are
        // ignored (there is one process since 2.5)
        if (!proc.get(0)) {
            return;
        }
        if (threads.isEmpty() || threads.cardinality() == 1 && threads.get(0)) {
            threads = new BitSet();
        }
        c.global().cpuMaps.add(new CpuMap(threads, cpus, auto));
    }

    /** HAProxy's {@code parse_process_number}: all, odd, even, n, n-m, n- (to 64); bit n-1 for n. Null after an error. */
    private static BitSet numbers(KeywordContext c, String s) {
        BitSet out = new BitSet();
        switch (s) {
            case "all" -> out.set(0, MAX_THREADS);
            case "odd", "even" -> {
                for (int i = s.equals("odd") ? 0 : 1; i < MAX_THREADS; i += 2) {
                    out.set(i);
                }
            }
            default -> {
                int dash = -1;
                for (int i = 0; i < s.length(); i++) {
                    char ch = s.charAt(i);
                    if (ch == '-' && dash < 0) {
                        dash = i;
                    } else if (!Character.isDigit(ch)) {
                        c.lineError("cpu-map : '" + s + "' is not a valid number/range.");
                        return null;
                    }
                }
                long low = leadingNumber(s);
                long high = dash < 0 ? low : dash + 1 == s.length() ? MAX_THREADS : leadingNumber(s.substring(dash + 1));
                if (high < low) {
                    long t = low;
                    low = high;
                    high = t;
                }
                if (low < 1 || low > MAX_THREADS || high > MAX_THREADS) {
                    c.lineError("cpu-map : '" + s + "' is not a valid number/range. It supports numbers from 1 to " + MAX_THREADS + ".");
                    return null;
                }
                out.set((int) low - 1, (int) high);
            }
        }
        return out;
    }

    /** The digits at the start of {@code s} as a number (0 when none), saturated. */
    private static long leadingNumber(String s) {
        long v = 0;
        for (int i = 0; i < s.length() && Character.isDigit(s.charAt(i)); i++) {
            v = Math.min(v * 10 + (s.charAt(i) - '0'), Integer.MAX_VALUE);
        }
        return v;
    }
}
