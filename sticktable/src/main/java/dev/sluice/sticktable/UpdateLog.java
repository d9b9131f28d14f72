package dev.sluice.sticktable;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The update log of one table: the entries changed since they were last handed to peers, in the order
 * of their last change, each with a per-table sequence number. Peer replication reads it with
 * {@link #updatesAfter}. Owned by its {@link StickTable}, which records into it on touches and removes
 * entries that leave the table; any thread may call it.
 *
 * <p>Sequence numbers (HAProxy's {@code update}/{@code localupdate}): every local change takes
 * {@code ++update} and becomes {@link #localUpdate()}; an entry learned from a peer takes
 * {@code ++update + 2^31} ({@link #LEARNED_OFFSET}), which puts it beyond every local number, so the live
 * push (local numbers after a peer's {@code last_pushed} up to {@code localupdate}) never sends it back:
 * learned updates are never re-propagated. Numbers are {@code long} and never wrap. An entry appears at
 * most once: a new local change moves it to the end with a new number. As in HAProxy 3.x, a change to an
 * entry that is already waiting in the log and that no peer has been handed yet (not "seen") keeps its
 * place and number, and costs no lock: the pending update will carry the new data anyway.
 *
 * <p>Locking: everything here is guarded by {@code lock}, which in the normal layout is this log's own
 * {@link PaddedLock}, alone on its cache line and separate from the key index's shard locks, so recording
 * an update never contends with lookups, creations or frees, and a peer reading a batch never blocks
 * them either. In the baseline layout (for comparison benchmarks) it is the table-wide lock instead.
 * Callers never hold a shard lock when calling in, so the two layouts share one lock order.
 *
 * <p>Memory ordering with peers: a batch marks its entries seen (volatile write) before the peer reads
 * their data; a tracker writes data (atomic ops) before {@link StickTable#touch} reads {@code seen}
 * (volatile read). Whichever comes second sees the other, so a change made while a peer encodes an entry
 * is either in what it sends or re-queued with a new number.
 */
public final class UpdateLog {
    /** Added to the numbers of learned updates, as HAProxy does (2^31). */
    public static final long LEARNED_OFFSET = 1L << 31;

    static final byte NONE = 0;
    static final byte LOCAL = 1;
    static final byte LEARNED = 2;

    /** One logged change: the entry and its sequence number. */
    public record Update(long seq, StickEntry entry) {
    }

    /**
     * A batch of local updates in sequence order, and the table's {@code localupdate} when it was taken:
     * a peer whose {@code last_pushed} reaches it is up to date.
     */
    public record Batch(List<Update> updates, long localUpdate) {

        /** The number of the last update of the batch, or {@code after} when it is empty. */
        public long lastSeq(long after) {
            return updates.isEmpty() ? after : updates.getLast().seq();
        }
    }

    private final PaddedLock lock;
    private volatile Runnable onQueued;

    // Guarded by lock.
    private long update;
    private long localUpdate;
    private StickEntry localHead;
    private StickEntry localTail;
    private StickEntry learnedHead;
    private StickEntry learnedTail;
    private int localCount;
    private int learnedCount;

    UpdateLog(PaddedLock lock) {
        this.lock = lock;
    }

    /** Records a local change of {@code e}; see the class comment for when this is free. */
    void recordLocal(StickEntry e) {
        if (e.updList == LOCAL && !e.seen) {
            return;
        }
        lock.lock();
        try {
            if (e.isRemoved() || (e.updList == LOCAL && !e.seen)) {
                return;
            }
            unlink(e);
            long seq = ++update;
            localUpdate = seq;
            e.updSeq = seq;
            e.seen = false;
            append(e, LOCAL);
        } finally {
            lock.unlock();
        }
        Runnable r = onQueued;
        if (r != null) {
            r.run();
        }
    }

    /**
     * Sets what runs (on the changing thread, outside the lock) each time a local change puts an entry in the log that
     * was not waiting in it: at most once per entry and push, so peers can push at once instead of at their next pass.
     * It must be cheap and must not block (peers coalesce it to one wake-up per pass).
     */
    public void onQueued(Runnable r) {
        onQueued = r;
    }

    /**
     * Records an entry learned from a peer, as HAProxy's stktable_touch_remote: numbered as learned unless a local
     * change of it is still waiting to be pushed (then that push carries the learned data, once).
     */
    void recordLearned(StickEntry e) {
        if (e.updList == LEARNED || (e.updList == LOCAL && !e.seen)) {
            return;
        }
        lock.lock();
        try {
            if (e.isRemoved() || e.updList == LEARNED || (e.updList == LOCAL && !e.seen)) {
                return;
            }
            unlink(e);
            e.updSeq = ++update + LEARNED_OFFSET;
            append(e, LEARNED);
        } finally {
            lock.unlock();
        }
    }

    /** Unlinks entries that left the table. */
    void removeAll(List<StickEntry> gone) {
        if (gone.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            for (StickEntry e : gone) {
                unlink(e);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Up to {@code max} local updates numbered after {@code afterSeq} (at most {@link #localUpdate()}),
     * oldest first, marked as seen by a peer. Entries removed meanwhile are skipped. A peer passes its
     * {@code last_pushed} and then advances it to {@link Batch#lastSeq}.
     */
    public Batch updatesAfter(long afterSeq, int max) {
        List<Update> out = new ArrayList<>(Math.min(Math.max(max, 0), 256));
        lock.lock();
        try {
            StickEntry n = firstLocalAfter(afterSeq);
            while (n != null && out.size() < max) {
                if (!n.isRemoved()) {
                    n.seen = true;
                    out.add(new Update(n.updSeq, n));
                }
                n = n.updNext;
            }
            return new Batch(out, localUpdate);
        } finally {
            lock.unlock();
            // The caller reads the entries' data next: make the 'seen' marks visible before those reads
            // (a StoreLoad barrier the unlock's release store does not give), see the class comment.
            VarHandle.fullFence();
        }
    }

    /** The number of the last local update (HAProxy's {@code localupdate}), 0 before any. */
    public long localUpdate() {
        lock.lock();
        try {
            return localUpdate;
        } finally {
            lock.unlock();
        }
    }

    /** The last number handed out, local or learned (HAProxy's {@code update}). */
    public long lastUpdate() {
        lock.lock();
        try {
            return update;
        } finally {
            lock.unlock();
        }
    }

    /** Entries in the log with a local number. */
    public int localSize() {
        lock.lock();
        try {
            return localCount;
        } finally {
            lock.unlock();
        }
    }

    /** Entries in the log with a learned number. */
    public int learnedSize() {
        lock.lock();
        try {
            return learnedCount;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The first local entry numbered after {@code seq}. Numbers increase along the list, so walk from
     * whichever end is closer in numbers: peers usually ask for the last few updates, so that is the
     * tail and the walk is as long as the batch.
     */
    private StickEntry firstLocalAfter(long seq) {
        if (localTail == null || localTail.updSeq <= seq) {
            return null;
        }
        if (seq < localHead.updSeq) {
            return localHead;
        }
        if (seq - localHead.updSeq < localTail.updSeq - seq) {
            StickEntry n = localHead;
            while (n.updSeq <= seq) {
                n = n.updNext;
            }
            return n;
        }
        StickEntry n = localTail;
        while (n.updPrev != null && n.updPrev.updSeq > seq) {
            n = n.updPrev;
        }
        return n;
    }

    private void append(StickEntry e, byte list) {
        e.updNext = null;
        if (list == LOCAL) {
            e.updPrev = localTail;
            if (localTail == null) {
                localHead = e;
            } else {
                localTail.updNext = e;
            }
            localTail = e;
            localCount++;
        } else {
            e.updPrev = learnedTail;
            if (learnedTail == null) {
                learnedHead = e;
            } else {
                learnedTail.updNext = e;
            }
            learnedTail = e;
            learnedCount++;
        }
        e.updList = list;
    }

    private void unlink(StickEntry e) {
        byte list = e.updList;
        if (list == NONE) {
            return;
        }
        StickEntry p = e.updPrev;
        StickEntry n = e.updNext;
        if (list == LOCAL) {
            if (p == null) {
                localHead = n;
            } else {
                p.updNext = n;
            }
            if (n == null) {
                localTail = p;
            } else {
                n.updPrev = p;
            }
            localCount--;
        } else {
            if (p == null) {
                learnedHead = n;
            } else {
                p.updNext = n;
            }
            if (n == null) {
                learnedTail = p;
            } else {
                n.updPrev = p;
            }
            learnedCount--;
        }
        e.updPrev = null;
        e.updNext = null;
        e.updList = NONE;
    }
}
