package dev.sluice.proxy.runtime;

import dev.sluice.proxy.transport.Workers;
import dev.sluice.proxy.transport.Transport;
import dev.sluice.proxy.stream.ConnectionRules;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.LiveStreams;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.admin.AdminSockets;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.check.HealthCheck;
import dev.sluice.proxy.backend.ServerCommands;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.InfoField;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.h1.H1ClientConnection;
import dev.sluice.proxy.http.h1.H1Limits;
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
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The running proxy built from one configuration model: event loops, backends, frontends and their
 * listeners, the admin sockets and the registry of their commands. {@link #check} finds what the model
 * cannot run with (unresolvable servers, features the runtime lacks) without starting anything, which is
 * what {@code -c} reports. Started once, stopped once. Once a second one event loop samples the counters
 * into rates and maxima.
 */
public final class ProxyRuntime {
    private final Config config;
    private final Transport transport;
    private final MultiThreadIoEventLoopGroup group;
    private final Workers workers;
    private final LiveStreams streams;
    private final Map<String, Backend> backends = new LinkedHashMap<>();
    private final Map<String, Frontend> frontends = new LinkedHashMap<>();
    private final List<Listener> listeners = new ArrayList<>();
    private final ConnectionLimit globalLimit;
    private final int globalMaxconn;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private dev.sluice.proxy.log.LogWriter logWriter;
    private final StickTables stickTables;
    private final dev.sluice.proxy.memory.ProxyPools pools;
    private final TlsContexts tls;
    private final QuicBinds quic;
    /** Proxy ids by name, as HAProxy 2.6 numbers them: in declaration order from 2 (1 is its internal HTTP client). */
    private final Map<String, Integer> proxyIds = new LinkedHashMap<>();
    private final CliRegistry registry = new CliRegistry();
    private final dev.sluice.proxy.metrics.PrometheusExporter metrics;
    private final AdminSockets admin;
    private final long startMillis = System.currentTimeMillis();
    private final String node;
    private volatile boolean stopping;
    private final java.util.concurrent.atomic.AtomicBoolean hardStopped = new java.util.concurrent.atomic.AtomicBoolean();
    /** Every accepted client connection until it closes, for a graceful stop. */
    private final io.netty.channel.group.ChannelGroup clients = new io.netty.channel.group.DefaultChannelGroup("clients",
            io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);
    private java.util.concurrent.ScheduledFuture<?> sampler;
    /** The servers' health checks, started with the listeners. */
    private final List<HealthCheck> checks = new ArrayList<>();
    /** Process-wide rates, updated by the sampler. */
    private long previousConnections;
    private long previousBytesOut;
    private volatile long connRate;
    private volatile long maxConnRate;
    private volatile long bytesOutRate;

    private ProxyRuntime(Config config, Prepared prepared, dev.sluice.proxy.memory.ProxyPools pools) {
        this.config = config;
        this.node = config.global().node() != null ? config.global().node() : hostname();
        this.pools = pools;
        this.tls = prepared.tls();
        Map<String, List<Backend.ResolvedServer>> resolved = prepared.resolved();
        this.transport = Transport.select();
        int threads = config.global().nbthread() > 0 ? config.global().nbthread() : Runtime.getRuntime().availableProcessors();
        this.group = transport.newGroup(threads, new DefaultThreadFactory("sluice-loop", false));
        this.workers = new Workers(group);
        this.streams = new LiveStreams(workers.count());
        this.globalMaxconn = globalMaxconn(config);
        this.globalLimit = new ConnectionLimit("global", globalMaxconn, null);
        dev.sluice.config.model.Tune tune = config.global().tune();
        H1Limits limits = new H1Limits(tune.maxHeadBytes(), tune.maxhdr());
        this.stickTables = StickTables.of(config, new ArrayList<>(), pools::tableMemory);
        this.quic = new QuicBinds(config.global().quic(), pools.registry(), !config.global().process().noReusePort());
        for (dev.sluice.sticktable.StickTable t : stickTables.all()) {
            // expired untracked entries go away within a second, as HAProxy's purge task does
            group.scheduleAtFixedRate(t::purgeExpired, 1, 1, java.util.concurrent.TimeUnit.SECONDS);
        }
        ServerConnector connector = new ServerConnector(transport,
                (srv, loop, h2, sni) -> h2 ? H2ServerConnection.create(srv, loop, sni) : new H1ServerConnection(srv, loop, limits, sni));
        for (Proxy p : config.proxies()) {
            proxyIds.put(p.name(), proxyIds.size() + 2);
        }
        for (Proxy p : config.backends()) {
            Backend be = new Backend(p, resolved.get(p.name()), workers.count(), connector);
            be.scheduler(group);
            be.id(proxyIds.get(p.name()));
            if (p.kind() == dev.sluice.config.model.ProxyKind.BACKEND) {
                be.rules(ProxyRules.compile(p, new ArrayList<>(), stickTables));
            } else if (!p.stickRules().isEmpty()) {
                // a listen's request rules run on its frontend side; its backend side keeps the stick rules
                be.rules(ProxyRules.compile(p, new ArrayList<>(), stickTables).stickOnly());
            }
            backends.put(p.name(), be);
        }
        dev.sluice.proxy.auth.Userlists userlists = dev.sluice.proxy.auth.Userlists.compile(config.userlists());
        this.metrics = new dev.sluice.proxy.metrics.PrometheusExporter(config.global().tune().prometheusMaxSeries());
        this.metrics.register(new ProxyMetrics(this));
        pools.register(metrics);
        dev.sluice.proxy.rules.Service prometheusService = this::scrape;
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
            Frontend fe = new Frontend(p, proxyIds.get(p.name()), workers, streams, rules, backends, dflt, limit,
                    limits.withAcceptInvalid(p.http().acceptInvalidRequest()), log);
            fe.altSvc(altSvc(p));
            fe.userlists(userlists);
            fe.streamBudget(pools.streams());
            fe.services(java.util.Map.of("prometheus-exporter", prometheusService));
            frontends.put(p.name(), fe);
            ConnectionRules connectionRules = rules.connection().isEmpty() ? null : new ConnectionRules(rules.connection(), p.name());
            boolean expectsProxy = p.tcpRules().connection().stream()
                    .anyMatch(r -> r instanceof dev.sluice.config.model.HttpRule.Action a && a.name().equals("expect-proxy"));
            int listenersBefore = listeners.size();
            int bindIndex = 0;
            for (Bind b : p.binds()) {
                bindIndex++;
                if (b.isQuic()) {
                    quic.add(fe, b, tls.forQuicBind(p.name(), b), connectionRules);
                    continue;
                }
                boolean h2 = "h2".equals(b.proto());
                String bindName = b.socket().name() != null ? b.socket().name() : Integer.toString(bindIndex);
                long handshakeTimeout = handshakeTimeout(p.timeouts());
                java.util.function.Function<Boolean, io.netty.channel.ChannelHandler> first;
                if (b.tls() != null) {
                    ServerTlsContext ctx = tls.forBind(p.name(), b);
                    first = admitted -> new TlsClientSetup(fe, ctx, bindName, h2, handshakeTimeout, admitted);
                } else {
                    first = admitted -> h2 ? H2ClientConnection.create(fe, admitted) : new H1ClientConnection(fe, admitted);
                }
                java.util.function.Function<Boolean, io.netty.channel.ChannelHandler> after = first;
                if (b.acceptProxy()) {
                    // the PROXY header comes before anything else, TLS included
                    first = admitted -> new ProxyHeaderReader(fe, bindName, handshakeTimeout, admitted, after);
                } else if (expectsProxy) {
                    // tcp-request connection expect-proxy layer4: the rules decided, per connection
                    first = admitted -> ProxyHeaderReader.ifExpected(fe, bindName, handshakeTimeout, admitted, after);
                }
                listeners.add(new Listener(b, p.name(), limit, first));
            }
            for (int i = listenersBefore; i < listeners.size(); i++) {
                listeners.get(i).acceptFilter(connectionRules).sessions(pools.sessions()).tcpKeepAlive(p.http().clientTcpKeepAlive())
                        .clients(clients).reusePort(!config.global().process().noReusePort());
            }
        }
        fullconn(config);
        statsPages(config);
        healthChecks(config);
        ProxyCommands.register(registry, this);
        quic.register(registry);
        metrics.register(quic::collect);
        ServerCommands.register(registry, backends.values(), workers);
        StreamCommands.register(registry, workers, streams, backends.values());
        dev.sluice.proxy.rules.TableCommands.register(registry, stickTables);
        pools.register(registry, this::onEachLoop);
        this.admin = new AdminSockets(config.global().statsSockets(), config.global().statsTimeoutMs(), registry);
    }

    /**
     * Gives every server with {@code check} its {@link HealthCheck}, spread over the event loops, and every backend
     * its {@link ServerEventLog}; the checks start with {@link #start}.
     */
    private void healthChecks(Config config) {
        int spread = config.global().tune().spreadChecks();
        int n = 0;
        for (Backend be : backends.values()) {
            dev.sluice.proxy.check.CheckPlan plan = null;
            for (dev.sluice.proxy.backend.Server s : be.servers()) {
                if (!s.config().check().enabled()) {
                    continue;
                }
                if (plan == null) {
                    plan = new dev.sluice.proxy.check.CheckPlan(be, node, config.global().tune().bufsize());
                }
                HealthCheck c = new HealthCheck(s, plan, workers.loop(n % workers.count()), transport, spread);
                s.check(c);
                checks.add(c);
                n++;
            }
        }
        if (logWriter == null && !backends.isEmpty()) {
            // server transitions go to the console even without log targets, as HAProxy's warnings
            logWriter = new dev.sluice.proxy.log.LogWriter();
        }
        for (Backend be : backends.values()) {
            if (logWriter != null) {
                be.events(new ServerEventLog(logWriter, be.config().logging().targets(), be.config().logging().tag(), true));
            }
        }
    }

    /** Turns the console messages (server transitions, warnings) off: {@code -q}. Before {@link #start}. */
    public void quiet() {
        for (Backend be : backends.values()) {
            if (logWriter != null) {
                be.events(new ServerEventLog(logWriter, be.config().logging().targets(), be.config().logging().tag(), false));
            }
        }
    }

    /** The stats pages: a frontend's or listen's is checked after its rules, a backend's after the backend's. */
    private void statsPages(Config config) {
        for (Proxy p : config.proxies()) {
            if (!p.stats().enabled()) {
                continue;
            }
            List<dev.sluice.proxy.rules.Cond> admin = ProxyRules.conditions(p, p.stats().admin(), "stats admin", new ArrayList<>(), stickTables);
            List<dev.sluice.proxy.rules.Cond> access = new ArrayList<>();
            for (dev.sluice.config.model.StatsPage.Rule r : p.stats().rules()) {
                access.add(r.condition() == null ? null
                        : ProxyRules.conditions(p, List.of(r.condition()), "stats http-request", new ArrayList<>(), stickTables).get(0));
            }
            StatsPage page = new StatsPage(this, p, admin, access);
            Frontend fe = frontends.get(p.name());
            if (fe != null) {
                fe.statsPage(page);
            } else if (backends.get(p.name()) != null) {
                backends.get(p.name()).statsPage(page);
            }
        }
    }

    /** The event loops. */
    /** The streams in progress on each loop. */
    LiveStreams streams() {
        return streams;
    }

    Workers workers() {
        return workers;
    }

    /**
     * The {@code alt-svc} value {@code option h3-alt-svc} adds on the TCP connections of a frontend: its first
     * QUIC bind's port and the configured max age; null when off or when the frontend has no QUIC bind.
     */
    static io.netty.util.AsciiString altSvc(Proxy p) {
        long ma = p.http().h3AltSvcMaxAge();
        if (ma < 0) {
            return null;
        }
        for (Bind b : p.binds()) {
            if (b.address() instanceof dev.sluice.config.model.ListenAddress.Quic q) {
                return new io.netty.util.AsciiString("h3=\":" + q.port() + "\"; ma=" + ma);
            }
        }
        return null;
    }

    /**
     * A backend's {@code fullconn} ({@code slim}): the configured one, else HAProxy's default, a tenth of the maxconn of the
     * frontends whose default_backend or use_backend rules name it (a listen counts for itself), rounded up.
     */
    private void fullconn(Config config) {
        Map<String, Long> total = new HashMap<>();
        for (Proxy p : config.frontends()) {
            java.util.Set<String> targets = new java.util.HashSet<>();
            if (p.defaultBackend() != null) {
                targets.add(p.defaultBackend());
            } else if (p.kind() == dev.sluice.config.model.ProxyKind.LISTEN) {
                targets.add(p.name());
            }
            for (var u : p.useBackends()) {
                targets.add(u.backend());
            }
            long max = frontends.get(p.name()).limit().max();
            for (String t : targets) {
                total.merge(t, max, Long::sum);
            }
        }
        for (Backend be : backends.values()) {
            int configured = be.config().options().fullconn();
            be.fullconn(configured > 0 ? configured : (int) Math.min(Integer.MAX_VALUE, (total.getOrDefault(be.name(), 0L) + 9) / 10));
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
        return derivedMaxconn();
    }

    private static int derivedMaxconn() {
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
        for (var s : config.global().statsSockets()) {
            if ((s.owner() != null || s.group() != null) && !AdminSockets.isRoot()) {
                problems.add(s.where() + ": warning: 'stats socket' : 'user' and 'group' are ignored: Sluice does not run as root.");
            }
        }
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
            checkLogging(p, problems);
            if (p.stats().enabled()) {
                ProxyRules.conditions(p, p.stats().admin(), "stats admin", problems, tables);
                for (dev.sluice.config.model.StatsPage.Rule r : p.stats().rules()) {
                    if (r.condition() != null) {
                        ProxyRules.conditions(p, List.of(r.condition()), "stats http-request", problems, tables);
                    }
                }
            }
            for (var e : p.errors().pages().entrySet()) {
                if (e.getValue().length > 0) {
                    try {
                        dev.sluice.proxy.http.h1.ErrorPageParser.parse(e.getValue());
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
                    boolean unresolved = false;
                    if (a == null) {
                        // init-addr: the first method that gives an address ('last' needs a state file, which Sluice has not)
                        for (String m : s.initAddr()) {
                            if (m.equals("libc")) {
                                try {
                                    a = InetAddress.getByName(s.host());
                                } catch (UnknownHostException e) {
                                    continue;
                                }
                            } else if (m.equals("none")) {
                                unresolved = true;
                            } else if (!m.equals("last")) {
                                a = dev.sluice.config.Addresses.literal(m);
                            }
                            if (a != null || unresolved) {
                                break;
                            }
                        }
                        if (unresolved) {
                            problems.add(s.where() + ": warning: 'server " + p.name() + "/" + s.name() + "' : could not resolve address '"
                                    + s.host() + "', disabling server.");
                        } else if (a == null) {
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
                    list.add(new Backend.ResolvedServer(s, unresolved ? dev.sluice.proxy.backend.Server.unresolvedAddress(s.port())
                            : new InetSocketAddress(a, s.port()), st));
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

    /** The sample expression of {@code balance hash} must compile and be known on the request. */
    /**
     * The sample expressions of {@code log-format} and {@code unique-id-format}, and the capture slots that
     * {@code capture ... id <n>} rules of a frontend name.
     */
    private static void checkLogging(Proxy p, List<String> problems) {
        dev.sluice.config.model.Logging lg = p.logging();
        if (lg.format() != null && lg.formatWhere() != null) {
            String err = dev.sluice.proxy.log.LogLine.check(lg.format());
            if (err != null) {
                problems.add(lg.formatWhere() + ": error: 'log-format' : failed to parse log-format : " + err + ".");
            }
        }
        if (lg.uniqueIdFormat() != null) {
            try {
                dev.sluice.proxy.rules.Template.uniqueId(lg.uniqueIdFormat().text());
            } catch (IllegalArgumentException e) {
                problems.add(lg.uniqueIdWhere() + ": error: 'unique-id-format' : failed to parse unique-id-format : " + e.getMessage() + ".");
            }
        }
        if (!p.kind().hasFrontend()) {
            return;
        }
        checkCaptureIds(p.httpRequestRules(), lg.captures().request().size(), "http-request", problems);
        checkCaptureIds(p.httpResponseRules(), lg.captures().response().size(), "http-response", problems);
        // HAProxy names an http-after-response capture "http-response capture rule" too
        checkCaptureIds(p.httpAfterResponseRules(), lg.captures().response().size(), "http-response", problems);
    }

    private static void checkCaptureIds(List<dev.sluice.config.model.HttpRule> rules, int slots, String family, List<String> problems) {
        for (dev.sluice.config.model.HttpRule r : rules) {
            if (r instanceof dev.sluice.config.model.HttpRule.Action a && a.name().equals("capture") && a.args().get(1).equals("id")
                    && Integer.parseInt(a.args().get(2)) >= slots) {
                problems.add(a.where() + ": error: unable to find capture id '" + a.args().get(2) + "' referenced by " + family
                        + " capture rule.");
            }
        }
    }

    private static void checkBalance(Proxy p, List<String> problems) {
        dev.sluice.config.model.Balance b = p.balance();
        if (b.algorithm() != dev.sluice.config.model.Balance.Algorithm.HASH) {
            return;
        }
        String what = b.where() + ": error: " + p.kind().keyword() + " '" + p.name() + "' : failed to parse 'balance hash' expression '"
                + b.argument() + "' : ";
        try {
            RuleCompiler.sample(b.argument());
            RuleCompiler.checkPhase(b.argument(), RuleCompiler.Phase.REQUEST);
        } catch (IllegalArgumentException e) {
            problems.add(what + e.getMessage() + ".");
        }
    }

    public static ProxyRuntime build(Config config, Prepared prepared) {
        return build(config, prepared, new dev.sluice.proxy.memory.ProxyPools(0));
    }

    /** A runtime whose streams and connections count in {@code pools} (and its {@code -m} ceiling). */
    public static ProxyRuntime build(Config config, Prepared prepared, dev.sluice.proxy.memory.ProxyPools pools) {
        return new ProxyRuntime(config, prepared, pools);
    }

    /** The pools and budgets, with the memory ceiling. */
    public dev.sluice.proxy.memory.ProxyPools pools() {
        return pools;
    }

    public Transport transport() {
        return transport;
    }

    public List<Listener> listeners() {
        return listeners;
    }

    /** The listeners of the QUIC binds. */
    public List<dev.sluice.quic.QuicListener> quicListeners() {
        return quic.listeners();
    }

    public Map<String, Frontend> frontends() {
        return frontends;
    }

    public Map<String, Backend> backends() {
        return backends;
    }

    public Config config() {
        return config;
    }

    /**
     * The admin command registry. Subsystems built after the runtime (pools, stick tables, QUIC) register
     * their commands here before {@link #start}; see {@link CliRegistry}.
     */
    public CliRegistry registry() {
        return registry;
    }

    /**
     * {@code http-request use-service prometheus-exporter}: a scrape of what the URI's query asks for
     * ({@code scope=}, {@code no-maint}, as HAProxy's exporter), or HAProxy's 400 page for a query it rejects.
     */
    private dev.sluice.proxy.rules.Service.Reply scrape(dev.sluice.proxy.rules.RuleTarget t) {
        List<String[]> fields = List.<String[]>of(new String[] {"cache-control", "no-cache"});
        dev.sluice.proxy.metrics.ScrapeQuery q;
        try {
            q = dev.sluice.proxy.metrics.ScrapeQuery.parse(t.request().target());
        } catch (IllegalArgumentException e) {
            return new dev.sluice.proxy.rules.Service.Reply(400, "text/html", fields, dev.sluice.proxy.http.GeneratedResponse.of(400).body());
        }
        return new dev.sluice.proxy.rules.Service.Reply(200, dev.sluice.proxy.metrics.PrometheusExporter.CONTENT_TYPE, fields,
                metrics.scrape(q).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * The Prometheus exporter. Subsystems built after the runtime (pools, QUIC) add their metric families here
     * before {@link #start}: {@code metrics().register(sink -> sink.gauge("haproxy_..", "help", value, "label", v))},
     * read from the same snapshots as their admin commands.
     */
    public dev.sluice.proxy.metrics.PrometheusExporter metrics() {
        return metrics;
    }

    /** The stick tables of the configuration. */
    public StickTables stickTables() {
        return stickTables;
    }

    public AdminSockets adminSockets() {
        return admin;
    }

    /** The process-wide connection limit ({@code maxconn} in global, {@code set maxconn global}). */
    ConnectionLimit globalLimit() {
        return globalLimit;
    }

    /** The highest {@code set maxconn global} accepts: the limit the process started with (HAProxy's hard maxconn). */
    int hardMaxconn() {
        return globalMaxconn;
    }

    /** Every proxy id. */
    java.util.Collection<Integer> proxyIds() {
        return proxyIds.values();
    }

    /** A proxy's id by name, or null. */
    public Integer proxyId(String name) {
        return proxyIds.get(name);
    }

    /** {@code clear counters [all]}: the maxima, or every counter. */
    void clearCounters(boolean all) {
        for (Frontend fe : frontends.values()) {
            fe.counters().clear(all);
            fe.limit().resetPeak();
            if (all) {
                fe.h2().clear();
            }
        }
        for (Backend be : backends.values()) {
            be.counters().clear(all);
            be.queue().resetMax();
            be.timeStats().clear(all);
            for (dev.sluice.proxy.backend.Server s : be.servers()) {
                s.counters().clear(all);
                s.queue().resetMax();
                s.timeStats().clear(all);
            }
        }
        maxConnRate = 0;
    }

    /** Once a second: per-object rates and maxima, and the process-wide rates of {@code show info}. */
    private void sample() {
        long now = System.currentTimeMillis();
        long connections = 0;
        long bytesOut = admin.bytesOut();
        for (Frontend fe : frontends.values()) {
            fe.counters().sample(now, fe.limit().current());
            connections += fe.totalConnections();
            bytesOut += fe.counters().get(Counter.BYTES_OUT);
        }
        for (Backend be : backends.values()) {
            be.counters().sample(now, be.activeStreams());
            for (dev.sluice.proxy.backend.Server s : be.servers()) {
                s.counters().sample(now, s.activeStreams());
            }
        }
        long rate = Math.max(0, connections - previousConnections);
        previousConnections = connections;
        connRate = rate;
        if (rate > maxConnRate) {
            maxConnRate = rate;
        }
        bytesOutRate = Math.max(0, bytesOut - previousBytesOut);
        previousBytesOut = bytesOut;
    }

    /**
     * The {@code show info} fields Sluice has nothing to count for (SSL accounting, pipes, compression rates, peers,
     * busy polling, DNS resolutions, splicing, debug commands, log forwarding): 0, as HAProxy shows them when unused.
     */
    private static final Set<InfoField> UNMEASURED = EnumSet.of(InfoField.MAX_SSL_CONNS, InfoField.CURR_SSL_CONNS,
            InfoField.CUM_SSL_CONNS, InfoField.MAXPIPES, InfoField.PIPES_USED, InfoField.PIPES_FREE, InfoField.CONN_RATE_LIMIT,
            InfoField.SESS_RATE_LIMIT, InfoField.SSL_RATE, InfoField.SSL_RATE_LIMIT, InfoField.MAX_SSL_RATE,
            InfoField.SSL_FRONTEND_KEY_RATE, InfoField.SSL_FRONTEND_MAX_KEY_RATE, InfoField.SSL_FRONTEND_SESSION_REUSE_PCT,
            InfoField.SSL_BACKEND_KEY_RATE, InfoField.SSL_BACKEND_MAX_KEY_RATE, InfoField.SSL_CACHE_LOOKUPS, InfoField.SSL_CACHE_MISSES,
            InfoField.COMPRESS_BPS_IN, InfoField.COMPRESS_BPS_OUT, InfoField.COMPRESS_BPS_RATE_LIM, InfoField.UNSTOPPABLE_JOBS,
            InfoField.ACTIVE_PEERS, InfoField.CONNECTED_PEERS, InfoField.BUSY_POLLING, InfoField.FAILED_RESOLUTIONS,
            InfoField.TOTAL_SPLICED_BYTES_OUT, InfoField.DEBUG_COMMANDS_ISSUED, InfoField.CUM_RECV_LOGS);

    /** The values of {@code show info} (and of the exporter's process families and the stats page), by field. */
    public Map<InfoField, Object> info() {
        long now = System.currentTimeMillis();
        long up = (now - startMillis) / 1000;
        long connections = 0;
        long requests = 0;
        long bytesOut = admin.bytesOut();
        for (Frontend fe : frontends.values()) {
            connections += fe.totalConnections();
            requests += fe.totalRequests();
            bytesOut += fe.counters().get(Counter.BYTES_OUT);
        }
        // the same figures as the Total line of show pools: the pools, budgets and Netty's arenas
        dev.sluice.pools.PoolTotals poolTotals = pools.totals();
        long poolAlloc = poolTotals.allocatedBytes();
        long poolUsed = poolTotals.usedBytes();
        int pending = 0;
        for (io.netty.util.concurrent.EventExecutor e : group) {
            if (e instanceof io.netty.util.concurrent.SingleThreadEventExecutor st) {
                pending += st.pendingTasks();
            }
        }
        long fds = maxFileDescriptors();
        int listening = listeners.size() + quic.listeners().size() + admin.count();
        Map<InfoField, Object> m = new EnumMap<>(InfoField.class);
        m.put(InfoField.NAME, "Sluice");
        m.put(InfoField.VERSION, ProductInfo.VERSION);
        m.put(InfoField.RELEASE_DATE, ProductInfo.RELEASE_DATE);
        m.put(InfoField.NBTHREAD, workers.count());
        m.put(InfoField.NBPROC, 1);
        m.put(InfoField.PROCESS_NUM, 1);
        m.put(InfoField.PID, ProcessHandle.current().pid());
        m.put(InfoField.UPTIME, String.format("%dd %dh%02dm%02ds", up / 86400, up / 3600 % 24, up / 60 % 60, up % 60));
        m.put(InfoField.UPTIME_SEC, up);
        m.put(InfoField.MEMMAX_MB, poolTotals.memmaxMb());
        m.put(InfoField.POOL_ALLOC_MB, poolTotals.poolAllocMb());
        m.put(InfoField.POOL_USED_MB, poolTotals.poolUsedMb());
        m.put(InfoField.POOL_FAILED, poolTotals.poolFailed());
        m.put(InfoField.ULIMIT_N, fds);
        m.put(InfoField.MAXSOCK, fds);
        m.put(InfoField.MAXCONN, globalLimit.max());
        m.put(InfoField.HARD_MAXCONN, hardMaxconn());
        m.put(InfoField.CURR_CONNS, globalLimit.current());
        m.put(InfoField.CUM_CONNS, connections + admin.totalSessions());
        m.put(InfoField.CUM_REQ, requests + admin.totalSessions());
        for (InfoField zero : UNMEASURED) {
            m.put(zero, 0);
        }
        m.put(InfoField.CONN_RATE, connRate);
        m.put(InfoField.MAX_CONN_RATE, maxConnRate);
        m.put(InfoField.SESS_RATE, connRate);
        m.put(InfoField.MAX_SESS_RATE, maxConnRate);
        m.put(InfoField.TASKS, pending);
        m.put(InfoField.RUN_QUEUE, pending);
        m.put(InfoField.IDLE_PCT, idlePercent());
        m.put(InfoField.NODE, node);
        // left out of show info when unset, as HAProxy leaves it out
        m.put(InfoField.DESCRIPTION, config.global().description());
        m.put(InfoField.STOPPING, stopping ? 1 : 0);
        m.put(InfoField.JOBS, listening + globalLimit.current() + admin.openSessions());
        m.put(InfoField.LISTENERS, listening);
        m.put(InfoField.DROPPED_LOGS, dev.sluice.proxy.log.LogWriter.DROPPED.sum());
        m.put(InfoField.TOTAL_BYTES_OUT, bytesOut);
        m.put(InfoField.BYTES_OUT_RATE, bytesOutRate);
        m.put(InfoField.BUILD_INFO, ProductInfo.VERSION);
        m.put(InfoField.MEMMAX_BYTES, poolTotals.memoryLimitBytes());
        m.put(InfoField.POOL_ALLOC_BYTES, poolAlloc);
        m.put(InfoField.POOL_USED_BYTES, poolUsed);
        m.put(InfoField.START_TIME_SEC, startMillis / 1000);
        m.put(InfoField.TAINTED, "0");
        return m;
    }

    private int idlePercent() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            double load = os.getProcessCpuLoad();
            if (load >= 0) {
                double perThread = load * Runtime.getRuntime().availableProcessors() / Math.max(1, workers.count());
                return (int) Math.max(0, Math.min(100, Math.round(100 - perThread * 100)));
            }
        }
        return 100;
    }

    private static long maxFileDescriptors() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return 0;
    }

    /** HAProxy's default node name: the host name. */
    private static String hostname() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            String h = System.getenv("HOSTNAME");
            return h != null ? h : "localhost";
        }
    }

    /** Binds every listener; on failure stops what was started and throws with the reason. */
    public void start() {
        int backlog = Math.min(globalLimit.max(), 65535);
        try {
            // QUIC first: once a TCP port of the process answers, its QUIC sockets are bound too
            quic.start(transport, workers);
            for (Listener l : listeners) {
                l.start(transport, group, backlog);
            }
            admin.start(transport, group);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
        sampler = group.next().scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
        // as HAProxy: the first checks are spread over the shortest interval, in declaration order
        long minInter = checks.stream().mapToLong(c -> c.server().config().check().inter()).min().orElse(0);
        for (int i = 0; i < checks.size(); i++) {
            checks.get(i).start(minInter * i / checks.size());
        }
        // pool-purge-delay: each backend's idle server connections, on every loop
        for (Backend b : backends.values()) {
            long period = b.http().poolPurgeDelayMs();
            if (period <= 0) {
                continue;
            }
            for (int i = 0; i < workers.count(); i++) {
                int loop = i;
                workers.loop(i).scheduleAtFixedRate(() -> {
                    for (dev.sluice.proxy.backend.Server s : b.servers()) {
                        dev.sluice.proxy.backend.ServerConnector.purge(s, loop);
                    }
                }, period, period, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Runs {@code task} on every event loop; completes once each ran it (exceptionally if a loop refused it). */
    private java.util.concurrent.CompletionStage<?> onEachLoop(Runnable task) {
        return workers.onEachLoop(i -> {
            task.run();
            return Boolean.TRUE;
        });
    }

    /** Stops listening and lets running exchanges finish, then stops; the process exits when it is done. */
    public void softStop() {
        if (stopping) {
            return;
        }
        stopping = true;
        // as HAProxy: a stopping process gives back what it can, for the process that replaces it, now and as
        // its connections end (each drain check)
        pools.dropSpares(this::onEachLoop);
        for (Listener l : listeners) {
            l.stop();
        }
        frontends.values().forEach(Frontend::stopped);
        admin.stop();
        // as HAProxy: idle connections close now, the others after their exchange; the process ends with the last
        // one, or at hard-stop-after. QUIC connections get the same event; their sockets stay open (taking no new
        // connection) until the last connection and the last closing record are gone
        quic.softStop(dev.sluice.proxy.stream.SoftStop.EVENT);
        for (io.netty.channel.Channel ch : clients) {
            ch.eventLoop().execute(() -> ch.pipeline().fireUserEventTriggered(dev.sluice.proxy.stream.SoftStop.EVENT));
        }
        long hard = config.global().process().hardStopAfterMs();
        if (hard > 0) {
            group.schedule(this::stop, hard, TimeUnit.MILLISECONDS);
        }
        drainCheck();
    }

    /**
     * Stops once every client connection is gone and every QUIC socket closed (checked ten times a second during a
     * graceful stop).
     */
    private void drainCheck() {
        if (clients.isEmpty() && quic.drained()) {
            stop();
        } else if (!group.isShuttingDown()) {
            pools.dropSpares(this::onEachLoop);
            group.schedule(this::drainCheck, 100, TimeUnit.MILLISECONDS);
        }
    }

    /** Closes everything at once (once: a graceful stop may end in it from two places). */
    public void stop() {
        if (!hardStopped.compareAndSet(false, true)) {
            return;
        }
        stopping = true;
        if (sampler != null) {
            sampler.cancel(false);
        }
        checks.forEach(HealthCheck::stop);
        for (Listener l : listeners) {
            l.stop();
        }
        // the loops shut down once the QUIC sockets have sent their connections' CONNECTION_CLOSE and closed (a
        // loop shutting down closes its channels before it runs its queued tasks); a second at most
        java.util.concurrent.CompletableFuture<Void> quicClosed = quic.stop();
        frontends.values().forEach(Frontend::stopped);
        admin.stop();
        quicClosed.completeOnTimeout(null, 1, TimeUnit.SECONDS).whenComplete((v, e) -> shutdownLoops());
    }

    private void shutdownLoops() {
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
