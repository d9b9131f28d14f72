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
 * Pooled against plain allocation of a representative per-stream context (184 bytes: counters,
 * timestamps, state, references to the request head, connections and rules), under the collector the
 * launcher uses (G1, MaxGCPauseMillis=20). Each thread keeps a window of {@code inFlight} live contexts,
 * as an event loop has streams in flight; one op ends the oldest stream and starts a new one: a fresh
 * request head object (allocated in both modes: it is not pooled) is stored in the context, whose fields
 * are filled. PLAIN drops the old context and allocates a new one; POOLED releases the old one (its reset
 * step clears the references so a pooled context does not keep the last request alive) and takes one
 * from the pool. Pooled contexts are old objects pointing at young ones, which costs G1 card marking
 * and remembered-set scanning that plain young contexts do not pay. Use {@code -prof gc} for the
 * allocation rate per op and GC counts and times.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar PooledContextBench -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Xms1g", "-Xmx1g"})
@Threads(2)
public class PooledContextBench {

    @Param({"PLAIN", "POOLED"})
    public String mode;

    @Param({"256"})
    public int inFlight;

    /** What the context points at per request (a parsed head); allocated in both modes. */
    public static final class Head {
        final long id;
        final int method;

        Head(long id, int method) {
            this.id = id;
            this.method = method;
        }
    }

    /** 184 bytes with compressed oops: 12-byte header, 13 longs, 6 ints, 10 references (+4 alignment). */
    public static final class StreamContext {
        long id, startNanos, headerBytes, bodyBytes, sent, received, deadline, lastRead, lastWrite;
        long retries, bytesIn, bytesOut, flags;
        int state, status, serverId, backendId, frontendId, termination;
        Object head, request, response, client, server, backend, frontend, rules, log, timer;

        void start(Head h, long n) {
            id = n;
            startNanos = n * 31;
            deadline = startNanos + 30_000;
            state = 1;
            status = 200;
            head = h;
            request = h;
            backendId = (int) (n & 7);
        }

        void clear() {
            head = null;
            request = null;
            response = null;
            client = null;
            server = null;
            backend = null;
            frontend = null;
            rules = null;
            log = null;
            timer = null;
            id = startNanos = headerBytes = bodyBytes = sent = received = deadline = lastRead = lastWrite = 0;
            retries = bytesIn = bytesOut = flags = 0;
            state = status = serverId = backendId = frontendId = termination = 0;
        }
    }

    /** One pool for all threads, as the proxy would have one per type. */
    @State(Scope.Benchmark)
    public static class Shared {
        Pool<StreamContext> pool;

        @Setup
        public void setUp() {
            pool = new PoolRegistry().create("stream", StreamContext.class, 184, StreamContext::new,
                    StreamContext::clear, PoolOptions.DEFAULT);
        }
    }

    StreamContext[] window;
    int cursor;
    long n;
    boolean pooled;

    @Setup
    public void setUp(Shared shared) {
        pooled = mode.equals("POOLED");
        window = new StreamContext[inFlight];
        for (int i = 0; i < inFlight; i++) {
            window[i] = pooled ? shared.pool.alloc() : new StreamContext();
            window[i].start(new Head(i, 1), i);
        }
    }

    @Benchmark
    public Object endOneStartOne(Shared shared) {
        int i = cursor;
        cursor = i + 1 == window.length ? 0 : i + 1;
        StreamContext c;
        if (pooled) {
            shared.pool.release(window[i]);
            c = shared.pool.alloc();
        } else {
            c = new StreamContext();
        }
        long k = ++n;
        c.start(new Head(k, (int) k & 3), k);
        window[i] = c;
        return c;
    }
}
