package dev.sluice.pools;

/**
 * One line of {@code show pools}: a snapshot of one pool's counters, or of memory reported by an
 * {@link ExternalPools} source in the same terms. Immutable.
 *
 * @param name the pool's name (printed truncated to 11 characters, as HAProxy stores it)
 * @param size bytes per object
 * @param allocated objects allocated (created and not released to the GC)
 * @param used objects in use, including those in thread caches
 * @param cached objects in thread caches (approximate)
 * @param neededAvg sliding average of {@code used}
 * @param failed allocations refused
 * @param users registrations sharing the pool
 * @param id what {@code @} prints: HAProxy prints the pool's address; Sluice its identity hash
 * @param shared true when other registrations may merge into the pool ({@code [SHARED]})
 */
public record PoolStats(String name, long size, long allocated, long used, long cached, long neededAvg,
                        long failed, int users, String id, boolean shared) {

    public long allocatedBytes() {
        return size * allocated;
    }

    public long usedBytes() {
        return size * used;
    }

    public long cachedBytes() {
        return size * cached;
    }
}
