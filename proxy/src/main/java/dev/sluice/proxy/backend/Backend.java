package dev.sluice.proxy.backend;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.HashType;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Retries;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.http.h1.ErrorResponses;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.rules.PageService;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.RuleCompiler;
import dev.sluice.proxy.rules.SampleExpr;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.proxy.stats.ErrorCapture;
import dev.sluice.proxy.stats.TimeStats;
import java.net.InetSocketAddress;
import io.netty.util.AsciiString;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend at run time: its servers, how it picks one, its timeouts and how it reaches servers.
 * Its configuration is fixed; what changes at run time: the server list (copy on write, {@code add/del server}),
 * the balancing state, the servers' own state, the counters, and what the runtime sets before start
 * (id, fullconn, events, stats page, rules, scheduler).
 */
public final class Backend {
    private final String name;
    private final Proxy config;
    /** Replaced whole (copy on write) when {@code add server} or {@code del server} changes the list. */
    private volatile Server[] servers;
    private volatile LbAlgorithm lb;
    private final int loops;
    private final SampleExpr hashExpr;
    private final ServerConnector connector;
    private final ForwardFor forwardFor;
    /** {@code option originalto}, or null. */
    private final ForwardFor originalTo;
    private final ErrorResponses errors;
    /** The persistence cookie ({@code cookie}), null when none. */
    private final PersistenceCookie cookie;
    /** {@code http-send-name-header}, or null. */
    private final AsciiString sendNameHeader;
    private ProxyRules rules = ProxyRules.NONE;
    /** Streams holding a slot on a server of this backend (HAProxy's {@code served}): one atomic, see {@link Server}. */
    final AtomicInteger served = new AtomicInteger();
    /**
     * Streams assigned to this backend and not ended (HAProxy's {@code beconn}: the log's %bc, scur, be_conn), queued ones
     * and those still without a server included: one atomic, its maximum (smax) exact.
     */
    private final AtomicInteger beconn = new AtomicInteger();
    private final Counters counters;
    /** Arrival order across the backend's queue and its servers' own queues (set before the servers are built). */
    final AtomicLong tickets = new AtomicLong();
    /** Requests the balancing found no free server for: they wait for any server of the balanced group. */
    private final WaitQueue queue = new WaitQueue(null, tickets);
    private final TimeStats timeStats;
    private int id;
    private int fullconn = 1;
    /** UP/DOWN history, changed under this backend's lock by {@link #serversChanged}. */
    private boolean up = true;
    private volatile long lastChange = System.currentTimeMillis();
    private long downSince = -1;
    private long downtime;
    private volatile long downTransitions;
    /** The backend lost its last usable server and {@link #reportLoss} has not said so yet. Under this backend's lock. */
    private boolean lossToReport;
    /** Where server transitions and the loss of every server are reported (set by the runtime). */
    private volatile ServerEvents events = ServerEvents.NONE;

    /**
     * A server line whose address is resolved (resolution happens before the runtime is built), with how
     * its connections are secured ({@code tls} null: clear text).
     */
    public record ResolvedServer(dev.sluice.config.model.Server config, InetSocketAddress address, Server.Tls tls) {

        /** A plain server (no other option), for tests. */
        public ResolvedServer(String name, InetSocketAddress address, int weight, boolean h2) {
            this(new dev.sluice.config.model.Server(null, name, address.getHostString(), address.getPort(), weight, null, h2 ? "h2" : null),
                    address, null);
        }

        public String name() {
            return config.name();
        }
    }

    public Backend(Proxy config, List<ResolvedServer> resolved, int loops, ServerConnector connector) {
        this(config, resolved, loops, connector, null);
    }

    /**
     * {@code before}: the backend of the same name before an in-process reload, whose counters, timings and last error
     * this one carries on, and each of its servers those of the server of the same name (made with them rather than
     * given them after: 1,000 servers' counters are megabytes a reload would allocate for nothing); null for a new one.
     */
    public Backend(Proxy config, List<ResolvedServer> resolved, int loops, ServerConnector connector, Backend before) {
        this.name = config.name();
        this.config = config;
        this.connector = connector;
        this.counters = before != null ? before.counters : new Counters();
        this.timeStats = before != null ? before.timeStats : new TimeStats(loops);
        this.lastError = before != null ? before.lastError : null;
        Map<String, Server> previous = new HashMap<>();
        if (before != null) {
            for (Server o : before.servers) {
                previous.putIfAbsent(o.name(), o);
            }
        }
        this.servers = new Server[resolved.size()];
        for (int i = 0; i < servers.length; i++) {
            ResolvedServer r = resolved.get(i);
            servers[i] = new Server(r.config(), i, this, r.address(), loops, r.tls(), false, previous.get(r.config().name()));
        }
        this.loops = loops;
        this.hashExpr = config.balance().algorithm() == Balance.Algorithm.HASH
                ? RuleCompiler.sample(config.balance().argument()) : null;
        this.lb = Serverless.of(config, this, servers.length, loops, LbAlgorithm.of(config.balance(), servers, hashExpr));
        this.forwardFor = config.http().forwardFor() == null ? null : new ForwardFor(config.http().forwardFor());
        this.originalTo = config.http().originalTo() == null ? null : new ForwardFor(config.http().originalTo());
        this.errors = new ErrorResponses(config.errors());
        this.cookie = config.cookie() == null ? null : new PersistenceCookie(config.cookie());
        String nameHeader = config.options().sendNameHeader();
        this.sendNameHeader = nameHeader == null ? null : AsciiString.cached(nameHeader);
        // a backend whose every server starts unusable (disabled, init-state down, an unresolved name) starts DOWN
        if (servers.length > 0 && usableWeight() == 0) {
            up = false;
            downSince = System.currentTimeMillis();
        }
    }

    /** The persistence cookie ({@code cookie}), or null. */
    /** The field {@code http-send-name-header} puts each request's server name in (lower case), or null. */
    public AsciiString sendNameHeader() {
        return sendNameHeader;
    }

    public PersistenceCookie cookie() {
        return cookie;
    }

    /** The proxy id ({@code iid} in {@code show stat}, {@code #<id>} in admin commands). */
    public int id() {
        return id;
    }

    public void id(int id) {
        this.id = id;
    }

    /**
     * HAProxy's {@code beconn} as the dynamic maxconn reads it ({@code srv_dynamic_maxconn}): the streams assigned to this
     * backend and not ended, whether they hold a slot, wait in a queue, or have no server yet (a request body awaited,
     * the rules running).
     */
    int load() {
        return beconn.get();
    }

    /** HAProxy's {@code fullconn} ({@code slim}): configured, else a tenth of the maxconn of the frontends that can route here. */
    public int fullconn() {
        return fullconn;
    }

    public void fullconn(int n) {
        this.fullconn = Math.max(1, n);
    }

    private volatile ErrorCapture.Event lastError;

    /** The last invalid message captured here ({@code show errors}), or null. */
    public ErrorCapture.Event lastError() {
        return lastError;
    }

    public void lastError(ErrorCapture.Event e) {
        lastError = e;
    }

    public Counters counters() {
        return counters;
    }

    /** Queue, connect, response and total times of the last requests ({@code qtime}..{@code ttime}). */
    public TimeStats timeStats() {
        return timeStats;
    }

    /** The counters right now, with the current number of streams using the backend. */
    public Counters.Snapshot snapshot() {
        return counters.snapshot(activeStreams());
    }

    /**
     * Whether servers may be added and deleted at run time: HAProxy's dynamic algorithms (roundrobin,
     * leastconn, first, random, consistent hashing), not the static maps ({@code static-rr}, map-based hashing).
     */
    public boolean dynamicAlgorithm() {
        return switch (config.balance().algorithm()) {
            case ROUNDROBIN, LEASTCONN, FIRST, RANDOM -> true;
            case STATIC_RR -> false;
            default -> config.balance().hashType().method() == HashType.Method.CONSISTENT;
        };
    }

    /**
     * {@code add server}: a new server after the others, in maintenance (as HAProxy's dynamic servers start),
     * with the lowest free id when the line gives none. Admin path.
     */
    public synchronized Server addServer(dev.sluice.config.model.Server cfg, InetSocketAddress address, Server.Tls tls) {
        int id = cfg.id();
        if (id <= 0) {
            id = 1;
            while (serverById(id) != null) {
                id++;
            }
        }
        Server[] now = servers;
        Server s = new Server(cfg.withId(id), now.length, this, address, loops, tls, true, null);
        s.adminState(Server.FORCED_MAINT);
        Server[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = s;
        servers = next;
        lb = LbAlgorithm.of(config.balance(), next, hashExpr);
        serversChanged();
        return s;
    }

    /** {@code del server}: removes a server the caller checked is in maintenance and unused. Admin path. */
    public synchronized void deleteServer(Server s) {
        Server[] now = servers;
        Server[] next = new Server[now.length - 1];
        int j = 0;
        for (Server o : now) {
            if (o != s) {
                o.index(j);
                next[j++] = o;
            }
        }
        servers = next;
        lb = LbAlgorithm.of(config.balance(), next, hashExpr);
        serversChanged();
    }

    /**
     * A server's weight or state changed: rebuild the schedule, track UP/DOWN, and let the servers that can
     * now serve waiting requests take them. Admin and check paths only.
     */
    public void serversChanged() {
        if (batching) {
            batchChanged = true;
            return;
        }
        serversChangedQuietly();
        reportLoss();
    }

    /** Inside {@link #batch}: changes wait for its end. */
    private boolean batching;
    private boolean batchChanged;

    /**
     * Runs {@code changes} (many servers changed at once, before the backend serves: restored states) with one
     * rebuild of the balancing at the end instead of one per server.
     */
    public void batch(Runnable changes) {
        batching = true;
        try {
            changes.run();
        } finally {
            batching = false;
        }
        if (batchChanged) {
            batchChanged = false;
            serversChanged();
        }
    }

    /** {@link #serversChanged} without reporting the loss of every server yet (the caller reports its transition first). */
    void serversChangedQuietly() {
        rebuild();
        for (Server s : servers) {
            drain(s);
        }
    }

    /** Reports that no server is left, when the last rebuild found so and it was not reported yet. */
    void reportLoss() {
        boolean report;
        synchronized (this) {
            report = lossToReport;
            lossToReport = false;
        }
        if (report) {
            // HAProxy quotes the name on the console only
            events.report(ServerEvents.EMERG, "backend " + name + " has no server available!",
                    "backend '" + name + "' has no server available!");
        }
    }

    private synchronized void rebuild() {
        lb.rebuild();
        boolean nowUp = servers.length == 0 || usableWeight() > 0;
        if (nowUp != up) {
            long now = System.currentTimeMillis();
            up = nowUp;
            lastChange = now;
            if (nowUp) {
                downtime += now - downSince;
                downSince = -1;
            } else {
                downSince = now;
                downTransitions++;
                lossToReport = servers.length > 0;
            }
        }
    }

    /** Where server transitions are reported. */
    public ServerEvents events() {
        return events;
    }

    public void events(ServerEvents e) {
        this.events = e == null ? ServerEvents.NONE : e;
    }

    private volatile ServerStreams streams = ServerStreams.NONE;

    /** What ends its servers' streams on their state changes ({@code on-marked-down}, {@code on-marked-up}). */
    public ServerStreams streams() {
        return streams;
    }

    public void streams(ServerStreams s) {
        this.streams = s == null ? ServerStreams.NONE : s;
    }

    /** UP while a server can take traffic (or when there is no server at all, as HAProxy reports it). */
    public synchronized boolean up() {
        return up;
    }

    /** Epoch milliseconds of the last UP/DOWN change (the start when none). */
    public long lastChange() {
        return lastChange;
    }

    /** Milliseconds spent DOWN so far. */
    public synchronized long downtime() {
        return downtime + (downSince >= 0 ? System.currentTimeMillis() - downSince : 0);
    }

    /** How many times the backend went DOWN ({@code chkdown}). */
    public long downTransitions() {
        return downTransitions;
    }

    /** The sum of the weights of the servers that can take new requests. */
    public int usableWeight() {
        int w = 0;
        for (Server s : servers) {
            if (s.usable()) {
                w += s.weight();
            }
        }
        return w;
    }

    /** How many servers can take new requests. */
    public int usableServers() {
        int n = 0;
        for (Server s : servers) {
            if (s.usable()) {
                n++;
            }
        }
        return n;
    }

    private PageService statsPage;

    /** The stats page this proxy serves ({@code stats enable|uri ...}), or null. */
    public PageService statsPage() {
        return statsPage;
    }

    public void statsPage(PageService page) {
        this.statsPage = page;
    }

    /** The backend's own rules (a listen's are shared with its frontend side). */
    public ProxyRules rules() {
        return rules;
    }

    public void rules(ProxyRules r) {
        this.rules = r;
    }

    private dev.sluice.proxy.rules.FcgiRules fcgiRules;
    private java.util.function.Consumer<String> fcgiStderr = m -> {
    };

    /**
     * The rules of the backend's FastCGI application ({@code use-fcgi-app}), and where what the application writes on
     * STDERR goes ({@code log-stderr}); set once at start-up.
     */
    public void fcgi(dev.sluice.proxy.rules.FcgiRules rules, java.util.function.Consumer<String> stderr) {
        this.fcgiRules = rules;
        this.fcgiStderr = stderr;
    }

    /** The FastCGI application's compiled rules, or null when the backend has no application. */
    public dev.sluice.proxy.rules.FcgiRules fcgiRules() {
        return fcgiRules;
    }

    /** Logs a message the FastCGI application wrote on STDERR (dropped without {@code log-stderr}). */
    public void fcgiStderr(String message) {
        fcgiStderr.accept(message);
    }

    /** The backend's errorfile pages. */
    public ErrorResponses errors() {
        return errors;
    }

    /** The compiled {@code option forwardfor} of this backend, or null. */
    public ForwardFor forwardFor() {
        return forwardFor;
    }

    /** {@code option originalto}, or null. */
    public ForwardFor originalTo() {
        return originalTo;
    }

    public String name() {
        return name;
    }

    public Proxy config() {
        return config;
    }

    public Timeouts timeouts() {
        return config.timeouts();
    }

    public HttpOptions http() {
        return config.http();
    }

    public List<Server> servers() {
        return List.of(servers);
    }

    /** The servers without a copy (the queues' hot path). */
    Server[] serverArray() {
        return servers;
    }

    /** {@code retries}, {@code retry-on}, {@code option redispatch}. */
    public Retries retryPolicy() {
        return config.retries();
    }

    public int retries() {
        return config.retries().count();
    }

    /**
     * Whether a retry after failing on {@code s} goes through the balancing again (HAProxy's
     * stream_choose_redispatch): with {@code option redispatch}, when {@code s} is down, when the retry count
     * {@code done} (this one included) matches the redispatch interval (by default the last retry), or at once
     * when the request was balanced (not {@code direct}) by an algorithm that does not hash (HAProxy 2.6:
     * roundrobin, static-rr, first, leastconn) over more than one usable active server.
     */
    public boolean redispatchOnRetry(Server s, boolean direct, int done) {
        Retries r = config.retries();
        if (!r.redispatches()) {
            return false;
        }
        if (!s.up() || s.warming()) {
            // HAProxy: a server not RUNNING (down, or starting) is left
            return true;
        }
        int every = r.redispatch();
        if (every > 0 ? done % every == 0 : done == retries() + every + 1) {
            return true;
        }
        return !direct && !hashKind() && usableActiveServers() > 1;
    }

    /**
     * Whether a retry after a refused connection waits {@link #retryDelay} first: as measured on HAProxy 2.6, unless
     * it goes through the balancing again (redispatch) with more than one usable active server.
     */
    public boolean waitBeforeRetry(boolean redispatch) {
        return !redispatch || usableActiveServers() <= 1;
    }

    /** HAProxy's turn-around before retrying a refused connection: MIN(1s, timeout connect). */
    public long retryDelay() {
        long ct = config.timeouts().connect();
        return ct != Timeouts.UNSET && ct < 1000 ? ct : 1000;
    }

    /**
     * Whether the algorithm is one {@code option prefer-last-server} applies to: those that do not hash a request key
     * (roundrobin, static-rr, leastconn, first, random), as HAProxy 2.6's assign_server.
     */
    public boolean balancesWithoutHash() {
        return switch (config.balance().algorithm()) {
            case ROUNDROBIN, STATIC_RR, FIRST, LEASTCONN, RANDOM -> true;
            default -> false;
        };
    }

    /** HAProxy's BE_LB_KIND_HI: the hash algorithms and random, whose choice a retry should keep. */
    private boolean hashKind() {
        return switch (config.balance().algorithm()) {
            case ROUNDROBIN, STATIC_RR, FIRST, LEASTCONN -> false;
            default -> true;
        };
    }

    private volatile ScheduledExecutorService scheduler;

    /** Where periodic work of the backend runs (the event loops): slow starts, health checks. Set once at start. */
    public void scheduler(ScheduledExecutorService s) {
        scheduler = s;
    }

    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /**
     * {@code s} began a slow start: the balancing follows its growing weight, rebuilt every MAX(1 s, slowstart / 20)
     * until it is over (HAProxy's server_warmup task). Without a scheduler (tests) the weight is read at each rebuild.
     */
    void warmUp(Server s) {
        ScheduledExecutorService sch = scheduler;
        if (sch == null) {
            return;
        }
        long every = Math.max(1000, s.slowstart() / 20);
        sch.schedule(new Runnable() {
            @Override
            public void run() {
                if (!s.warming()) {
                    return;
                }
                if (s.throttle() < 0 || s.eweight() == s.weight() * 16) {
                    s.endWarmup();
                    serversChanged();
                    return;
                }
                serversChanged();
                sch.schedule(this, every, TimeUnit.MILLISECONDS);
            }
        }, every, TimeUnit.MILLISECONDS);
    }

    /** How many active (not backup) servers can take new requests. */
    public int usableActiveServers() {
        int n = 0;
        for (Server s : servers) {
            if (s.usable() && !s.backup()) {
                n++;
            }
        }
        return n;
    }

    /** How long a request may wait in a queue: {@code timeout queue}, else {@code timeout connect}; 0 for ever. */
    public long queueTimeout() {
        long t = config.timeouts().queue();
        if (t == Timeouts.UNSET) {
            t = config.timeouts().connect();
        }
        return t == Timeouts.UNSET ? 0 : t;
    }

    /** The server with this id, or null. */
    public Server serverById(int id) {
        for (Server s : servers) {
            if (s.id() == id) {
                return s;
            }
        }
        return null;
    }

    /** The server of this name, or of this id when written {@code #<id>}; null when none. */
    public Server server(String nameOrId) {
        for (Server s : servers) {
            if (s.name().equals(nameOrId) || nameOrId.startsWith("#") && nameOrId.substring(1).equals(Integer.toString(s.id()))) {
                return s;
            }
        }
        return null;
    }

    /**
     * The server for a request by the backend's algorithm, with a request slot taken on it (given back
     * by {@link Server#streamEnded}); null when none can take it: no usable server, or the chosen ones
     * at their maxconn (see {@link #hasUsableServer} to tell them apart).
     */
    public Server pickServer(Txn txn) {
        return lb.pick(txn);
    }

    /**
     * {@link #pickServer(Txn)} for a retry moving away from {@code avoid}: another
     * server when the algorithm has one with a free slot, else {@code avoid} again (as HAProxy's srvtoavoid).
     */
    public Server pickServer(Txn txn, Server avoid) {
        return avoid == null ? lb.pick(txn) : lb.pick(txn, avoid);
    }

    /** The server the algorithm binds this request to whatever its load (hash algorithms), or null; no slot taken. */
    public Server bound(Txn txn) {
        return lb.bound(txn);
    }

    /** {@link #pickServer(Txn)} without a request: hash algorithms go round robin. */
    public Server pickServer() {
        return lb.pick(null);
    }

    /** Whether some server is usable (UP, not in maintenance, non-zero weight), active or backup. */
    public boolean hasUsableServer() {
        for (Server s : servers) {
            if (s.usable()) {
                return true;
            }
        }
        return false;
    }

    /** The load-balancing algorithm, for tests and benchmarks. */
    public LbAlgorithm lb() {
        return lb;
    }

    /** A server gave back a request slot. */
    void released(Server s) {
        lb.released(s);
    }

    // ------------------------------------------------------------------ queues

    /** The requests waiting for any server of the balanced group. */
    public WaitQueue queue() {
        return queue;
    }

    /**
     * Whether a balanced request must wait: requests already wait in the backend's queue, so every server
     * was full a moment ago and those go first, in arrival order.
     */
    public boolean queueing() {
        return !queue.isEmpty();
    }

    /**
     * Queues a request on {@code s}'s own queue (a hash or stickiness bound it to {@code s}), or on the
     * backend's when {@code s} is null; then makes sure no slot is left free while it waits (a slot given back
     * between the failed pick and this call is handed to it, or to an older one). Any thread.
     */
    public void enqueue(Server s, QueuedRequest r) {
        if (s != null) {
            s.queue().add(r);
            drain(s, SlotLoad.ARRIVAL);
            return;
        }
        queue.add(r);
        for (Server srv : servers) {
            if (queue.isEmpty()) {
                return;
            }
            drain(srv, SlotLoad.ARRIVAL);
        }
    }

    /**
     * Hands the free slots of {@code s} to the oldest waiting requests it serves: its own queue, and the
     * backend's while it is in the balanced group, whichever head arrived first. Called when a slot is given
     * back, after a request was queued, and when a server's state changes; returns how many got a slot. A
     * slot taken here for a request that left meanwhile (cancelled) is given back and the queues looked at
     * again, so a request and a free slot never both wait.
     */
    int drain(Server s) {
        return drain(s, SlotLoad.QUEUES);
    }

    /** {@link #drain(Server)}, the dynamic maxconn ({@code minconn}) computed for the given moment ({@link SlotLoad}). */
    int drain(Server s, SlotLoad load) {
        return QueueDrain.drain(this, s, load);
    }

    /**
     * {@code s} went down or into maintenance: with {@code option redispatch} (and without {@code option persist}), the
     * requests waiting in its own queue are assigned again by the balancing (HAProxy's pendconn_redistribute; one that a
     * force-persist rule sent there goes back to its queue). Returns how many.
     */
    int redistribute(Server s) {
        // option persist keeps them there, as HAProxy
        if (!config.retries().redispatches() || config.options().persist().downServers()) {
            return 0;
        }
        int n = 0;
        QueuedRequest r;
        while ((r = s.queue().takeForRequeue()) != null) {
            r.requeued();
            n++;
        }
        return n;
    }

    /**
     * HAProxy's {@code beconn}: the streams assigned to this backend (stream_set_backend) and not ended yet, whether
     * they hold a server slot, wait in a queue or have no server yet; a stream leaves it just before its log line.
     */
    public int activeStreams() {
        return beconn.get();
    }

    /** A stream was assigned to this backend: beconn and its maximum (smax). */
    public void streamAssigned() {
        counters.noteCurrent(beconn.incrementAndGet());
    }

    /** A stream assigned to this backend ends (before its log line). */
    public void streamReleased() {
        beconn.decrementAndGet();
    }

    /** The streams holding a slot on one of its servers (HAProxy's {@code served}), for tests. */
    public int served() {
        return served.get();
    }

    public ServerConnector connector() {
        return connector;
    }
}
