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
 * @param allocatedBytes bytes allocated: {@code size x allocated} for a pool; an external source, whose
 *                       objects differ in size (Netty's buffers), gives its own figure
 * @param usedBytes bytes in use, likewise
 * @param cachedBytes bytes in thread caches, likewise
 */
public record PoolStats(String name, long size, long allocated, long used, long cached, long neededAvg,
                        long failed, int users, String id, boolean shared, long allocatedBytes, long usedBytes,
                        long cachedBytes) {

    /** The line of a pool of same-sized objects: the byte figures are the counts times {@code size}. */
    public PoolStats(String name, long size, long allocated, long used, long cached, long neededAvg, long failed,
                     int users, String id, boolean shared) {
        this(name, size, allocated, used, cached, neededAvg, failed, users, id, shared, size * allocated, size * used,
                size * cached);
    }
}
