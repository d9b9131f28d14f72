package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.h1.H1ClientConnection;
import dev.sluice.proxy.h1.H1Limits;
import dev.sluice.proxy.h1.H1ServerConnection;
import dev.sluice.proxy.h2.H2ClientConnection;
import dev.sluice.proxy.h2.H2ServerConnection;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.Listener;
import dev.sluice.proxy.rules.ProxyRules;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The running proxy built from one configuration model: event loops, backends, frontends and their
 * listeners. {@link #check} finds what the model cannot run with (unresolvable servers, features the
 * runtime lacks) without starting anything, which is what {@code -c} reports. Started once, stopped once.
 */
public final class ProxyRuntime {
    private final Config config;
    private final Transport transport;
    private final MultiThreadIoEventLoopGroup group;
    private final Workers workers;
    private final Map<String, Backend> backends = new LinkedHashMap<>();
    private final Map<String, Frontend> frontends = new LinkedHashMap<>();
    private final List<Listener> listeners = new ArrayList<>();
    private final ConnectionLimit globalLimit;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private dev.sluice.proxy.log.LogWriter logWriter;

    private ProxyRuntime(Config config, Map<String, List<Backend.ResolvedServer>> resolved) {
        this.config = config;
        this.transport = Transport.select();
        int threads = config.global().nbthread() > 0 ? config.global().nbthread() : Runtime.getRuntime().availableProcessors();
        this.group = transport.newGroup(threads, new DefaultThreadFactory("sluice-loop", false));
        this.workers = new Workers(group);
        this.globalLimit = new ConnectionLimit("global", globalMaxconn(config), null);
        H1Limits limits = H1Limits.DEFAULT;
        ServerConnector connector = new ServerConnector(transport,
                (srv, loop) -> srv.multiplexed() ? H2ServerConnection.create(srv, loop) : new H1ServerConnection(srv, loop, limits));
        for (Proxy p : config.backends()) {
            Backend be = new Backend(p, resolved.get(p.name()), workers.count(), connector);
            if (p.kind() == dev.sluice.config.model.ProxyKind.BACKEND) {
                be.rules(ProxyRules.compile(p, new ArrayList<>()));
            }
            backends.put(p.name(), be);
        }
        for (Proxy p : config.frontends()) {
            ProxyRules rules = ProxyRules.compile(p, new ArrayList<>());
            // a listen section is its own default backend
            Backend dflt = p.defaultBackend() != null ? backends.get(p.defaultBackend())
                    : p.kind() == dev.sluice.config.model.ProxyKind.LISTEN ? backends.get(p.name()) : null;
            int max = p.maxconn() > 0 ? p.maxconn() : globalLimit.max();
            ConnectionLimit limit = new ConnectionLimit(p.name(), max, globalLimit);
            dev.sluice.proxy.log.AccessLog log = null;
            if (!p.logging().targets().isEmpty()) {
                if (logWriter == null) {
                    logWriter = new dev.sluice.proxy.log.LogWriter();
                }
                log = new dev.sluice.proxy.log.AccessLog(p.logging(), logWriter);
            }
            Frontend fe = new Frontend(p, workers, rules, backends, dflt, limit, limits, log);
            frontends.put(p.name(), fe);
            for (Bind b : p.binds()) {
                boolean h2 = "h2".equals(b.proto());
                listeners.add(new Listener(b, p.name(), limit,
                        admitted -> h2 ? H2ClientConnection.create(fe, admitted) : new H1ClientConnection(fe, admitted)));
            }
        }
    }

    /** HAProxy derives the default maxconn from the file-descriptor limit; so does Sluice. */
    static int globalMaxconn(Config config) {
        if (config.global().maxconn() > 0) {
            return config.global().maxconn();
        }
        long fds = 4096;
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            fds = u.getMaxFileDescriptorCount();
        }
        long max = (fds - 100) / 2;
        return (int) Math.max(100, Math.min(max, 1_000_000));
    }

    /**
     * What prevents this model from running, as messages; empty when it can run. Resolves server host
     * names (at start-up only, never on an event loop).
     */
    public static List<String> check(Config config, Map<String, List<Backend.ResolvedServer>> resolvedOut) {
        List<String> problems = new ArrayList<>();
        for (Proxy p : config.proxies()) {
            ProxyRules.compile(p, problems);
            for (var e : p.errors().pages().entrySet()) {
                if (e.getValue().length > 0) {
                    try {
                        dev.sluice.proxy.h1.ErrorPageParser.parse(e.getValue());
                    } catch (IllegalArgumentException ex) {
                        problems.add(p.where() + ": error: " + p.kind().keyword() + " '" + p.name() + "' : errorfile for status " + e.getKey()
                                + " is not a valid HTTP response (" + ex.getMessage() + ").");
                    }
                }
            }
            if (p.kind().hasBackend()) {
                checkBalance(p, problems);
                List<Backend.ResolvedServer> list = new ArrayList<>();
                for (Server s : p.servers()) {
                    InetAddress a = dev.sluice.config.Addresses.literal(s.host());
                    if (a == null) {
                        try {
                            a = InetAddress.getByName(s.host());
                        } catch (UnknownHostException e) {
                            problems.add(s.where() + ": error: 'server " + p.name() + "/" + s.name() + "' : could not resolve address '"
                                    + s.host() + "'.");
                            continue;
                        }
                    }
                    list.add(new Backend.ResolvedServer(s, new InetSocketAddress(a, s.port())));
                }
                resolvedOut.put(p.name(), list);
            }
        }
        return problems;
    }

    /** The sample expression of {@code balance hash} must compile and be known on the request. */
    private static void checkBalance(Proxy p, List<String> problems) {
        dev.sluice.config.model.Balance b = p.balance();
        if (b.algorithm() != dev.sluice.config.model.Balance.Algorithm.HASH) {
            return;
        }
        String what = b.where() + ": error: " + p.kind().keyword() + " '" + p.name() + "' : failed to parse 'balance hash' expression '"
                + b.argument() + "' : ";
        try {
            dev.sluice.proxy.rules.RuleCompiler.sample(b.argument());
            if (dev.sluice.proxy.rules.RuleCompiler.needsResponse(b.argument())) {
                problems.add(what + "it fetches from the response, which is not known when the server is chosen.");
            }
        } catch (IllegalArgumentException e) {
            problems.add(what + e.getMessage() + ".");
        }
    }

    public static ProxyRuntime build(Config config, Map<String, List<Backend.ResolvedServer>> resolved) {
        return new ProxyRuntime(config, resolved);
    }

    public Transport transport() {
        return transport;
    }

    public List<Listener> listeners() {
        return listeners;
    }

    public Map<String, Frontend> frontends() {
        return frontends;
    }

    public Map<String, Backend> backends() {
        return backends;
    }

    /** Binds every listener; on failure stops what was started and throws with the reason. */
    public void start() {
        int backlog = Math.min(globalLimit.max(), 65535);
        try {
            for (Listener l : listeners) {
                l.start(transport, group, backlog);
            }
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    /** Stops listening and lets running exchanges finish, then stops; the process exits when it is done. */
    public void softStop() {
        for (Listener l : listeners) {
            l.stop();
        }
        // connections in progress are not tracked individually yet: give them a grace period, then stop
        group.schedule(this::stop, 0, TimeUnit.MILLISECONDS);
    }

    /** Closes everything at once. */
    public void stop() {
        for (Listener l : listeners) {
            l.stop();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(f -> {
            if (logWriter != null) {
                logWriter.close();
            }
            stopped.countDown();
        });
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }
}
