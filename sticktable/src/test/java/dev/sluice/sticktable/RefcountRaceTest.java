package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Trackers attach and detach while purge, eviction and clears run: no entry is freed while tracked, no
 * tracker ever holds an entry that is not the one indexed for its key, and when everything stops the
 * counts add up and nothing leaks.
 */
class RefcountRaceTest {

    @ParameterizedTest
    @EnumSource(TableOptions.UpdateRecording.class)
    void trackersPurgeAndEvictionNeverRace(TableOptions.UpdateRecording recording) throws Exception {
        ManualClock clock = new ManualClock(1);
        // Small table, short expiry: creations evict, purges remove, all the time.
        StickTableSpec spec = StickTableSpec.of(KeyType.INTEGER, 48, 3)
                .withStore(StoreSpec.parse("conn_cur,conn_cnt,http_req_cnt", null)).withPeers("p");
        AtomicLong accounted = new AtomicLong();
        EntryMemory memory = new EntryMemory() {
            @Override
            public boolean take() {
                accounted.incrementAndGet();
                return true;
            }

            @Override
            public void give() {
                accounted.decrementAndGet();
            }
        };
        StickTable t = new StickTable("race", spec, ManualClock.options(clock).withUpdates(recording).withMemory(memory));
        int trackers = 4;
        long deadline = System.nanoTime() + 1_500_000_000L;
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        AtomicLong tracked = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> thrown = new ConcurrentLinkedQueue<>();
        for (int n = 0; n < trackers; n++) {
            threads.add(worker(thrown, stop, () -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (!stop.get()) {
                    StickKey k = StickKey.integer(rnd.nextInt(200));
                    StickEntry e = t.track(k);
                    if (e == null) {
                        refused.incrementAndGet();
                        continue;
                    }
                    tracked.incrementAndGet();
                    e.onTrackStart();
                    for (int i = 0; i < 3; i++) {
                        e.onHttpRequest();
                        t.touch(e);
                        if (e.isRemoved()) {
                            errors.add("tracked entry removed: " + e);
                        }
                        if (t.lookup(k) != e) {
                            errors.add("tracked entry is not the indexed one for its key: " + e);
                        }
                        if (e.trackers() < 1) {
                            errors.add("tracked entry with use=" + e.trackers());
                        }
                        Thread.onSpinWait();
                    }
                    e.onTrackEnd();
                    t.untrack(e);
                }
            }));
        }
        threads.add(worker(thrown, stop, () -> {
            while (!stop.get()) {
                clock.advance(1);
                t.purgeExpired();
            }
        }));
        threads.add(worker(thrown, stop, () -> {
            while (!stop.get()) {
                t.clear(new TableQuery.All());
                UpdateLog log = t.updateLog();
                if (log != null) {
                    log.updatesAfter(0, 200);
                }
                Thread.yield();
            }
        }));
        for (Thread th : threads) {
            th.start();
        }
        while (System.nanoTime() < deadline && errors.isEmpty() && !stop.get()) {
            Thread.sleep(20);
        }
        stop.set(true);
        for (Thread th : threads) {
            th.join();
        }
        rethrow(thrown);
        assertThat(errors).isEmpty();
        assertThat(tracked.get()).isGreaterThan(1000);

        // Idle: every tracker left, the counts agree, and every live entry's conn_cur is back to 0.
        assertThat(t.used()).isEqualTo(t.indexedCount()).isEqualTo(t.queuedCount());
        assertThat(t.used()).isLessThanOrEqualTo(48);
        assertThat(accounted.get()).as("entries accounted in the memory budget").isEqualTo(t.used());
        for (StickEntry e : t.entries()) {
            assertThat(e.trackers()).isZero();
            assertThat(e.get(DataType.CONN_CUR)).isZero();
        }
        // Nothing leaks: once everything expired, the table and its update log are empty.
        clock.advance(1000);
        t.purgeExpired();
        assertThat(t.used()).isZero();
        assertThat(t.indexedCount()).isZero();
        assertThat(t.queuedCount()).isZero();
        assertThat(accounted.get()).isZero();
        if (t.updateLog() != null) {
            assertThat(t.updateLog().localSize()).isZero();
            assertThat(t.updateLog().learnedSize()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = TableOptions.UpdateRecording.class, names = {"OWN_LOCK", "UNDER_TABLE_LOCK"})
    void concurrentCreationsOfOneKeyYieldOneEntry(TableOptions.UpdateRecording recording) throws Exception {
        for (int round = 0; round < 200; round++) {
            StickTable t = new StickTable("t", StickTableSpec.of(KeyType.INTEGER, 10, 0)
                    .withStore(StoreSpec.parse("conn_cnt", null)), TableOptions.DEFAULT.withUpdates(recording));
            int n = 4;
            StickEntry[] got = new StickEntry[n];
            List<Thread> ts = new ArrayList<>();
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            ConcurrentLinkedQueue<Throwable> thrown = new ConcurrentLinkedQueue<>();
            for (int i = 0; i < n; i++) {
                int idx = i;
                Thread w = worker(thrown, new AtomicBoolean(), () -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    got[idx] = t.track(StickKey.integer(7));
                    got[idx].onTrackStart();
                });
                w.start();
                ts.add(w);
            }
            go.countDown();
            for (Thread th : ts) {
                th.join();
            }
            rethrow(thrown);
            for (StickEntry e : got) {
                assertThat(e).isSameAs(got[0]);
            }
            assertThat(got[0].trackers()).isEqualTo(n);
            assertThat(got[0].get(DataType.CONN_CNT)).isEqualTo(n);
            assertThat(t.used()).isEqualTo(1);
        }
    }

    /** A thread running {@code body}; whatever it throws is kept in {@code thrown} and stops the others. */
    static Thread worker(ConcurrentLinkedQueue<Throwable> thrown, AtomicBoolean stop, Runnable body) {
        return new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                thrown.add(e);
                stop.set(true);
            }
        });
    }

    /** Fails the test with the first worker's exception (the others suppressed in it). */
    static void rethrow(ConcurrentLinkedQueue<Throwable> thrown) {
        Throwable first = thrown.peek();
        if (first != null) {
            AssertionError e = new AssertionError("a worker thread failed", first);
            thrown.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }
}
