package dev.sluice.bench;

import dev.sluice.sticktable.KeyType;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;
import dev.sluice.sticktable.StickTableSpec;
import dev.sluice.sticktable.StoreSpec;
import dev.sluice.sticktable.TableOptions;
import dev.sluice.sticktable.UpdateLog;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * The request-path work of a rate-limiting stick table with peers: per event, lookup-or-create + track,
 * one counter+rate update, touch (which records the update for peers), untrack. With {@code peerEvery}
 * N &gt; 0, every N events a thread also plays the peer applet and reads a batch of up to 200 updates,
 * marking them seen, so that later touches of those entries re-number them under the update lock (the
 * situation HAProxy's lock split was made for); with 0 nobody reads the log, so after the first touch of
 * each key the update lock is no longer taken (pending updates are not re-numbered) and only the
 * lookups' locking differs. Compares the table's update-log layouts:
 * {@code OWN_LOCK} (sharded lock-free index, update log behind its own padded lock), {@code UNDER_TABLE_LOCK}
 * (the layout HAProxy had before splitting the lock: one table lock, taken shared by lookups and
 * exclusively to record updates and read them), and {@code OFF} (no peers) as the ceiling.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar StickTableBench -f 1 -wi 3 -i 5 -w 1s -r 1s -t 2}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
public class StickTableBench {

    @Param({"OWN_LOCK", "UNDER_TABLE_LOCK", "OFF"})
    public String layout;

    /** Events per thread between two peer batches; 0 for no peer reading the log. */
    @Param({"32", "0"})
    public int peerEvery;

    /** Distinct client addresses hitting the table. */
    @Param({"10000"})
    public int keys;

    private StickTable table;
    private StickKey[] keyArray;
    private final AtomicLong lastPushed = new AtomicLong();

    @Setup
    public void setUp() {
        StickTableSpec spec = StickTableSpec.of(KeyType.IP, 1 << 17, 30_000)
                .withStore(StoreSpec.parse("http_req_rate(10s),http_req_cnt,conn_cur,gpc0", null))
                .withPeers("peers");
        table = new StickTable("bench", spec, TableOptions.DEFAULT.withUpdates(TableOptions.UpdateRecording.valueOf(layout)));
        keyArray = new StickKey[keys];
        for (int i = 0; i < keys; i++) {
            keyArray[i] = StickKey.ipv4(0x0A000000 + i * 7);
            StickEntry e = table.track(keyArray[i]);
            table.touch(e);
            table.untrack(e);
        }
        peerPass(Integer.MAX_VALUE);
    }

    /** Per-thread key sequence (xorshift) and event count. */
    @State(Scope.Thread)
    public static class Cursor {
        int seed = (int) System.nanoTime() | 1;
        int events;

        int next(int bound) {
            int x = seed;
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            seed = x;
            return (x & Integer.MAX_VALUE) % bound;
        }
    }

    @Benchmark
    public long trackCountTouch(Cursor c) {
        StickEntry e = table.track(keyArray[c.next(keys)]);
        e.onHttpRequest();
        table.touch(e);
        table.untrack(e);
        if (peerEvery > 0 && ++c.events % peerEvery == 0) {
            peerPass(200);
        }
        return e.ptr();
    }

    private void peerPass(int max) {
        UpdateLog log = table.updateLog();
        if (log == null) {
            return;
        }
        long after = lastPushed.get();
        UpdateLog.Batch b = log.updatesAfter(after, max);
        lastPushed.accumulateAndGet(b.lastSeq(after), Math::max);
    }
}
