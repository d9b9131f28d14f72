package dev.sluice.proxy.backend;

import io.netty.channel.EventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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

    private final Waiter waiter;
    private final EventLoop loop;
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
        this.waiter = waiter;
        this.loop = loop;
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
        q.cancelled();
        return true;
    }
}
