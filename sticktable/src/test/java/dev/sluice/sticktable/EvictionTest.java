package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EvictionTest {
    private final ManualClock clock = new ManualClock(1000);

    private StickTable table(int size, long expire, boolean noPurge) {
        StickTableSpec spec = StickTableSpec.of(KeyType.INTEGER, size, expire).withNoPurge(noPurge);
        return new StickTable("t", spec, ManualClock.options(clock));
    }

    private static StickEntry create(StickTable t, int k) {
        StickEntry e = t.track(StickKey.integer(k));
        if (e != null) {
            t.touch(e);
            t.untrack(e);
        }
        return e;
    }

    private static boolean present(StickTable t, int k) {
        return t.lookup(StickKey.integer(k)) != null;
    }

    @Test
    void aFullTableEvictsTheEntryWithTheOldestExpiryDate() {
        StickTable t = table(4, 60_000, false);
        for (int i = 0; i < 4; i++) {
            clock.set(1000 * (i + 1));
            create(t, i);
        }
        clock.set(5000);
        create(t, 4); // batch = 4/256 + 1 = 1: entry 0 (expiring at 61000) goes
        assertThat(present(t, 0)).isFalse();
        assertThat(t.used()).isEqualTo(4);
        // Touching entry 1 makes it the youngest; the next victim is entry 2, though 1 is ahead in the queue.
        clock.set(10_000);
        t.touch(t.lookup(StickKey.integer(1)));
        create(t, 5);
        assertThat(present(t, 1)).isTrue();
        assertThat(present(t, 2)).isFalse();
        create(t, 6);
        assertThat(present(t, 3)).isFalse();
        create(t, 7);
        assertThat(present(t, 4)).isFalse();
        assertThat(present(t, 1)).isTrue();
        assertThat(t.used()).isEqualTo(4);
        assertThat(t.indexedCount()).isEqualTo(4);
        assertThat(t.queuedCount()).isEqualTo(4);
    }

    @Test
    void evictionPicksTheGloballyOldestAcrossShards() {
        StickTable t = table(512, 600_000, false); // batch = 512/256 + 1 = 3
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < 512; i++) {
            keys.add(i * 7919);
        }
        Collections.shuffle(keys, new Random(1));
        for (int i = 0; i < 512; i++) {
            clock.set(1000 + i);
            create(t, keys.get(i));
        }
        create(t, -1);
        assertThat(t.used()).isEqualTo(510);
        for (int i = 0; i < 512; i++) {
            assertThat(present(t, keys.get(i))).as("key created at position " + i).isEqualTo(i >= 3);
        }
    }

    @Test
    void trackedEntriesAreNeverEvicted() {
        StickTable t = table(3, 60_000, false);
        StickEntry oldest = t.track(StickKey.integer(0));
        t.touch(oldest);
        clock.set(2000);
        create(t, 1);
        clock.set(3000);
        create(t, 2);
        create(t, 3);
        assertThat(present(t, 0)).isTrue();
        assertThat(present(t, 1)).isFalse();
        assertThat(oldest.isRemoved()).isFalse();
        t.untrack(oldest);
    }

    @Test
    void aTableFullOfTrackedEntriesRefusesNewOnes() {
        StickTable t = table(2, 60_000, false);
        StickEntry a = t.track(StickKey.integer(1));
        StickEntry b = t.track(StickKey.integer(2));
        assertThat(t.track(StickKey.integer(3))).isNull();
        assertThat(t.used()).isEqualTo(2);
        // An existing key is still found.
        StickEntry a2 = t.track(StickKey.integer(1));
        assertThat(a2).isSameAs(a);
        t.untrack(a2);
        t.untrack(a);
        assertThat(t.track(StickKey.integer(3))).isNotNull();
        assertThat(present(t, 1)).isFalse();
        t.untrack(b);
    }

    @Test
    void noPurgeMakesCreationFailInsteadOfEvicting() {
        StickTable t = table(2, 60_000, true);
        create(t, 1);
        create(t, 2);
        assertThat(create(t, 3)).isNull();
        assertThat(t.update(StickKey.integer(3), e -> e.setServerId(1))).isFalse();
        assertThat(present(t, 1)).isTrue();
        assertThat(present(t, 2)).isTrue();
        assertThat(t.used()).isEqualTo(2);
    }

    @Test
    void withoutExpireTheLeastRecentlyTouchedGoes() {
        StickTable t = table(3, 0, false);
        clock.set(1000);
        create(t, 1);
        clock.set(2000);
        create(t, 2);
        clock.set(3000);
        create(t, 3);
        clock.set(4000);
        t.touch(t.lookup(StickKey.integer(1)));
        create(t, 4);
        assertThat(present(t, 1)).isTrue();
        assertThat(present(t, 2)).isFalse();
    }

    @Test
    void aRefusingMemoryBudgetCreatesNothingAndRemovalsGiveBack() {
        int[] room = {2};
        EntryMemory memory = new EntryMemory() {
            @Override
            public boolean take() {
                if (room[0] == 0) {
                    return false;
                }
                room[0]--;
                return true;
            }

            @Override
            public void give() {
                room[0]++;
            }
        };
        StickTable t = new StickTable("m", StickTableSpec.of(KeyType.INTEGER, 10, 0), TableOptions.DEFAULT.withMemory(memory));
        assertThat(t.update(StickKey.integer(1), e -> { })).isTrue();
        assertThat(t.update(StickKey.integer(2), e -> { })).isTrue();
        assertThat(t.track(StickKey.integer(3))).isNull();
        assertThat(t.used()).isEqualTo(2);
        // an existing key needs no room
        StickEntry one = t.track(StickKey.integer(1));
        assertThat(one).isNotNull();
        t.untrack(one);
        assertThat(t.clear(new TableQuery.ByKey(StickKey.integer(2))).removed()).isEqualTo(1);
        assertThat(room[0]).isEqualTo(1);
        assertThat(t.update(StickKey.integer(3), e -> { })).isTrue();
        assertThat(room[0]).isZero();
    }
}
