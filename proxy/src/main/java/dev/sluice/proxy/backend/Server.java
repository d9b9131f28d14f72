package dev.sluice.proxy.backend;

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
    /** {@code minconn}: below {@link #maxconn} the limit follows the backend's load (HAProxy's srv_dynamic_maxconn). */
    private final int minconn;
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
    /** Its health check ({@code check}), null without one; set once by the runtime before traffic starts. */
    private volatile ServerHealthCheck check;
    /** DOWN history ({@code downtime}, {@code chkdown}), under this server's lock. */
    private long downSince = -1;
    private long downtime;
    private long downTransitions;
    private final dev.sluice.proxy.stats.Counters counters = new dev.sluice.proxy.stats.Counters();
    private final dev.sluice.proxy.stats.TimeStats timeStats;
    private final ArrayDeque<ServerConnection>[] idle;
    private final java.util.ArrayList<MultiplexedConnection>[] mux;
    private final ConnUse[] use;
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
    /** Requests bound to this server (by hash or stickiness) waiting for a slot. */
    private final WaitQueue queue;

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
        this.minconn = config.minconn();
        this.maxqueue = config.maxqueue();
        this.slowstart = config.slowstart();
        this.up = config.initState() == null || config.initState().up();
        if (!up) {
            downSince = System.currentTimeMillis();
        }
        this.maintenance = config.disabled();
        if (unresolved(address)) {
            // as for a server put in maintenance: HAProxy's health counter of an unchecked server drops to 0
            checkHealth = 0;
        }
        this.queue = new WaitQueue(this, backend.tickets);
        boolean forcedH2 = "h2".equals(config.proto());
        this.forcedH2 = forcedH2;
        this.tls = tls;
        this.alpnH2 = tls != null && tls.context().alpn().contains("h2");
        this.timeStats = new dev.sluice.proxy.stats.TimeStats(loops);
        this.idle = new ArrayDeque[loops];
        this.mux = new java.util.ArrayList[loops];
        this.use = new ConnUse[loops];
        for (int i = 0; i < loops; i++) {
            idle[i] = new ArrayDeque<>();
            mux[i] = new java.util.ArrayList<>(2);
            use[i] = new ConnUse();
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
        return up && !stopping && !maintenance && !unresolved() && weight > 0 && adminState == 0;
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
        boolean wasUnresolved = unresolved();
        address = a;
        if (wasUnresolved && !unresolved(a)) {
            // as HAProxy: an address given at run time takes the server out of its resolution maintenance
            lastChange = System.currentTimeMillis();
            if (!maintenance) {
                maintenanceChanged(false);
                if (up) {
                    startWarmup();
                }
            }
            backend.serversChanged();
            backend.events().report(ServerEvents.WARNING, ServerEvents.name(this) + " ('" + config.host() + "') is "
                    + (up ? "UP/READY" : "DOWN") + " (resolves again).", null);
        }
    }

    /** {@code set maxconn server}: concurrent requests allowed from now on (0: no limit). Admin path. */
    public void maxconn(int n) {
        maxconn = n;
    }

    /** A dynamic cookie value and the address it was made from. */
    private record DynamicCookie(InetSocketAddress address, String value) {
    }

    private volatile DynamicCookie dynamicCookie;

    /**
     * The value of the backend's persistence cookie that designates this server: its {@code cookie}, else, with
     * {@code cookie ... dynamic} and a {@code dynamic-cookie-key}, HAProxy's dynamic value (XXH64 of the key, the
     * address bytes and the port as 4 big-endian bytes, in 16 hexadecimal digits), made again when the address
     * changes; null when it has none.
     */
    public String cookie() {
        String c = config.cookie();
        if (c != null) {
            return c;
        }
        dev.sluice.config.model.Cookie ck = backend.config().cookie();
        if (ck == null || !ck.dynamic() || ck.dynamicKey() == null) {
            return null;
        }
        InetSocketAddress a = address;
        DynamicCookie d = dynamicCookie;
        if (d == null || d.address() != a) {
            d = new DynamicCookie(a, dynamicCookie(ck.dynamicKey(), a));
            dynamicCookie = d;
        }
        return d.value();
    }

    /** HAProxy's srv_set_dyncookie: null for an address that is not an IP one. */
    static String dynamicCookie(String key, InetSocketAddress a) {
        if (a == null || a.getAddress() == null) {
            return null;
        }
        byte[] k = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] ip = a.getAddress().getAddress();
        byte[] buf = new byte[k.length + ip.length + 4];
        System.arraycopy(k, 0, buf, 0, k.length);
        System.arraycopy(ip, 0, buf, k.length, ip.length);
        int port = a.getPort();
        int at = k.length + ip.length;
        buf[at] = (byte) (port >>> 24);
        buf[at + 1] = (byte) (port >>> 16);
        buf[at + 2] = (byte) (port >>> 8);
        buf[at + 3] = (byte) port;
        return String.format("%016x", Xxh64.hash(buf, 0));
    }

    /**
     * Whether the server is not stopped in HAProxy's sense (its {@code cur_state} is not STOPPED): UP, even draining,
     * at weight 0 or stopping (NOLB), and not in maintenance. Persistence (a cookie, a stick match) still sends its
     * requests there; the balancing needs {@link #usable()}.
     */
    public boolean running() {
        return up && !maintenance && !unresolved() && (adminState & FORCED_MAINT) == 0;
    }

    /** Whether the server has health checks ({@code check}) and they are enabled ({@code enable|disable health}). */
    public boolean checked() {
        ServerHealthCheck c = check;
        return c != null && c.enabled();
    }

    /** Its health check, or null when the server line has no {@code check}. */
    public ServerHealthCheck check() {
        return check;
    }

    /** Attaches its health check (the runtime does, once, before starting). */
    public void check(ServerHealthCheck c) {
        this.check = c;
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
        ServerHealthCheck c = check;
        if (c != null) {
            c.forceHealth(up);
        }
        boolean wasUp = this.up;
        boolean wasStopping = this.stopping;
        if (wasUp == up && wasStopping == stopping) {
            return;
        }
        // HAProxy's lines: "Server be/s is DOWN, changed from CLI. ..." and the like
        String what = !up ? " is DOWN" : stopping ? " is stopping" : " is UP";
        Transition report = n -> backend.events().report(up || wasStopping ? ServerEvents.NOTICE : ServerEvents.ALERT,
                ServerEvents.name(this) + what + ", changed from CLI" + ServerEvents.tail(this, !up, n) + ".", null);
        if (wasUp == up) {
            this.stopping = stopping;
            lastChange = System.currentTimeMillis();
            backend.serversChangedQuietly();
            report.done(0);
            backend.reportLoss();
            return;
        }
        this.stopping = stopping;
        setUp(up, report);
    }

    public boolean backup() {
        return backup;
    }

    /** Concurrent requests allowed (0: no limit). */
    public int maxconn() {
        return maxconn;
    }

    /** The most requests its own queue holds; more get a 503 (0: no limit). */
    public int maxqueue() {
        return maxqueue;
    }

    /** {@code slowstart} in milliseconds (0: none). */
    public long slowstart() {
        return slowstart;
    }

    /**
     * When a slow start began (epoch milliseconds: the server came back UP, or out of maintenance, with a
     * {@code slowstart}), -1 when none runs. Never at start-up, as in HAProxy.
     */
    private volatile long warmingSince = -1;

    /** Whether the server is in its slow start (HAProxy's STARTING state). */
    public boolean warming() {
        return warmingSince >= 0;
    }

    /** Whole seconds into the slow start and its length in seconds (HAProxy counts both in seconds); null when none. */
    private long[] warmup() {
        long since = warmingSince;
        if (since < 0) {
            return null;
        }
        long ss = Math.max(1, (slowstart + 999) / 1000);
        long e = Math.max(0, (System.currentTimeMillis() - since) / 1000);
        return e >= ss ? null : new long[] {e, ss};
    }

    /**
     * HAProxy's effective weight, which the dynamic algorithms (roundrobin, leastconn, random, consistent hashing)
     * balance by: the weight times 16, and during a slow start the weight times {@code (16 * elapsed + slowstart) /
     * slowstart}, from 1/16 of it up to all of it.
     */
    public int eweight() {
        int w = weight;
        long[] ws = warmup();
        return ws == null ? w * 16 : (int) (w * ((16 * ws[0] + ws[1]) / ws[1]));
    }

    /** {@code minconn} (equal to maxconn when the limit is static). */
    public int minconn() {
        return minconn;
    }

    /** Which of the backend's requests count in its load for the dynamic maxconn ({@link #effectiveMaxconn(Load)}). */
    enum Load {
        /** A new request asks for a slot: the backend's requests and this one (HAProxy's beconn counts it already). */
        NEW_REQUEST,
        /** A server changed: the backend's requests, queued ones included. */
        QUEUES,
        /** A request gave its slot back: the backend's requests and that one (HAProxy serves its queue before it leaves). */
        RELEASE,
        /**
         * A request was just queued: only those holding a slot, so that the load's rise alone hands out no slot (HAProxy
         * serves its queues with the new limit only when a slot is given back or a server changes).
         */
        ARRIVAL
    }

    /** The maxconn in force for a new request; see {@link #effectiveMaxconn(Load)}. */
    int effectiveMaxconn() {
        return effectiveMaxconn(Load.NEW_REQUEST);
    }

    /**
     * The maxconn in force, as HAProxy's srv_dynamic_maxconn: with a {@code minconn} below {@code maxconn}, MAX(minconn,
     * load * maxconn / fullconn) while the backend's load is below {@code fullconn}, else maxconn; during a slow start it
     * grows from 1 with the time elapsed. 0 for no limit.
     */
    int effectiveMaxconn(Load which) {
        int m = maxconn;
        if (m == 0) {
            return 0;
        }
        int max = m;
        int full = backend.fullconn();
        if (minconn < m) {
            int load = switch (which) {
                case NEW_REQUEST, RELEASE -> backend.load() + 1;
                case QUEUES -> backend.load();
                case ARRIVAL -> backend.activeStreams();
            };
            if (load < full) {
                max = (int) Math.max(minconn, (long) load * m / full);
            }
        }
        long[] ws = warmup();
        return ws == null ? max : (int) Math.max(1, max * (100 * ws[0] / ws[1]) / 100);
    }

    /**
     * The share of its weight a slow-starting server has, in percent rounded up ({@code throttle} in show stat, as
     * HAProxy's server_throttle_rate: 7 at the start, when it has 1/16), or -1 when no slow start runs.
     */
    public int throttle() {
        int w = weight;
        if (warmup() == null || w == 0) {
            return -1;
        }
        return (100 * eweight() + 16 * w - 1) / (16 * w);
    }

    /** Starts a slow start when the server has one; the backend rebuilds its balancing as it goes. */
    private void startWarmup() {
        if (slowstart > 0) {
            warmingSince = System.currentTimeMillis();
            backend.warmUp(this);
        }
    }

    /** The slow start is over (or was cut short by the server going down). */
    void endWarmup() {
        warmingSince = -1;
    }

    /** Whether the server is operationally UP (health checks set it; {@code init-state} gives the start). */
    public boolean up() {
        return up;
    }

    /**
     * Marks the server UP or DOWN; the backend's algorithm follows at once. Going UP, it takes requests
     * waiting in the backend's queue as far as its slots allow; going DOWN with {@code option redispatch}, the
     * requests waiting in its own queue are assigned again. Returns how many requests it took or sent away
     * (HAProxy's "sessions requeued").
     */
    public int setUp(boolean value) {
        return setUp(value, null);
    }

    /** What reports a transition once it is done, with the number of requests it moved; before the backend's own loss. */
    public interface Transition {
        void done(int requeued);
    }

    /**
     * {@link #setUp(boolean)}, then {@code report} (may be null) with the requests moved, then the backend's loss of
     * its last server if this was it: HAProxy's order of the log lines.
     */
    public int setUp(boolean value, Transition report) {
        if (up == value) {
            return 0;
        }
        up = value;
        long now = System.currentTimeMillis();
        lastChange = now;
        int n;
        synchronized (this) {
            if (value) {
                if (downSince >= 0) {
                    downtime += now - downSince;
                    downSince = -1;
                }
            } else {
                downSince = now;
                downTransitions++;
            }
        }
        if (value) {
            startWarmup();
            n = backend.drain(this);
            backend.serversChangedQuietly();
        } else {
            endWarmup();
            backend.serversChangedQuietly();
            n = backend.redistribute(this);
        }
        if (report != null) {
            report.done(n);
        }
        backend.reportLoss();
        return n;
    }

    /**
     * A health check's verdict: UP or DOWN, and NOLB ({@code stopping}) for a conditional pass; {@code report} tells the
     * transition once done (null: nothing to tell). Returns the requests moved. On the check's event loop.
     */
    public int checkedState(boolean value, boolean nolb, Transition report) {
        if (up == value) {
            if (stopping != nolb) {
                stopping = nolb;
                lastChange = System.currentTimeMillis();
                backend.serversChangedQuietly();
                if (report != null) {
                    report.done(0);
                }
                backend.reportLoss();
            }
            return 0;
        }
        stopping = nolb;
        return setUp(value, report);
    }

    /** Milliseconds spent DOWN so far (HAProxy's {@code downtime}). */
    public synchronized long downtime() {
        return downtime + (downSince >= 0 ? System.currentTimeMillis() - downSince : 0);
    }

    /** How many times the server went from UP to DOWN ({@code chkdown}). */
    public synchronized long downTransitions() {
        return downTransitions;
    }

    /**
     * Maintenance begins or ends for a checked server: its checks pause (health 0); when it ends the server is UP
     * again with the health at {@code rise}, so that its next check decides, as HAProxy does.
     */
    private void maintenanceChanged(boolean entering) {
        ServerHealthCheck c = check;
        if (c == null) {
            return;
        }
        c.maintenance(entering);
        if (!entering && !up) {
            up = true;
            lastChange = System.currentTimeMillis();
            synchronized (this) {
                if (downSince >= 0) {
                    downtime += lastChange - downSince;
                    downSince = -1;
                }
            }
        }
    }

    /**
     * Whether the server is in maintenance by configuration ({@code disabled}) or because its name did not resolve at
     * start-up under {@code init-addr ...,none} (HAProxy's RMAINT: "MAINT (resolution)").
     */
    public boolean maintenance() {
        return maintenance || unresolved();
    }

    /** Whether the server is {@code disabled} in the configuration (HAProxy's CMAINT). */
    public boolean configuredMaintenance() {
        return maintenance;
    }

    /** Whether the server has no address yet ({@code init-addr none}): in maintenance until {@code set server ... addr}. */
    public boolean unresolved() {
        return unresolved(address);
    }

    /** The placeholder address of a server whose name did not resolve ({@code init-addr none}): 0.0.0.0 and its port. */
    public static InetSocketAddress unresolvedAddress(int port) {
        return new InetSocketAddress(UNRESOLVED, port);
    }

    private static boolean unresolved(InetSocketAddress a) {
        return a != null && a.getAddress() == UNRESOLVED;
    }

    private static final java.net.InetAddress UNRESOLVED;

    static {
        try {
            UNRESOLVED = java.net.InetAddress.getByAddress("unresolved", new byte[4]);
        } catch (java.net.UnknownHostException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public void setMaintenance(boolean value) {
        if (maintenance != value) {
            maintenance = value;
            maintenanceChanged(value);
            lastChange = System.currentTimeMillis();
            if (!value && up) {
                startWarmup();
            }
            backend.serversChanged();
            if (value) {
                backend.redistribute(this);
            }
        }
    }

    /**
     * Whether a new request cannot have a slot now: at its maxconn, or requests already wait in its own
     * queue (they go first, as in HAProxy).
     */
    public boolean full() {
        return maxconn > 0 && (active.get() >= effectiveMaxconn() || !queue.isEmpty());
    }

    /** Requests waiting for this server in its own queue. */
    public WaitQueue queue() {
        return queue;
    }

    /**
     * Takes a request slot on this server for a new request: false when it is at its maxconn or requests
     * wait in its queue. The stream that took it gives it back with {@link #streamEnded}.
     */
    public boolean tryTake() {
        if (maxconn > 0 && !queue.isEmpty()) {
            return false;
        }
        return take(Load.NEW_REQUEST);
    }

    /** Takes a slot when one is free below maxconn (whatever waits) for a queued request: see {@link Load}. */
    boolean take(Load which) {
        int n;
        if (maxconn == 0) {
            n = active.incrementAndGet();
        } else {
            int max = effectiveMaxconn(which);
            do {
                n = active.get();
                if (n >= max) {
                    return false;
                }
            } while (!active.compareAndSet(n, n + 1));
            n++;
        }
        counters.noteCurrent(n);
        backend.counters().noteCurrent(backend.active.incrementAndGet());
        return true;
    }

    /** Gives a slot back without handing it on (the caller looks at the queues again). */
    void giveBack() {
        active.decrementAndGet();
        backend.active.decrementAndGet();
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
        ServerHealthCheck c = check;
        return c != null ? c.health() : checkHealth;
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
        int before = adminState;
        boolean leavingMaint = (before & FORCED_MAINT) != 0 && (state & FORCED_MAINT) == 0;
        boolean enteringMaint = (before & FORCED_MAINT) == 0 && (state & FORCED_MAINT) != 0;
        boolean enteringDrain = (before & FORCED_DRAIN) == 0 && (state & FORCED_DRAIN) != 0;
        boolean leavingDrain = (before & FORCED_DRAIN) != 0 && (state & FORCED_DRAIN) == 0;
        adminState = state;
        if (leavingMaint && !maintenance) {
            maintenanceChanged(false);
        } else if (enteringMaint && !maintenance) {
            maintenanceChanged(true);
        }
        lastChange = System.currentTimeMillis();
        if (leavingMaint && up && !maintenance) {
            startWarmup();
        }
        if ((state & FORCED_MAINT) != 0) {
            checkHealth = 0;
        }
        backend.serversChangedQuietly();
        int requeued = (state & FORCED_MAINT) != 0 ? backend.redistribute(this) : 0;
        // HAProxy's lines for what the CLI (or the stats page) did
        ServerEvents ev = backend.events();
        if (enteringMaint) {
            ev.report(ServerEvents.ALERT, ServerEvents.name(this) + " is going DOWN for maintenance" + ServerEvents.tail(this, true, requeued)
                    + ".", null);
        } else if (leavingMaint) {
            ev.report(ServerEvents.NOTICE, ServerEvents.name(this) + " is " + (up ? "UP/READY" : "DOWN") + " (leaving forced maintenance).",
                    null);
        } else if (enteringDrain) {
            ev.report(ServerEvents.NOTICE, ServerEvents.name(this) + " enters drain state" + ServerEvents.tail(this, false, 0) + ".", null);
        } else if (leavingDrain) {
            ev.report(ServerEvents.NOTICE, ServerEvents.name(this) + " is " + (up ? "UP" : "DOWN") + " (leaving forced drain).", null);
        }
        backend.reportLoss();
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

    /** The connection-need estimate of one event loop; only that loop may call this. */
    ConnUse use(int loop) {
        return use[loop];
    }

    /** The idle connections of one event loop; only that loop may call this. */
    ArrayDeque<ServerConnection> idle(int loop) {
        return idle[loop];
    }

    public void countRequest() {
        counters.add(dev.sluice.proxy.stats.Counter.REQUESTS);
    }

    /** Takes a slot whatever the maxconn and the queue (tests load a server this way). */
    public void streamStarted() {
        counters.noteCurrent(active.incrementAndGet());
        backend.counters().noteCurrent(backend.active.incrementAndGet());
    }

    /**
     * Gives back the slot of a stream; when requests wait for this server (its own queue, or the backend's
     * when it balances over it), the slot goes to the oldest of them instead. Any event loop.
     */
    public void streamEnded() {
        giveBack();
        backend.released(this);
        backend.drain(this, Load.RELEASE);
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
