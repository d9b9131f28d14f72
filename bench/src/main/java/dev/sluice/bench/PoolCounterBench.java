package dev.sluice.bench;

import dev.sluice.pools.Pool;
import dev.sluice.pools.PoolOptions;
import dev.sluice.pools.PoolRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jctools.queues.SpscArrayQueue;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Control;

/**
 * Pool counters under cross-thread alloc/free, HAProxy's bucketed counters against one shared line of
 * counters per pool. Each of the N threads allocates an object and hands it to the next thread (a ring of
 * SPSC queues), then releases what the previous thread handed it: every object is released on another
 * thread than the one that allocated it, as when a stream allocated on one event loop ends on another.
 * One op = one allocation + one release.
 *
 * <p>{@code counters}: {@code BUCKETED} spreads the counters over the default number of buckets (8 below
 * 16 CPUs), each on its own 128 bytes, chosen by identity hash; {@code SINGLE} keeps them in one bucket,
 * i.e. one contended line per pool. {@code cache}: {@code THREAD} is the production path (thread caches,
 * objects move between threads through the shared cache in clusters of 8, counters touched per object on
 * eviction and refill); {@code NONE} disables thread caches so every alloc and release goes through the
 * shared cache and the counters (the contention HAProxy measured "without the shared cache").
 * Aux counters {@code crossFrees}/{@code localFrees} show how many releases really crossed threads (a
 * thread whose successor is descheduled waits, then releases locally when the iteration ends).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar PoolCounterBench -t 2} and {@code -t 4}
 * ({@code -f 1 -wi 3 -i 5 -w 1s -r 1s} on a shared machine).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
public class PoolCounterBench {

    @Param({"BUCKETED", "SINGLE"})
    public String counters;

    @Param({"THREAD", "NONE"})
    public String cache;

    /** A per-stream context-sized object. */
    public static final class Ctx {
        long a, b, c, d, e, f, g, h;
        Object x, y, z;
    }

    Pool<Ctx> pool;
    SpscArrayQueue<Ctx>[] rings;
    final AtomicInteger nextIndex = new AtomicInteger();

    @Setup
    @SuppressWarnings("unchecked")
    public void setUp(BenchmarkParams params) {
        PoolOptions o = PoolOptions.DEFAULT.withBucketBits(counters.equals("SINGLE") ? 0 : PoolOptions.AUTO);
        if (cache.equals("NONE")) {
            o = o.withThreadCacheItems(0);
        }
        pool = new PoolRegistry().create("ctx", Ctx.class, 200, Ctx::new, c -> {
            c.x = null;
            c.y = null;
            c.z = null;
        }, o);
        int n = params.getThreads();
        rings = new SpscArrayQueue[n];
        for (int i = 0; i < n; i++) {
            rings[i] = new SpscArrayQueue<>(1024);
        }
    }

    /** The ring a thread writes to and the one it reads from. */
    @State(Scope.Thread)
    public static class Lane {
        SpscArrayQueue<Ctx> out;
        SpscArrayQueue<Ctx> in;

        @Setup
        public void setUp(PoolCounterBench b) {
            int i = b.nextIndex.getAndIncrement() % b.rings.length;
            out = b.rings[(i + 1) % b.rings.length];
            in = b.rings[i];
        }
    }

    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Frees {
        public long crossFrees;
        public long localFrees;

        @Setup(Level.Iteration)
        public void clear() {
            crossFrees = 0;
            localFrees = 0;
        }
    }

    @Benchmark
    public Object allocHandOffRelease(Lane lane, Frees frees, Control control) {
        Ctx c = pool.alloc();
        c.a++;
        while (!lane.out.offer(c)) {
            if (releaseOne(lane, frees)) {
                continue;
            }
            if (control.stopMeasurement) {
                pool.release(c);
                frees.localFrees++;
                return c;
            }
            Thread.yield();
        }
        releaseOne(lane, frees);
        return c;
    }

    private boolean releaseOne(Lane lane, Frees frees) {
        Ctx r = lane.in.poll();
        if (r == null) {
            return false;
        }
        pool.release(r);
        frees.crossFrees++;
        return true;
    }
}
