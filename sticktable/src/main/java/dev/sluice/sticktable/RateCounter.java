package dev.sluice.sticktable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * HAProxy's two-bucket frequency counter ({@code struct freq_ctr}), stored in two consecutive slots of an
 * entry's {@code long[]} and updated without locks. Stateless; every method may run on any thread.
 *
 * <p>Slot {@code off}, the tick word: bits 0..59 hold {@code tick}, the start of the current period in
 * table-clock milliseconds; bit 61 ({@link #STARTED}) says the counter has seen an event (a zeroed counter
 * has no period yet, so its first event opens one at that event's time, as in HAProxy where a zero tick is
 * always at least two periods old); bit 62 ({@link #LOCK}) is held while a thread rotates the periods.
 * Slot {@code off + 1}, the counts word: {@code prev << 32 | curr}, both unsigned 32-bit and wrapping like
 * HAProxy's {@code unsigned int}. Packing both counts in one word lets a rotation move {@code curr} into
 * {@code prev} with a single CAS, and lets a reader get a consistent pair with a single load.
 *
 * <p>Adding {@code n} at time {@code now}: if the counter is started and {@code now - tick < period}, CAS
 * {@code curr += n} (32-bit wrap, {@code prev} untouched). Otherwise take the rotation lock (CAS the tick
 * word from an unlocked value to the same value with {@link #LOCK}); then if the counter was never started
 * or {@code now - tick >= 2 * period} (at least one whole period went by without events) the new state is
 * {@code tick = now, prev = 0, curr = n}, else {@code tick += period, prev = curr, curr = n}; the counts are
 * swapped in by CAS (adders that read the tick before the lock may still land: such an event counts in
 * whichever period the CAS puts it, as in HAProxy) and the new tick is stored with the lock bit clear.
 * Threads that find the lock set spin; the critical section is two stores.
 *
 * <p>Reading at {@code now}: load tick, counts, tick again, retrying while locked or changed (ticks only
 * move forward, so an unchanged tick proves no rotation happened in between). With
 * {@code remain = tick + period - now}: if {@code remain < 0} the current period is over, so
 * {@code remain += period}, and if still negative (the last event is at least two periods old) the rate
 * is 0, else {@code prev = curr, curr = 0}. Then the anti-flap rule: if {@code curr == 0 && prev <= 1}
 * the rate is {@code prev}; otherwise {@code curr + prev * remain / period} (integer division), truncated
 * to 32 bits like HAProxy's {@code read_freq_ctr_period}. At {@code now == tick + period} exactly, a read
 * still sees the old period (remain is 0, not negative) while an add already rotates, which is also
 * HAProxy's behaviour.
 */
final class RateCounter {
    static final long TICK_MASK = (1L << 60) - 1;
    static final long STARTED = 1L << 61;
    static final long LOCK = 1L << 62;
    static final long U32 = 0xFFFF_FFFFL;

    /** Slots per rate counter in an entry's array. */
    static final int SLOTS = 2;

    private static final VarHandle AA = MethodHandles.arrayElementVarHandle(long[].class);

    private RateCounter() {
    }

    /** Counts {@code n} events (taken as unsigned 32-bit) at {@code now}. */
    static void add(long[] d, int off, long period, long now, long n) {
        long inc = n & U32;
        for (;;) {
            long t = (long) AA.getVolatile(d, off);
            if ((t & LOCK) != 0) {
                Thread.onSpinWait();
                continue;
            }
            if ((t & STARTED) != 0 && now - (t & TICK_MASK) < period) {
                addCurrent(d, off + 1, inc);
                return;
            }
            if (AA.compareAndSet(d, off, t, t | LOCK)) {
                rotate(d, off, t, period, now, inc);
                return;
            }
        }
    }

    private static void addCurrent(long[] d, int i, long inc) {
        for (;;) {
            long p = (long) AA.getVolatile(d, i);
            long np = (p & ~U32) | ((p + inc) & U32);
            if (AA.compareAndSet(d, i, p, np)) {
                return;
            }
        }
    }

    /** Called with the lock held; {@code t} is the tick word seen before locking. */
    private static void rotate(long[] d, int off, long t, long period, long now, long inc) {
        long tick = t & TICK_MASK;
        boolean keepPrevious = (t & STARTED) != 0 && now - tick < 2 * period;
        long newTick = keepPrevious ? tick + period : now;
        for (;;) {
            long p = (long) AA.getVolatile(d, off + 1);
            long np = (keepPrevious ? (p & U32) << 32 : 0) | inc;
            if (AA.compareAndSet(d, off + 1, p, np)) {
                break;
            }
        }
        AA.setVolatile(d, off, (newTick & TICK_MASK) | STARTED);
    }

    /** The rate at {@code now} (events per period, smoothed over the previous period). */
    static long read(long[] d, int off, long period, long now) {
        for (;;) {
            long t1 = (long) AA.getVolatile(d, off);
            if ((t1 & LOCK) != 0) {
                Thread.onSpinWait();
                continue;
            }
            long p = (long) AA.getVolatile(d, off + 1);
            long t2 = (long) AA.getVolatile(d, off);
            if (t1 != t2) {
                continue;
            }
            if ((t1 & STARTED) == 0) {
                return 0;
            }
            return value(t1 & TICK_MASK, p & U32, p >>> 32, period, now);
        }
    }

    /** The read formula on raw values (see the class comment). */
    static long value(long tick, long curr, long prev, long period, long now) {
        long remain = tick + period - now;
        if (remain < 0) {
            remain += period;
            if (remain < 0) {
                return 0;
            }
            prev = curr;
            curr = 0;
        }
        if (curr == 0 && prev <= 1) {
            return prev;
        }
        return (curr + prev * remain / period) & U32;
    }

    /**
     * Sets the counter as the CLI's {@code set table ... data.<rate> <v>} does: a current period starting
     * now with {@code v} events and an empty previous one.
     */
    static void set(long[] d, int off, long now, long value) {
        load(d, off, true, now, value, 0);
    }

    /** Overwrites the whole state (peers learning a rate, a table reload). */
    static void load(long[] d, int off, boolean started, long tick, long curr, long prev) {
        for (;;) {
            long t = (long) AA.getVolatile(d, off);
            if ((t & LOCK) == 0 && AA.compareAndSet(d, off, t, t | LOCK)) {
                break;
            }
            Thread.onSpinWait();
        }
        AA.setVolatile(d, off + 1, (prev & U32) << 32 | (curr & U32));
        AA.setVolatile(d, off, started ? (tick & TICK_MASK) | STARTED : 0L);
    }

    /** A consistent snapshot of the raw state. */
    static RateState state(long[] d, int off) {
        for (;;) {
            long t1 = (long) AA.getVolatile(d, off);
            if ((t1 & LOCK) != 0) {
                Thread.onSpinWait();
                continue;
            }
            long p = (long) AA.getVolatile(d, off + 1);
            if ((long) AA.getVolatile(d, off) != t1) {
                continue;
            }
            if ((t1 & STARTED) == 0) {
                return p == 0 ? RateState.EMPTY : new RateState(false, 0, p & U32, p >>> 32);
            }
            return new RateState(true, t1 & TICK_MASK, p & U32, p >>> 32);
        }
    }
}
