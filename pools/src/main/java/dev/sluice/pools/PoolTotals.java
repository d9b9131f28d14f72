package dev.sluice.pools;

/**
 * Pool totals for {@code show info} ({@code Memmax_MB}, {@code PoolAlloc_MB}, {@code PoolUsed_MB},
 * {@code PoolFailed}, and the {@code _bytes} forms) and the Prometheus output: sums over every pool and
 * external source of a {@link PoolRegistry}, the same figures as the {@code Total:} line of an unfiltered
 * {@code show pools}. Immutable.
 *
 * @param allocatedBytes bytes allocated in pools
 * @param usedBytes bytes in use (including thread caches)
 * @param failed failed allocations
 * @param memoryLimitBytes the memory ceiling, 0 when unlimited
 */
public record PoolTotals(long allocatedBytes, long usedBytes, long failed, long memoryLimitBytes) {

    private static final long MB = 1024 * 1024;

    /** {@code PoolAlloc_MB}: whole megabytes, truncated as HAProxy does. */
    public long poolAllocMb() {
        return allocatedBytes / MB;
    }

    /** {@code PoolUsed_MB}. */
    public long poolUsedMb() {
        return usedBytes / MB;
    }

    /** {@code PoolFailed}. */
    public long poolFailed() {
        return failed;
    }

    /** {@code Memmax_MB}: the {@code -m} value, 0 when unlimited. */
    public long memmaxMb() {
        return memoryLimitBytes / MB;
    }
}
