package dev.sluice.pools;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jctools.queues.MpmcArrayQueue;

/**
 * A named pool of reusable objects of one type (HAProxy's {@code pool_head}), created by a
 * {@link PoolRegistry}. Any thread may allocate and release; an object may be released on another thread
 * than the one that allocated it.
 *
 * <p>{@link #alloc()} takes the most recently released object of the calling thread's cache (no
 * synchronisation, no counter update), else refills that cache with a cluster from the shared lock-free
 * cache, else creates a new object with the factory, unless the pool's limit or the registry's memory
 * ceiling forbids it: then it returns null and counts a failure, and the caller answers 503 or refuses
 * the connection. {@link #release(Object)} runs the reset step and pushes the object on the thread's
 * cache; a full cache evicts a cluster of its oldest objects, which go to the shared cache while the pool
 * holds fewer than 1.25 x {@code needed_avg} objects (or fewer than {@code minAvail} spares) and are
 * otherwise dropped for the GC.
 *
 * <p>Counters: {@code allocated} (objects created and not dropped), {@code used} (objects handed out or
 * sitting in thread caches, as in HAProxy), {@code needed_avg} (sliding average of {@code used} over
 * 1024 samples, fed on creations as 256 samples and on evictions and drops as one) and {@code failed},
 * spread over {@link Buckets}. Thread caches are per pool and capped in objects, not HAProxy's per-thread
 * byte budget with an LRU across pools.
 *
 * @param <T> the pooled type
 */
public final class Pool<T> {
    private final String name;
    private final Class<T> type;
    private final int size;
    private final Supplier<? extends T> factory;
    private final Consumer<? super T> reset;
    private final PoolOptions options;
    private final PoolRegistry registry;
    private final List<String> users = new CopyOnWriteArrayList<>();

    private final Buckets buckets;
    /** Null when the options disable the shared cache. */
    private final MpmcArrayQueue<T> shared;
    /** Indexed by thread slot; each element is created, then only touched, by its slot's owner. */
    private final ThreadCache[] caches;
    private final int cacheCapacity;
    /** Objects moved at once between a thread cache and the shared cache (HAProxy: 8). */
    private final int cluster;
    private final boolean byThreadId;

    Pool(String name, Class<T> type, int size, Supplier<? extends T> factory, Consumer<? super T> reset,
         PoolOptions options, PoolRegistry registry) {
        this.name = name;
        this.type = type;
        this.size = size;
        this.factory = factory;
        this.reset = reset;
        this.options = options;
        this.registry = registry;
        this.users.add(name);
        this.buckets = new Buckets(options.resolvedBucketBits());
        int sharedCapacity = options.resolvedSharedCapacity(size);
        this.shared = sharedCapacity == 0 ? null : new MpmcArrayQueue<>(sharedCapacity);
        this.cacheCapacity = options.resolvedThreadCacheItems(size);
        this.caches = cacheCapacity == 0 ? null : new ThreadCache[ThreadSlots.MAX];
        this.cluster = Math.clamp(cacheCapacity / 2, 1, 8);
        this.byThreadId = options.lookup() == PoolOptions.ThreadCacheLookup.THREAD_ID;
    }

    /**
     * An object for the caller's exclusive use until it passes it to {@link #release(Object)}, or null
     * when the pool's limit or the memory ceiling is reached (counted in {@code failed}).
     */
    @SuppressWarnings("unchecked")
    public T alloc() {
        int slot = ThreadSlots.current(byThreadId);
        ThreadCache c = cache(slot);
        if (c != null) {
            Object o = c.pop();
            if (o != null) {
                return (T) o;
            }
            T t = refill(c);
            if (t != null) {
                return t;
            }
        } else if (shared != null) {
            T t = shared.poll();
            if (t != null) {
                buckets.add(buckets.of(t), Buckets.USED, 1);
                return t;
            }
        }
        return create(slot);
    }

    /**
     * Gives an object back. It must come from this pool's {@link #alloc()} and not be used afterwards
     * (releasing one object twice hands it out twice: not detected). If the reset step throws, the object
     * is dropped (the counters stay exact) and the exception propagates.
     */
    public void release(T obj) {
        Objects.requireNonNull(obj, "released object");
        try {
            reset.accept(obj);
        } catch (RuntimeException | Error e) {
            int b = buckets.of(obj);
            buckets.add(b, Buckets.USED, -1);
            drop(b);
            throw e;
        }
        ThreadCache c = cache(ThreadSlots.current(byThreadId));
        if (c != null) {
            if (c.isFull()) {
                evict(c, cluster);
            }
            c.push(obj);
            return;
        }
        long budget = keepBudget();
        int b = buckets.of(obj);
        long used = buckets.add(b, Buckets.USED, -1);
        buckets.feedNeeded(b, used, 1);
        if (budget <= 0 || shared == null || !shared.offer(obj)) {
            drop(b);
        }
    }

    private ThreadCache cache(int slot) {
        if (slot < 0 || caches == null) {
            return null;
        }
        ThreadCache c = caches[slot];
        if (c == null) {
            c = new ThreadCache(cacheCapacity);
            caches[slot] = c;
        }
        return c;
    }

    /** Moves up to one cluster from the shared cache into {@code c}, returning one of them. */
    private T refill(ThreadCache c) {
        if (shared == null) {
            return null;
        }
        T first = shared.poll();
        if (first == null) {
            return null;
        }
        buckets.add(buckets.of(first), Buckets.USED, 1);
        for (int i = 1; i < cluster; i++) {
            T o = shared.poll();
            if (o == null) {
                break;
            }
            buckets.add(buckets.of(o), Buckets.USED, 1);
            c.push(o);
        }
        return first;
    }

    private T create(int slot) {
        long limit = options.limit();
        if (limit > 0 && buckets.sum(Buckets.ALLOCATED) >= limit) {
            return fail(slot);
        }
        if (!registry.reserve(size)) {
            return fail(slot);
        }
        T t;
        try {
            t = factory.get();
        } catch (OutOfMemoryError e) {
            registry.unreserve(size);
            return fail(slot);
        } catch (RuntimeException | Error e) {
            registry.unreserve(size);
            throw e;
        }
        if (t == null) {
            registry.unreserve(size);
            throw new IllegalStateException("the factory of pool " + name + " returned null");
        }
        int b = buckets.of(t);
        buckets.add(b, Buckets.ALLOCATED, 1);
        long used = buckets.add(b, Buckets.USED, 1) - 1;
        buckets.feedNeeded(b, used, Buckets.AVG_SAMPLES / 4);
        return t;
    }

    private T fail(int slot) {
        int b = slot >= 0 ? buckets.ofSlot(slot) : buckets.ofSlot((int) Thread.currentThread().threadId());
        buckets.add(b, Buckets.FAILED, 1);
        return null;
    }

    /** Takes up to {@code n} of the oldest objects out of {@code c}: to the shared cache or dropped. */
    @SuppressWarnings("unchecked")
    private void evict(ThreadCache c, int n) {
        long budget = keepBudget();
        for (int i = 0; i < n && c.count > 0; i++) {
            T o = (T) c.removeOldest();
            int b = buckets.of(o);
            long used = buckets.add(b, Buckets.USED, -1);
            buckets.feedNeeded(b, used, 1);
            if (i >= budget || shared == null || !shared.offer(o)) {
                drop(b);
            }
        }
    }

    private void drop(int bucket) {
        buckets.add(bucket, Buckets.ALLOCATED, -1);
        registry.unreserve(size);
    }

    /**
     * How many released objects may go to the shared cache rather than to the GC (HAProxy's
     * {@code pool_releasable}): all while fewer than 1.25 x needed_avg objects are allocated, else only
     * what brings the spares up to {@code minAvail}. Reads every bucket, so it runs once per cluster.
     */
    long keepBudget() {
        long alloc = buckets.sum(Buckets.ALLOCATED);
        long used = buckets.sum(Buckets.USED);
        if (used > alloc) {
            alloc = used;
        }
        long neededRaw = buckets.sum(Buckets.NEEDED);
        if (alloc < Buckets.average(neededRaw + neededRaw / 4)) {
            return used;
        }
        long spares = alloc - used;
        return spares < options.minAvail() ? options.minAvail() - spares : 0;
    }

    /**
     * Drops every shared spare, {@code minAvail} included (HAProxy's {@code pool_flush}; its {@code pool_gc}
     * keeps {@code minAvail}: see {@link PoolRegistry#gc()} for why Sluice does not).
     */
    void dropSpares() {
        if (shared == null) {
            return;
        }
        T o;
        while ((o = shared.poll()) != null) {
            drop(buckets.of(o));
        }
    }

    /** Empties the cache of a slot whose owner died (called under the slot lock). */
    void drainDeadSlot(int slot) {
        ThreadCache c = caches == null ? null : caches[slot];
        if (c != null && c.count > 0) {
            evict(c, c.count);
        }
    }

    /**
     * Drops every object of the calling thread's cache (not to the shared cache: to the GC). Only the owner
     * may touch its cache, so each thread that holds one runs this for itself; a thread without a slot or
     * without a cache of this pool has nothing to drop and is not given a slot.
     */
    @SuppressWarnings("unchecked")
    void dropOwnCache() {
        int slot = ThreadSlots.currentIfAny(byThreadId);
        ThreadCache c = slot < 0 || caches == null ? null : caches[slot];
        if (c == null) {
            return;
        }
        while (c.count > 0) {
            T o = (T) c.removeOldest();
            int b = buckets.of(o);
            long used = buckets.add(b, Buckets.USED, -1);
            buckets.feedNeeded(b, used, 1);
            drop(b);
        }
    }

    void addUser(String registration) {
        users.add(registration);
    }

    public String name() {
        return name;
    }

    public Class<T> type() {
        return type;
    }

    /** Object size estimate in bytes, rounded up to 16 unless the pool is exact. */
    public int size() {
        return size;
    }

    public PoolOptions options() {
        return options;
    }

    /** Names of the registrations sharing this pool, first one first. */
    public List<String> users() {
        return List.copyOf(users);
    }

    /** True when other registrations of the same type and size may share this pool. */
    public boolean shared() {
        return !options.exact();
    }

    public long allocated() {
        return buckets.sum(Buckets.ALLOCATED);
    }

    public long used() {
        return buckets.sum(Buckets.USED);
    }

    public long neededAvg() {
        return Buckets.average(buckets.sum(Buckets.NEEDED));
    }

    public long failed() {
        return buckets.sum(Buckets.FAILED);
    }

    /** Objects sitting in thread caches (racy read: approximate while threads run). */
    public long cached() {
        if (caches == null) {
            return 0;
        }
        long n = 0;
        for (ThreadCache c : caches) {
            if (c != null) {
                n += c.count;
            }
        }
        return n;
    }

    /** Objects in the shared cache. */
    public int sharedSpares() {
        return shared == null ? 0 : shared.size();
    }

    int bucketCount() {
        return buckets.count();
    }

    /** One bucket's value of a field, for tests of the bucket invariants. */
    long bucketValue(int bucket, int field) {
        return buckets.get(bucket, field);
    }

    int threadCacheCapacity() {
        return cacheCapacity;
    }

    public PoolStats stats() {
        return new PoolStats(name, size, allocated(), used(), cached(), neededAvg(), failed(), users.size(),
                "0x" + Integer.toHexString(System.identityHashCode(this)), shared());
    }

    @Override
    public String toString() {
        return "Pool " + name + " (" + size + " bytes)";
    }
}
