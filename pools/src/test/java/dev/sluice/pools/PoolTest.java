package dev.sluice.pools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PoolTest {

    private final AtomicInteger created = new AtomicInteger();

    private Item newItem() {
        return new Item(created.incrementAndGet());
    }

    private static void reset(Item i) {
        i.value = 0;
        i.resets++;
    }

    @Test
    void aReleasedObjectIsResetAndComesBackFromTheThreadCache() {
        Pool<Item> pool = new PoolRegistry().create("item", Item.class, 40, this::newItem, PoolTest::reset);
        Item a = pool.alloc();
        a.value = 42;
        assertThat(pool.allocated()).isEqualTo(1);
        assertThat(pool.used()).isEqualTo(1);
        pool.release(a);
        assertThat(a.value).isZero();
        assertThat(a.resets).isEqualTo(1);
        // Objects in thread caches still count as used (HAProxy's convention).
        assertThat(pool.used()).isEqualTo(1);
        assertThat(pool.cached()).isEqualTo(1);
        assertThat(pool.alloc()).isSameAs(a);
        assertThat(created).hasValue(1);
        assertThat(pool.cached()).isZero();
    }

    @Test
    void theThreadCacheHandsOutTheMostRecentlyReleasedFirst() {
        Pool<Item> pool = new PoolRegistry().create("item", Item.class, 40, this::newItem, PoolTest::reset);
        Item a = pool.alloc();
        Item b = pool.alloc();
        pool.release(a);
        pool.release(b);
        assertThat(pool.alloc()).isSameAs(b);
        assertThat(pool.alloc()).isSameAs(a);
    }

    @Test
    void sizesAreRoundedUpTo16UnlessExact() {
        PoolRegistry r = new PoolRegistry();
        assertThat(r.create("a", Item.class, 40, this::newItem, PoolTest::reset).size()).isEqualTo(48);
        assertThat(r.create("b", Item.class, 48, this::newItem, PoolTest::reset).size()).isEqualTo(48);
        assertThat(r.create("c", Item.class, 40, this::newItem, PoolTest::reset, PoolOptions.DEFAULT.withExact(true)).size())
                .isEqualTo(40);
        assertThatThrownBy(() -> r.create("d", Item.class, 0, this::newItem, PoolTest::reset))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void poolsOfTheSameTypeSizeAndOptionsMergeUnlessExact() {
        PoolRegistry r = new PoolRegistry();
        Pool<Item> a = r.create("h2s", Item.class, 184, this::newItem, PoolTest::reset);
        Pool<Item> b = r.create("h3s", Item.class, 190, this::newItem, PoolTest::reset);
        assertThat(b).isSameAs(a);
        assertThat(a.users()).containsExactly("h2s", "h3s");
        assertThat(a.name()).isEqualTo("h2s");
        assertThat(a.shared()).isTrue();

        Pool<String> otherType = r.create("str", String.class, 184, () -> "x", s -> { });
        assertThat((Object) otherType).isNotSameAs(a);
        Pool<Item> exact = r.create("exact", Item.class, 192, this::newItem, PoolTest::reset, PoolOptions.DEFAULT.withExact(true));
        assertThat(exact).isNotSameAs(a);
        assertThat(exact.shared()).isFalse();
        Pool<Item> limited = r.create("lim", Item.class, 184, this::newItem, PoolTest::reset, PoolOptions.DEFAULT.withLimit(5));
        assertThat(limited).isNotSameAs(a);
        assertThat(r.pools()).hasSize(4);
    }

    @Test
    void theRegistryListsPoolsByIncreasingSizeThenCreation() {
        PoolRegistry r = new PoolRegistry();
        r.create("big", Item.class, 16384, this::newItem, PoolTest::reset);
        r.create("small", Item.class, 32, this::newItem, PoolTest::reset);
        r.create("mid1", String.class, 200, () -> "", s -> { });
        r.create("mid2", Integer.class, 200, () -> 1, s -> { });
        assertThat(r.pools()).extracting(Pool::name).containsExactly("small", "mid1", "mid2", "big");
    }

    @Test
    void aPoolLimitRefusesCreationsAndCountsFailures() {
        Pool<Item> pool = new PoolRegistry().create("lim", Item.class, 64, this::newItem, PoolTest::reset,
                PoolOptions.DEFAULT.withLimit(3));
        List<Item> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(pool.alloc());
        }
        assertThat(held).doesNotContainNull();
        assertThat(pool.alloc()).isNull();
        assertThat(pool.alloc()).isNull();
        assertThat(pool.failed()).isEqualTo(2);
        assertThat(pool.allocated()).isEqualTo(3);
        pool.release(held.removeFirst());
        assertThat(pool.alloc()).isNotNull();
        assertThat(created).hasValue(3);
    }

    @Test
    void anOutOfMemoryErrorInTheFactoryIsAFailureNotACrash() {
        AtomicInteger calls = new AtomicInteger();
        PoolRegistry r = new PoolRegistry(1 << 20);
        Pool<Item> pool = r.create("oom", Item.class, 64, () -> {
            if (calls.incrementAndGet() == 2) {
                throw new OutOfMemoryError("test");
            }
            return new Item(calls.get());
        }, PoolTest::reset);
        assertThat(pool.alloc()).isNotNull();
        assertThat(pool.alloc()).isNull();
        assertThat(pool.failed()).isEqualTo(1);
        assertThat(pool.allocated()).isEqualTo(1);
        assertThat(r.reservedBytes()).isEqualTo(64);
        assertThat(pool.alloc()).isNotNull();
    }

    @Test
    void aFactoryReturningNullOrThrowingGivesItsReservationBack() {
        PoolRegistry r = new PoolRegistry(1 << 20);
        Pool<Item> nul = r.create("null", Item.class, 64, () -> null, PoolTest::reset);
        assertThatThrownBy(nul::alloc).isInstanceOf(IllegalStateException.class).hasMessageContaining("null");
        Pool<String> boom = r.create("boom", String.class, 64, () -> {
            throw new IllegalArgumentException("boom");
        }, s -> { });
        assertThatThrownBy(boom::alloc).hasMessage("boom");
        assertThat(r.reservedBytes()).isZero();
        assertThat(nul.allocated()).isZero();
    }

    @Test
    void virtualThreadsUseTheSharedCacheOnly() throws Exception {
        Pool<Item> pool = new PoolRegistry().create("vt", Item.class, 64, this::newItem, PoolTest::reset,
                PoolOptions.DEFAULT.withMinAvail(10));
        Item[] got = new Item[2];
        Thread vt = Thread.ofVirtual().start(() -> {
            got[0] = pool.alloc();
            pool.release(got[0]);
            got[1] = pool.alloc();
            pool.release(got[1]);
        });
        vt.join();
        assertThat(got[1]).isSameAs(got[0]);
        assertThat(pool.cached()).isZero();
        assertThat(pool.sharedSpares()).isEqualTo(1);
        assertThat(pool.used()).isZero();
        assertThat(pool.allocated()).isEqualTo(1);
    }

    @Test
    void bothLookupsFindTheSameThreadCache() {
        PoolRegistry r = new PoolRegistry();
        Pool<Item> byId = r.create("id", Item.class, 64, this::newItem, PoolTest::reset,
                PoolOptions.DEFAULT.withLookup(PoolOptions.ThreadCacheLookup.THREAD_ID));
        Pool<Item> byLocal = r.create("tl", Item.class, 64, this::newItem, PoolTest::reset,
                PoolOptions.DEFAULT.withLookup(PoolOptions.ThreadCacheLookup.THREAD_LOCAL));
        assertThat(ThreadSlots.current(true)).isEqualTo(ThreadSlots.current(false)).isNotNegative();
        Item a = byId.alloc();
        byId.release(a);
        assertThat(byId.alloc()).isSameAs(a);
        Item b = byLocal.alloc();
        byLocal.release(b);
        assertThat(byLocal.alloc()).isSameAs(b);
    }

    @Test
    void slotsOfDeadThreadsAreReused() throws Exception {
        int[] first = new int[1];
        Thread t = Thread.ofPlatform().start(() -> first[0] = ThreadSlots.current(true));
        t.join();
        int[] second = new int[1];
        // The lowest free or dead slot is taken: the dead thread's slot, or a lower one freed meanwhile.
        Thread u = Thread.ofPlatform().start(() -> second[0] = ThreadSlots.current(false));
        u.join();
        assertThat(first[0]).isNotNegative();
        assertThat(second[0]).isNotNegative().isLessThanOrEqualTo(first[0]);
    }

    @Test
    void aResetStepThatThrowsDropsTheObjectAndKeepsCountsExact() {
        PoolRegistry r = new PoolRegistry(1 << 20);
        Pool<Item> pool = r.create("bad", Item.class, 64, this::newItem, i -> {
            if (i.value < 0) {
                throw new IllegalStateException("cannot reset");
            }
        });
        Item a = pool.alloc();
        Item b = pool.alloc();
        a.value = -1;
        assertThatThrownBy(() -> pool.release(a)).hasMessage("cannot reset");
        assertThat(pool.allocated()).isEqualTo(1);
        assertThat(pool.used()).isEqualTo(1);
        assertThat(r.reservedBytes()).isEqualTo(64);
        pool.release(b);
        assertThat(pool.alloc()).isSameAs(b);
    }
}
