package dev.sluice.pools;

import java.util.function.IntConsumer;

/**
 * Gives each platform thread that uses a pool a small slot number, the index of its cache in every
 * {@link Pool} (HAProxy's {@code tid}). Slots of dead threads are reused by new threads, which inherit the
 * dead thread's cached objects (still free objects of those pools, still counted as used) or see them
 * drained by {@link PoolRegistry#gc()}. Virtual threads, and platform threads beyond {@link #MAX} live at
 * once, get no slot ({@code -1}) and use the shared caches only.
 *
 * <p>Two ways to find the current thread's slot, chosen per pool ({@link PoolOptions.ThreadCacheLookup}):
 * a {@link ThreadLocal}, or a direct-mapped table indexed by {@link Thread#threadId()} and checked
 * against the thread (falling back to the ThreadLocal when two live threads collide). Pools do not
 * depend on Netty, so Netty's {@code FastThreadLocal} is not an option. All static; any thread.
 */
final class ThreadSlots {
    /** Most slots live at once: pools hold an array of this many cache references. */
    static final int MAX = 256;

    private static final int BY_ID_SIZE = 1024;

    /** One thread's slot; immutable, so a racy read of the tables sees it whole. */
    private record Slot(Thread thread, int index) {
    }

    private static final ThreadLocal<Slot> LOCAL = new ThreadLocal<>();
    private static final Slot[] BY_ID = new Slot[BY_ID_SIZE];
    /** Owner of each slot, null when never used; guarded by the class lock. */
    private static final Thread[] OWNERS = new Thread[MAX];

    private ThreadSlots() {
    }

    /** The current thread's slot, or -1 when it has none. */
    static int current(boolean byThreadId) {
        Thread t = Thread.currentThread();
        Slot s = find(t, byThreadId);
        return s != null ? s.index : register(t);
    }

    /** The current thread's slot, or -1 when it has none; never assigns one. */
    static int currentIfAny(boolean byThreadId) {
        Slot s = find(Thread.currentThread(), byThreadId);
        return s != null ? s.index : -1;
    }

    /** {@code t}'s slot record (its index may be -1), or null when it never asked for one. */
    private static Slot find(Thread t, boolean byThreadId) {
        if (byThreadId) {
            Slot s = BY_ID[(int) t.threadId() & (BY_ID_SIZE - 1)];
            if (s != null && s.thread == t) {
                return s;
            }
        }
        return LOCAL.get();
    }

    private static synchronized int register(Thread t) {
        int index = -1;
        if (!t.isVirtual()) {
            for (int i = 0; i < MAX; i++) {
                Thread owner = OWNERS[i];
                // isAlive() false: the dead owner's last writes happen-before this thread's use of the slot.
                if (owner == null || !owner.isAlive()) {
                    OWNERS[i] = t;
                    index = i;
                    break;
                }
            }
        }
        Slot s = new Slot(t, index);
        LOCAL.set(s);
        if (index >= 0) {
            int k = (int) t.threadId() & (BY_ID_SIZE - 1);
            Slot previous = BY_ID[k];
            if (previous == null || !previous.thread.isAlive()) {
                BY_ID[k] = s;
            }
        }
        return index;
    }

    /**
     * Runs {@code action} for each slot whose owner died, holding the lock that slot assignment takes, so
     * no new thread takes such a slot (and starts using its caches) while {@code action} empties them.
     */
    static synchronized void forEachDeadSlot(IntConsumer action) {
        for (int i = 0; i < MAX; i++) {
            Thread owner = OWNERS[i];
            if (owner != null && !owner.isAlive()) {
                action.accept(i);
            }
        }
    }
}
