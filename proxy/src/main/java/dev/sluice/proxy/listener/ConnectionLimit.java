package dev.sluice.proxy.listener;

import io.netty.channel.Channel;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code maxconn} for a frontend, chained to the process-wide limit of the global section. A connection
 * is admitted only when both have room; otherwise it is held unread (like HAProxy leaving it in the
 * kernel backlog) and the frontend's listeners stop accepting until a connection ends. Never exceeds its
 * maximum. Thread-safe: connections arrive and leave on every event loop.
 */
public final class ConnectionLimit {
    private final String name;
    private volatile int max;
    private final ConnectionLimit parent;
    private final AtomicInteger current = new AtomicInteger();
    /** The highest {@link #current} since the start or the last {@link #resetPeak}. */
    private final AtomicInteger peak = new AtomicInteger();
    /** Set by {@code disable frontend}: the listeners stay paused whatever the count. */
    private volatile boolean disabled;
    private final Queue<Channel> waiting = new ConcurrentLinkedQueue<>();
    private final List<Channel> listeners = new CopyOnWriteArrayList<>();
    /** For the global limit: the frontend limits whose connections may wait on it. */
    private final List<ConnectionLimit> children = new CopyOnWriteArrayList<>();

    public ConnectionLimit(String name, int max, ConnectionLimit parent) {
        this.name = name;
        this.max = max;
        this.parent = parent;
        if (parent != null) {
            parent.children.add(this);
        }
    }

    public String name() {
        return name;
    }

    public int max() {
        return max;
    }

    public int current() {
        return current.get();
    }

    /**
     * {@code set maxconn frontend|global}: the new limit applies to the next connections; connections held
     * in the backlog are admitted at once when it grew. Admin path.
     */
    public synchronized void max(int m) {
        max = m;
        if (parent == null) {
            drain();
            drainChildren();
        } else {
            drain();
        }
    }

    /** The highest count since the start or the last {@code clear counters}. */
    public int peak() {
        return peak.get();
    }

    public void resetPeak() {
        peak.set(current.get());
    }

    public boolean disabled() {
        return disabled;
    }

    /**
     * {@code disable frontend}: stop accepting (connections wait in the kernel backlog, as in HAProxy);
     * connections already accepted go on. Returns false when already disabled.
     */
    public synchronized boolean disable() {
        if (disabled) {
            return false;
        }
        disabled = true;
        for (Channel l : listeners) {
            if (l.eventLoop().inEventLoop()) {
                l.config().setAutoRead(false);
            } else {
                // paused on its own loop before the answer: from another thread Netty only queues the change, and a
                // connection arriving meanwhile (the loop handles its events before its tasks) would still be accepted
                l.eventLoop().submit(() -> l.config().setAutoRead(false)).awaitUninterruptibly(1000);
            }
        }
        return true;
    }

    /** {@code enable frontend}: accept again when there is room. Returns false when not disabled. */
    public synchronized boolean enable() {
        if (!disabled) {
            return false;
        }
        disabled = false;
        drain();
        return true;
    }

    /** The count of the process-wide limit this one is chained to (its own when it is the global one). */
    public int parentCurrent() {
        return parent != null ? parent.current.get() : current.get();
    }

    /** Registers a listening channel that accepts connections counted here. */
    public void addListener(Channel serverChannel) {
        listeners.add(serverChannel);
    }

    /** The frontend is gone (an in-process reload removed it): the process limit no longer drains into this one. */
    public void detach() {
        if (parent != null) {
            parent.children.remove(this);
        }
    }

    /** The listening socket is no longer this limit's (closed, or handed to another frontend by a reload). */
    public void removeListener(Channel serverChannel) {
        listeners.remove(serverChannel);
    }

    private boolean tryAcquireSelf() {
        while (true) {
            int c = current.get();
            if (c >= max) {
                return false;
            }
            if (current.compareAndSet(c, c + 1)) {
                if (c + 1 > peak.get()) {
                    peak.accumulateAndGet(c + 1, Math::max);
                }
                return true;
            }
        }
    }

    private boolean tryAcquire() {
        if (!tryAcquireSelf()) {
            return false;
        }
        if (parent != null && !parent.tryAcquireSelf()) {
            current.decrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Admits a new connection: returns true when it may be served now. Otherwise the connection is kept
     * unread until {@link #release} makes room, and the listeners are paused.
     */
    public boolean admit(Channel ch) {
        if (waiting.isEmpty() && tryAcquire()) {
            if (current.get() >= max || (parent != null && parent.current.get() >= parent.max)) {
                pauseAll();
            }
            return true;
        }
        ch.config().setAutoRead(false);
        waiting.add(ch);
        pauseAll();
        // a release may have happened between the failed acquire and the enqueue
        drain();
        return false;
    }

    /**
     * Admits a connection that cannot be held unread (a QUIC connection shares its socket with the others):
     * true when there is room now and the frontend is not disabled, false when it must be refused.
     */
    public boolean tryAdmit() {
        if (disabled || !waiting.isEmpty() || !tryAcquire()) {
            return false;
        }
        if (current.get() >= max || (parent != null && parent.current.get() >= parent.max)) {
            pauseAll();
        }
        return true;
    }

    /** A connection admitted here ended. */
    public void release() {
        current.decrementAndGet();
        if (parent != null) {
            parent.current.decrementAndGet();
            parent.drainChildren();
        } else {
            drain();
        }
    }

    private void drainChildren() {
        for (ConnectionLimit c : children) {
            c.drain();
        }
    }

    /** Admits waiting connections while there is room, then resumes accepting if still room. */
    private void drain() {
        Channel ch;
        while (!waiting.isEmpty() && tryAcquire()) {
            ch = waiting.poll();
            if (ch == null) {
                // someone else admitted it: give the slot back
                current.decrementAndGet();
                if (parent != null) {
                    parent.current.decrementAndGet();
                }
                break;
            }
            if (!ch.isActive()) {
                current.decrementAndGet();
                if (parent != null) {
                    parent.current.decrementAndGet();
                }
                continue;
            }
            ch.pipeline().fireUserEventTriggered(Admitted.INSTANCE);
            ch.config().setAutoRead(true);
        }
        if (waiting.isEmpty() && current.get() < max && (parent == null || parent.current.get() < parent.max)) {
            resumeAll();
        }
    }

    private void pauseAll() {
        for (Channel l : listeners) {
            l.config().setAutoRead(false);
        }
        if (parent != null) {
            // the global limit is shared: when it is full, no frontend accepts
            if (parent.current.get() >= parent.max) {
                for (ConnectionLimit c : parent.children) {
                    for (Channel l : c.listeners) {
                        l.config().setAutoRead(false);
                    }
                }
            }
        }
    }

    private void resumeAll() {
        if (disabled) {
            return;
        }
        for (Channel l : listeners) {
            l.config().setAutoRead(true);
        }
    }

    /** Event fired on a held connection's pipeline when it is admitted. */
    public enum Admitted {
        INSTANCE
    }
}
