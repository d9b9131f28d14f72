package dev.sluice.proxy.runtime;

import dev.sluice.config.model.CpuMap;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.transport.CpuAffinity;
import java.util.concurrent.ThreadFactory;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.config.model.Tune;
import dev.sluice.proxy.admin.AdminSockets;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.auth.Userlists;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.SavedServerState;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerCommands;
import dev.sluice.proxy.dns.DnsRuntime;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.check.CheckPlan;
import dev.sluice.proxy.check.EmailAlerts;
import dev.sluice.proxy.check.AgentCheck;
import dev.sluice.proxy.check.HealthCheck;
import dev.sluice.proxy.h1.H1ClientConnection;
import dev.sluice.proxy.h2.H2ClientConnection;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.h1.H1Limits;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.Listener;
import dev.sluice.proxy.log.AccessLog;
import dev.sluice.proxy.log.LogWriter;
import dev.sluice.proxy.cache.Caches;
import dev.sluice.proxy.memory.ProxyPools;
import dev.sluice.proxy.metrics.PrometheusExporter;
import dev.sluice.proxy.metrics.ScrapeQuery;
import dev.sluice.proxy.rules.Cond;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.RuleTarget;
import dev.sluice.proxy.rules.Service;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.rules.TableCommands;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.InfoField;
import dev.sluice.proxy.stream.ConnectionRules;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.HttpHandoff;
import dev.sluice.proxy.stream.LiveStreams;
import dev.sluice.proxy.stream.SoftStop;
import dev.sluice.proxy.tcp.TcpServerConnection;
import dev.sluice.proxy.tls.TlsContexts;
import dev.sluice.proxy.transport.Transport;
import dev.sluice.proxy.transport.Workers;
import dev.sluice.quic.QuicListener;
import dev.sluice.sticktable.StickTable;
import io.netty.channel.Channel;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The running proxy built from one configuration model: event loops, backends, frontends and their
 * listeners, the admin sockets and the registry of their commands. {@link #check} finds what the model
 * cannot run with (unresolvable servers, features the runtime lacks) without starting anything, which is
 * what {@code -c} reports ({@link RuntimeChecks}). Started once, stopped once. Once a second one event loop
 * samples the counters into rates and maxima. What each bind starts a connection with is {@link BindPipelines}'s;
 * the process figures of {@code show info} are {@link ProcessInfo}'s.
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
    private volatile LogWriter logWriter;
    private final dev.sluice.proxy.syslog.LogServices logServices; // rings, log-forward listeners (a reload makes new ones)
    private final StickTables stickTables;
    /** The peers sections: replication of the tables that name one. */
    private final dev.sluice.proxy.peers.PeersRuntime peers;
    /** Whether -sf/-st named an older process, which will teach this one its tables. */
    private volatile boolean oldProcess;
    private volatile boolean quietPeers;
    private final ProxyPools pools;
    private final TlsContexts tls;
    private final QuicBinds quic;
    /** Proxy ids by name, as HAProxy 2.6 numbers them: in declaration order from 2 (1 is its internal HTTP client). */
    private final Map<String, Integer> proxyIds = new LinkedHashMap<>();
    private final CliRegistry registry = new CliRegistry();
    private final PrometheusExporter metrics;
    private final AdminSockets admin;
    private final ProcessInfo process;
    /** The configuration this one replaces (an in-process reload), until it started. */
    private ProxyRuntime previous;
    /** What a reload says beyond the checks' messages (tables that start empty, settings that need a restart). */
    private final List<String> reloadNotes = new ArrayList<>();
    /** The periodic tasks of this configuration on the shared loops, cancelled when it is replaced. */
    private final List<ScheduledFuture<?>> tasks = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The process's configurations (null: a runtime built without, as tests do). */
    private Generations generations;
    /** Whether every replaced configuration has finished (a graceful stop waits for them too). */
    private volatile java.util.function.BooleanSupplier othersDrained = () -> true;
    private volatile boolean stopping;
    private final AtomicBoolean hardStopped = new AtomicBoolean();
    /** Every accepted client connection until it closes, for a graceful stop. */
    private final ChannelGroup clients = new DefaultChannelGroup("clients", GlobalEventExecutor.INSTANCE);
    private ScheduledFuture<?> sampler;
    /** What the server state files say of the servers, applied by {@link #start}: by backend, then server name. */
    private final Map<String, Map<String, SavedServerState>> savedStates;
    /** The servers' health checks, started with the listeners. */
    private final List<HealthCheck> checks = new ArrayList<>();
    /** The servers' agent checks ({@code agent-check}), started and stopped with the health checks. */
    private final List<AgentCheck> agents = new ArrayList<>();
    /** DNS at run time: the resolvers sections. */
    private final DnsRuntime dns;

    private ProxyRuntime(Config config, Prepared prepared, ProxyPools pools, ProxyRuntime previous) {
        this.previous = previous;
        this.process = new ProcessInfo(this, config);
        this.config = config;
        this.pools = pools;
        this.tls = prepared.tls();
        Map<String, List<Backend.ResolvedServer>> resolved = prepared.resolved();
        int threads = threads(config);
        Tune tune = config.global().tune();
        this.globalMaxconn = ProcessInfo.globalMaxconn(config);
        if (previous == null) {
            this.transport = Transport.select();
            this.group = transport.newGroup(threads, loopThreads(config, threads), tune.sockets().maxPollEvents());
            this.workers = new Workers(group);
            this.streams = new LiveStreams(workers.count());
            this.globalLimit = new ConnectionLimit("global", globalMaxconn, null);
        } else {
            // the process's own: event loops, live streams, the process limit, the pools
            this.transport = previous.transport;
            this.group = previous.group;
            this.workers = previous.workers;
            this.streams = previous.streams;
            this.globalLimit = previous.globalLimit;
            if (globalLimit.max() != globalMaxconn) {
                globalLimit.max(globalMaxconn);
            }
            this.generations = previous.generations;
            reloadNotes.addAll(Reload.restartOnly(previous.config, config, workers.count(), threads));
        }
        H1Limits limits = new H1Limits(tune.maxHeadBytes(), tune.maxhdr());
        List<String> tableNotes = new ArrayList<>();
        this.stickTables = StickTables.of(config, tableNotes, pools::tableMemory, previous == null ? null : previous.stickTables);
        tableNotes.stream().filter(n -> n.contains("changed on reload")).forEach(reloadNotes::add);
        // unchanged QUIC binds keep their sockets and connections (new request streams take the new configuration)
        boolean keepQuic = previous != null && Reload.sameQuic(previous.config, config);
        QuicBinds quicBinds = keepQuic ? QuicBinds.kept(config.global().quic())
                : new QuicBinds(config.global().quic(), pools.registry(), !config.global().process().noReusePort());
        this.quic = keepQuic ? previous.quic : quicBinds;
        for (StickTable t : stickTables.all()) {
            // expired untracked entries go away within a second, as HAProxy's purge task does
            tasks.add(group.scheduleAtFixedRate(t::purgeExpired, 1, 1, TimeUnit.SECONDS));
        }
        ServerConnector connector = new ServerConnector(transport,
                (srv, loop, h2, sni) -> h2 ? FcgiApps.orH2(srv, loop, sni, tune) : FcgiApps.orH1(srv, loop, limits, sni))
                .socketBuffers(tune.sockets().serverRcvbuf(), tune.sockets().serverSndbuf());
        // mode tcp backends: half-closing connections carrying one layer-4 stream each
        ServerConnector layer4 = connector.layer4((srv, loop, h2, sni) -> new TcpServerConnection(srv, sni));
        for (Proxy p : config.proxies()) {
            proxyIds.put(p.name(), proxyIds.size() + 2);
        }
        for (Proxy p : config.backends()) {
            Backend before = previous == null ? null : previous.backends.get(p.name());
            Backend be = new Backend(p, resolved.get(p.name()), workers.count(), p.mode() == Mode.TCP ? layer4 : connector, before);
            be.scheduler(group);
            FcgiApps.attach(be, config.global(), stickTables, this::logWriterOrNew);
            be.id(proxyIds.get(p.name()));
            if (p.kind() == ProxyKind.BACKEND) {
                be.rules(ProxyRules.compile(p, new ArrayList<>(), stickTables));
            } else if (!p.stickRules().isEmpty() || !p.tcpRules().responseContent().isEmpty() || !p.useServers().isEmpty()
                    || !p.options().persist().rules().isEmpty() || !p.errors().replies().isEmpty()) {
                // a listen's request rules run on its frontend side; its backend side keeps the stick, use-server, persist and
                // response rules, and its http-error replies
                be.rules(ProxyRules.compile(p, new ArrayList<>(), stickTables).backendSide());
            }
            backends.put(p.name(), be);
        }
        Userlists userlists = Userlists.compile(config.userlists());
        Caches caches = new Caches(config.caches(), config.caches().isEmpty() ? null : pools.cacheBlocks());
        this.metrics = new PrometheusExporter(config.global().tune().prometheusMaxSeries());
        this.metrics.register(new ProxyMetrics(this));
        pools.register(metrics);
        Service prometheusService = this::scrape;
        for (Proxy p : config.frontends()) {
            ProxyRules rules = ProxyRules.compile(p, new ArrayList<>(), stickTables);
            // a listen section is its own default backend
            Backend dflt = p.defaultBackend() != null ? backends.get(p.defaultBackend())
                    : p.kind() == ProxyKind.LISTEN ? backends.get(p.name()) : null;
            int max = p.maxconn() > 0 ? p.maxconn() : globalLimit.max();
            Frontend before = previous == null ? null : previous.frontends.get(p.name());
            // a frontend that stays keeps its limit: the connections it admitted are counted there until they close
            ConnectionLimit limit = before != null ? before.limit() : new ConnectionLimit(p.name(), max, globalLimit);
            if (limit.max() != max) {
                limit.max(max);
            }
            AccessLog log = null;
            if (!p.logging().targets().isEmpty()) {
                if (logWriter == null) {
                    logWriter = new LogWriter();
                }
                log = new AccessLog(p.logging(), logWriter).requestLineRoom(tune.logUriLen());
            }
            Frontend fe = new Frontend(p, proxyIds.get(p.name()), workers, streams, rules, backends, dflt, limit,
                    limits.withAcceptInvalid(p.http().acceptInvalidRequest()), log);
            fe.altSvc(BindPipelines.altSvc(p));
            fe.tune(tune);
            fe.httpHandoff(httpHandoff(fe));
            fe.process(prepared.process());
            fe.userlists(userlists);
            fe.streamBudget(pools.streams());
            fe.services(Map.of("prometheus-exporter", prometheusService));
            fe.caches(caches);
            fe.clients(clients);
            if (before != null) {
                fe.continues(before);
            }
            frontends.put(p.name(), fe);
            fe.siblings(frontends);
            ConnectionRules connectionRules = rules.connection().isEmpty() ? null : new ConnectionRules(rules.connection(), fe, false);
            for (Listener l : BindPipelines.listeners(p, fe, limit, connectionRules, tls, quicBinds)) {
                l.acceptFilter(connectionRules == null ? null : connectionRules.onBind(l.bind().tls() != null)).sessions(pools.sessions())
                        .tcpKeepAlive(p.http().clientTcpKeepAlive()).socketTune(tune.sockets())
                        .clients(clients).reusePort(!config.global().process().noReusePort());
                listeners.add(l);
            }
        }
        Assembly.fullconn(config, frontends, backends);
        Assembly.statsPages(this, config, frontends, backends, stickTables);
        healthChecks(config, prepared.process());
        // after a reload in the process, the servers' state as it is now, not as a file saved it
        this.savedStates = previous == null ? prepared.states() : Reload.liveStates(previous, config);
        ProxyCommands.register(registry, this);
        quic.register(registry);
        metrics.register(quic::collect);
        ServerCommands.register(registry, backends.values(), workers);
        this.dns = new DnsRuntime(config, backends.values(), workers, transport, s -> ServerCommands.closeIdle(workers, s));
        dns.register(registry);
        metrics.register(dns::collect);
        StreamCommands.register(registry, workers, streams, backends.values(), () -> generations == null ? 1 : generations.alive());
        TableCommands.register(registry, stickTables);
        peers = dev.sluice.proxy.peers.PeersRuntime.of(config, stickTables);
        peers.register(registry);
        peers.metrics(metrics);
        pools.register(registry, this::onEachLoop);
        caches.register(registry);
        this.admin = previous != null && Reload.sameAdmin(previous.config, config) ? previous.admin
                : new AdminSockets(config.global().statsSockets(), config.global().statsTimeoutMs(), registry);
        this.logServices = new dev.sluice.proxy.syslog.LogServices(config, registry);
        logWriter = logServices.writer(logWriter);
    }

    /**
     * The event loops' threads: {@code cpu-map} pins the n-th one to its CPUs as it starts (a refusal is a warning, the
     * thread then runs where the kernel puts it).
     */
    private static ThreadFactory loopThreads(Config config, int threads) {
        ThreadFactory f = new DefaultThreadFactory("sluice-loop", false);
        List<CpuMap> maps = config.global().process().cpuMaps();
        return maps.isEmpty() ? f : CpuAffinity.pinning(f, CpuMap.perThread(maps, threads), m -> System.err.println("[WARNING] " + m + "."));
    }

    /**
     * Gives every server with {@code check} its {@link HealthCheck}, spread over the event loops, and every backend
     * its {@link ServerEventLog}; the checks start with {@link #start}.
     */
    private void healthChecks(Config config, ProcScope procScope) {
        int spread = config.global().tune().spreadChecks();
        int n = 0;
        for (Backend be : backends.values()) {
            CheckPlan plan = null;
            for (Server s : be.servers()) {
                if (s.config().check().agent().enabled()) {
                    if (plan == null) {
                        plan = new CheckPlan(be, process.node(), config.global().tune().bufsize()).process(procScope);
                    }
                    AgentCheck a = new AgentCheck(s, plan, workers.loop(n % workers.count()), transport, spread);
                    s.agent(a);
                    agents.add(a);
                }
                if (!s.config().check().enabled()) {
                    n += s.agent() != null ? 1 : 0;
                    continue;
                }
                if (plan == null) {
                    plan = new CheckPlan(be, process.node(), config.global().tune().bufsize()).process(procScope);
                }
                HealthCheck c = new HealthCheck(s, plan, workers.loop(n % workers.count()), transport, spread);
                s.check(c);
                checks.add(c);
                n++;
            }
        }
        if (logWriter == null && !backends.isEmpty()) {
            // server transitions go to the console even without log targets, as HAProxy's warnings
            logWriter = new LogWriter();
        }
        for (Backend be : backends.values()) {
            if (logWriter != null) {
                be.events(new ServerEventLog(logWriter, be.config().logging().targets(), be.config().logging().tag(), true, EmailAlerts.of(be.config(),
                        workers.loop(n++ % workers.count()), transport, config.global().tune().bufsize(), procScope, ProcessInfo.hostname())));
            }
        }
    }

    /** Turns the console messages (server transitions, warnings) off: {@code -q}. Before {@link #start}. */
    public void quiet() {
        quietPeers = true;
        for (Backend be : backends.values()) {
            if (be.events() instanceof ServerEventLog log) {
                be.events(log.quiet());
            }
        }
    }

    /** The streams in progress on each loop. */
    LiveStreams streams() {
        return streams;
    }

    /** The event loops. */
    /** The event loops {@code config} asks for: {@code nbthread}, else one per CPU. */
    static int threads(Config config) {
        return config.global().nbthread() > 0 ? config.global().nbthread() : Runtime.getRuntime().availableProcessors();
    }

    Workers workers() {
        return workers;
    }

    /**
     * What {@link #check} found and built: resolved servers, TLS contexts (null when nothing uses TLS),
     * the problems that prevent running ({@code file:line: error: ...}) and the warnings to print.
     */
    public record Prepared(Map<String, List<Backend.ResolvedServer>> resolved, TlsContexts tls, List<String> problems,
            List<String> warnings, ProcScope process, Map<String, Map<String, SavedServerState>> states) {
    }

    /**
     * What prevents this model from running, as messages (empty when it can run), with what running it
     * needs. Resolves server host names and loads certificates and keys (at start-up only, never on an
     * event loop): {@code -c} reports an unreadable or invalid certificate like any other error. See {@link RuntimeChecks}.
     */
    public static Prepared check(Config config) {
        return RuntimeChecks.check(config);
    }

    /**
     * As {@link #check(Config)} for a configuration that replaces {@code running} in the process: TLS contexts whose
     * settings and files did not change are taken over from it.
     */
    public static Prepared check(Config config, ProxyRuntime running) {
        return RuntimeChecks.check(config, running == null ? null : running.tls);
    }

    public static ProxyRuntime build(Config config, Prepared prepared) {
        return build(config, prepared, new ProxyPools(0));
    }

    /** A runtime whose streams and connections count in {@code pools} (and its {@code -m} ceiling). */
    public static ProxyRuntime build(Config config, Prepared prepared, ProxyPools pools) {
        return new ProxyRuntime(config, prepared, pools, null);
    }

    /**
     * The runtime of {@code config} that replaces {@code previous} in the same process (an in-process reload): it
     * shares the event loops, pools and process limit, takes over what stays (sockets, tables, counters, server
     * states) when it starts ({@link Reload}).
     */
    static ProxyRuntime reloaded(Config config, Prepared prepared, ProxyRuntime previous) {
        return new ProxyRuntime(config, prepared, previous.pools, previous);
    }

    /** The pools and budgets, with the memory ceiling. */
    public ProxyPools pools() {
        return pools;
    }

    public Transport transport() {
        return transport;
    }

    public List<Listener> listeners() {
        return listeners;
    }

    /** The listeners of the QUIC binds. */
    public List<QuicListener> quicListeners() {
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
    private Service.Reply scrape(RuleTarget t) {
        List<String[]> fields = List.<String[]>of(new String[] {"cache-control", "no-cache"});
        ScrapeQuery q;
        try {
            q = ScrapeQuery.parse(t.request().target());
        } catch (IllegalArgumentException e) {
            return new Service.Reply(400, "text/html", fields, GeneratedResponse.of(400).body());
        }
        return new Service.Reply(200, PrometheusExporter.CONTENT_TYPE, fields,
                metrics.scrape(q).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The Prometheus exporter. Subsystems built after the runtime (pools, QUIC) add their metric families here
     * before {@link #start}: {@code metrics().register(sink -> sink.gauge("haproxy_..", "help", value, "label", v))},
     * read from the same snapshots as their admin commands.
     */
    public PrometheusExporter metrics() {
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
    Collection<Integer> proxyIds() {
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
            for (Server s : be.servers()) {
                s.counters().clear(all);
                s.queue().resetMax();
                s.timeStats().clear(all);
            }
        }
        process.clearMaxConnRate();
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
            for (Server s : be.servers()) {
                s.counters().sample(now, s.currentSessions());
            }
        }
        process.sample(connections, bytesOut);
    }

    /** The values of {@code show info} (and of the exporter's process families and the stats page), by field. */
    public Map<InfoField, Object> info() {
        return process.info();
    }

    /** Whether a stop (graceful or not) has begun. */
    boolean stopping() {
        return stopping;
    }

    /** Binds every listener; on failure stops what was started and throws with the reason. */
    public void start() {
        // the state the previous process had (server state files), before any traffic or check, after quiet()
        for (Backend be : backends.values()) {
            Map<String, SavedServerState> saved = savedStates.getOrDefault(be.name(), Map.of());
            // one rebuild of the balancing per backend, not one per server
            be.batch(() -> {
                for (Server s : be.servers()) {
                    SavedServerState st = saved.get(s.name());
                    if (st != null) {
                        s.restore(st);
                    }
                }
            });
        }
        int backlog = Math.min(globalLimit.max(), 65535);
        Map<String, Long> checksDue = previous == null ? Map.of() : HealthCheck.schedule(previous.checks);
        Map<String, Long> agentsDue = previous == null ? Map.of() : HealthCheck.agentSchedule(previous.agents);
        if (previous != null) {
            // an in-process reload: what fails leaves the previous configuration running, untouched
            Reload.start(this, previous, backlog);
            logServices.replace(previous.logServices, logWriter);
            previous = null;
        } else {
            try {
                // QUIC first: once a TCP port of the process answers, its QUIC sockets are bound too
                quic.start(transport, workers);
                for (Listener l : listeners) {
                    l.start(transport, group, backlog);
                }
                admin.start(transport, group);
                peers.start(transport, group, oldProcess, this::peersLog);
                logServices.start(logWriter);
            } catch (RuntimeException e) {
                stop();
                throw e;
            }
        }
        sampler = group.next().scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
        dns.start();
        HealthCheck.startAll(checks, agents, checksDue, agentsDue);
        // pool-purge-delay: the servers' idle connections, on every loop, each period its servers'
        for (Backend b : backends.values()) {
            for (long period : ServerConnector.purgePeriods(b)) {
                for (int i = 0; i < workers.count(); i++) {
                    int loop = i;
                    tasks.add(workers.loop(i).scheduleAtFixedRate(() -> ServerConnector.purge(b, period, loop), period, period,
                            TimeUnit.MILLISECONDS));
                }
            }
        }
    }

    /** Runs {@code task} on every event loop; completes once each ran it (exceptionally if a loop refused it). */
    private CompletionStage<?> onEachLoop(Runnable task) {
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
        logServices.stop();
        // as HAProxy: idle connections close now, the others after their exchange; the process ends with the last
        // one, or at hard-stop-after. QUIC connections get the same event; their sockets stay open (taking no new
        // connection) until the last connection and the last closing record are gone
        quic.softStop(SoftStop.EVENT);
        // as HAProxy: the stopping process connects to the new one (its local peer) and teaches it every table entry
        peers.softStop(() -> { });
        for (Channel ch : clients) {
            ch.eventLoop().execute(() -> ch.pipeline().fireUserEventTriggered(SoftStop.EVENT));
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
        if (clients.isEmpty() && quic.drained() && peers.drained() && othersDrained.getAsBoolean()) {
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
        agents.forEach(AgentCheck::stop);
        dns.stop();
        for (Listener l : listeners) {
            l.stop();
        }
        // the loops shut down once the QUIC sockets have sent their connections' CONNECTION_CLOSE and closed (a
        // loop shutting down closes its channels before it runs its queued tasks); a second at most
        CompletableFuture<Void> quicClosed = quic.stop();
        frontends.values().forEach(Frontend::stopped);
        admin.stop();
        logServices.stop();
        peers.stop();
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

    /** Tells the runtime, before {@link #start}, that an older process runs and will teach this one the peers' tables. */
    public void oldProcess(boolean old) {
        this.oldProcess = old;
    }

    public dev.sluice.proxy.peers.PeersRuntime peers() {
        return peers;
    }

    /** A peers event, as HAProxy would log it: to the process's stderr unless quiet. */
    private void peersLog(String line) {
        if (!quietPeers) {
            System.err.println("[NOTICE] " + line);
        }
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** Whether the runtime stopped within {@code ms} milliseconds. */
    public boolean awaitStop(long ms) throws InterruptedException {
        return stopped.await(ms, TimeUnit.MILLISECONDS);
    }

    // ------------------------------------------------------------------ in-process reloads (see Reload)

    void generations(Generations g) {
        this.generations = g;
    }

    /** The process's configurations, or null when the runtime was built alone. */
    Generations generations() {
        return generations;
    }

    /** What the reload that built this runtime has to say (tables that start empty, settings that need a restart). */
    List<String> reloadNotes() {
        return reloadNotes;
    }

    /** The log writer, made now when the configuration had none (a reload's messages go to the global targets). */
    synchronized LogWriter logWriterOrNew() {
        if (logWriter == null) {
            logWriter = new LogWriter();
        }
        return logWriter;
    }

    void othersDrained(java.util.function.BooleanSupplier drained) {
        this.othersDrained = drained;
    }

    MultiThreadIoEventLoopGroup group() {
        return group;
    }

    ChannelGroup clients() {
        return clients;
    }

    QuicBinds quic() {
        return quic;
    }

    List<HealthCheck> checks() {
        return checks;
    }

    List<AgentCheck> agents() {
        return agents;
    }

    DnsRuntime dns() {
        return dns;
    }

    List<ScheduledFuture<?>> tasks() {
        return tasks;
    }

    ScheduledFuture<?> sampler() {
        return sampler;
    }

    LogWriter logWriter() {
        return logWriter;
    }

    TlsContexts tls() {
        return tls;
    }

    /** The peers' log function, for a runtime started by a reload. */
    void startPeers() {
        peers.start(transport, group, false, this::peersLog);
    }

    /**
     * How a layer-4 connection of {@code fe} becomes HTTP: HTTP/1 (upgraded on HTTP/2's preface), or the multiplexer
     * {@code switch-mode http proto} forces, as HAProxy's {@code h1} (no upgrade) and {@code h2}.
     */
    static HttpHandoff httpHandoff(Frontend fe) {
        return (chosen, proto) -> "h2".equals(proto) ? H2ClientConnection.upgraded(fe, true)
                : "h1".equals(proto) ? new H1ClientConnection(fe, true, chosen).noH2Upgrade() : new H1ClientConnection(fe, true, chosen);
    }
}
