package dev.sluice.proxy.stream;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One timeout of a connection, re-armed cheaply: arming only records a deadline, and the single scheduled
 * task reschedules itself for the remainder when it fires early. So arming on every read costs a clock
 * read, not a timer insertion. The clock is the loop's ticker (the system's nanoTime on a real loop), so that a test
 * on Netty's {@code EmbeddedChannel} moves it with {@code advanceTimeBy}. Used only on its event loop.
 */
public final class Deadline implements Runnable {
    private static final long NONE = Long.MIN_VALUE;

    private final EventLoop loop;
    private final Runnable onExpiry;
    private ScheduledFuture<?> task;
    private long taskAt;
    private long deadline = NONE;

    public Deadline(EventLoop loop, Runnable onExpiry) {
        this.loop = loop;
        this.onExpiry = onExpiry;
    }

    /** Expires {@code millis} from now; a value of 0 or less disarms. */
    public void arm(long millis) {
        if (millis <= 0) {
            deadline = NONE;
            return;
        }
        long now = loop.ticker().nanoTime();
        deadline = now + TimeUnit.MILLISECONDS.toNanos(millis);
        if (task == null || taskAt - deadline > 0) {
            if (task != null) {
                task.cancel(false);
            }
            taskAt = deadline;
            task = loop.schedule(this, deadline - now, TimeUnit.NANOSECONDS);
        }
    }

    public void disarm() {
        deadline = NONE;
    }

    public boolean armed() {
        return deadline != NONE;
    }

    /** Disarms and drops the scheduled task (the owner is going away). */
    public void cancel() {
        deadline = NONE;
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    @Override
    public void run() {
        task = null;
        if (deadline == NONE) {
            return;
        }
        long now = loop.ticker().nanoTime();
        if (now - deadline >= 0) {
            deadline = NONE;
            onExpiry.run();
        } else {
            taskAt = deadline;
            task = loop.schedule(this, deadline - now, TimeUnit.NANOSECONDS);
        }
    }
}
