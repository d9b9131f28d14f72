package dev.sluice.proxy.backend;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests waiting for a slot, of one server or one backend: a lock-free first-in first-out queue
 * (Michael and Scott's, with a sentinel node), where any event loop adds and any event loop takes, for the requests
 * without a priority; those to which {@code set-priority-class} or {@code set-priority-offset} gave one wait in a
 * sorted set beside it (made at the first), and the head of the queue is the first of both in HAProxy's order
 * ({@link QueuedRequest#ORDER}: class, then arrival plus offset). Without priorities the set stays empty and the order
 * is arrival order. Each
 * {@link QueuedRequest} leaves by one compare-and-set on its own state, so a slot hand-off, a queue timeout
 * and a client abort racing for it have exactly one winner. A cancelled request stays linked until it
 * reaches the head, where the next taker (or the canceller itself, which trims the dead heads it finds)
 * unlinks it; since requests of one queue time out in arrival order, dead entries rarely wait long.
 * <p>
 * Counts for {@code show stat} and the log: {@link #length()} (qcur, requests still waiting),
 * {@link #max()} (qmax), and the number of requests served from the queue so far, from which a request's
 * position is derived as HAProxy's {@code queue->idx} gives it.
 */
public final class WaitQueue {

    private static final class Node {
        /** Volatile: cleared by whoever moves the head onto this node, read by others that saw it linked. */
        volatile QueuedRequest item;
        volatile Node next;

        Node(QueuedRequest item) {
            this.item = item;
        }
    }

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(WaitQueue.class, "head", Node.class);
            TAIL = l.findVarHandle(WaitQueue.class, "tail", Node.class);
            NEXT = l.findVarHandle(Node.class, "next", Node.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The server whose queue this is, null for a backend's. */
    private final Server server;
    /** Arrival order across the queues of one backend, to serve the older of a server's and the backend's head. */
    private final AtomicLong tickets;
    @SuppressWarnings("unused")
    private volatile Node head;
    @SuppressWarnings("unused")
    private volatile Node tail;
    private final AtomicInteger length = new AtomicInteger();
    private final AtomicInteger max = new AtomicInteger();
    private final AtomicLong dequeues = new AtomicLong();
    /** The requests with a priority, in {@link QueuedRequest#ORDER}; null until one came. */
    private volatile ConcurrentSkipListSet<QueuedRequest> ordered;

    WaitQueue(Server server, AtomicLong tickets) {
        this.server = server;
        this.tickets = tickets;
        Node sentinel = new Node(null);
        head = sentinel;
        tail = sentinel;
    }

    /** A queue on its own (tests and benchmarks). */
    public WaitQueue() {
        this(null, new AtomicLong());
    }

    Server server() {
        return server;
    }

    /** Requests waiting now ({@code qcur}). */
    public int length() {
        return length.get();
    }

    /** The most requests that waited at once ({@code qmax}) since the start or {@link #resetMax}. */
    public int max() {
        return max.get();
    }

    public void resetMax() {
        max.set(length.get());
    }

    /** Requests served from this queue so far. */
    long dequeues() {
        return dequeues.get();
    }

    /** Appends a request; it waits from now on. Any thread. */
    public void add(QueuedRequest r) {
        r.queue = this;
        r.ticket = tickets.getAndIncrement();
        r.due = r.arrival / 1_000_000 + r.priorityOffset;
        r.base = dequeues.get();
        int n = length.incrementAndGet();
        for (int m = max.get(); n > m && !max.compareAndSet(m, n); m = max.get()) {
            // another adder raised it meanwhile
        }
        if (!r.inArrivalOrder()) {
            ordered().add(r);
            return;
        }
        Node node = new Node(r);
        while (true) {
            Node t = tail;
            Node next = t.next;
            if (next != null) {
                // the tail lags behind: help it on
                TAIL.compareAndSet(this, t, next);
            } else if (NEXT.compareAndSet(t, null, node)) {
                TAIL.compareAndSet(this, t, node);
                return;
            }
        }
    }

    /**
     * Takes the oldest waiting request out for a slot already taken: it leaves the waiting state here (so
     * no timeout or abort can have it any more) and the caller must {@link QueuedRequest#grant grant} it.
     * Null when nothing waits. Any thread.
     */
    public QueuedRequest claim() {
        return take(QueuedRequest.GRANTED);
    }

    /** Takes the oldest waiting request out for another assignment (see {@link QueuedRequest#requeued}), or null. */
    QueuedRequest takeForRequeue() {
        return take(QueuedRequest.REQUEUED);
    }

    private QueuedRequest take(int to) {
        ConcurrentSkipListSet<QueuedRequest> o = ordered;
        while (o != null) {
            QueuedRequest p = firstWaiting(o);
            if (p == null) {
                break;
            }
            QueuedRequest f = trim();
            if (f != null && QueuedRequest.ORDER.compare(f, p) < 0) {
                QueuedRequest r = takeInArrivalOrder(to);
                if (r != null) {
                    return r;
                }
                continue;
            }
            // remove() gives it to one taker; a canceller that won its state first counted it out already
            if (o.remove(p) && p.leave(to)) {
                return left(p, to);
            }
        }
        return takeInArrivalOrder(to);
    }

    private QueuedRequest left(QueuedRequest r, int to) {
        length.decrementAndGet();
        r.position(to == QueuedRequest.GRANTED ? dequeues.incrementAndGet() : dequeues.get() + 1);
        return r;
    }

    private ConcurrentSkipListSet<QueuedRequest> ordered() {
        ConcurrentSkipListSet<QueuedRequest> o = ordered;
        if (o == null) {
            synchronized (this) {
                o = ordered;
                if (o == null) {
                    ordered = o = new ConcurrentSkipListSet<>(QueuedRequest.ORDER);
                }
            }
        }
        return o;
    }

    /** The first request of the set still waiting (one that left is on its way out of it), or null. */
    private static QueuedRequest firstWaiting(ConcurrentSkipListSet<QueuedRequest> o) {
        for (QueuedRequest r : o) {
            if (r.waiting()) {
                return r;
            }
        }
        return null;
    }

    private QueuedRequest takeInArrivalOrder(int to) {
        while (true) {
            Node h = head;
            Node first = h.next;
            if (first == null) {
                return null;
            }
            if (!HEAD.compareAndSet(this, h, first)) {
                continue;
            }
            // first is the new sentinel: this thread alone took its request off the list
            QueuedRequest r = first.item;
            first.item = null;
            if (r.leave(to)) {
                return left(r, to);
            }
            // it was cancelled while linked: its canceller already counted it out
        }
    }

    /**
     * The request to serve first ({@link QueuedRequest#ORDER}), or null when none waits. A hint: the request may leave
     * right after.
     */
    QueuedRequest head() {
        QueuedRequest f = trim();
        ConcurrentSkipListSet<QueuedRequest> o = ordered;
        QueuedRequest p = o == null ? null : firstWaiting(o);
        return p == null || f != null && QueuedRequest.ORDER.compare(f, p) < 0 ? f : p;
    }

    /** A waiting request of this queue was cancelled: count it out and unlink it (or the dead requests at the head). */
    void cancelled(QueuedRequest r) {
        length.decrementAndGet();
        if (r.inArrivalOrder()) {
            trim();
        } else {
            ordered.remove(r);
        }
    }

    /** Unlinks the cancelled requests at the head; returns the first waiting one (still linked), or null. */
    private QueuedRequest trim() {
        while (true) {
            Node h = head;
            Node first = h.next;
            if (first == null) {
                return null;
            }
            QueuedRequest r = first.item;
            if (r != null && r.waiting()) {
                return r;
            }
            // null: a taker moved the head onto it meanwhile; dead: move the head past it ourselves
            if (r != null && HEAD.compareAndSet(this, h, first)) {
                first.item = null;
            }
        }
    }

    /** Whether a request waits (a hint, as {@link #length()}). */
    public boolean isEmpty() {
        return length.get() == 0;
    }
}
