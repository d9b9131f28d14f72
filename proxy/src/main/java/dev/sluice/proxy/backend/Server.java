package dev.sluice.proxy.backend;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.Cookie;
import dev.sluice.proxy.rules.Fetch;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.proxy.stats.TimeStats;
import dev.sluice.proxy.tls.ClientTlsContext;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server of a backend at run time: its resolved address, its weight, its operational state ({@link #setUp
 * up or down}, which health checks will flip, {@code disabled} maintenance) and administrative state (set
 * through the admin socket), kept and changed by its {@link ServerState}; how its connections are secured; its
 * per-event-loop pools of connections ({@link ServerPools}); its request slots (maxconn, minconn, slow start) and
 * its counters. Weight and states are volatile and changed through the backend, whose algorithm then rebuilds what
 * it derives from them.
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
    private volatile InetSocketAddress address;
    /** Added with {@code add server} (HAProxy's dynamic servers). */
    private final boolean dynamic;
    /** The server line it was built from. */
    private final dev.sluice.config.model.Server config;
    private volatile int weight;
    private final int initialWeight;
    /** Its operational and administrative state, with the transitions. */
    private final ServerState state;
    private final Counters counters;
    private final TimeStats timeStats;
    private final ServerPools pools;
    /** {@code proto h2}: HTTP/2 whatever ALPN says. */
    private final boolean forcedH2;
    private final boolean fcgiMultiplexed;
    private final Tls tls;
    /** ALPN offers h2 and, as far as the last handshake told, the server takes it. */
    private volatile boolean alpnH2;
    /**
     * Streams holding a slot on this server (HAProxy's {@code served}: what maxconn, the queues and the balancing see):
     * taken when the server is picked or a queue hands it over, so that requests still connecting count.
     */
    private final AtomicInteger active = new AtomicInteger();
    /**
     * Streams that asked for a connection to this server and did not leave it (HAProxy's {@code cur_sess}: the log's %sc,
     * scur, srv_conn): counted from the connect, so a slot a queue handed over counts once its stream connects. One atomic
     * rather than striped cells: a gauge whose maximum (smax) must be exact needs its value at each increment.
     */
    private final AtomicInteger sessions = new AtomicInteger();
    /** Requests bound to this server (by hash or stickiness) waiting for a slot. */
    private final WaitQueue queue;

    Server(dev.sluice.config.model.Server config, int index, Backend backend, InetSocketAddress address, int loops, Tls tls) {
        this(config, index, backend, address, loops, tls, false, null);
    }

    /**
     * {@code before}: this server before an in-process reload (the same backend and name), whose counters and timings it
     * carries on; null for a new one.
     */
    Server(dev.sluice.config.model.Server config, int index, Backend backend, InetSocketAddress address, int loops, Tls tls, boolean dynamic,
            Server before) {
        this.config = config;
        this.counters = before != null ? before.counters : new Counters();
        this.timeStats = before != null ? before.timeStats : new TimeStats(loops);
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
        this.unix = config.unix();
        this.fqdn = config.srv() || unix || dev.sluice.config.Addresses.literal(config.host()) != null ? null : config.host();
        this.state = new ServerState(this, backend, config, ServerState.unresolved(address));
        this.queue = new WaitQueue(this, backend.tickets);
        boolean forcedH2 = "h2".equals(config.proto());
        this.forcedH2 = forcedH2;
        var fcgiApp = backend.config().fcgiApp();
        this.fcgiMultiplexed = "fcgi".equals(config.proto()) && fcgiApp != null && fcgiApp.multiplexes();
        this.tls = tls;
        this.alpnH2 = tls != null && tls.context().alpn().contains("h2");
        this.pools = new ServerPools(loops);
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

    /** {@code config.unix()}, kept: no string test per connection. */
    private final boolean unix;
    /** Set when a reload replaced this server: the server its connections go on with once idle (null: they close). */
    private volatile Server successor;
    private volatile boolean retired;
    /**
     * While a reload hands {@code predecessor}'s idle connections over (until each loop did): where a request finding no
     * idle connection here looks before opening one. Loop-read, set and cleared by the reload.
     */
    private volatile Server predecessor;

    /** See {@link #predecessor}; null once the hand-over is done (an old configuration must not stay reachable). */
    public void predecessor(Server p) {
        predecessor = p;
    }

    Server predecessor() {
        return predecessor;
    }

    /**
     * A reload replaced the configuration: connections to this server that become idle go on as {@code next}'s (the same
     * address and settings), or close when it is null.
     */
    public void retire(Server next) {
        successor = next;
        retired = true;
    }

    /** Whether a reload replaced this server ({@link #retire}). */
    public boolean retired() {
        return retired;
    }

    /**
     * The server this one's idle connections go on with after a reload (the newest: reloads in a row are followed), or
     * null.
     */
    public Server successor() {
        Server next = successor;
        while (next != null && next.retired) {
            next = next.successor;
        }
        return next;
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
        return state.up() && !state.stopping() && !state.configuredMaintenance() && !unresolved() && weight > 0 && state.adminState() == 0;
    }

    int index() {
        return index;
    }

    void index(int i) {
        index = i;
    }

    /**
     * Its {@code pool-purge-delay} in milliseconds: the server line's, else its backend's (5 s by default); 0 keeps no idle
     * connection.
     */
    public long purgeDelayMs() {
        long d = config.pool().purgeDelayMs();
        return d >= 0 ? d : backend.http().poolPurgeDelayMs();
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
        if (wasUnresolved && !ServerState.unresolved(a)) {
            adminChanged();
            state.resolved();
        }
    }

    /**
     * The name the server follows (HAProxy's hostname, {@code srv_fqdn}): the configured one, or the target of the SRV
     * record a {@code server-template} slot was given; null when it has none (a slot no SRV record filled).
     */
    private volatile String fqdn;

    public String fqdn() {
        return fqdn;
    }

    /** A new name from an SRV record (DNS at run time). */
    public void fqdn(String name) {
        fqdn = name;
        fqdnPending |= name != null;
    }

    /**
     * HAProxy sets SRV_ADMF_HMAINT in the next admin state, which {@code show servers state} shows once a state change
     * makes it the current one: the name is pending until the server next enters or leaves its resolution maintenance.
     */
    private volatile boolean fqdnPending;

    private void adminChanged() {
        if (fqdnPending) {
            fqdnChanged = true;
        }
    }

    /** What {@code set server ... fqdn} does for a server with {@code resolvers} (DNS at run time): the CLI's answer. */
    public interface Renamer {
        String rename(Server s, String fqdn);
    }

    private volatile Renamer renamer;

    /** Its resolvers section's way to follow another name; null without {@code resolvers}. */
    public Renamer renamer() {
        return renamer;
    }

    public void renamer(Renamer r) {
        renamer = r;
    }

    /** Whether DNS gave the server its name once (HAProxy's SRV_ADMF_HMAINT, 0x40 in {@code show servers state}). */
    private volatile boolean fqdnChanged;

    public boolean fqdnChanged() {
        return fqdnChanged;
    }

    /**
     * DNS at run time found no address for the server (HAProxy's RMAINT): it goes to 'MAINT (resolution)' with HAProxy's
     * line ("Server be/s is going DOWN for maintenance (No IP for server ). ..."), its queued requests go elsewhere;
     * established connections stay. No-op when it has no address already.
     */
    public void lostAddress(String cause) {
        if (unresolved()) {
            return;
        }
        address = unresolvedAddress(address.getPort());
        adminChanged();
        state.unresolvedBy(cause);
    }

    /** {@code set maxconn server}: concurrent requests allowed from now on (0: no limit). Admin path. */
    public void maxconn(int n) {
        maxconn = n;
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
        Cookie ck = backend.config().cookie();
        if (ck == null || !ck.dynamic() || ck.dynamicKey() == null) {
            return null;
        }
        InetSocketAddress a = address;
        DynamicCookie d = dynamicCookie;
        if (d == null || d.address() != a) {
            d = DynamicCookie.of(ck.dynamicKey(), a);
            dynamicCookie = d;
        }
        return d.value();
    }

    /**
     * Whether the server is not stopped in HAProxy's sense (its {@code cur_state} is not STOPPED): UP, even draining,
     * at weight 0 or stopping (NOLB), and not in maintenance. Persistence (a cookie, a stick match) still sends its
     * requests there; the balancing needs {@link #usable()}.
     */
    public boolean running() {
        return state.up() && !state.configuredMaintenance() && !unresolved() && (state.adminState() & FORCED_MAINT) == 0;
    }

    /** Whether the server has health checks ({@code check}) and they are enabled ({@code enable|disable health}). */
    public boolean checked() {
        ServerHealthCheck c = state.check();
        return c != null && c.enabled();
    }

    /** Its health check, or null when the server line has no {@code check}. */
    public ServerHealthCheck check() {
        return state.check();
    }

    /** Attaches its health check (the runtime does, once, before starting). */
    public void check(ServerHealthCheck c) {
        state.check(c);
    }

    /**
     * What a stream saw of the server (a connection made or failed, a response): counted by its health check when the
     * server line has {@code observe}, else nothing. On the stream's loop.
     */
    public void observed(TrafficEvent event) {
        if (config.check().observe().layer() != dev.sluice.config.model.ServerObserve.Layer.NONE) {
            ServerHealthCheck c = state.check();
            if (c != null) {
                c.observed(event);
            }
        }
    }

    private volatile ServerAgentCheck agent;

    /** Its agent check, or null when the server line has no {@code agent-check}. */
    public ServerAgentCheck agent() {
        return agent;
    }

    /** Attaches its agent check (the runtime does, once, before starting). */
    public void agent(ServerAgentCheck a) {
        agent = a;
    }

    /** {@code set server ... agent up|down}: the state follows, with HAProxy's "changed from CLI" line. */
    public void setAgentHealth(boolean up) {
        state.setAgentHealth(up);
    }

    /** Whether an enabled agent check holds the server down (its health is 0, HAProxy's agent.health < agent.rise). */
    public boolean agentDown() {
        ServerAgentCheck a = agent;
        return a != null && a.enabled() && a.health() < 1;
    }

    /** Whether {@code set server ... health stopping} holds it (UP, no new request). */
    public boolean stopping() {
        return state.stopping();
    }

    /**
     * {@code set server ... health up|stopping|down}: the operational state, as a health check would set it;
     * the backend's algorithm follows at once.
     */
    public void setHealth(boolean up, boolean stopping) {
        state.setHealth(up, stopping);
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

    /** Whether the server is in its slow start (HAProxy's STARTING state). */
    public boolean warming() {
        return state.warming();
    }

    /**
     * HAProxy's effective weight, which the dynamic algorithms (roundrobin, leastconn, random, consistent hashing)
     * balance by: the weight times 16, and during a slow start the weight times {@code (16 * elapsed + slowstart) /
     * slowstart}, from 1/16 of it up to all of it.
     */
    public int eweight() {
        int w = weight;
        long[] ws = state.warmup();
        return ws == null ? w * 16 : (int) (w * ((16 * ws[0] + ws[1]) / ws[1]));
    }

    /** {@code minconn} (equal to maxconn when the limit is static). */
    public int minconn() {
        return minconn;
    }

    /** The maxconn in force for a new request; see {@link #effectiveMaxconn(SlotLoad)}. */
    int effectiveMaxconn() {
        return effectiveMaxconn(SlotLoad.NEW_REQUEST);
    }

    /** The same, for readers outside the package ({@code srv_conn_free}, {@code be_conn_free}). */
    public int dynamicMaxconn() {
        return effectiveMaxconn();
    }

    /**
     * The maxconn in force, as HAProxy's srv_dynamic_maxconn: with a {@code minconn} below {@code maxconn}, MAX(minconn,
     * load * maxconn / fullconn) while the backend's load is below {@code fullconn}, else maxconn; during a slow start it
     * grows from 1 with the time elapsed. 0 for no limit.
     */
    int effectiveMaxconn(SlotLoad which) {
        int m = maxconn;
        if (m == 0) {
            return 0;
        }
        int max = m;
        int full = backend.fullconn();
        if (minconn < m) {
            int load = switch (which) {
                case NEW_REQUEST, QUEUES -> backend.load();
                case RELEASE -> backend.load() + 1;
                case ARRIVAL -> backend.served.get();
            };
            if (load < full) {
                max = (int) Math.max(minconn, (long) load * m / full);
            }
        }
        long[] ws = state.warmup();
        return ws == null ? max : (int) Math.max(1, max * (100 * ws[0] / ws[1]) / 100);
    }

    /**
     * The share of its weight a slow-starting server has, in percent rounded up ({@code throttle} in show stat, as
     * HAProxy's server_throttle_rate: 7 at the start, when it has 1/16), or -1 when no slow start runs.
     */
    public int throttle() {
        int w = weight;
        if (state.warmup() == null || w == 0) {
            return -1;
        }
        return (100 * eweight() + 16 * w - 1) / (16 * w);
    }

    /** The slow start is over (or was cut short by the server going down). */
    void endWarmup() {
        state.endWarmup();
    }

    /** Whether the server is operationally UP (health checks set it; {@code init-state} gives the start). */
    public boolean up() {
        return state.up();
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
        return state.setUp(value, report);
    }

    /**
     * A health check's verdict: UP or DOWN, and NOLB ({@code stopping}) for a conditional pass; {@code report} tells the
     * transition once done (null: nothing to tell). Returns the requests moved. On the check's event loop.
     */
    public int checkedState(boolean value, boolean nolb, Transition report) {
        return state.checkedState(value, nolb, report);
    }

    /** Milliseconds spent DOWN so far (HAProxy's {@code downtime}). */
    public long downtime() {
        return state.downs().downtime();
    }

    /** How many times the server went from UP to DOWN ({@code chkdown}). */
    public long downTransitions() {
        return state.downs().downTransitions();
    }

    /**
     * Whether the server is in maintenance by configuration ({@code disabled}) or because its name did not resolve at
     * start-up under {@code init-addr ...,none} (HAProxy's RMAINT: "MAINT (resolution)").
     */
    public boolean maintenance() {
        return state.configuredMaintenance() || unresolved();
    }

    /** Whether the server is {@code disabled} in the configuration (HAProxy's CMAINT). */
    public boolean configuredMaintenance() {
        return state.configuredMaintenance();
    }

    /** Whether the server has no address yet ({@code init-addr none}): in maintenance until {@code set server ... addr}. */
    public boolean unresolved() {
        return ServerState.unresolved(address);
    }

    /**
     * The placeholder address of a server on a UNIX socket ({@link #unix}): 0.0.0.0, port 0; connections go to the
     * socket's path, logs and statistics show what HAProxy shows for one.
     */
    public static final InetSocketAddress UNIX_ADDRESS = new InetSocketAddress(ServerState.UNIX, 0);

    /** Whether the server is a UNIX stream socket ({@code unix@<path>}, {@code /<path>}): read at each new connection. */
    public boolean unix() {
        return unix;
    }

    /** The placeholder address of a server whose name did not resolve ({@code init-addr none}): 0.0.0.0 and its port. */
    public static InetSocketAddress unresolvedAddress(int port) {
        return ServerState.unresolvedAddress(port);
    }

    /** Puts the server in configured maintenance or takes it out ({@code disabled}); new requests follow at once. */
    public void setMaintenance(boolean value) {
        state.setMaintenance(value);
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
        return take(SlotLoad.NEW_REQUEST);
    }

    /** Takes a slot when one is free below maxconn (whatever waits) for a queued request: see {@link SlotLoad}. */
    boolean take(SlotLoad which) {
        if (maxconn == 0) {
            active.incrementAndGet();
        } else {
            int max = effectiveMaxconn(which);
            int n;
            do {
                n = active.get();
                if (n >= max) {
                    return false;
                }
            } while (!active.compareAndSet(n, n + 1));
        }
        backend.served.incrementAndGet();
        return true;
    }

    /** Gives a slot back without handing it on (the caller looks at the queues again). */
    void giveBack() {
        active.decrementAndGet();
        backend.served.decrementAndGet();
    }

    /** Forced maintenance ({@code set server ... state maint}): no traffic at all. */
    public static final int FORCED_MAINT = 0x01;
    /** Forced drain ({@code set server ... state drain}): no new traffic (Sluice has no persistence). */
    public static final int FORCED_DRAIN = 0x08;

    public int initialWeight() {
        return initialWeight;
    }

    public int adminState() {
        return state.adminState();
    }

    public long lastChange() {
        return state.lastChange();
    }

    public int checkHealth() {
        return state.checkHealth();
    }

    public Counters counters() {
        return counters;
    }

    /** Queue, connect, response and total times of the last requests ({@code qtime}..{@code ttime}). */
    public TimeStats timeStats() {
        return timeStats;
    }

    /** The state a previous process saved (a server state file): see {@link ServerState#restore}. Before traffic starts. */
    public void restore(SavedServerState saved) {
        state.restore(saved);
    }

    /** The weight of a saved state, without rebuilding the balancing (the restore does it once). */
    void restoreWeight(int w) {
        weight = w;
    }

    /** Declared {@code disabled} (HAProxy's CMAINT), whether or not its maintenance was ended since. */
    public boolean configuredDisabled() {
        return state.configuredDisabled();
    }

    /** Changes the weight (0..256); new requests follow at once. Admin path only. */
    public void weight(int w) {
        weight = w;
        // as HAProxy's srv_update_status after a weight change: the pending admin state becomes the current one
        adminChanged();
        backend.serversChanged();
        state.remainsDrained();
    }

    /** Changes the administrative state; new requests follow at once. Admin path only. */
    public void adminState(int state) {
        this.state.adminState(state);
    }

    /** The counters right now, with the current number of streams using the server. */
    public Counters.Snapshot snapshot() {
        return counters.snapshot(sessions.get());
    }

    /**
     * Whether new connections carry several streams at once ({@link MultiplexedConnection}s): HTTP/2 expected rather than
     * HTTP/1.1, or FastCGI to an application that may multiplex ({@code proto fcgi}, {@code option mpxs-conns} with
     * {@code max-reqs} above 1, or {@code option get-values}).
     */
    public boolean multiplexed() {
        return forcedH2 || fcgiMultiplexed || alpnH2;
    }

    /** A {@code proto fcgi} server whose application may multiplex: its connections are multiplexed whatever ALPN says. */
    public boolean fcgiMultiplexed() {
        return fcgiMultiplexed;
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

    /** The server name to send in the TLS handshake for this request ({@link ServerSni}); null for none. */
    public String sniFor(Txn t) {
        return ServerSni.forRequest(tls, t);
    }

    /** Its connections kept per event loop. */
    ServerPools pools() {
        return pools;
    }

    public void countRequest() {
        counters.add(Counter.REQUESTS);
    }

    /** Takes a slot whatever the maxconn and the queue (tests load a server this way). */
    public void streamStarted() {
        active.incrementAndGet();
        backend.served.incrementAndGet();
    }

    /** A stream holding a slot asks for a connection here (HAProxy's connect_server): cur_sess and its maximum (smax). */
    public void sessionStarted() {
        counters.noteCurrent(sessions.incrementAndGet());
    }

    /** A stream counted by {@link #sessionStarted} leaves the server (its connection failed or closed). */
    public void sessionEnded() {
        sessions.decrementAndGet();
    }

    /** HAProxy's {@code cur_sess}: the log's %sc, scur in show stat, srv_conn. */
    public int currentSessions() {
        return sessions.get();
    }

    /**
     * Gives back the slot of a stream; when requests wait for this server (its own queue, or the backend's
     * when it balances over it), the slot goes to the oldest of them instead. Any event loop.
     */
    public void streamEnded() {
        giveBack();
        backend.released(this);
        backend.drain(this, SlotLoad.RELEASE);
    }

    public int activeStreams() {
        return active.get();
    }

    public long totalRequests() {
        return counters.get(Counter.REQUESTS);
    }

    @Override
    public String toString() {
        return backend.name() + "/" + name;
    }
}
