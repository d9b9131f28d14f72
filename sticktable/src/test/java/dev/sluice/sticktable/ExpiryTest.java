package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExpiryTest {
    private final ManualClock clock = new ManualClock(1000);

    private StickTable table(long expireMs) {
        StickTableSpec spec = StickTableSpec.of(KeyType.IP, 100, expireMs).withStore(StoreSpec.parse("gpc0", null));
        return new StickTable("t", spec, ManualClock.options(clock));
    }

    private static StickKey key(int i) {
        return StickKey.ipv4(0x0A000000 + i);
    }

    private static StickEntry create(StickTable t, StickKey k) {
        StickEntry e = t.track(k);
        t.touch(e);
        t.untrack(e);
        return e;
    }

    @Test
    void anEntryExpiresExpireMsAfterItsLastTouch() {
        StickTable t = table(10_000);
        StickEntry e = create(t, key(1));
        assertThat(e.expireAt()).isEqualTo(11_000);
        assertThat(t.nextExpiry()).isEqualTo(11_000);
        clock.set(10_999);
        assertThat(t.purgeExpired()).isZero();
        assertThat(t.lookup(key(1))).isSameAs(e);
        clock.set(11_000);
        assertThat(t.purgeExpired()).isEqualTo(1);
        assertThat(t.lookup(key(1))).isNull();
        assertThat(e.isRemoved()).isTrue();
        assertThat(t.used()).isZero();
        assertThat(t.nextExpiry()).isEqualTo(-1);
    }

    @Test
    void touchingPushesTheExpiryDate() {
        StickTable t = table(10_000);
        StickEntry e = create(t, key(1));
        clock.set(5000);
        t.touch(e);
        assertThat(e.expireAt()).isEqualTo(15_000);
        // The queue still holds the old date until a purge meets the entry and moves it.
        assertThat(t.nextExpiry()).isEqualTo(11_000);
        clock.set(11_000);
        assertThat(t.purgeExpired()).isZero();
        assertThat(t.nextExpiry()).isEqualTo(15_000);
        clock.set(15_000);
        assertThat(t.purgeExpired()).isEqualTo(1);
    }

    @Test
    void lookupsNeitherCreateNorRefresh() {
        StickTable t = table(10_000);
        assertThat(t.lookup(key(1))).isNull();
        assertThat(t.used()).isZero();
        StickEntry e = create(t, key(1));
        clock.set(9000);
        assertThat(t.lookup(key(1))).isSameAs(e);
        assertThat(e.expireAt()).isEqualTo(11_000);
    }

    @Test
    void trackedEntriesNeverExpireAndGoWhenTheLastTrackerLeavesLate() {
        StickTable t = table(10_000);
        StickEntry e = t.track(key(1));
        StickEntry again = t.track(key(1));
        assertThat(again).isSameAs(e);
        assertThat(e.trackers()).isEqualTo(2);
        clock.set(50_000);
        assertThat(t.purgeExpired()).isZero();
        assertThat(t.lookup(key(1))).isSameAs(e);
        // Re-queued one expire later rather than left at the head of the queue.
        assertThat(t.nextExpiry()).isEqualTo(60_000);
        t.untrack(e);
        assertThat(e.isRemoved()).isFalse();
        // The last tracker leaving an expired entry removes it at once.
        t.untrack(e);
        assertThat(e.isRemoved()).isTrue();
        assertThat(t.lookup(key(1))).isNull();
        assertThat(t.used()).isZero();
        assertThat(t.queuedCount()).isZero();
    }

    @Test
    void theLastTrackerLeavingAFreshEntryLeavesItToThePurge() {
        StickTable t = table(10_000);
        StickEntry e = t.track(key(1));
        t.touch(e);
        clock.set(2000);
        t.untrack(e);
        assertThat(e.isRemoved()).isFalse();
        assertThat(e.trackers()).isZero();
        clock.set(11_000);
        assertThat(t.purgeExpired()).isEqualTo(1);
    }

    @Test
    void withoutExpireEntriesStayAndTouchesRecordTheirLastUse() {
        StickTable t = table(0);
        StickEntry e = create(t, key(1));
        assertThat(e.expireAt()).isEqualTo(1000);
        clock.set(1_000_000_000);
        assertThat(t.purgeExpired()).isZero();
        assertThat(t.nextExpiry()).isEqualTo(-1);
        assertThat(t.lookup(key(1))).isSameAs(e);
        t.touch(e);
        assertThat(e.expireAt()).isEqualTo(1_000_000_000);
        assertThat(TableDump.entry(e)).contains(" exp=0 ");
    }

    @Test
    void purgeRemovesManyEntriesInBoundedChunks() {
        StickTable t = new StickTable("t", StickTableSpec.of(KeyType.INTEGER, 10_000, 1000), ManualClock.options(clock));
        for (int i = 0; i < 5000; i++) {
            create(t, StickKey.integer(i));
        }
        StickEntry held = t.track(StickKey.integer(42));
        clock.advance(1000);
        assertThat(t.purgeExpired()).isEqualTo(4999);
        assertThat(t.used()).isEqualTo(1);
        assertThat(t.indexedCount()).isEqualTo(1);
        assertThat(t.queuedCount()).isEqualTo(1);
        t.untrack(held);
        assertThat(t.used()).isZero();
    }
}
