package dev.sluice.pools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemoryCeilingTest {

    /** One bucket: the sliding average is per bucket, so small counts over 8 buckets lag by up to 3 each. */
    private static final PoolOptions EXACT_NO_CACHE =
            PoolOptions.DEFAULT.withExact(true).withThreadCacheItems(0).withBucketBits(0);

    @Test
    void creationsBeyondTheCeilingFailCleanlyAndAreCounted() {
        PoolRegistry r = new PoolRegistry(10 * 1024);
        Pool<byte[]> buf = r.create("buffer", byte[].class, 1024, () -> new byte[1000], b -> { }, PoolOptions.DEFAULT.withExact(true));
        List<byte[]> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            held.add(buf.alloc());
        }
        assertThat(held).doesNotContainNull();
        assertThat(r.reservedBytes()).isEqualTo(10 * 1024);
        assertThat(buf.alloc()).isNull();
        assertThat(buf.failed()).isEqualTo(1);
        assertThat(r.totals().failed()).isEqualTo(1);
        // A released object is reused without touching the budget.
        buf.release(held.removeFirst());
        assertThat(buf.alloc()).isNotNull();
        assertThat(buf.failed()).isEqualTo(1);
        assertThat(r.reservedBytes()).isEqualTo(10 * 1024);
    }

    @Test
    void theCeilingIsSharedByAllPoolsAndDroppedObjectsGiveBackTheirBytes() {
        PoolRegistry r = new PoolRegistry(4096);
        Pool<byte[]> a = r.create("a", byte[].class, 1024, () -> new byte[1], b -> { }, EXACT_NO_CACHE);
        Pool<long[]> b = r.create("b", long[].class, 2048, () -> new long[1], x -> { }, EXACT_NO_CACHE);
        byte[] a1 = a.alloc();
        long[] b1 = b.alloc();
        assertThat(a.alloc()).isNotNull();
        assertThat(b.alloc()).isNull();
        assertThat(b.failed()).isEqualTo(1);
        // needed_avg is low: released objects are dropped and their bytes return to the budget.
        a.release(a1);
        assertThat(r.reservedBytes()).isEqualTo(1024 + 2048);
        b.release(b1);
        assertThat(b.alloc()).isNotNull();
    }

    @Test
    void aCreationThatDoesNotFitCollectsOtherPoolsSpares() {
        PoolRegistry r = new PoolRegistry(40 * 1024);
        Pool<byte[]> a = r.create("a", byte[].class, 1024, () -> new byte[1], x -> { }, EXACT_NO_CACHE);
        Pool<long[]> b = r.create("b", long[].class, 1024, () -> new long[1], x -> { }, EXACT_NO_CACHE);
        List<byte[]> held = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            held.add(a.alloc());
        }
        held.forEach(a::release);
        // Within a's need: kept as spares, the budget is full.
        assertThat(a.sharedSpares()).isEqualTo(40);
        assertThat(r.reservedBytes()).isEqualTo(40 * 1024);
        assertThat(b.alloc()).isNotNull();
        assertThat(b.failed()).isZero();
        assertThat(a.sharedSpares()).isZero();
        assertThat(a.allocated()).isZero();
        assertThat(r.reservedBytes()).isEqualTo(1024);
    }

    @Test
    void totalsAreWhatShowInfoPrints() {
        PoolRegistry r = PoolRegistry.withMemoryLimitMb(64);
        Pool<byte[]> buf = r.create("buffer", byte[].class, 16384, () -> new byte[16], x -> { });
        List<byte[]> held = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            held.add(buf.alloc());
        }
        buf.release(held.removeFirst());
        r.addExternal(() -> List.of(new PoolStats("netty-direct", 1, 3 << 20, 2 << 20, 0, 0, 0, 1, "0x0", false)));
        PoolTotals t = r.totals();
        assertThat(t.allocatedBytes()).isEqualTo(100 * 16384L + (3 << 20));
        assertThat(t.usedBytes()).isEqualTo(100 * 16384L + (2 << 20));
        assertThat(t.poolAllocMb()).isEqualTo(4);   // 4.56 MB truncated
        assertThat(t.poolUsedMb()).isEqualTo(3);
        assertThat(t.poolFailed()).isZero();
        assertThat(t.memmaxMb()).isEqualTo(64);
        assertThat(new PoolRegistry().totals().memmaxMb()).isZero();
    }

    @Test
    void underConcurrentPressureTheCeilingHoldsAndEveryRefusalIsCounted() throws Exception {
        long limit = 64 * 1024;
        PoolRegistry r = new PoolRegistry(limit);
        Pool<byte[]> a = r.create("a", byte[].class, 1024, () -> new byte[1], x -> { },
                PoolOptions.DEFAULT.withExact(true).withThreadCacheItems(8));
        Pool<long[]> b = r.create("b", long[].class, 2048, () -> new long[1], x -> { },
                PoolOptions.DEFAULT.withExact(true).withThreadCacheItems(0));
        AtomicLong refused = new AtomicLong();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            ts.add(Thread.ofPlatform().start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                List<Object> held = new ArrayList<>();
                for (int i = 0; i < 50_000; i++) {
                    if (held.size() < 40 && rnd.nextBoolean()) {
                        Object o = rnd.nextBoolean() ? a.alloc() : b.alloc();
                        if (o == null) {
                            refused.incrementAndGet();
                        } else {
                            held.add(o);
                        }
                    } else if (!held.isEmpty()) {
                        Object o = held.remove(rnd.nextInt(held.size()));
                        if (o instanceof byte[] x) {
                            a.release(x);
                        } else {
                            b.release((long[]) o);
                        }
                    }
                    if (r.reservedBytes() > limit) {
                        errors.add("reserved " + r.reservedBytes());
                    }
                }
                for (Object o : held) {
                    if (o instanceof byte[] x) {
                        a.release(x);
                    } else {
                        b.release((long[]) o);
                    }
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        assertThat(errors).isEmpty();
        assertThat(refused.get()).isPositive();
        assertThat(a.failed() + b.failed()).isEqualTo(refused.get());
        // Quiet: the budget holds exactly the bytes of the objects still allocated.
        assertThat(r.reservedBytes()).isEqualTo(a.allocated() * 1024 + b.allocated() * 2048);
        r.gc();
        assertThat(a.allocated()).isZero();
        assertThat(b.allocated()).isZero();
        assertThat(r.reservedBytes()).isZero();
    }
}
