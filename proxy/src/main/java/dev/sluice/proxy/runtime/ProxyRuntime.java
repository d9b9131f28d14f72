package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.h1.H1ClientConnection;
import dev.sluice.proxy.h1.H1Limits;
import dev.sluice.proxy.h1.H1ServerConnection;
import dev.sluice.proxy.h2.H2ClientConnection;
import dev.sluice.proxy.h2.H2ServerConnection;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.Listener;
import dev.sluice.proxy.rules.Fetch;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.rules.RuleCompiler;
import dev.sluice.proxy.tls.ClientTlsContext;
import dev.sluice.proxy.tls.ServerTlsContext;
import dev.sluice.proxy.tls.TlsConfigException;
import dev.sluice.proxy.tls.TlsContexts;
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
    private final StickTables stickTables;
    private final TlsContexts tls;

    private ProxyRuntime(Config config, Prepared prepared) {
        this.config = config;
        this.tls = prepared.tls();
        Map<String, List<Backend.ResolvedServer>> resolved = prepared.resolved();
        this.transport = Transport.select();
        int threads = config.global().nbthread() > 0 ? config.global().nbthread() : Runtime.getRuntime().availableProcessors();
        this.group = transport.newGroup(threads, new DefaultThreadFactory("sluice-loop", false));
        this.workers = new Workers(group);
        this.globalLimit = new ConnectionLimit("global", globalMaxconn(config), null);
        dev.sluice.config.model.Tune tune = config.global().tune();
        H1Limits limits = new H1Limits(tune.maxHeadBytes(), tune.maxhdr());
        this.stickTables = StickTables.of(config, new ArrayList<>());
        for (dev.sluice.sticktable.StickTable t : stickTables.all()) {
            // expired untracked entries go away within a second, as HAProxy's purge task does
            group.scheduleAtFixedRate(t::purgeExpired, 1, 1, java.util.concurrent.TimeUnit.SECONDS);
        }
        ServerConnector connector = new ServerConnector(transport,
                (srv, loop, h2, sni) -> h2 ? H2ServerConnection.create(srv, loop, sni) : new H1ServerConnection(srv, loop, limits, sni));
        for (Proxy p : config.backends()) {
            Backend be = new Backend(p, resolved.get(p.name()), workers.count(), connector);
            if (p.kind() == dev.sluice.config.model.ProxyKind.BACKEND) {
                be.rules(ProxyRules.compile(p, new ArrayList<>(), stickTables));
            }
            backends.put(p.name(), be);
        }
        dev.sluice.proxy.auth.Userlists userlists = dev.sluice.proxy.auth.Userlists.compile(config.userlists());
        for (Proxy p : config.frontends()) {
            ProxyRules rules = ProxyRules.compile(p, new ArrayList<>(), stickTables);
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
            Frontend fe = new Frontend(p, workers, rules, backends, dflt, limit, limits.withAcceptInvalid(p.http().acceptInvalidRequest()), log);
            fe.userlists(userlists);
            frontends.put(p.name(), fe);
            ConnectionRules connectionRules = rules.connection().isEmpty() ? null : new ConnectionRules(rules.connection(), p.name());
            int listenersBefore = listeners.size();
            int bindIndex = 0;
            for (Bind b : p.binds()) {
                bindIndex++;
                boolean h2 = "h2".equals(b.proto());
                if (b.tls() != null) {
                    ServerTlsContext ctx = tls.forBind(p.name(), b);
                    String bindName = Integer.toString(bindIndex);
                    long handshakeTimeout = handshakeTimeout(p.timeouts());
                    listeners.add(new Listener(b, p.name(), limit,
                            admitted -> new TlsClientSetup(fe, ctx, bindName, h2, handshakeTimeout, admitted)));
                } else {
                    listeners.add(new Listener(b, p.name(), limit,
                            admitted -> h2 ? H2ClientConnection.create(fe, admitted) : new H1ClientConnection(fe, admitted)));
                }
            }
            for (int i = listenersBefore; i < listeners.size(); i++) {
                listeners.get(i).acceptFilter(connectionRules);
            }
        }
    }

    /**
     * How long a client has to complete its TLS handshake: {@code timeout client} (what HAProxy's
     * {@code timeout client-hs} falls back to), else {@code timeout http-request}, else 10 s.
     */
    static long handshakeTimeout(Timeouts t) {
        if (t.client() != Timeouts.UNSET && t.client() > 0) {
            return t.client();
        }
        if (t.httpRequest() != Timeouts.UNSET && t.httpRequest() > 0) {
            return t.httpRequest();
        }
        return ServerTlsContext.DEFAULT_HANDSHAKE_TIMEOUT_MS;
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
     * What {@link #check} found and built: resolved servers, TLS contexts (null when nothing uses TLS),
     * the problems that prevent running ({@code file:line: error: ...}) and the warnings to print.
     */
    public record Prepared(Map<String, List<Backend.ResolvedServer>> resolved, TlsContexts tls, List<String> problems,
            List<String> warnings) {
    }

    /**
     * What prevents this model from running, as messages (empty when it can run), with what running it
     * needs. Resolves server host names and loads certificates and keys (at start-up only, never on an
     * event loop): {@code -c} reports an unreadable or invalid certificate like any other error.
     */
    public static Prepared check(Config config) {
        List<String> problems = new ArrayList<>();
        dev.sluice.config.model.Tune tune = config.global().tune();
        if (tune.maxHeadBytes() < 1024) {
            problems.add("global: error: tune.maxrewrite (" + tune.maxrewrite() + ") must leave at least 1024 bytes of tune.bufsize ("
                    + tune.bufsize() + ").");
        }
        StickTables tables = StickTables.of(config, problems);
        Map<String, List<Backend.ResolvedServer>> resolvedOut = new LinkedHashMap<>();
        TlsContexts tls = usesTls(config) ? new TlsContexts(config.global()) : null;
        if (tls != null) {
            problems.addAll(tls.prepare(config));
        }
        for (Proxy p : config.proxies()) {
            ProxyRules.compile(p, problems, tables);
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
                    dev.sluice.proxy.backend.Server.Tls st = null;
                    if (s.tls() != null) {
                        st = serverTls(tls, p, s, problems);
                        if (st == null) {
                            continue;
                        }
                    }
                    list.add(new Backend.ResolvedServer(s.name(), new InetSocketAddress(a, s.port()), s.weight(), "h2".equals(s.proto()), st));
                }
                resolvedOut.put(p.name(), list);
            }
        }
        // rule compilation reports warnings (never-matching ACLs) among the problems: sort them out
        List<String> warnings = new ArrayList<>(tls == null ? List.of() : tls.warnings());
        problems.removeIf(m -> m.contains(": warning: ") && warnings.add(m));
        return new Prepared(resolvedOut, tls, problems, warnings);
    }

    private static boolean usesTls(Config config) {
        for (Proxy p : config.proxies()) {
            for (Bind b : p.binds()) {
                if (b.tls() != null) {
                    return true;
                }
            }
            for (Server s : p.servers()) {
                if (s.tls() != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The TLS side of a {@code server ... ssl}: its context and compiled {@code sni}; null after a problem (reported). */
    private static dev.sluice.proxy.backend.Server.Tls serverTls(TlsContexts tls, Proxy p, Server s, List<String> problems) {
        ClientTlsContext ctx;
        try {
            ctx = tls.forServer(p.name(), s);
        } catch (TlsConfigException e) {
            // already reported by TlsContexts.prepare
            return null;
        }
        Fetch sni = null;
        String expr = s.tls().sni();
        if (expr != null) {
            String subject = s.where() + ": error: 'server " + p.name() + "/" + s.name() + "' : ";
            try {
                RuleCompiler.checkPhase(expr, RuleCompiler.Phase.REQUEST);
                sni = RuleCompiler.sample(expr);
            } catch (IllegalArgumentException e) {
                problems.add(subject + "error detected while parsing sni expression '" + expr + "' : " + e.getMessage() + ".");
                return null;
            }
        }
        String hostName = dev.sluice.config.Addresses.literal(s.host()) == null ? s.host() : null;
        return new dev.sluice.proxy.backend.Server.Tls(ctx, sni, hostName);
    }

    public static ProxyRuntime build(Config config, Prepared prepared) {
        return new ProxyRuntime(config, prepared);
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
            if (tls != null) {
                tls.close();
            }
            stopped.countDown();
        });
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }
}
