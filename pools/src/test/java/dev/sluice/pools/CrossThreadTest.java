package dev.sluice.pools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jctools.queues.SpscArrayQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Threads allocate objects and hand them to the next thread, which releases them: every object is
 * released on another thread than the one that allocated it. Afterwards the counters, summed over their
 * buckets and bucket by bucket, equal what the test can count from the objects themselves, and no object
 * was ever handed out while another caller held it.
 */
class CrossThreadTest {

    @ParameterizedTest(name = "{0} threads, cache {1}, bits {2}")
    @CsvSource({
        "2, -1, 3",
        "4, -1, 3",
        "4, 8, 2",    // tiny caches: constant evictions and refills through the shared cache
        "4, 0, 3",    // no thread caches: every operation on the shared cache and the counters
        "2, -1, 0",   // one shared counter line
    })
    void countsStayExactAndNoObjectIsHandedOutTwice(int threads, int cacheItems, int bits) throws Exception {
        PoolRegistry registry = new PoolRegistry();
        AtomicInteger serial = new AtomicInteger();
        Set<Item> everCreated = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        Pool<Item> pool = registry.create("x", Item.class, 64, () -> {
            Item i = new Item(serial.incrementAndGet());
            everCreated.add(i);
            return i;
        }, i -> i.value = 0, PoolOptions.DEFAULT.withThreadCacheItems(cacheItems).withBucketBits(bits)
                .withSharedCapacity(256));

        List<SpscArrayQueue<Item>> rings = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            rings.add(new SpscArrayQueue<>(512));
        }
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        List<List<Item>> keptAtEnd = new ArrayList<>();
        AtomicLong allocations = new AtomicLong();
        AtomicLong releases = new AtomicLong();
        AtomicInteger finished = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        int ops = 50_000;
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            SpscArrayQueue<Item> out = rings.get((t + 1) % threads);
            SpscArrayQueue<Item> in = rings.get(t);
            List<Item> kept = new ArrayList<>();
            keptAtEnd.add(kept);
            long seed = t * 7919L + 1;
            // Releases what the previous thread allocated: never an object this thread allocated.
            Runnable drainInbox = () -> {
                Item o;
                while ((o = in.poll()) != null) {
                    if (o.value != o.serial) {
                        errors.add("changed while held: #" + o.serial);
                    }
                    o.giveBack();
                    pool.release(o);
                    releases.incrementAndGet();
                }
            };
            ts.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long x = seed;
                for (int i = 0; i < ops; i++) {
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                    // Bursts: sometimes allocate several before releasing, so caches fill and drain.
                    int burst = 1 + (int) ((x >>> 40) & 15);
                    for (int k = 0; k < burst; k++) {
                        Item o = pool.alloc();
                        allocations.incrementAndGet();
                        if (!o.take()) {
                            errors.add("handed out while held: #" + o.serial);
                        }
                        if (o.value != 0) {
                            errors.add("not reset: #" + o.serial);
                        }
                        o.value = o.serial;
                        // Wait for the next thread to make room, releasing our inbox meanwhile (no deadlock:
                        // every thread drains its inbox while it waits and after it finished).
                        while (!out.offer(o)) {
                            drainInbox.run();
                            Thread.yield();
                        }
                    }
                    drainInbox.run();
                }
                // Keep a few objects: at the end they are allocated and used, not in any cache.
                for (int k = 0; k < 5; k++) {
                    Item o = pool.alloc();
                    if (!o.take()) {
                        errors.add("handed out while held: #" + o.serial);
                    }
                    kept.add(o);
                }
                finished.incrementAndGet();
                while (finished.get() < threads) {
                    drainInbox.run();
                    Thread.yield();
                }
                drainInbox.run();
            }));
        }
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertThat(errors).isEmpty();
        // Every object but the kept ones was released, each on the thread after the one that allocated it.
        assertThat(releases.get()).isEqualTo(allocations.get());
        for (SpscArrayQueue<Item> r : rings) {
            assertThat(r).isEmpty();
        }

        // Quiescent: the truth from the objects. Held = the kept ones; the rest of what was created and not
        // dropped sits in thread caches or in the shared cache.
        List<Item> held = new ArrayList<>();
        keptAtEnd.forEach(held::addAll);
        long cached = pool.cached();
        assertThat(pool.used()).as("used").isEqualTo(held.size() + cached);
        assertThat(pool.allocated()).as("allocated").isEqualTo(held.size() + cached + pool.sharedSpares());
        assertThat(pool.failed()).isZero();
        assertThat(everCreated).hasSize(serial.get());
        for (Item i : held) {
            assertThat(i.out).isTrue();
        }

        // Bucket by bucket: used = held + cached objects hashing there; allocated adds the shared ones.
        // gc empties the dead threads' caches and drops every spare: only held objects remain.
        registry.gc();
        assertThat(pool.cached()).isZero();
        long[] expectUsed = new long[pool.bucketCount()];
        for (Item i : held) {
            expectUsed[Buckets.index(System.identityHashCode(i), bits)]++;
        }
        for (int b = 0; b < pool.bucketCount(); b++) {
            assertThat(pool.bucketValue(b, Buckets.USED)).as("used in bucket %d", b).isEqualTo(expectUsed[b]);
            assertThat(pool.bucketValue(b, Buckets.ALLOCATED)).as("allocated in bucket %d", b).isEqualTo(expectUsed[b]);
        }
        assertThat(pool.allocated()).isEqualTo(held.size());
    }
}
