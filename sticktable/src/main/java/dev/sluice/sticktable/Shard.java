package dev.sluice.sticktable;

import java.util.Comparator;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One shard of a table's key index: the entries whose key hash falls here, and their expiry queue.
 * The map is read without any lock (lookups); every change to the map or the queue happens with
 * {@link #lock} held exclusively. Owned by its {@link StickTable}.
 *
 * <p>The queue orders entries by {@code queuedExpire}, the expiry date they had when queued. Touches only
 * store a new {@code expire} in the entry (no lock), so the queue position may lag behind; whoever walks
 * the queue (purge, eviction) moves such an entry to its real position when it meets it, as HAProxy does
 * with its {@code exp} tree.
 */
final class Shard {
    private static final Comparator<StickEntry> BY_QUEUED_EXPIRE = (a, b) -> {
        int c = Long.compare(a.queuedExpire, b.queuedExpire);
        return c != 0 ? c : Long.compare(a.id, b.id);
    };

    final PaddedLock lock = new PaddedLock();
    final ConcurrentHashMap<StickKey, StickEntry> map = new ConcurrentHashMap<>();
    /** Guarded by {@link #lock}. */
    final TreeSet<StickEntry> expiry = new TreeSet<>(BY_QUEUED_EXPIRE);

    /** Queue order: true when {@code a} comes before {@code b}. */
    static boolean before(StickEntry a, StickEntry b) {
        return BY_QUEUED_EXPIRE.compare(a, b) < 0;
    }

    void enqueue(StickEntry e, long at) {
        e.queuedExpire = at;
        e.queued = true;
        expiry.add(e);
    }

    void dequeue(StickEntry e) {
        if (e.queued) {
            expiry.remove(e);
            e.queued = false;
        }
    }

    void requeue(StickEntry e, long at) {
        dequeue(e);
        enqueue(e, at);
    }

    /** Removes a dead entry from the map and the queue. */
    void drop(StickEntry e) {
        map.remove(e.key, e);
        dequeue(e);
    }

    StickEntry first() {
        return expiry.isEmpty() ? null : expiry.first();
    }

    StickEntry after(StickEntry e) {
        return expiry.higher(e);
    }
}
