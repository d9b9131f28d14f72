package dev.sluice.bench;

import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.proxy.stats.TimeStats;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the admin work adds to a request, against what a request already pays for its counters: the
 * {@code qtime..ttime} windows of its backend and server ({@link TimeStats#record}, plain stores into the
 * calling loop's window) beside the counters a routed request increments on its backend and server (six
 * {@link Counters#add} per object: sessions, requests, lbtot, a response class, bytes in and out). Each
 * thread is one event loop with its own window index, as on the request path. Read {@code timeStats} as a
 * ratio of {@code counters}.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar RequestStatsBench -f 1 -wi 3 -i 5 -w 1s -r 1s -t 2}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RequestStatsBench {
    private final Counters backend = new Counters();
    private final Counters server = new Counters();
    private final TimeStats backendTimes = new TimeStats(8);
    private final TimeStats serverTimes = new TimeStats(8);
    private final AtomicInteger loops = new AtomicInteger();

    /** The calling thread's loop index. */
    @State(Scope.Thread)
    public static class Loop {
        int index;
        long n;

        @org.openjdk.jmh.annotations.Setup
        public void setup(RequestStatsBench b) {
            index = b.loops.getAndIncrement() % 8;
        }
    }

    @Benchmark
    public void counters(Loop l) {
        count(backend);
        count(server);
    }

    private static void count(Counters c) {
        c.add(Counter.SESSIONS);
        c.add(Counter.REQUESTS);
        c.add(Counter.SELECTED);
        c.add(Counter.HRSP_2XX);
        c.add(Counter.BYTES_IN, 120);
        c.add(Counter.BYTES_OUT, 250);
    }

    @Benchmark
    public void timeStats(Loop l) {
        long n = ++l.n;
        backendTimes.record(l.index, 0, n & 3, 10 + (n & 7), 12 + (n & 15));
        serverTimes.record(l.index, 0, n & 3, 10 + (n & 7), 12 + (n & 15));
    }
}
