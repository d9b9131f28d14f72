package dev.sluice.pools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The spare-keeping rule (keep while allocated &lt; 1.25 x needed_avg or spares &lt; minAvail), thread
 * cache eviction, gc (every shared spare, minAvail included) and each thread dropping its own cache. One bucket so that the sliding average is deterministic.
 */
class TrimmingTest {

    private static final PoolOptions ONE_BUCKET = PoolOptions.DEFAULT.withBucketBits(0);
    private static final PoolOptions NO_CACHE = ONE_BUCKET.withThreadCacheItems(0);

    private final AtomicInteger created = new AtomicInteger();

    private Pool<Item> pool(PoolRegistry r, PoolOptions o) {
        return r.create("t", Item.class, 64, () -> new Item(created.incrementAndGet()), i -> { }, o);
    }

    private static List<Item> alloc(Pool<Item> p, int n) {
        List<Item> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(p.alloc());
        }
        return l;
    }

    @Test
    void theAverageFollowsCreationsAsHaproxysScaledSlidingAverage() {
        Pool<Item> p = pool(new PoolRegistry(), NO_CACHE);
        alloc(p, 4);
        // Raw sums fed with used-before = 0, 1, 2, 3 at 256 samples each: 0, 256, 704, 1296 -> ceil(1296/1024).
        assertThat(p.neededAvg()).isEqualTo(2);
        alloc(p, 96);
        // A ramp lags by (1 - 1/4) / (1/4) = 3 objects behind used.
        assertThat(p.neededAvg()).isBetween(96L, 98L);
    }

    @Test
    void aSmallNeedDropsReleasedObjects() {
        Pool<Item> p = pool(new PoolRegistry(), NO_CACHE);
        List<Item> held = alloc(p, 4);
        // needed_avg 2: while 2 or more are allocated (>= 1.25 x 2) released objects are dropped; the last
        // one finds 1 allocated, below the need, and is kept.
        held.forEach(p::release);
        assertThat(p.allocated()).isEqualTo(1);
        assertThat(p.used()).isZero();
        assertThat(p.sharedSpares()).isEqualTo(1);
    }

    @Test
    void minAvailKeepsSparesWhateverTheNeed() {
        Pool<Item> p = pool(new PoolRegistry(), NO_CACHE.withMinAvail(3));
        List<Item> held = alloc(p, 4);
        held.forEach(p::release);
        assertThat(p.allocated()).isEqualTo(3);
        assertThat(p.sharedSpares()).isEqualTo(3);
        assertThat(p.used()).isZero();
        // The spares are handed out again before anything is created.
        alloc(p, 3);
        assertThat(created).hasValue(4);
    }

    @Test
    void aBurstWithinTheNeedIsKeptThenGcDropsIt() {
        PoolRegistry r = new PoolRegistry();
        Pool<Item> p = pool(r, NO_CACHE);
        List<Item> held = alloc(p, 100);
        held.forEach(p::release);
        // 100 allocated < 1.25 x ~97: every object is kept as a spare.
        assertThat(p.allocated()).isEqualTo(100);
        assertThat(p.sharedSpares()).isEqualTo(100);
        assertThat(p.used()).isZero();
        r.gc();
        assertThat(p.allocated()).isZero();
        assertThat(p.sharedSpares()).isZero();
    }

    @Test
    void gcDropsEvenTheMinAvailSparesWhichReleasesThenRefill() {
        PoolRegistry r = new PoolRegistry(1 << 20);
        Pool<Item> p = pool(r, NO_CACHE.withMinAvail(5));
        List<Item> held = alloc(p, 100);
        Item kept = held.removeLast();
        held.forEach(p::release);
        assertThat(p.sharedSpares()).isGreaterThanOrEqualTo(5);
        // HAProxy's pool_gc would keep 5; Sluice's drops every shared spare and gives its bytes back
        r.gc();
        assertThat(p.sharedSpares()).isZero();
        assertThat(p.allocated()).isEqualTo(1);
        assertThat(r.reservedBytes()).isEqualTo(64);
        // the trimming rule still applies to releases: spares come back with the next ones
        p.release(kept);
        assertThat(p.sharedSpares()).isEqualTo(1);
        assertThat(p.allocated()).isEqualTo(1);
    }

    @Test
    void eachThreadDropsItsOwnCacheAndOnlyItsOwn() throws Exception {
        PoolRegistry r = new PoolRegistry(1 << 20);
        Pool<Item> p = pool(r, ONE_BUCKET.withThreadCacheItems(64));
        java.util.concurrent.CountDownLatch filled = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch dropped = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        Thread other = Thread.ofPlatform().start(() -> {
            alloc(p, 10).forEach(p::release);
            filled.countDown();
            try {
                dropped.await();
                r.dropOwnCaches();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.countDown();
        });
        filled.await();
        alloc(p, 20).forEach(p::release);
        assertThat(p.cached()).isEqualTo(30);
        assertThat(p.used()).isEqualTo(30);
        // this thread's 20 go; the other thread's 10 stay (it is alive: gc may not touch them either)
        r.dropOwnCaches();
        r.gc();
        assertThat(p.cached()).isEqualTo(10);
        assertThat(p.used()).isEqualTo(10);
        assertThat(p.allocated()).isEqualTo(10);
        assertThat(r.reservedBytes()).isEqualTo(10 * 64);
        dropped.countDown();
        done.await();
        assertThat(p.cached()).isZero();
        assertThat(p.used()).isZero();
        assertThat(p.allocated()).isZero();
        assertThat(r.reservedBytes()).isZero();
        other.join();
        // a thread that never used the pool has nothing to drop
        Thread.ofPlatform().start(r::dropOwnCaches).join();
        assertThat(p.allocated()).isZero();
    }

    @Test
    void aFullThreadCacheEvictsItsOldestToTheSharedCache() {
        PoolRegistry r = new PoolRegistry();
        Pool<Item> p = pool(r, ONE_BUCKET.withThreadCacheItems(8));
        assertThat(p.threadCacheCapacity()).isEqualTo(8);
        List<Item> held = alloc(p, 100);
        held.forEach(p::release);
        long cached = p.cached();
        // Clusters of 4 leave when the cache is full: it ends between 5 and 8 objects.
        assertThat(cached).isBetween(5L, 8L);
        assertThat(p.used()).isEqualTo(cached);
        assertThat(p.allocated()).isEqualTo(100);
        assertThat(p.sharedSpares()).isEqualTo(100 - cached);
        // The thread cache holds the most recently released: the oldest went to the shared cache.
        Item last = held.getLast();
        assertThat(p.alloc()).isSameAs(last);
        // gc drops shared spares only; the live thread's cache stays.
        r.gc();
        assertThat(p.sharedSpares()).isZero();
        assertThat(p.allocated()).isEqualTo(cached);
    }

    @Test
    void evictionsBeyondTheNeedAreDropped() {
        Pool<Item> p = pool(new PoolRegistry(), ONE_BUCKET.withThreadCacheItems(2));
        List<Item> held = alloc(p, 4);
        held.forEach(p::release);
        // Two stay in the thread cache; the two evicted ones find needed_avg 2 and are dropped.
        assertThat(p.cached()).isEqualTo(2);
        assertThat(p.allocated()).isEqualTo(2);
        assertThat(p.sharedSpares()).isZero();
    }

    @Test
    void anEmptyThreadCacheRefillsAClusterFromTheSharedCache() {
        Pool<Item> p = pool(new PoolRegistry(), ONE_BUCKET.withThreadCacheItems(16).withMinAvail(100));
        List<Item> held = alloc(p, 40);
        held.forEach(p::release);
        long spares = p.sharedSpares();
        assertThat(spares).isPositive();
        // Empty this thread's cache, then one more allocation pulls a cluster of 8 (one handed out).
        for (long i = p.cached(); i > 0; i--) {
            p.alloc();
        }
        assertThat(p.cached()).isZero();
        p.alloc();
        assertThat(p.sharedSpares()).isEqualTo(spares - 8);
        assertThat(p.cached()).isEqualTo(7);
        assertThat(created).hasValue(40);
    }

    @Test
    void gcEmptiesTheCachesOfThreadsThatDied() throws Exception {
        PoolRegistry r = new PoolRegistry();
        Pool<Item> p = pool(r, ONE_BUCKET.withThreadCacheItems(64));
        Thread t = Thread.ofPlatform().start(() -> alloc(p, 10).forEach(p::release));
        t.join();
        assertThat(p.cached()).isEqualTo(10);
        assertThat(p.used()).isEqualTo(10);
        r.gc();
        assertThat(p.cached()).isZero();
        assertThat(p.used()).isZero();
        assertThat(p.allocated()).isZero();
    }
}
