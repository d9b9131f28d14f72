package dev.sluice.sticktable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A small read-write spin lock whose one word of state sits alone on its cache line (and on the adjacent
 * one, for CPUs whose spatial prefetcher pulls line pairs), so that threads hammering it never
 * invalidate a line holding anything else and threads using nearby objects never invalidate it. This is
 * what HAProxy gained by isolating the stick-table update lock on its own cache line. It guards short
 * critical sections only (a few list or map operations); waiters spin, then yield, then sleep briefly,
 * so a preempted holder on a small machine does not burn the other cores. Not reentrant. Owned by a
 * {@link StickTable} (one per shard and one for the update log); any thread may use it.
 *
 * <p>Layout. {@code @Contended} is not usable without {@code -XX:-RestrictContended}, so the padding is
 * explicit and relies on HotSpot laying out superclass fields before subclass fields:
 * {@code LeftPad} (16 longs, 128 bytes) &lt; {@code State} ({@code long state}) &lt; {@code PaddedLock}
 * (16 longs, 128 bytes). The object header is 12 or 16 bytes (8 with compact headers), so {@code state}
 * lands at offset 128 + header or so, at least 128 bytes after the start of the object, and has at least
 * 128 bytes of never-written padding after it: whatever object precedes or follows this one in the heap,
 * no other written field is within 128 bytes of {@code state}. The state is a {@code long}, not an
 * {@code int}, on purpose: since JDK 15 a subclass field may be placed in a gap left in a superclass
 * layout (here the 4 bytes between a 12-byte header and the first 8-aligned long), which would put an
 * {@code int} right after the header, i.e. next to the previous object; an 8-byte field cannot fit there.
 * {@code PaddedLockTest} checks the offsets with {@code Unsafe.objectFieldOffset}; on JDK 25 x86-64 they
 * are: pads 16..136, state 144, pads 152..272 (object 280 bytes); with {@code -XX:+UseCompactObjectHeaders}
 * pads 8..128, state 136, pads 144..264.
 *
 * <p>State: bit 62 = held exclusively, bit 61 = a writer is waiting (new readers hold off so writers are
 * not starved), low 32 bits = number of shared holders.
 */
final class PaddedLock extends PaddedLockState {
    long p16, p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31;

    static final long WRITER = 1L << 62;
    static final long WAITING = 1L << 61;
    private static final long READERS = 0xFFFF_FFFFL;

    /** Takes the lock exclusively. */
    void lock() {
        long s = (long) STATE.getVolatile(this);
        if (s == 0 && STATE.compareAndSet(this, 0L, WRITER)) {
            return;
        }
        for (int spins = 0;; spins++) {
            s = (long) STATE.getVolatile(this);
            if ((s & ~WAITING) == 0) {
                if (STATE.compareAndSet(this, s, WRITER)) {
                    return;
                }
            } else if ((s & WAITING) == 0) {
                STATE.compareAndSet(this, s, s | WAITING);
            }
            backOff(spins);
        }
    }

    /** Takes the lock exclusively if it is free now. */
    boolean tryLock() {
        return STATE.compareAndSet(this, 0L, WRITER);
    }

    void unlock() {
        // Readers cannot enter while WRITER is set, so nobody else changes the word but a waiting writer
        // setting WAITING; dropping that bit is harmless, the waiter sets it again if it still has to wait.
        STATE.setRelease(this, 0L);
    }

    /** Takes the lock shared. */
    void lockShared() {
        for (int spins = 0;; spins++) {
            long s = (long) STATE.getVolatile(this);
            if ((s & (WRITER | WAITING)) == 0) {
                if (STATE.compareAndSet(this, s, s + 1)) {
                    return;
                }
            } else {
                backOff(spins);
            }
        }
    }

    void unlockShared() {
        STATE.getAndAdd(this, -1L);
    }

    /** True when held exclusively (for assertions and tests). */
    boolean isHeldExclusively() {
        return ((long) STATE.getVolatile(this) & WRITER) != 0;
    }

    /** Number of shared holders (for tests). */
    int sharedHolders() {
        return (int) ((long) STATE.getVolatile(this) & READERS);
    }

    private static void backOff(int spins) {
        if (spins < 64) {
            Thread.onSpinWait();
        } else if (spins < 256) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(20_000L);
        }
    }
}

/** 128 bytes of padding before the lock state (see {@link PaddedLock}). */
abstract class PaddedLockLeftPad {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The lock state word, between two pads (see {@link PaddedLock}). */
abstract class PaddedLockState extends PaddedLockLeftPad {
    static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PaddedLockState.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    volatile long state;
}
