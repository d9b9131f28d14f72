package dev.sluice.proxy.check;

import io.netty.channel.EventLoop;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * When a periodic check (health or agent) runs next, on its event loop: the first run after a delay, each next one
 * after an interval with {@code spread-checks} noise (HAProxy's: up to plus or minus the percentage), none once stopped.
 * Touched only on its loop, except {@link #start} and {@link #stop}, which hop to it.
 */
final class CheckTimer {
    private final EventLoop loop;
    private final int spreadPercent;
    private final Runnable run;
    private final Runnable abandon;
    private ScheduledFuture<?> next;
    private boolean stopped;
    /** When the next run is due (System.nanoTime), or 0 while one runs: read by a reload on another thread. */
    private volatile long due;

    /** {@code run}: a check is due; {@code abandon}: drop the check in progress (at {@link #stop}). */
    CheckTimer(EventLoop loop, int spreadPercent, Runnable run, Runnable abandon) {
        this.loop = loop;
        this.spreadPercent = spreadPercent;
        this.run = run;
        this.abandon = abandon;
    }

    /** The first run after {@code delayMs} (the runtime spreads the first checks of all servers over an interval). */
    void start(long delayMs) {
        due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        loop.execute(() -> {
            if (!stopped) {
                next = loop.schedule(this::fire, delayMs, TimeUnit.MILLISECONDS);
            }
        });
    }

    /**
     * How long until the next run (0: one is running or due): a reload starts the replacing check's timer there, so
     * checks keep their rhythm however often the configuration is reloaded. Any thread.
     */
    long remainingMs() {
        long d = due;
        return d == 0 ? 0 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(d - System.nanoTime()));
    }

    /** No run any more; the check in progress is abandoned. Any thread. */
    void stop() {
        loop.execute(() -> {
            stopped = true;
            if (next != null) {
                next.cancel(false);
            }
            abandon.run();
        });
    }

    boolean stopped() {
        return stopped;
    }

    /** The next run after {@code intervalMs} with the spread noise; nothing once stopped. On the loop. */
    void after(long intervalMs) {
        if (stopped) {
            return;
        }
        long interval = intervalMs;
        if (spreadPercent > 0) {
            long rv = interval * spreadPercent / 100;
            interval += rv - (long) (2 * rv * ThreadLocalRandom.current().nextDouble());
        }
        long delay = Math.max(1, interval);
        due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
        next = loop.schedule(this::fire, delay, TimeUnit.MILLISECONDS);
    }

    /**
     * The next run within {@code intervalMs} at the latest (HAProxy requeues its check task earlier only): when one is
     * scheduled later; not while a check runs (it schedules the next one when it ends). On the loop.
     */
    void sooner(long intervalMs) {
        ScheduledFuture<?> n = next;
        if (stopped || n == null || n.getDelay(TimeUnit.MILLISECONDS) <= intervalMs) {
            return;
        }
        n.cancel(false);
        next = loop.schedule(this::fire, Math.max(1, intervalMs), TimeUnit.MILLISECONDS);
    }

    private void fire() {
        next = null;
        due = 0;
        if (!stopped) {
            run.run();
        }
    }
}
