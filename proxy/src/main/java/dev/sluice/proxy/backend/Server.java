package dev.sluice.proxy.backend;

import dev.sluice.proxy.http.ServerSide;
import dev.sluice.proxy.rules.Fetch;
import dev.sluice.proxy.rules.Samples;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.tls.ClientTlsContext;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * A server of a backend at run time: its resolved address, its weight, its operational state ({@link #setUp
 * up or down}, which health checks will flip, {@code disabled} maintenance) and administrative state (set
 * through the admin socket), how its connections are secured, its per-event-loop pools of idle
 * connections, and its counters. The idle pool of loop {@code i} is only touched by loop {@code i};
 * weight and states are volatile and changed through the backend, whose algorithm then rebuilds what it
 * derives from them.
 */
public final class Server {

    /**
     * TLS towards a server: the context shared with every server of the same settings, the compiled
     * {@code sni} expression (null: none) and the configured host name sent as SNI when the expression
     * gives nothing (null when the server was given as an IP address). Immutable.
     */
    public record Tls(ClientTlsContext context, Fetch sni, String hostName) {
    }

    private final String name;
    private final int id;
    /** Position in the backend's declaration order, from 0 (moves down when a server before it is deleted). */
    private volatile int index;
    private final Backend backend;
    private final boolean backup;
    private volatile int maxconn;
    private final int maxqueue;
    private final long slowstart;
    /** The operational state, which health checks flip. */
    private volatile boolean up;
    /** The configured maintenance state ({@code disabled}). */
    private volatile boolean maintenance;
    private volatile InetSocketAddress address;
    /** {@code set server ... health stopping}: UP but taking no new request (HAProxy's NOLB). */
    private volatile boolean stopping;
    /** Added with {@code add server} (HAProxy's dynamic servers). */
    private final boolean dynamic;
    /** The server line it was built from. */
    private final dev.sluice.config.model.Server config;
    private volatile int weight;
    private final int initialWeight;
    /** HAProxy's srv_admin_state bits: {@link #FORCED_MAINT}, {@link #FORCED_DRAIN}. */
    private volatile int adminState;
    /** Epoch milliseconds of the last state change (the start, maint, drain, ready). */
    private volatile long lastChange = System.currentTimeMillis();
    /** HAProxy's check health counter of a server without checks: rise (2) until it is put in maintenance. */
    private volatile int checkHealth = 2;
    private final dev.sluice.proxy.stats.Counters counters = new dev.sluice.proxy.stats.Counters();
    private final dev.sluice.proxy.stats.TimeStats timeStats;
    private final ArrayDeque<ServerSide>[] idle;
    private final java.util.ArrayList<MultiplexedConnection>[] mux;
    /** {@code proto h2}: HTTP/2 whatever ALPN says. */
    private final boolean forcedH2;
    private final Tls tls;
    /** ALPN offers h2 and, as far as the last handshake told, the server takes it. */
    private volatile boolean alpnH2;
    /**
     * Streams assigned to this server and not ended (HAProxy's {@code served}, the log's %sc, scur): taken
     * when the server is picked, so that maxconn and leastconn see requests still connecting. One atomic
     * rather than striped cells: a gauge whose maximum (smax) must be exact needs its value at each
     * increment, as HAProxy's cur_sess.
     */
    private final java.util.concurrent.atomic.AtomicInteger active = new java.util.concurrent.atomic.AtomicInteger();

    @SuppressWarnings("unchecked")
    Server(dev.sluice.config.model.Server config, int index, Backend backend, InetSocketAddress address, int loops, Tls tls) {
        this(config, index, backend, address, loops, tls, false);
    }

    Server(dev.sluice.config.model.Server config, int index, Backend backend, InetSocketAddress address, int loops, Tls tls, boolean dynamic) {
        this.config = config;
        this.dynamic = dynamic;
        this.name = config.name();
        this.id = config.id() > 0 ? config.id() : index + 1;
        this.index = index;
        this.backend = backend;
        this.address = address;
        this.weight = config.weight();
        this.initialWeight = config.weight();
        this.backup = config.backup();
        this.maxconn = config.maxconn();
        this.maxqueue = config.maxqueue();
        this.slowstart = config.slowstart();
        this.up = config.initState() == null || config.initState().up();
        this.maintenance = config.disabled();
        boolean forcedH2 = "h2".equals(config.proto());
        this.forcedH2 = forcedH2;
        this.tls = tls;
        this.alpnH2 = tls != null && tls.context().alpn().contains("h2");
        this.timeStats = new dev.sluice.proxy.stats.TimeStats(loops);
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

    /**
     * Whether the server may be given new requests: UP, not in configured maintenance, a weight above 0,
     * and neither in forced maintenance nor draining.
     */
    public boolean usable() {
        return up && !stopping && !maintenance && weight > 0 && adminState == 0;
    }

    int index() {
        return index;
    }

    void index(int i) {
        index = i;
    }

    /** The server line this server was built from ({@code add server} makes one too). */
    public dev.sluice.config.model.Server config() {
        return config;
    }

    /** Whether it was added at run time ({@code add server}). */
    public boolean dynamic() {
        return dynamic;
    }

    /**
     * {@code set server ... addr}: new connections go to {@code a}; established ones stay where they are, as
     * in HAProxy. Admin path.
     */
    public void address(InetSocketAddress a) {
        address = a;
    }

    /** {@code set maxconn server}: concurrent requests allowed from now on (0: no limit). Admin path. */
    public void maxconn(int n) {
        maxconn = n;
    }

    /** Whether the server has health checks ({@code check}); none yet in Sluice. */
    public boolean checked() {
        return false;
    }

    /** Whether {@code set server ... health stopping} holds it (UP, no new request). */
    public boolean stopping() {
        return stopping;
    }

    /**
     * {@code set server ... health up|stopping|down}: the operational state, as a health check would set it;
     * the backend's algorithm follows at once.
     */
    public void setHealth(boolean up, boolean stopping) {
        // as HAProxy's CLI: fully up (rise + fall - 1 with the defaults 2 and 3) or 0
        checkHealth = up ? 4 : 0;
        if (this.stopping != stopping) {
            this.stopping = stopping;
            lastChange = System.currentTimeMillis();
            if (this.up == up) {
                backend.serversChanged();
            }
        }
        setUp(up);
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
            lastChange = System.currentTimeMillis();
            backend.serversChanged();
        }
    }

    /** Whether the server is in configured maintenance ({@code disabled}). */
    public boolean maintenance() {
        return maintenance;
    }

    public void setMaintenance(boolean value) {
        if (maintenance != value) {
            maintenance = value;
            lastChange = System.currentTimeMillis();
            backend.serversChanged();
        }
    }

    /** Whether the server has reached its maxconn. */
    public boolean full() {
        return maxconn > 0 && active.get() >= maxconn;
    }

    /**
     * Takes a request slot on this server: false when it is at its maxconn. The stream that took it gives
     * it back with {@link #streamEnded}.
     */
    public boolean tryTake() {
        int n;
        if (maxconn == 0) {
            n = active.incrementAndGet();
        } else {
            do {
                n = active.get();
                if (n >= maxconn) {
                    return false;
                }
            } while (!active.compareAndSet(n, n + 1));
            n++;
        }
        counters.noteCurrent(n);
        backend.counters().noteCurrent(backend.active.incrementAndGet());
        return true;
    }

    /** Forced maintenance ({@code set server ... state maint}): no traffic at all. */
    public static final int FORCED_MAINT = 0x01;
    /** Forced drain ({@code set server ... state drain}): no new traffic (Sluice has no persistence). */
    public static final int FORCED_DRAIN = 0x08;

    public int initialWeight() {
        return initialWeight;
    }

    public int adminState() {
        return adminState;
    }

    public long lastChange() {
        return lastChange;
    }

    public int checkHealth() {
        return checkHealth;
    }

    public dev.sluice.proxy.stats.Counters counters() {
        return counters;
    }

    /** Queue, connect, response and total times of the last requests ({@code qtime}..{@code ttime}). */
    public dev.sluice.proxy.stats.TimeStats timeStats() {
        return timeStats;
    }

    /** Changes the weight (0..256); new requests follow at once. Admin path only. */
    public void weight(int w) {
        weight = w;
        backend.serversChanged();
    }

    /** Changes the administrative state; new requests follow at once. Admin path only. */
    public void adminState(int state) {
        if (state == adminState) {
            return;
        }
        adminState = state;
        lastChange = System.currentTimeMillis();
        if ((state & FORCED_MAINT) != 0) {
            checkHealth = 0;
        }
        backend.serversChanged();
    }

    /** The counters right now, with the current number of streams using the server. */
    public dev.sluice.proxy.stats.Counters.Snapshot snapshot() {
        return counters.snapshot(activeStreams());
    }

    /** Whether new connections are expected to speak HTTP/2 (streams share them) rather than HTTP/1.1. */
    public boolean multiplexed() {
        return forcedH2 || alpnH2;
    }

    /** {@code proto h2}: HTTP/2 is spoken whatever ALPN agreed. */
    public boolean forcesH2() {
        return forcedH2;
    }

    /** TLS settings, or null for clear text. */
    public Tls tls() {
        return tls;
    }

    /**
     * What the last TLS handshake agreed through ALPN: later connections are opened expecting HTTP/2 only
     * while the server keeps choosing it. Any event loop may call this.
     */
    void alpnAgreed(boolean h2) {
        if (alpnH2 != h2 && tls.context().alpn().contains("h2")) {
            alpnH2 = h2;
        }
    }

    /**
     * The server name to send in the TLS handshake for this request: the {@code sni} expression's value
     * (without a port), else the server's configured host name; null for none (clear text, IP literals).
     */
    public String sniFor(Txn t) {
        if (tls == null) {
            return null;
        }
        if (tls.sni() != null) {
            String name = hostOnly(Samples.str(tls.sni().get(t)));
            if (name != null) {
                return name;
            }
        }
        return tls.hostName();
    }

    /** A host as SNI carries it: no port, no IP literal (RFC 6066 names only), null when nothing is left. */
    static String hostOnly(CharSequence value) {
        if (value == null || value.isEmpty() || value.charAt(0) == '[') {
            return null;
        }
        String v = value.toString();
        int colon = v.indexOf(':');
        if (colon >= 0) {
            if (v.indexOf(':', colon + 1) >= 0) {
                return null;
            }
            v = v.substring(0, colon);
        }
        return v.isEmpty() || dev.sluice.config.Addresses.literal(v) != null ? null : v;
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
        counters.add(dev.sluice.proxy.stats.Counter.REQUESTS);
    }

    /** Takes a slot whatever the maxconn (a stream that did not come through {@link Backend#pickServer}). */
    public void streamStarted() {
        counters.noteCurrent(active.incrementAndGet());
        backend.counters().noteCurrent(backend.active.incrementAndGet());
    }

    /** Gives back the slot of a stream. */
    public void streamEnded() {
        active.decrementAndGet();
        backend.active.decrementAndGet();
        backend.released(this);
    }

    public int activeStreams() {
        return active.get();
    }

    public long totalRequests() {
        return counters.get(dev.sluice.proxy.stats.Counter.REQUESTS);
    }

    @Override
    public String toString() {
        return backend.name() + "/" + name;
    }
}
