package dev.sluice.bench;

import dev.sluice.pools.Pool;
import dev.sluice.pools.PoolOptions;
import dev.sluice.pools.PoolRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The pool's fast path, allocation and release on the same thread (a thread-cache hit both ways, no
 * counter touched), with the two ways a thread finds its cache: a {@link ThreadLocal} lookup or the
 * threadId-indexed table. Pools cannot use Netty's FastThreadLocal (no Netty dependency).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar PoolLookupBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class PoolLookupBench {

    @Param({"THREAD_LOCAL", "THREAD_ID"})
    public PoolOptions.ThreadCacheLookup lookup;

    Pool<PoolCounterBench.Ctx> pool;

    @Setup
    public void setUp() {
        pool = new PoolRegistry().create("ctx", PoolCounterBench.Ctx.class, 200, PoolCounterBench.Ctx::new,
                c -> c.x = null, PoolOptions.DEFAULT.withLookup(lookup));
    }

    @Benchmark
    public Object allocRelease() {
        PoolCounterBench.Ctx c = pool.alloc();
        c.a++;
        pool.release(c);
        return c;
    }
}
