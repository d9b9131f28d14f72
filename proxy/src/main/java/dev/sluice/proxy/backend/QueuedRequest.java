package dev.sluice.proxy.backend;

import io.netty.channel.EventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Comparator;
import java.util.concurrent.RejectedExecutionException;

/**
 * A request waiting in a {@link WaitQueue} for a server slot (HAProxy's pendconn). It leaves its queue
 * exactly once, by one compare-and-set on its state: granted a slot by whichever event loop freed one,
 * cancelled by its own stream (queue timeout, client abort), or requeued when its server goes down. The
 * outcome reaches the waiter on the waiter's own event loop. Created and cancelled by the stream's loop;
 * granted and requeued from any loop.
 */
public final class QueuedRequest {

    /** The stream waiting; its methods run on {@link QueuedRequest#loop()}. */
    public interface Waiter {
        /** A slot on {@code server} was taken for this request. */
        void granted(Server server);

        /** The server this request waited for went down: it is to be assigned again (redispatch). */
        void requeued();
    }

    static final int WAITING = 0;
    static final int GRANTED = 1;
    static final int CANCELLED = 2;
    static final int REQUEUED = 3;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(QueuedRequest.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * HAProxy's queue order: the lower priority class first, then within a class the earlier of arrival time plus
     * priority offset (milliseconds), then the earlier arrival.
     */
    static final Comparator<QueuedRequest> ORDER = (a, b) -> a.priorityClass != b.priorityClass
            ? Integer.compare(a.priorityClass, b.priorityClass)
            : a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.ticket, b.ticket);

    private final Waiter waiter;
    private final EventLoop loop;
    /** {@code set-priority-class} (-2047..2047) and {@code set-priority-offset} (ms, -524287..524287); 0 when none set them. */
    final int priorityClass;
    final int priorityOffset;
    /** When the stream first asked for a server ({@link System#nanoTime()}): its arrival in the queue order. */
    final long arrival;
    /** Its arrival plus its priority offset (ms), set before it is published in a queue. */
    long due;
    @SuppressWarnings("unused")
    private volatile int state;
    /** The queue it waits in and its place: set before it is published there. */
    WaitQueue queue;
    long ticket;
    /** The queue's dequeue count when this request joined it. */
    long base;
    /** How many requests left the queue for a server before this one left it, itself included (the log's %sq/%bq). */
    private volatile int position;

    public QueuedRequest(Waiter waiter, EventLoop loop) {
        this(waiter, loop, 0, 0);
    }

    /** A request with the priority its stream's rules gave it ({@code set-priority-class}, {@code set-priority-offset}). */
    public QueuedRequest(Waiter waiter, EventLoop loop, int priorityClass, int priorityOffset) {
        this(waiter, loop, priorityClass, priorityOffset, System.nanoTime());
    }

    /**
     * {@code arrival}: when the stream first asked for a server ({@link System#nanoTime()}; a stream queued again after a
     * redispatch keeps its first arrival, where HAProxy takes the time of the new queueing).
     */
    public QueuedRequest(Waiter waiter, EventLoop loop, int priorityClass, int priorityOffset, long arrival) {
        this.waiter = waiter;
        this.loop = loop;
        this.priorityClass = priorityClass;
        this.priorityOffset = priorityOffset;
        this.arrival = arrival;
    }

    /** Whether it is served in arrival order (no priority set): it waits in its queue's first-in first-out list. */
    boolean inArrivalOrder() {
        return priorityClass == 0 && priorityOffset == 0;
    }

    public EventLoop loop() {
        return loop;
    }

    boolean waiting() {
        return state == WAITING;
    }

    /** Whether it waits in a server's own queue (rather than the backend's). */
    public boolean inServerQueue() {
        return queue != null && queue.server() != null;
    }

    /**
     * The log's queue position once it left: the requests served from the queue while it waited, plus one;
     * 0 when it never waited.
     */
    public int position() {
        return position;
    }

    /** Leaves the waiting state for {@code to}; only one caller ever succeeds. */
    boolean leave(int to) {
        return STATE.compareAndSet(this, WAITING, to);
    }

    void position(long dequeues) {
        position = (int) Math.max(0, Math.min(Integer.MAX_VALUE, dequeues - base));
    }

    /** Hands the claimed request its slot on its own loop. */
    void grant(Server server) {
        try {
            loop.execute(() -> waiter.granted(server));
        } catch (RejectedExecutionException e) {
            // the loop is shutting down: nobody will use the slot
            server.streamEnded();
        }
    }

    /** Tells the waiter, on its loop, that it is to be assigned again (its server went down). */
    void requeued() {
        try {
            loop.execute(waiter::requeued);
        } catch (RejectedExecutionException e) {
            // shutting down: nothing to redispatch
        }
    }

    /** The stream gives up waiting; false when a slot was granted (or a requeue decided) first. Stream's loop only. */
    public boolean cancel() {
        WaitQueue q = queue;
        if (!leave(CANCELLED)) {
            return false;
        }
        position(q.dequeues() + 1);
        q.cancelled(this);
        return true;
    }
}
