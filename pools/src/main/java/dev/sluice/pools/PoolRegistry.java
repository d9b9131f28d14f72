package dev.sluice.pools;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Every {@link Pool} of a process, the memory ceiling they share, and what {@code show pools} and
 * {@code show info} read. Pools are listed by increasing object size, then creation order (the order of
 * HAProxy's pool list). A pool created with the same object type, size and options as an existing
 * non-exact pool merges into it: the caller gets the existing pool, with the first registration's name,
 * factory and reset step, and one more user. Creating pools is rare (startup, reload) and synchronised;
 * everything else is lock-free and may run on any thread.
 *
 * <p>Memory ceiling (HAProxy's {@code -m <megabytes>}): with a limit, every object a pool creates
 * reserves its size from a registry-wide budget and every object it drops gives it back; a creation that
 * does not fit first runs {@link #gc()} (spares of every pool make room), then fails: {@link Pool#alloc()}
 * returns null and the pool counts the failure. Only creations and drops touch the budget, never cache
 * hits. Without a limit the budget is not maintained.
 */
public final class PoolRegistry {
    private final long memoryLimit;
    private final AtomicLong reserved = new AtomicLong();
    /** Set while an allocation that hit the ceiling collects spares; others then fail without waiting. */
    private final AtomicBoolean collecting = new AtomicBoolean();
    private final List<Pool<?>> pools = new CopyOnWriteArrayList<>();
    private final List<Budget> budgets = new CopyOnWriteArrayList<>();
    private final List<ExternalPools> externals = new CopyOnWriteArrayList<>();

    /** A registry without memory ceiling. */
    public PoolRegistry() {
        this(0);
    }

    /** @param memoryLimitBytes the memory ceiling in bytes, 0 for none */
    public PoolRegistry(long memoryLimitBytes) {
        if (memoryLimitBytes < 0) {
            throw new IllegalArgumentException("memory limit must be >= 0");
        }
        this.memoryLimit = memoryLimitBytes;
    }

    /** A registry with HAProxy's {@code -m <megabytes>} ceiling (0 for none). */
    public static PoolRegistry withMemoryLimitMb(long megabytes) {
        return new PoolRegistry(Math.multiplyExact(megabytes, 1024L * 1024L));
    }

    public <T> Pool<T> create(String name, Class<T> type, int size, Supplier<? extends T> factory,
                              Consumer<? super T> reset) {
        return create(name, type, size, factory, reset, PoolOptions.DEFAULT);
    }

    /**
     * Creates a pool, or merges this registration into an existing pool of the same type, size and options
     * when neither is exact.
     *
     * @param size estimated bytes per object (with what it owns exclusively), rounded up to 16 unless exact
     */
    @SuppressWarnings("unchecked")
    public synchronized <T> Pool<T> create(String name, Class<T> type, int size, Supplier<? extends T> factory,
                                           Consumer<? super T> reset, PoolOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(factory, "factory");
        Objects.requireNonNull(reset, "reset");
        Objects.requireNonNull(options, "options");
        if (name.isEmpty() || size <= 0) {
            throw new IllegalArgumentException("a pool needs a name and a positive size");
        }
        int rounded = options.exact() ? size : Math.addExact(size, 15) & -16;
        int insertAt = pools.size();
        for (int i = 0; i < pools.size(); i++) {
            Pool<?> p = pools.get(i);
            if (p.size() == rounded && !options.exact() && p.shared() && p.type() == type
                    && p.options().equals(options)) {
                p.addUser(name);
                return (Pool<T>) p;
            }
            if (p.size() > rounded) {
                insertAt = i;
                break;
            }
        }
        Pool<T> pool = new Pool<>(name, type, rounded, factory, reset, options, this);
        pools.add(insertAt, pool);
        return pool;
    }

    /**
     * Creates a {@link Budget}: a count of live objects that are not recycled, held to the ceiling and
     * listed by {@code show pools} among the pools (by size, after pools of the same size). A registration
     * with the name and size of an existing budget shares it (one more user, {@code [SHARED]}), as HAProxy
     * merges its same-sized {@code sticktables} pools.
     *
     * @param size estimated bytes per object
     */
    public synchronized Budget budget(String name, int size) {
        if (name == null || name.isEmpty() || size <= 0) {
            throw new IllegalArgumentException("a budget needs a name and a positive size");
        }
        for (Budget existing : budgets) {
            if (existing.name().equals(name) && existing.size() == size) {
                existing.addUser();
                return existing;
            }
        }
        Budget b = new Budget(name, size, this, Buckets.defaultBits());
        budgets.add(b);
        return b;
    }

    /** Adds a source of extra {@code show pools} lines (Netty's allocator, reported by the proxy). */
    public void addExternal(ExternalPools source) {
        externals.add(Objects.requireNonNull(source));
    }

    /** Every pool, by increasing size then creation order. */
    public List<Pool<?>> pools() {
        return List.copyOf(pools);
    }

    /**
     * Lines for {@code show pools}: the pools and budgets by increasing size (a budget after the pools of
     * its size), then the external sources' lines.
     */
    public List<PoolStats> snapshot() {
        List<PoolStats> out = new ArrayList<>();
        for (Pool<?> p : pools) {
            out.add(p.stats());
        }
        for (Budget b : budgets) {
            int at = out.size();
            while (at > 0 && out.get(at - 1).size() > b.size()) {
                at--;
            }
            out.add(at, b.stats());
        }
        for (ExternalPools e : externals) {
            out.addAll(e.pools());
        }
        return out;
    }

    /** Totals for {@code show info}, over the pools and external sources. */
    public PoolTotals totals() {
        long alloc = 0;
        long used = 0;
        long failed = 0;
        for (PoolStats s : snapshot()) {
            alloc += s.allocatedBytes();
            used += s.usedBytes();
            failed += s.failed();
        }
        return new PoolTotals(alloc, used, failed, memoryLimit);
    }

    /** The memory ceiling in bytes, 0 when unlimited. */
    public long memoryLimit() {
        return memoryLimit;
    }

    /** Bytes reserved against the ceiling by pool objects (0 when there is no ceiling). */
    public long reservedBytes() {
        return reserved.get();
    }

    /**
     * Releases every spare object to the GC: caches of threads that died are emptied, then every pool's
     * shared cache is emptied. Objects in live threads' caches stay (only their owner may touch them: each
     * owner runs {@link #dropOwnCaches()}). Run when an allocation meets the ceiling, and by the proxy on an
     * operator's request and when a graceful stop begins (HAProxy's SIGQUIT, soft-stop and allocation-failure
     * collections). Any thread.
     *
     * <p>Unlike HAProxy's {@code pool_gc}, which keeps each pool's {@code minavail} spares, this drops them
     * too ({@code minAvail} then only bounds what releases keep, and the next releases
     * refill it). Each of its callers wants all the memory it can get: on the ceiling, spares of other pools
     * held back for a floor would make the allocation that needs the room fail; on a graceful stop the
     * process is ending and the memory is better left to the one that replaces it; an operator asks for
     * everything. HAProxy's floor protects its buffer reserve, which lets a stream make progress under memory
     * pressure; Sluice's buffers come from Netty's allocator, not from these pools, and no pool here sets one.
     */
    public void gc() {
        ThreadSlots.forEachDeadSlot(slot -> {
            for (Pool<?> p : pools) {
                p.drainDeadSlot(slot);
            }
        });
        for (Pool<?> p : pools) {
            p.dropSpares();
        }
    }

    /**
     * Drops every object the calling thread holds in its caches, of every pool (to the GC, not to the shared
     * caches). Run by each thread that owns caches (the proxy runs it on each of its event loops, before
     * {@link #gc()}, for an operator's flush and on a graceful stop); a thread without caches does nothing.
     */
    public void dropOwnCaches() {
        for (Pool<?> p : pools) {
            p.dropOwnCache();
        }
    }

    /**
     * Takes {@code bytes} from the ceiling's budget. When they do not fit, collects spares once and
     * retries, unless another thread is already collecting: allocation paths never wait for one another.
     */
    boolean reserve(long bytes) {
        if (memoryLimit == 0) {
            return true;
        }
        if (tryReserve(bytes)) {
            return true;
        }
        if (!collecting.compareAndSet(false, true)) {
            return false;
        }
        try {
            gc();
        } finally {
            collecting.set(false);
        }
        return tryReserve(bytes);
    }

    private boolean tryReserve(long bytes) {
        long r;
        do {
            r = reserved.get();
            if (r + bytes > memoryLimit) {
                return false;
            }
        } while (!reserved.compareAndSet(r, r + bytes));
        return true;
    }

    void unreserve(long bytes) {
        if (memoryLimit != 0) {
            reserved.addAndGet(-bytes);
        }
    }
}
