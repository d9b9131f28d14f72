package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class UpdateLogTest {
    private final ManualClock clock = new ManualClock(1000);

    private StickTable table(TableOptions.UpdateRecording rec) {
        StickTableSpec spec = StickTableSpec.of(KeyType.INTEGER, 1000, 60_000).withStore(StoreSpec.parse("gpc0", null)).withPeers("peers");
        return new StickTable("t", spec, ManualClock.options(clock).withUpdates(rec));
    }

    private static StickEntry touch(StickTable t, int k) {
        StickEntry e = t.track(StickKey.integer(k));
        e.incGpc0();
        t.touch(e);
        t.untrack(e);
        return e;
    }

    private static List<String> seqs(UpdateLog.Batch b) {
        List<String> out = new ArrayList<>();
        for (UpdateLog.Update u : b.updates()) {
            out.add(u.entry().key().int32() + "@" + u.seq());
        }
        return out;
    }

    @Test
    void recordingFollowsThePeersSetting() {
        assertThat(new StickTable("a", StickTableSpec.of(KeyType.IP, 10, 0)).updateLog()).isNull();
        StickTable withPeers = new StickTable("b", StickTableSpec.of(KeyType.IP, 10, 0).withPeers("p"));
        assertThat(withPeers.updateRecording()).isEqualTo(TableOptions.UpdateRecording.OWN_LOCK);
        assertThat(withPeers.updateLog()).isNotNull();
        // Touches without a log only move the expiry date.
        StickTable off = table(TableOptions.UpdateRecording.OFF);
        assertThat(off.updateLog()).isNull();
        touch(off, 1);
        assertThat(off.lookup(StickKey.integer(1)).expireAt()).isEqualTo(61_000);
    }

    @ParameterizedTest
    @EnumSource(value = TableOptions.UpdateRecording.class, names = {"OWN_LOCK", "UNDER_TABLE_LOCK"})
    void localChangesAreNumberedInOrder(TableOptions.UpdateRecording rec) {
        StickTable t = table(rec);
        UpdateLog log = t.updateLog();
        assertThat(log.localUpdate()).isZero();
        touch(t, 10);
        touch(t, 20);
        touch(t, 30);
        assertThat(log.localUpdate()).isEqualTo(3);
        // Touching an entry no peer has seen yet keeps its place and number: the pending update carries it.
        touch(t, 10);
        assertThat(log.localUpdate()).isEqualTo(3);
        UpdateLog.Batch b = log.updatesAfter(0, 100);
        assertThat(seqs(b)).containsExactly("10@1", "20@2", "30@3");
        assertThat(b.localUpdate()).isEqualTo(3);
        assertThat(b.lastSeq(0)).isEqualTo(3);
        // Once handed to a peer, a new change moves the entry to the end with a new number.
        touch(t, 10);
        assertThat(seqs(log.updatesAfter(3, 100))).containsExactly("10@4");
        assertThat(seqs(log.updatesAfter(0, 100))).containsExactly("20@2", "30@3", "10@4");
        assertThat(log.localSize()).isEqualTo(3);
        assertThat(log.updatesAfter(4, 100).updates()).isEmpty();
        assertThat(log.updatesAfter(4, 100).lastSeq(4)).isEqualTo(4);
    }

    @Test
    void batchesAreBounded() {
        StickTable t = table(TableOptions.UpdateRecording.OWN_LOCK);
        for (int i = 0; i < 10; i++) {
            touch(t, i);
        }
        UpdateLog log = t.updateLog();
        long last = 0;
        List<String> all = new ArrayList<>();
        for (int pass = 0; pass < 10 && last < log.localUpdate(); pass++) {
            UpdateLog.Batch b = log.updatesAfter(last, 3);
            assertThat(b.updates().size()).isLessThanOrEqualTo(3);
            all.addAll(seqs(b));
            last = b.lastSeq(last);
        }
        assertThat(all).containsExactly("0@1", "1@2", "2@3", "3@4", "4@5", "5@6", "6@7", "7@8", "8@9", "9@10");
    }

    @Test
    void lookupsFromEitherEndAgreeWithABruteForceScan() {
        StickTable t = table(TableOptions.UpdateRecording.OWN_LOCK);
        UpdateLog log = t.updateLog();
        for (int i = 0; i < 100; i++) {
            touch(t, i);
        }
        log.updatesAfter(0, 1000); // every entry seen
        for (int i = 0; i < 100; i += 3) {
            touch(t, i); // re-numbered 101, 102, ...
        }
        List<UpdateLog.Update> all = log.updatesAfter(0, 1000).updates();
        assertThat(all).isSortedAccordingTo(Comparator.comparingLong(UpdateLog.Update::seq));
        assertThat(all).hasSize(100);
        for (long after = 0; after <= log.localUpdate(); after++) {
            long a = after;
            List<Long> expected = all.stream().map(UpdateLog.Update::seq).filter(s -> s > a).limit(5).toList();
            assertThat(log.updatesAfter(after, 5).updates()).extracting(UpdateLog.Update::seq).as("after " + after).isEqualTo(expected);
        }
    }

    @Test
    void learnedUpdatesAreNumberedBeyondLocalOnesAndNeverPushed() {
        StickTable t = table(TableOptions.UpdateRecording.OWN_LOCK);
        UpdateLog log = t.updateLog();
        touch(t, 1);
        StickEntry learned = t.track(StickKey.integer(2));
        learned.set(DataType.GPC0, 0, 9);
        t.touchLearned(learned, 5000);
        t.untrack(learned);
        assertThat(learned.expireAt()).isEqualTo(6000);
        assertThat(learned.updSeq).isEqualTo(2 + UpdateLog.LEARNED_OFFSET);
        assertThat(log.lastUpdate()).isEqualTo(2);
        assertThat(log.localUpdate()).isEqualTo(1);
        assertThat(log.learnedSize()).isEqualTo(1);
        assertThat(seqs(log.updatesAfter(0, 100))).containsExactly("1@1");
        // Learned again while still logged: no new number.
        t.touchLearned(learned, -1);
        assertThat(log.lastUpdate()).isEqualTo(2);
        assertThat(learned.expireAt()).isEqualTo(61_000);
        // A local change to a learned entry makes it a local update, which peers then get.
        touch(t, 2);
        assertThat(seqs(log.updatesAfter(1, 100))).containsExactly("2@3");
        assertThat(log.learnedSize()).isZero();
        assertThat(log.localSize()).isEqualTo(2);
        // learned again once pushed: a learned update again, not sent back
        StickEntry e = t.track(StickKey.integer(2));
        t.touchLearned(e, -1);
        t.untrack(e);
        assertThat(e.updSeq).isEqualTo(4 + UpdateLog.LEARNED_OFFSET);
        assertThat(log.localSize()).isEqualTo(1);
        assertThat(seqs(log.updatesAfter(1, 100))).isEmpty();
        // learned while a local change waits: the pending push keeps it
        touch(t, 2);
        e = t.track(StickKey.integer(2));
        t.touchLearned(e, -1);
        t.untrack(e);
        assertThat(seqs(log.updatesAfter(1, 100))).containsExactly("2@5");
    }

    @Test
    void queuingAnEntryTellsTheListenerOncePerPush() {
        StickTable t = table(TableOptions.UpdateRecording.OWN_LOCK);
        UpdateLog log = t.updateLog();
        int[] calls = {0};
        log.onQueued(() -> calls[0]++);
        touch(t, 1);
        touch(t, 1);
        touch(t, 2);
        assertThat(calls[0]).isEqualTo(2);
        log.updatesAfter(0, 100);
        touch(t, 1);
        assertThat(calls[0]).isEqualTo(3);
    }

    @Test
    void entriesLeavingTheTableLeaveTheLog() {
        StickTable t = table(TableOptions.UpdateRecording.OWN_LOCK);
        UpdateLog log = t.updateLog();
        touch(t, 1);
        touch(t, 2);
        touch(t, 3);
        assertThat(t.clear(new TableQuery.ByKey(StickKey.integer(2)))).isEqualTo(new ClearResult(1, 0));
        assertThat(seqs(log.updatesAfter(0, 100))).containsExactly("1@1", "3@3");
        clock.advance(60_000);
        t.purgeExpired();
        assertThat(log.localSize()).isZero();
        assertThat(log.updatesAfter(0, 100).updates()).isEmpty();
        // A touch on an entry that already left records nothing.
        StickEntry gone = t.track(StickKey.integer(4));
        t.untrack(gone);
        t.clear(new TableQuery.All());
        t.touch(gone);
        assertThat(log.localSize()).isZero();
    }
}
