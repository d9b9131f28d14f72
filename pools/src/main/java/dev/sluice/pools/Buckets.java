package dev.sluice.pools;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters of one {@link Pool} ({@code allocated}, {@code used}, the raw sliding sum behind
 * {@code needed_avg}, {@code failed}) spread over 2^bits buckets, each bucket alone on 128 bytes (its own
 * cache line and the adjacent one, for CPUs whose prefetcher pulls line pairs). An object's counters go to
 * the bucket of its identity hash, so an object allocated on one thread and released on another updates
 * the same bucket and per-bucket values stay consistent; {@code failed} has no object and goes to the
 * bucket of the failing thread's slot. Totals are sums read without locks: they may be briefly
 * inconsistent under load and are exact once writers are quiet. This is HAProxy's pool buckets design;
 * with 0 bits it degrades to one line of shared counters (the layout before it, kept for benchmarks).
 * Any thread may use it.
 *
 * <p>Layout: one {@code long[]} with a stride of 16 longs per bucket and one stride of padding before the
 * first bucket and after the last; array elements are contiguous, so unlike field padding this layout
 * does not depend on the JVM's field ordering.
 *
 * <p>Hash: {@code (identityHashCode * 0x9d28e4e9) >>> (32 - bits)}. HotSpot's default identity hashes
 * (thread-local xorshift) are already uniform, so every odd multiplier and even the raw low bits fill
 * buckets like a random function (bucket-hash survey in {@code bench/}, {@code BucketHashTest}). The
 * multiplier matters when identity hashes are structured (sequential with {@code -XX:hashCode=3},
 * address-derived with {@code -XX:hashCode=4}): among the candidates measured there, 0x9d28e4e9 (also
 * HAProxy's {@code ptr2_hash} constant) had the best worst case over 3- to 6-bit indexes, where raw low
 * bits of addresses fill only 12.5% of 8+ buckets.
 */
final class Buckets {
    static final int MULTIPLIER = 0x9d28e4e9;

    static final int ALLOCATED = 0;
    static final int USED = 1;
    static final int NEEDED = 2;
    static final int FAILED = 3;

    /** Window of the sliding average behind {@code needed_avg} (HAProxy's POOL_AVG_SAMPLES). */
    static final int AVG_SAMPLES = 1024;

    private static final int STRIDE = 16;
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] cells;
    private final int bits;
    private final int mask;

    Buckets(int bits) {
        if (bits < 0 || bits > 8) {
            throw new IllegalArgumentException("bucket bits must be between 0 and 8, not " + bits);
        }
        this.bits = bits;
        this.mask = (1 << bits) - 1;
        this.cells = new long[((1 << bits) + 2) * STRIDE];
    }

    /** Default number of bucket bits for this machine, as HAProxy sizes them by thread count. */
    static int defaultBits() {
        int threads = Runtime.getRuntime().availableProcessors();
        return threads < 16 ? 3 : threads < 128 ? 4 : threads < 512 ? 5 : 6;
    }

    int count() {
        return mask + 1;
    }

    /** Bucket of an identity hash on {@code bits} bits. */
    static int index(int identityHash, int bits) {
        // A shift by 32 is a shift by 0 in Java, hence the special case.
        return bits == 0 ? 0 : (identityHash * MULTIPLIER) >>> (32 - bits);
    }

    int of(Object o) {
        return index(System.identityHashCode(o), bits);
    }

    /** Bucket for counters not tied to an object ({@code failed}): the thread's slot. */
    int ofSlot(int slot) {
        return slot & mask;
    }

    /** Adds {@code delta} and returns the new value of the bucket's field. */
    long add(int bucket, int field, long delta) {
        return (long) CELLS.getAndAdd(cells, offset(bucket, field), delta) + delta;
    }

    long get(int bucket, int field) {
        return (long) CELLS.getOpaque(cells, offset(bucket, field));
    }

    long sum(int field) {
        long s = 0;
        for (int b = 0; b <= mask; b++) {
            s += (long) CELLS.getOpaque(cells, offset(b, field));
        }
        return s;
    }

    /**
     * Feeds one value of {@code used} to the bucket's sliding sum, counting it as {@code scale} samples
     * (HAProxy's {@code swrate_add_scaled_opportunistic}): one attempt, a lost race drops the sample rather
     * than retrying on a hot line.
     */
    void feedNeeded(int bucket, long used, int scale) {
        int i = offset(bucket, NEEDED);
        long old = (long) CELLS.getOpaque(cells, i);
        long next = old - (old * scale + AVG_SAMPLES - 1) / AVG_SAMPLES + used * scale;
        CELLS.weakCompareAndSet(cells, i, old, next);
    }

    /** {@code swrate_avg}: the average behind a raw sliding sum, rounded up. */
    static long average(long rawSum) {
        return (rawSum + AVG_SAMPLES - 1) / AVG_SAMPLES;
    }

    private static int offset(int bucket, int field) {
        return (bucket + 1) * STRIDE + field;
    }
}
