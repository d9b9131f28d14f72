package dev.sluice.config.model;

import java.util.BitSet;

/**
 * One {@code cpu-map} line as HAProxy 2.6 reads it: the threads it maps ({@code threads}: bit {@code n-1} for thread
 * {@code n}; empty for the whole process) and the CPUs they may run on, each thread on all of them, or with
 * {@code auto:} the n-th thread of the set on the n-th CPU of the set.
 */
public record CpuMap(BitSet threads, BitSet cpus, boolean auto) {
    public CpuMap {
        threads = (BitSet) threads.clone();
        cpus = (BitSet) cpus.clone();
    }

    @Override
    public BitSet threads() {
        return (BitSet) threads.clone();
    }

    @Override
    public BitSet cpus() {
        return (BitSet) cpus.clone();
    }

    /** Whether this line maps the process as a whole ({@code cpu-map 1 ...} or {@code cpu-map 1/1 ...}). */
    public boolean wholeProcess() {
        return threads.isEmpty();
    }

    /**
     * The CPUs each of {@code threads} event-loop threads is pinned to (an empty set: not pinned), as HAProxy 2.6 combines
     * the lines in order: a later line replaces what an earlier one said of the same threads; a thread's own set is
     * narrowed to the process's when both exist, and a thread without one takes the process's.
     */
    public static java.util.List<BitSet> perThread(java.util.List<CpuMap> maps, int threads) {
        BitSet proc = new BitSet();
        BitSet[] own = new BitSet[64];
        for (CpuMap m : maps) {
            BitSet left = m.cpus();
            if (m.wholeProcess()) {
                proc = m.auto() ? first(left) : left;
                continue;
            }
            for (int j = m.threads.nextSetBit(0); j >= 0 && j < own.length; j = m.threads.nextSetBit(j + 1)) {
                if (m.auto()) {
                    BitSet one = first(left);
                    left.andNot(one);
                    own[j] = one;
                } else {
                    own[j] = m.cpus();
                }
            }
        }
        java.util.List<BitSet> out = new java.util.ArrayList<>();
        for (int j = 0; j < threads; j++) {
            BitSet t = j < own.length && own[j] != null ? (BitSet) own[j].clone() : new BitSet();
            if (!proc.isEmpty()) {
                t.and(proc);
                if (t.isEmpty()) {
                    t = (BitSet) proc.clone();
                }
            }
            out.add(t);
        }
        return out;
    }

    private static BitSet first(BitSet s) {
        BitSet one = new BitSet();
        int f = s.nextSetBit(0);
        if (f >= 0) {
            one.set(f);
        }
        return one;
    }
}
