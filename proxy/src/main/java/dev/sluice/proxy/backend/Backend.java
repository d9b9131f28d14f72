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
    private final RoundRobin lb;
    private final ServerConnector connector;
    private final ForwardFor forwardFor;
    private final dev.sluice.proxy.http.ErrorResponses errors;
    private dev.sluice.proxy.rules.ProxyRules rules = dev.sluice.proxy.rules.ProxyRules.NONE;
    /** Streams currently using a server of this backend (the log's %bc). */
    final java.util.concurrent.atomic.LongAdder active = new java.util.concurrent.atomic.LongAdder();

    /**
     * A server whose address is resolved; resolution happens before the runtime is built. {@code h2} is
     * {@code proto h2}; {@code tls} is how its connections are secured (null: clear text).
     */
    public record ResolvedServer(String name, InetSocketAddress address, int weight, boolean h2, Server.Tls tls) {
        public ResolvedServer(String name, InetSocketAddress address, int weight, boolean h2) {
            this(name, address, weight, h2, null);
        }
    }

    public Backend(Proxy config, List<ResolvedServer> resolved, int loops, ServerConnector connector) {
        this.name = config.name();
        this.config = config;
        this.connector = connector;
        this.servers = new Server[resolved.size()];
        for (int i = 0; i < servers.length; i++) {
            ResolvedServer r = resolved.get(i);
            servers[i] = new Server(r.name(), i + 1, this, r.address(), r.weight(), loops, r.h2(), r.tls());
        }
        this.lb = new RoundRobin(servers);
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

    /** The next server for a request, or null when none can take it. */
    public Server pickServer() {
        return lb.pick();
    }

    public int activeStreams() {
        return (int) active.sum();
    }

    public ServerConnector connector() {
        return connector;
    }
}
