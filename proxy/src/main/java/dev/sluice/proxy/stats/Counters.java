package dev.sluice.proxy.stats;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one frontend, backend or server. Counting is one {@link LongAdder} increment (striped
 * per thread, never one shared atomic); reading sums them. Once a second {@link #sample} turns the rated
 * counters into per-second rates with their maximum, notes when sessions last arrived, and samples the
 * current concurrency into its maximum. Thread-safe: counted from every event loop, sampled from one,
 * read and cleared from admin sessions.
 */
public final class Counters {
    private static final Counter[] ALL = Counter.values();

    private final LongAdder[] values = new LongAdder[ALL.length];
    private final AtomicLongArray previous = new AtomicLongArray(ALL.length);
    private final AtomicLongArray rate = new AtomicLongArray(ALL.length);
    private final AtomicLongArray rateMax = new AtomicLongArray(ALL.length);
    private final AtomicLong currentMax = new AtomicLong();
    /** Epoch milliseconds when a session was last seen by the sampler, -1 before the first. */
    private volatile long lastSession = -1;

    public Counters() {
        for (int i = 0; i < values.length; i++) {
            values[i] = new LongAdder();
        }
    }

    public void add(Counter c) {
        values[c.ordinal()].increment();
    }

    public void add(Counter c, long n) {
        values[c.ordinal()].add(n);
    }

    /** Counts one response in its status class. */
    public void countResponse(int status) {
        add(Counter.responseClass(status));
    }

    public long get(Counter c) {
        return values[c.ordinal()].sum();
    }

    /** Records a current concurrency value (sessions in progress) into the maximum. */
    public void noteCurrent(long current) {
        if (current > currentMax.get()) {
            currentMax.accumulateAndGet(current, Math::max);
        }
    }

    /**
     * Called once a second: the rate of each rated counter is what it grew by since the previous call;
     * {@code current} is the concurrency right now.
     */
    public void sample(long nowMillis, long current) {
        for (Counter c : ALL) {
            if (!c.rated()) {
                continue;
            }
            int i = c.ordinal();
            long v = values[i].sum();
            long r = Math.max(0, v - previous.getAndSet(i, v));
            rate.set(i, r);
            if (r > rateMax.get(i)) {
                rateMax.set(i, r);
            }
            if (c == Counter.SESSIONS && r > 0) {
                lastSession = nowMillis;
            }
        }
        noteCurrent(current);
    }

    /**
     * {@code clear counters}: the maximum values only; with {@code all}, every counter (HAProxy's
     * {@code clear counters all}).
     */
    public void clear(boolean all) {
        currentMax.set(0);
        for (int i = 0; i < ALL.length; i++) {
            rateMax.set(i, 0);
            if (all) {
                values[i].reset();
                previous.set(i, 0);
                rate.set(i, 0);
            }
        }
        if (all) {
            lastSession = -1;
        }
    }

    /** An immutable copy of every value; {@code current} is the concurrency right now. */
    /** The rate of a rated counter over the last sampled second. */
    public long rate(Counter c) {
        return rate.get(c.ordinal());
    }

    public Snapshot snapshot(long current) {
        noteCurrent(current);
        long[] v = new long[ALL.length];
        long[] r = new long[ALL.length];
        long[] m = new long[ALL.length];
        for (int i = 0; i < ALL.length; i++) {
            v[i] = values[i].sum();
            r[i] = rate.get(i);
            m[i] = rateMax.get(i);
        }
        // sessions that arrived since the last sample are "now" (HAProxy stamps every session; the sampler
        // only notices them once a second)
        int sessions = Counter.SESSIONS.ordinal();
        long last = v[sessions] > previous.get(sessions) ? System.currentTimeMillis() : lastSession;
        return new Snapshot(v, r, m, current, currentMax.get(), last);
    }

    /**
     * The counters at one instant. {@code lastSession} is the epoch millisecond when sessions were last
     * seen (to the second), -1 when never.
     */
    public record Snapshot(long[] values, long[] rates, long[] rateMaxes, long current, long currentMax, long lastSession) {
        public long get(Counter c) {
            return values[c.ordinal()];
        }

        /** Events over the last second (rated counters only). */
        public long rate(Counter c) {
            return rates[c.ordinal()];
        }

        public long rateMax(Counter c) {
            return rateMaxes[c.ordinal()];
        }
    }
}
