package dev.sluice.proxy.memory;

import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.pools.Budget;
import dev.sluice.pools.PoolCommandException;
import dev.sluice.pools.PoolRegistry;
import dev.sluice.pools.PoolStats;
import dev.sluice.pools.PoolTotals;
import dev.sluice.pools.ShowPools;
import dev.sluice.pools.ShowPoolsArgs;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.metrics.MetricSink;
import dev.sluice.proxy.metrics.PrometheusExporter;
import dev.sluice.sticktable.EntryMemory;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The process's pools and budgets, held to the {@code -m <megabytes>} ceiling, with Netty's allocator
 * listed beside them; built once by {@code Main} and handed to the runtime, which gives the budgets to
 * the code that creates what they count. Thread-safe.
 *
 * <p>What is counted, and why nothing on the request path is recycled (figures in docs/design.md, "Pools"):
 * <ul>
 * <li>{@code stream}: one per request exchange ({@code Stream} and the objects it owns: heads, fields,
 * rule state; 1 kB as an estimate, HAProxy's stream is 984 bytes). Over the ceiling the request gets a
 * 503. A {@link Budget}, not a recycling pool: a recycled stream is an old object pointing at young ones
 * (card marking, remembered sets), which cost more than the young collection it saves.</li>
 * <li>{@code session}: one per client connection (the connection handler, its Netty channel and
 * pipeline; 2 kB as an estimate). Over the ceiling the connection is closed at once.</li>
 * <li>{@code sticktables}: the entries of the stick tables, one budget per entry size shared by the tables
 * of that size, as HAProxy's pool of that name. Over the ceiling no entry is created: the tracking or
 * stickiness action does nothing, {@code set table} answers "Unable to allocate a new entry". Not
 * recycled: the tables read entries without locks, so a removed entry may still be read and must not
 * become another key's.</li>
 * </ul>
 */
public final class ProxyPools {
    /** Bytes a stream stands for in the ceiling (an estimate of what it keeps alive apart from buffers). */
    static final int STREAM_SIZE = 1024;
    /** Bytes a client connection stands for (handler, channel, pipeline; buffers excluded). */
    static final int SESSION_SIZE = 2048;

    private final PoolRegistry registry;
    private final Budget streams;
    private final Budget sessions;

    /** @param memoryLimitMb the {@code -m} ceiling in megabytes, 0 for none */
    public ProxyPools(long memoryLimitMb) {
        this.registry = PoolRegistry.withMemoryLimitMb(memoryLimitMb);
        // -Dsluice.budgets=off leaves streams and connections uncounted: the baseline of the load benchmark
        // that measures what counting them costs (bench/load, proxy "sluice-nobudget")
        boolean counted = !"off".equals(System.getProperty("sluice.budgets"));
        this.streams = counted ? registry.budget("stream", STREAM_SIZE) : null;
        this.sessions = counted ? registry.budget("session", SESSION_SIZE) : null;
        registry.addExternal(new NettyPools(PooledByteBufAllocator.DEFAULT));
    }

    public PoolRegistry registry() {
        return registry;
    }

    /** Taken by each stream when it starts, given back once when it ends; null when not counted. */
    public Budget streams() {
        return streams;
    }

    /** Taken by each accepted client connection, given back when it closes; null when not counted. */
    public Budget sessions() {
        return sessions;
    }

    /**
     * Where the HTTP caches count their memory: one 1 kB object per block an entry holds ({@code cache}, as HAProxy
     * counts a cache's memory), so that {@code show pools} shows it and the {@code -m} ceiling bounds it beside each
     * cache's own {@code total-max-size}. Registered when a configuration has caches.
     */
    public Budget cacheBlocks() {
        return registry.budget("cache", 1024);
    }

    /** Where a stick table with entries of {@code entrySize} bytes accounts them. */
    public EntryMemory tableMemory(int entrySize) {
        Budget b = registry.budget("sticktables", entrySize);
        return new EntryMemory() {
            @Override
            public boolean take() {
                return b.take();
            }

            @Override
            public void give() {
                b.give();
            }
        };
    }

    /** Totals for {@code show info} and the Prometheus output. */
    public PoolTotals totals() {
        return registry.totals();
    }

    /**
     * One Prometheus series per {@code show pools} line and figure, labelled {@code pool} (HAProxy's exporter
     * has no per-pool families: these are Sluice's, named {@code sluice_pool_*}; the totals are HAProxy's
     * {@code haproxy_process_pool_*}, from {@code show info}).
     */
    public void register(PrometheusExporter metrics) {
        metrics.register(this::collect);
    }

    void collect(MetricSink m) {
        for (PoolStats s : registry.snapshot()) {
            m.gauge("sluice_pool_allocated", "Objects allocated in this pool (show pools: allocated).", s.allocated(), "pool", s.name());
            m.gauge("sluice_pool_allocated_bytes", "Bytes allocated in this pool.", s.allocatedBytes(), "pool", s.name());
            m.gauge("sluice_pool_used", "Objects of this pool in use, thread caches included (show pools: used).", s.used(), "pool", s.name());
            m.gauge("sluice_pool_used_bytes", "Bytes of this pool in use.", s.usedBytes(), "pool", s.name());
            m.gauge("sluice_pool_needed_avg", "Sliding average of the objects of this pool in use (show pools: needed_avg).", s.neededAvg(),
                    "pool", s.name());
            m.counter("sluice_pool_failures_total", "Allocations this pool refused (the -m ceiling or its limit).", s.failed(), "pool", s.name());
        }
    }

    /**
     * Drops every spare object, HAProxy's SIGQUIT: each event loop drops the objects of its own thread caches,
     * then the shared caches and the caches of dead threads are emptied ({@link PoolRegistry#gc()}). The answer
     * is the {@code show pools} dump as it was before (what HAProxy prints on SIGQUIT), complete once the
     * spares are gone.
     *
     * @param eachLoop runs a task on every event loop; completes once every loop ran it (or refused it: a
     *                 stopping loop has nothing left to flush)
     */
    public CompletionStage<String> flush(Function<Runnable, CompletionStage<?>> eachLoop) {
        String before = ShowPools.render(registry, ShowPoolsArgs.ALL);
        return dropSpares(eachLoop).thenApply(v -> before);
    }

    /** {@link #flush} without the dump: run when a graceful stop begins and while it drains. */
    public CompletionStage<Void> dropSpares(Function<Runnable, CompletionStage<?>> eachLoop) {
        return eachLoop.apply(registry::dropOwnCaches).handle((v, e) -> {
            registry.gc();
            return null;
        });
    }

    /**
     * {@code show pools [byname|bysize|byusage] [match <prefix>] [<n>]}, at user level as in HAProxy (2.6
     * ignores the arguments; they are 2.7's), and {@code flush pools} (admin level; Sluice's: see
     * {@link #flush}), which does what SIGQUIT does to HAProxy. The JVM keeps SIGQUIT for its thread dump and
     * refuses a Java handler for it, even with {@code -Xrs} (which would also take SIGTERM and SIGINT away).
     *
     * @param eachLoop as for {@link #flush}
     */
    public void register(CliRegistry r, Function<Runnable, CompletionStage<?>> eachLoop) {
        r.register(new CliCommand(List.of("flush", "pools"), Level.ADMIN, "flush pools",
                "dump the memory pools usage, then release every spare object", req -> req.later(flush(eachLoop))));

        r.register(new CliCommand(List.of("show", "pools"), Level.USER, "show pools",
                "report information about the memory pools usage", req -> {
                    try {
                        return ShowPools.render(registry, ShowPoolsArgs.parse(req.args().subList(2, req.args().size())));
                    } catch (PoolCommandException e) {
                        return e.getMessage();
                    }
                }));
    }
}
