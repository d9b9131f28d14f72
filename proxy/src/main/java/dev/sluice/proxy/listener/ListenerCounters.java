package dev.sluice.proxy.listener;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one listener (a bind address of a frontend with {@code option socket-stats}): HAProxy's per-listener
 * statistics, a {@code show stat} row of type 3. Each accepted connection carries its listener's counters as a channel
 * attribute ({@link #KEY}); what counts a frontend counter for a connection counts the listener's too. Thread-safe: striped
 * adders, an atomic current count whose maximum is exact.
 */
public final class ListenerCounters {
    /** The counters of the listener an accepted connection came in on; absent without {@code option socket-stats}. */
    public static final AttributeKey<ListenerCounters> KEY = AttributeKey.valueOf("sluice.listener-counters");

    private final String name;
    private final int id;
    private final String address;
    private final AtomicInteger current = new AtomicInteger();
    private final AtomicInteger max = new AtomicInteger();
    private final LongAdder connections = new LongAdder();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();
    private final LongAdder deniedRequests = new LongAdder();
    private final LongAdder deniedResponses = new LongAdder();
    private final LongAdder invalidRequests = new LongAdder();
    private final LongAdder deniedConnections = new LongAdder();
    private final LongAdder deniedSessions = new LongAdder();
    private final LongAdder tlsSessions = new LongAdder();
    private final LongAdder tlsReused = new LongAdder();
    private final LongAdder tlsFailures = new LongAdder();

    /**
     * @param name    the bind's {@code name}, else HAProxy's {@code sock-<id>}
     * @param id      the listener's id in its frontend (HAProxy's luid: its bind addresses numbered from 1 in order)
     * @param address the bound address as {@code show stat} prints it ({@code ip:port}, {@code [ip6]:port})
     */
    public ListenerCounters(String name, int id, String address) {
        this.name = name;
        this.id = id;
        this.address = address;
    }

    /** The counters of the listener {@code ch} was accepted on, or null. */
    public static ListenerCounters of(Channel ch) {
        return ch != null && ch.hasAttr(KEY) ? ch.attr(KEY).get() : null;
    }

    public String name() {
        return name;
    }

    public int id() {
        return id;
    }

    public String address() {
        return address;
    }

    /** A connection was accepted on the listener: it counts until it closes. */
    public void accepted(Channel ch) {
        connections.increment();
        int n = current.incrementAndGet();
        max.accumulateAndGet(n, Math::max);
        ch.attr(KEY).set(this);
        ch.closeFuture().addListener(f -> current.decrementAndGet());
    }

    public void bytes(long in, long out) {
        if (in > 0) {
            bytesIn.add(in);
        }
        if (out > 0) {
            bytesOut.add(out);
        }
    }

    public void deniedRequest() {
        deniedRequests.increment();
    }

    public void deniedResponse() {
        deniedResponses.increment();
    }

    public void invalidRequest() {
        invalidRequests.increment();
    }

    /** A {@code tcp-request connection} ({@code session}: {@code tcp-request session}) rule refused the connection. */
    public void deniedConnection(boolean session) {
        (session ? deniedSessions : deniedConnections).increment();
    }

    /** A TLS handshake completed on the listener (the ssl module's ssl_sess, ssl_reused_sess). */
    public void tlsSession(boolean resumed) {
        tlsSessions.increment();
        if (resumed) {
            tlsReused.increment();
        }
    }

    public void tlsFailure() {
        tlsFailures.increment();
    }

    public long tlsSessions() {
        return tlsSessions.sum();
    }

    public long tlsReused() {
        return tlsReused.sum();
    }

    public long tlsFailures() {
        return tlsFailures.sum();
    }

    public int current() {
        return current.get();
    }

    public int max() {
        return max.get();
    }

    public long connections() {
        return connections.sum();
    }

    public long bytesIn() {
        return bytesIn.sum();
    }

    public long bytesOut() {
        return bytesOut.sum();
    }

    public long deniedRequests() {
        return deniedRequests.sum();
    }

    public long deniedResponses() {
        return deniedResponses.sum();
    }

    public long invalidRequests() {
        return invalidRequests.sum();
    }

    public long deniedConnections() {
        return deniedConnections.sum();
    }

    public long deniedSessions() {
        return deniedSessions.sum();
    }
}
