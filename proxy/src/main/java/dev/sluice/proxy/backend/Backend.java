package dev.sluice.proxy.backend;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.rules.ForwardFor;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A backend at run time: its servers, how it picks one, its timeouts and how it reaches servers.
 * Immutable apart from the servers' own run-time state.
 */
public final class Backend {
    /** HAProxy's default {@code retries}. */
    public static final int DEFAULT_RETRIES = 3;

    private final String name;
    private final Proxy config;
    /** Replaced whole (copy on write) when {@code add server} or {@code del server} changes the list. */
    private volatile Server[] servers;
    private volatile LbAlgorithm lb;
    private final int loops;
    private final dev.sluice.proxy.rules.SampleExpr hashExpr;
    private final ServerConnector connector;
    private final ForwardFor forwardFor;
    private final dev.sluice.proxy.http.ErrorResponses errors;
    private dev.sluice.proxy.rules.ProxyRules rules = dev.sluice.proxy.rules.ProxyRules.NONE;
    /** Streams currently using a server of this backend (the log's %bc, scur): one atomic, see {@link Server}. */
    final java.util.concurrent.atomic.AtomicInteger active = new java.util.concurrent.atomic.AtomicInteger();
    private final dev.sluice.proxy.stats.Counters counters = new dev.sluice.proxy.stats.Counters();
    private final dev.sluice.proxy.stats.TimeStats timeStats;
    private int id;
    private int fullconn = 1;
    /** UP/DOWN history, changed under this backend's lock by {@link #serversChanged}. */
    private boolean up = true;
    private volatile long lastChange = System.currentTimeMillis();
    private long downSince = -1;
    private long downtime;
    private volatile long downTransitions;

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
        this.name = config.name();
        this.config = config;
        this.connector = connector;
        this.timeStats = new dev.sluice.proxy.stats.TimeStats(loops);
        this.servers = new Server[resolved.size()];
        for (int i = 0; i < servers.length; i++) {
            ResolvedServer r = resolved.get(i);
            servers[i] = new Server(r.config(), i, this, r.address(), loops, r.tls());
        }
        this.loops = loops;
        this.hashExpr = config.balance().algorithm() == dev.sluice.config.model.Balance.Algorithm.HASH
                ? dev.sluice.proxy.rules.RuleCompiler.sample(config.balance().argument()) : null;
        this.lb = LbAlgorithm.of(config.balance(), servers, hashExpr);
        this.forwardFor = config.http().forwardFor() == null ? null : new ForwardFor(config.http().forwardFor());
        this.errors = new dev.sluice.proxy.http.ErrorResponses(config.errors());
    }

    /** The proxy id ({@code iid} in {@code show stat}, {@code #<id>} in admin commands). */
    public int id() {
        return id;
    }

    public void id(int id) {
        this.id = id;
    }

    /** HAProxy's {@code fullconn}: a tenth of the maxconn of the frontends that can route here ({@code slim}). */
    public int fullconn() {
        return fullconn;
    }

    public void fullconn(int n) {
        this.fullconn = Math.max(1, n);
    }

    private volatile dev.sluice.proxy.stats.ErrorCapture.Event lastError;

    /** The last invalid message captured here ({@code show errors}), or null. */
    public dev.sluice.proxy.stats.ErrorCapture.Event lastError() {
        return lastError;
    }

    public void lastError(dev.sluice.proxy.stats.ErrorCapture.Event e) {
        lastError = e;
    }

    public dev.sluice.proxy.stats.Counters counters() {
        return counters;
    }

    /** Queue, connect, response and total times of the last requests ({@code qtime}..{@code ttime}). */
    public dev.sluice.proxy.stats.TimeStats timeStats() {
        return timeStats;
    }

    /** The counters right now, with the current number of streams using the backend. */
    public dev.sluice.proxy.stats.Counters.Snapshot snapshot() {
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
            default -> config.balance().hashType().method() == dev.sluice.config.model.HashType.Method.CONSISTENT;
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
        Server s = new Server(cfg.withId(id), now.length, this, address, loops, tls, true);
        s.adminState(Server.FORCED_MAINT);
        Server[] next = java.util.Arrays.copyOf(now, now.length + 1);
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

    /** A server's weight or state changed: rebuild the schedule and track UP/DOWN. Admin path only. */
    public synchronized void serversChanged() {
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
            }
        }
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

    private dev.sluice.proxy.rules.PageService statsPage;

    /** The stats page this proxy serves ({@code stats enable|uri ...}), or null. */
    public dev.sluice.proxy.rules.PageService statsPage() {
        return statsPage;
    }

    public void statsPage(dev.sluice.proxy.rules.PageService page) {
        this.statsPage = page;
    }

    /** The backend's own rules (a listen's are shared with its frontend side). */
    public dev.sluice.proxy.rules.ProxyRules rules() {
        return rules;
    }

    public void rules(dev.sluice.proxy.rules.ProxyRules r) {
        this.rules = r;
    }

    /** The backend's errorfile pages. */
    public dev.sluice.proxy.http.ErrorResponses errors() {
        return errors;
    }

    /** The compiled {@code option forwardfor} of this backend, or null. */
    public ForwardFor forwardFor() {
        return forwardFor;
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

    public int retries() {
        return DEFAULT_RETRIES;
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
    public Server pickServer(dev.sluice.proxy.rules.Txn txn) {
        return lb.pick(txn);
    }

    /** {@link #pickServer(dev.sluice.proxy.rules.Txn)} without a request: hash algorithms go round robin. */
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

    public int activeStreams() {
        return active.get();
    }

    public ServerConnector connector() {
        return connector;
    }
}
