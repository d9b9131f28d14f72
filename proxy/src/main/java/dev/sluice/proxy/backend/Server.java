package dev.sluice.proxy.backend;

import dev.sluice.proxy.http.ServerSide;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.LongAdder;

/**
 * A server of a backend at run time: its resolved address, its weight, its per-event-loop pools of idle
 * connections, and its counters. The idle pool of loop {@code i} is only touched by loop {@code i}.
 */
public final class Server {
    private final String name;
    private final int id;
    private final Backend backend;
    private final InetSocketAddress address;
    private volatile int weight;
    private final ArrayDeque<ServerSide>[] idle;
    private final java.util.ArrayList<MultiplexedConnection>[] mux;
    private final boolean multiplexed;
    final LongAdder connections = new LongAdder();
    final LongAdder requests = new LongAdder();
    /** Streams currently using this server (the log's %sc). */
    private final LongAdder active = new LongAdder();

    @SuppressWarnings("unchecked")
    Server(String name, int id, Backend backend, InetSocketAddress address, int weight, int loops, boolean multiplexed) {
        this.name = name;
        this.id = id;
        this.backend = backend;
        this.address = address;
        this.weight = weight;
        this.multiplexed = multiplexed;
        this.idle = new ArrayDeque[loops];
        this.mux = new java.util.ArrayList[loops];
        for (int i = 0; i < loops; i++) {
            idle[i] = new ArrayDeque<>();
            mux[i] = new java.util.ArrayList<>(2);
        }
    }

    public String name() {
        return name;
    }

    public int id() {
        return id;
    }

    public Backend backend() {
        return backend;
    }

    /** The server address; its port is 0 when the connection's destination port is to be used. */
    public InetSocketAddress address() {
        return address;
    }

    public int weight() {
        return weight;
    }

    /** Whether the server may be given new requests. Health and admin states come with health checks. */
    public boolean usable() {
        return weight > 0;
    }

    /** Whether requests share connections as streams (HTTP/2) instead of one at a time. */
    public boolean multiplexed() {
        return multiplexed;
    }

    /** The multiplexed connections of one event loop; only that loop may call this. */
    java.util.ArrayList<MultiplexedConnection> mux(int loop) {
        return mux[loop];
    }

    /** The idle connections of one event loop; only that loop may call this. */
    ArrayDeque<ServerSide> idle(int loop) {
        return idle[loop];
    }

    public void countRequest() {
        requests.increment();
    }

    public void streamStarted() {
        active.increment();
        backend.active.increment();
    }

    public void streamEnded() {
        active.decrement();
        backend.active.decrement();
    }

    public int activeStreams() {
        return (int) active.sum();
    }

    public long totalConnections() {
        return connections.sum();
    }

    public long totalRequests() {
        return requests.sum();
    }

    @Override
    public String toString() {
        return backend.name() + "/" + name;
    }
}
