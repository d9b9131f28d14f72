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
    private final Server[] servers;
    private final LbAlgorithm lb;
    private final ServerConnector connector;
    private final ForwardFor forwardFor;
    private final dev.sluice.proxy.http.ErrorResponses errors;
    private dev.sluice.proxy.rules.ProxyRules rules = dev.sluice.proxy.rules.ProxyRules.NONE;
    /** Streams currently using a server of this backend (the log's %bc). */
    final java.util.concurrent.atomic.LongAdder active = new java.util.concurrent.atomic.LongAdder();

    /** A server line whose address is resolved; resolution happens before the runtime is built. */
    public record ResolvedServer(dev.sluice.config.model.Server config, InetSocketAddress address) {

        /** A plain server (no other option), for tests. */
        public ResolvedServer(String name, InetSocketAddress address, int weight, boolean h2) {
            this(new dev.sluice.config.model.Server(null, name, address.getHostString(), address.getPort(), weight, null, h2 ? "h2" : null),
                    address);
        }

        public String name() {
            return config.name();
        }
    }

    public Backend(Proxy config, List<ResolvedServer> resolved, int loops, ServerConnector connector) {
        this.name = config.name();
        this.config = config;
        this.connector = connector;
        this.servers = new Server[resolved.size()];
        for (int i = 0; i < servers.length; i++) {
            ResolvedServer r = resolved.get(i);
            servers[i] = new Server(r.config(), i, this, r.address(), loops);
        }
        dev.sluice.proxy.rules.SampleExpr hashExpr = config.balance().algorithm() == dev.sluice.config.model.Balance.Algorithm.HASH
                ? dev.sluice.proxy.rules.RuleCompiler.sample(config.balance().argument()) : null;
        this.lb = LbAlgorithm.of(config.balance(), servers, hashExpr);
        this.forwardFor = config.http().forwardFor() == null ? null : new ForwardFor(config.http().forwardFor());
        this.errors = new dev.sluice.proxy.http.ErrorResponses(config.errors());
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

    /** A server's state changed: the algorithm recomputes what depends on it. */
    void serverChanged() {
        lb.rebuild();
    }

    /** A server gave back a request slot. */
    void released(Server s) {
        lb.released(s);
    }

    public int activeStreams() {
        return (int) active.sum();
    }

    public ServerConnector connector() {
        return connector;
    }
}
