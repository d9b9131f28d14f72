package dev.sluice.pools;

import java.util.Objects;

/**
 * A named count of live objects that are not recycled, held to the registry's memory ceiling like pool
 * objects: {@link #take()} before creating one (false, counted in {@code failed}, when the ceiling has no
 * room for {@code size} more bytes), {@link #give()} exactly once when it is gone. It is what a
 * {@link Pool} does without caches, for objects whose construction needs arguments or that a measurement
 * showed are cheaper allocated than recycled (see the proxy's pools in docs/design.md); {@code show pools}
 * prints it as a pool with nothing cached, so the operator still sees how many exist and how much memory
 * they stand for, and the ceiling still bounds them. Created by {@link PoolRegistry#budget}.
 *
 * <p>Counters sit in {@link Buckets} chosen by the calling thread's slot: take and give usually run on the
 * same event loop; when they do not, a bucket may go negative but the sums stay exact. Any thread.
 */
public final class Budget {
    private final String name;
    private final int size;
    private final PoolRegistry registry;
    private final Buckets buckets;

    Budget(String name, int size, PoolRegistry registry, int bucketBits) {
        this.name = Objects.requireNonNull(name);
        this.size = size;
        this.registry = registry;
        this.buckets = new Buckets(bucketBits);
    }

    /** Counts one more object, or returns false (and counts a failure) when the memory ceiling is reached. */
    public boolean take() {
        int b = bucket();
        if (!registry.reserve(size)) {
            buckets.add(b, Buckets.FAILED, 1);
            return false;
        }
        buckets.add(b, Buckets.ALLOCATED, 1);
        long used = buckets.add(b, Buckets.USED, 1) - 1;
        buckets.feedNeeded(b, used, Buckets.AVG_SAMPLES / 4);
        return true;
    }

    /** One object counted by {@link #take()} is gone. */
    public void give() {
        int b = bucket();
        buckets.add(b, Buckets.ALLOCATED, -1);
        long used = buckets.add(b, Buckets.USED, -1);
        buckets.feedNeeded(b, Math.max(0, used), 1);
        registry.unreserve(size);
    }

    private int bucket() {
        int slot = ThreadSlots.current(true);
        return buckets.ofSlot(slot >= 0 ? slot : (int) Thread.currentThread().threadId());
    }

    public String name() {
        return name;
    }

    /** Bytes each object stands for (an estimate of what it keeps alive, the figure the ceiling counts). */
    public int size() {
        return size;
    }

    /** Objects counted now. */
    public long used() {
        return buckets.sum(Buckets.USED);
    }

    public long failed() {
        return buckets.sum(Buckets.FAILED);
    }

    public long neededAvg() {
        return Math.max(0, Buckets.average(buckets.sum(Buckets.NEEDED)));
    }

    public PoolStats stats() {
        long used = used();
        return new PoolStats(name, size, used, used, 0, neededAvg(), failed(), 1,
                "0x" + Integer.toHexString(System.identityHashCode(this)), false);
    }

    @Override
    public String toString() {
        return "Budget " + name + " (" + size + " bytes)";
    }
}
