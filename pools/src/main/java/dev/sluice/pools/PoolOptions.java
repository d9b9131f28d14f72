package dev.sluice.pools;

/**
 * How a {@link Pool} is built beyond its name, size and factory. Immutable. {@link #AUTO} picks the
 * default described on each field. Pools merge only when their options are equal.
 *
 * @param limit most objects allocated at once (HAProxy's pool {@code limit}); 0 for no limit
 * @param minAvail spare objects releases keep whatever the average need (HAProxy's {@code minavail});
 *                 {@link PoolRegistry#gc()} drops them too
 * @param exact true to keep the size as given and never merge with another pool (HAProxy's
 *              {@code MEM_F_EXACT}); false rounds the size up to 16 bytes and lets pools of the same
 *              object type and size merge (reported {@code [SHARED]})
 * @param threadCacheItems objects each thread may keep in its own cache of this pool, rounded down to a
 *                         power of two; 0 disables thread caches; AUTO: 128 kB worth, between 8 and 1024
 * @param sharedCapacity capacity of the shared lock-free cache, rounded up to a power of two (at least 2);
 *                       AUTO: 4 MB worth, between 64 and 4096
 * @param bucketBits counters are spread over 2^bucketBits buckets; 0 keeps them on one shared line;
 *                   AUTO: 3 bits below 16 CPUs, then 4, 5, 6 as HAProxy sizes them by thread count
 * @param lookup how a thread finds its cache
 */
public record PoolOptions(long limit, int minAvail, boolean exact, int threadCacheItems, int sharedCapacity,
                          int bucketBits, ThreadCacheLookup lookup) {

    /** How a thread finds its cache (see {@code ThreadSlots}; compared in {@code PoolBench}). */
    public enum ThreadCacheLookup {
        /** A {@link ThreadLocal} lookup per operation. */
        THREAD_LOCAL,
        /** A direct-mapped table indexed by {@link Thread#threadId()}, ThreadLocal on collisions. */
        THREAD_ID
    }

    public static final int AUTO = -1;

    public static final PoolOptions DEFAULT =
            new PoolOptions(0, 0, false, AUTO, AUTO, AUTO, ThreadCacheLookup.THREAD_ID);

    public PoolOptions {
        if (limit < 0 || minAvail < 0) {
            throw new IllegalArgumentException("limit and minAvail must be >= 0");
        }
        if (threadCacheItems < AUTO || threadCacheItems > 65536) {
            throw new IllegalArgumentException("threadCacheItems must be AUTO or between 0 and 65536, not " + threadCacheItems);
        }
        if (sharedCapacity != AUTO && (sharedCapacity < 0 || sharedCapacity > (1 << 24))) {
            throw new IllegalArgumentException("sharedCapacity must be AUTO or between 0 and 2^24, not " + sharedCapacity);
        }
        if (bucketBits < AUTO || bucketBits > 8) {
            throw new IllegalArgumentException("bucketBits must be AUTO or between 0 and 8, not " + bucketBits);
        }
        if (lookup == null) {
            throw new IllegalArgumentException("lookup is required");
        }
    }

    public PoolOptions withLimit(long n) {
        return new PoolOptions(n, minAvail, exact, threadCacheItems, sharedCapacity, bucketBits, lookup);
    }

    public PoolOptions withMinAvail(int n) {
        return new PoolOptions(limit, n, exact, threadCacheItems, sharedCapacity, bucketBits, lookup);
    }

    public PoolOptions withExact(boolean e) {
        return new PoolOptions(limit, minAvail, e, threadCacheItems, sharedCapacity, bucketBits, lookup);
    }

    public PoolOptions withThreadCacheItems(int n) {
        return new PoolOptions(limit, minAvail, exact, n, sharedCapacity, bucketBits, lookup);
    }

    public PoolOptions withSharedCapacity(int n) {
        return new PoolOptions(limit, minAvail, exact, threadCacheItems, n, bucketBits, lookup);
    }

    public PoolOptions withBucketBits(int n) {
        return new PoolOptions(limit, minAvail, exact, threadCacheItems, sharedCapacity, n, lookup);
    }

    public PoolOptions withLookup(ThreadCacheLookup l) {
        return new PoolOptions(limit, minAvail, exact, threadCacheItems, sharedCapacity, bucketBits, l);
    }

    int resolvedThreadCacheItems(int size) {
        int n = threadCacheItems == AUTO ? Math.clamp(128 * 1024 / Math.max(size, 1), 8, 1024) : threadCacheItems;
        return n == 0 ? 0 : Integer.highestOneBit(n);
    }

    int resolvedSharedCapacity(int size) {
        int n = sharedCapacity == AUTO ? Math.clamp(4 * 1024 * 1024 / Math.max(size, 1), 64, 4096) : sharedCapacity;
        return n == 0 ? 0 : Math.max(2, Integer.highestOneBit(n - 1) << 1);
    }

    int resolvedBucketBits() {
        return bucketBits == AUTO ? Buckets.defaultBits() : bucketBits;
    }
}
