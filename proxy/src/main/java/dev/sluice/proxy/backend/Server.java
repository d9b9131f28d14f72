package dev.sluice.proxy.backend;

import dev.sluice.proxy.http.ServerSide;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A server of a backend at run time: its resolved address, its weight, its state, its per-event-loop
 * pools of idle connections, and its counters. The idle pool of loop {@code i} is only touched by loop
 * {@code i}. The state ({@link #setUp up or down}, {@link #setMaintenance maintenance}) may change from
 * any thread (health checks, the admin socket); the backend's algorithm then rebuilds what it derives
 * from it.
 */
public final class Server {
    private final String name;
    private final int id;
    /** Position in the backend's declaration order, from 0. */
    private final int index;
    private final Backend backend;
    private final InetSocketAddress address;
    private volatile int weight;
    private final boolean backup;
    private final int maxconn;
    private final int maxqueue;
    private final long slowstart;
    /** The operational state, which health checks flip. */
    private volatile boolean up;
    /** The administrative maintenance state ({@code disabled}). */
    private volatile boolean maintenance;
    private final ArrayDeque<ServerSide>[] idle;
    private final java.util.ArrayList<MultiplexedConnection>[] mux;
    private final boolean multiplexed;
    final LongAdder connections = new LongAdder();
    final LongAdder requests = new LongAdder();
    /**
     * Streams assigned to this server and not ended (HAProxy's {@code served}, the log's %sc): taken when
     * the server is picked, so that maxconn and leastconn see requests still connecting.
     */
    private final AtomicInteger served = new AtomicInteger();

    @SuppressWarnings("unchecked")
    Server(dev.sluice.config.model.Server config, int index, Backend backend, InetSocketAddress address, int loops) {
        this.name = config.name();
        this.id = config.id() > 0 ? config.id() : index + 1;
        this.index = index;
        this.backend = backend;
        this.address = address;
        this.weight = config.weight();
        this.backup = config.backup();
        this.maxconn = config.maxconn();
        this.maxqueue = config.maxqueue();
        this.slowstart = config.slowstart();
        this.up = config.initState() == null || config.initState().up();
        this.maintenance = config.disabled();
        this.multiplexed = "h2".equals(config.proto());
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

    int index() {
        return index;
    }

    public boolean backup() {
        return backup;
    }

    /** Concurrent requests allowed (0: no limit). */
    public int maxconn() {
        return maxconn;
    }

    /** {@code maxqueue}, kept for the server queues to come (0: no limit). */
    public int maxqueue() {
        return maxqueue;
    }

    /** {@code slowstart} in milliseconds, kept for slow start to come (0: none). */
    public long slowstart() {
        return slowstart;
    }

    /** Whether the server is operationally UP (health checks set it; {@code init-state} gives the start). */
    public boolean up() {
        return up;
    }

    /** Marks the server UP or DOWN; the backend's algorithm follows at once. */
    public void setUp(boolean value) {
        if (up != value) {
            up = value;
            backend.serverChanged();
        }
    }

    /** Whether the server is in maintenance ({@code disabled}). */
    public boolean maintenance() {
        return maintenance;
    }

    public void setMaintenance(boolean value) {
        if (maintenance != value) {
            maintenance = value;
            backend.serverChanged();
        }
    }

    /** Whether the server may be given new requests: UP, not in maintenance, and a non-zero weight. */
    public boolean usable() {
        return up && !maintenance && weight > 0;
    }

    /** Whether the server has reached its maxconn. */
    public boolean full() {
        return maxconn > 0 && served.get() >= maxconn;
    }

    /**
     * Takes a request slot on this server: false when it is at its maxconn. The stream that took it gives
     * it back with {@link #streamEnded}.
     */
    public boolean tryTake() {
        if (maxconn == 0) {
            served.incrementAndGet();
        } else {
            int n;
            do {
                n = served.get();
                if (n >= maxconn) {
                    return false;
                }
            } while (!served.compareAndSet(n, n + 1));
        }
        backend.active.increment();
        return true;
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

    /** Takes a slot whatever the maxconn (a stream that did not come through {@link Backend#pickServer}). */
    public void streamStarted() {
        served.incrementAndGet();
        backend.active.increment();
    }

    /** Gives back the slot of a stream. */
    public void streamEnded() {
        served.decrementAndGet();
        backend.active.decrement();
        backend.released(this);
    }

    /** Streams currently assigned to this server. */
    public int activeStreams() {
        return served.get();
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
