package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.QueuedRequest;
import dev.sluice.proxy.backend.Server;
import io.netty.channel.EventLoop;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * How one stream gets a request slot on a server (HAProxy's assign_server_and_queue): the server a
 * stickiness rule or a hash binds it to, else the balancing's choice; when none has a free slot, a place
 * in that server's queue or the backend's, until a slot is handed over, {@code timeout queue} strikes or the
 * stream ends. Holds the slot once it has one and gives it back once. Keeps what the log says about the
 * wait: its time and the queue positions. Lives on the stream's event loop, where hand-offs arrive too.
 */
final class ServerSlot implements QueuedRequest.Waiter {

    /** What the stream hears of its wait in a queue; called on the stream's event loop. */
    interface Listener {
        /** The queue handed the stream a slot on {@link ServerSlot#server()}. */
        void slotGranted();

        /** The server the stream waited for went down and {@code option redispatch} sends it to the balancing again. */
        void slotRequeued();

        /** {@code timeout queue} struck while waiting. */
        void queueTimedOut();
    }

    /** What an assignment came to. */
    enum Outcome {
        /** A slot is held on {@link #server()}. */
        ASSIGNED,
        /** Waiting in a queue: the stream hears of it through its {@link Listener}. */
        QUEUED,
        /** No usable server. */
        NO_SERVER,
        /** The bound server's queue holds {@code maxqueue} requests already. */
        QUEUE_FULL
    }

    private final Exchange stream;
    private final Backend backend;
    private final Listener listener;
    private final EventLoop loop;
    private Server server;
    private boolean held;
    /** Whether the stream counts in its server's cur_sess (from its connect to the end of its connection). */
    private boolean session;
    private boolean closed;
    private QueuedRequest waiting;
    private ScheduledFuture<?> timer;
    /** {@link System#nanoTime()} of the first assignment and of the last time a slot was obtained (-1: not yet). */
    private long start = -1;
    private long end = -1;
    /** Whether it waited in a queue or was assigned again: otherwise %Tw is 0. */
    private boolean waited;
    private int serverQueuePosition;
    private int backendQueuePosition;

    ServerSlot(Exchange stream, Backend backend, EventLoop loop, Listener listener) {
        this.stream = stream;
        this.backend = backend;
        this.loop = loop;
        this.listener = listener;
    }

    /** The server the slot is (or will be) on; null while waiting for any server or when there is none. */
    Server server() {
        return server;
    }

    /** Whether a slot is held. */
    boolean held() {
        return held;
    }

    /** Whether the stream waits in a queue. */
    boolean waiting() {
        return waiting != null;
    }

    /**
     * Gets a slot: on {@code bound} when given (stickiness; {@code direct}), else on the server the hash binds
     * the request to, else on the balancing's choice, moving away from {@code avoid} when it can.
     */
    Outcome assign(Server bound, boolean direct, Server avoid) {
        if (start < 0) {
            start = System.nanoTime();
        } else {
            waited = true;
        }
        if (bound == null) {
            bound = backend.bound(stream.target());
        }
        if (bound != null) {
            server = bound;
            if (bound.tryTake()) {
                return got(bound);
            }
            if (bound.maxqueue() == 0 || bound.queue().length() < bound.maxqueue()) {
                queue(bound);
                return Outcome.QUEUED;
            }
            if (!direct || !backend.retryPolicy().redispatches()) {
                return Outcome.QUEUE_FULL;
            }
            // a persistent request whose server's queue is full may go elsewhere with option redispatch
            server = null;
        }
        server = null;
        if (!backend.queueing()) {
            Server s = backend.pickServer(stream.target(), avoid);
            if (s != null) {
                return got(s);
            }
        }
        if (!backend.hasUsableServer()) {
            return Outcome.NO_SERVER;
        }
        queue(null);
        return Outcome.QUEUED;
    }

    private Outcome got(Server s) {
        server = s;
        held = true;
        end = System.nanoTime();
        return Outcome.ASSIGNED;
    }

    private void queue(Server s) {
        waited = true;
        QueuedRequest r = new QueuedRequest(this, loop, stream.target().priorityClass(), stream.target().priorityOffset(), start);
        waiting = r;
        backend.enqueue(s, r);
        long t = backend.queueTimeout();
        if (t > 0) {
            // a slot handed over meanwhile arrives as a task after this one, which cancels the timer
            timer = loop.schedule(this::timedOut, t, TimeUnit.MILLISECONDS);
        }
    }

    /** Leaving the queue: the wait's end, the position for the log, no timer. */
    private QueuedRequest left() {
        QueuedRequest r = waiting;
        waiting = null;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (r.inServerQueue()) {
            serverQueuePosition += r.position();
        } else {
            backendQueuePosition += r.position();
        }
        return r;
    }

    @Override
    public void granted(Server s) {
        left();
        got(s);
        if (closed) {
            release();
            return;
        }
        listener.slotGranted();
    }

    @Override
    public void requeued() {
        left();
        if (!closed) {
            listener.slotRequeued();
        }
    }

    private void timedOut() {
        timer = null;
        QueuedRequest r = waiting;
        if (r == null || closed || !r.cancel()) {
            // granted or requeued first: that task is on its way
            return;
        }
        left();
        end = System.nanoTime();
        listener.queueTimedOut();
    }

    /** The stream asks for a connection to its server (HAProxy's connect_server): it counts in the server's cur_sess. */
    void connecting() {
        if (!session) {
            session = true;
            server.sessionStarted();
        }
    }

    /** The stream leaves its server (its end, or a retry elsewhere): it leaves the server's cur_sess (before its slot). */
    private void disconnected() {
        if (session) {
            session = false;
            server.sessionEnded();
        }
    }

    /** Gives the slot back for a new assignment (a retry moving to another server). */
    void releaseForRetry() {
        disconnected();
        if (held) {
            held = false;
            server.streamEnded();
        }
    }

    /**
     * The stream is about to log its end: it leaves its queue (the line's %sq/%bq) and its server's cur_sess (the line's
     * %sc counts the others), keeping its slot for {@link #release} after the line, so that no stream the slot goes to
     * connects before the line is written (HAProxy's next stream counts from its connect, after this one's log).
     */
    void leaveBeforeLog() {
        closed = true;
        QueuedRequest r = waiting;
        if (r != null && r.cancel()) {
            left();
            // taken out of the queue (the client left): HAProxy's t_queue is this moment (back_handle_st_que)
            end = System.nanoTime();
        }
        disconnected();
    }

    /**
     * The stream ends: it leaves its queue (unless a slot is on its way, given back on arrival) and gives
     * back the slot it holds. Idempotent.
     */
    void release() {
        closed = true;
        QueuedRequest r = waiting;
        if (r != null && r.cancel()) {
            left();
            // taken out of the queue (the client left): HAProxy's t_queue is this moment (back_handle_st_que)
            end = System.nanoTime();
        }
        disconnected();
        if (held) {
            held = false;
            server.streamEnded();
        }
    }

    /**
     * The log's %Tw: milliseconds from the first assignment to the slot (or the queue timeout) when the request
     * waited in a queue or was assigned again (a retry's turn-around counts), else 0; -1 when it never got one.
     */
    long queueMillis() {
        return start < 0 || end < 0 ? -1 : waited ? (end - start) / 1_000_000 : 0;
    }

    /** {@link System#nanoTime()} when a slot was last obtained (or the queue timed out), -1 when never: HAProxy's t_queue. */
    long grantedAt() {
        return end;
    }

    /** The log's %sq. */
    int serverQueuePosition() {
        return serverQueuePosition;
    }

    /** The log's %bq. */
    int backendQueuePosition() {
        return backendQueuePosition;
    }
}
