package dev.sluice.quic;

import dev.sluice.pools.Pool;
import dev.sluice.pools.PoolRegistry;
import java.net.InetSocketAddress;
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
 * Pooled against plain allocation of the real pooled type {@code quic_conn_closed}: {@link ClosingConnection}
 * records from {@link ClosingConnection#pool} (the pool the proxy uses, default options) or from {@code new}, as
 * {@link ClosingConnections} does with and without a pool. Each thread stands for one QUIC socket's event loop
 * with {@code inFlight} records alive (a record lives min(3 x PTO, 1 s)); one op is one connection closing
 * while the oldest record expires: the expired record is freed (POOLED: released, its reset step clears it;
 * PLAIN: cleared and dropped, as without a pool), a record is taken (POOLED: alloc; PLAIN: new) and filled
 * with what {@code endCapture} gives it, the CONNECTION_CLOSE datagram being a fresh 45-byte array in both
 * modes (the codec's datagram is copied out of its buffer) and the peer's address read as there. Under the
 * collector the launcher uses (G1, MaxGCPauseMillis=20). In package {@code dev.sluice.quic} to reach the
 * record's package-private fill and reset steps.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar ClosingConnectionBench -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Xms1g", "-Xmx1g"})
@Threads(2)
public class ClosingConnectionBench {

    @Param({"PLAIN", "POOLED"})
    public String mode;

    /** Records alive per socket: 1024 is 1,000 closes a second living 1 s, or 12,800 a second living 80 ms. */
    @Param({"1024"})
    public int inFlight;

    /** One pool for every socket, as the proxy has one per process. */
    @State(Scope.Benchmark)
    public static class Shared {
        Pool<ClosingConnection> pool;

        @Setup
        public void setUp() {
            pool = ClosingConnection.pool(new PoolRegistry());
        }
    }

    ClosingConnection[] window;
    InetSocketAddress[] peers;
    int cursor;
    long n;
    boolean pooled;

    @Setup
    public void setUp(Shared shared) {
        pooled = mode.equals("POOLED");
        peers = new InetSocketAddress[64];
        for (int i = 0; i < peers.length; i++) {
            peers[i] = new InetSocketAddress("127.0." + (i >> 4) + "." + (i & 15), 40000 + i);
        }
        window = new ClosingConnection[inFlight];
        for (int i = 0; i < inFlight; i++) {
            window[i] = pooled ? shared.pool.alloc() : new ClosingConnection();
            fill(window[i], i);
        }
    }

    private void fill(ClosingConnection r, long k) {
        long now = k * 1_000;
        r.set(k * 0x9E3779B97F4A7C15L, peers[(int) k & 63], new byte[45], 1_200 + k, 3_600, (k & 1) == 0, now, now + 80_000_000);
    }

    @Benchmark
    public Object closeOneExpireOne(Shared shared) {
        int i = cursor;
        cursor = i + 1 == window.length ? 0 : i + 1;
        ClosingConnection r;
        if (pooled) {
            shared.pool.release(window[i]);
            r = shared.pool.alloc();
        } else {
            window[i].clear();
            r = new ClosingConnection();
        }
        fill(r, ++n);
        window[i] = r;
        return r;
    }
}
