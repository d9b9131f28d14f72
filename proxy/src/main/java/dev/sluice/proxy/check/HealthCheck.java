package dev.sluice.proxy.check;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.ServerCheck;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerEvents;
import dev.sluice.proxy.backend.ServerHealthCheck;
import dev.sluice.proxy.backend.TrafficEvent;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.transport.Transport;
import io.netty.channel.EventLoop;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The health check of one server: HAProxy's health counter ({@code health} in [0, rise + fall - 1], UP from
 * {@code rise}), the last status, code, description and duration, and the schedule ({@code inter}, {@code fastinter}
 * while in transition, {@code downinter} while fully down, with {@code spread-checks} noise), run on one event loop.
 * <p>
 * Threads: every check, its result and the state changes it causes happen on {@link #loop}; the state is published
 * through volatile fields for the admin socket, the stats page and Prometheus. Admin commands that change the check
 * ({@code set server ... health}, {@code enable|disable health}, {@code check-port}) hand the change to the loop.
 */
public final class HealthCheck implements ServerHealthCheck, TcpCheckOwner {
    private final Server server;
    private final ServerCheck config;
    private final CheckPlan plan;
    private final EventLoop loop;
    private final Transport transport;
    /** When the next check runs. */
    private final CheckTimer timer;
    private final int rise;
    private final int fall;

    private volatile int health;
    private volatile CheckStatus status = CheckStatus.INI;
    private volatile int code;
    private volatile long duration = -1;
    private volatile String desc = "";
    private volatile boolean running;
    private volatile boolean enabled = true;
    /** Checks are suspended while the server is in maintenance. */
    private volatile boolean paused;
    private volatile long failures;
    /** {@code set server ... check-port|check-addr}: where checks go from now on (0 / null: the configured target). */
    private volatile int portOverride;
    private volatile InetAddress addrOverride;
    private long startNanos;
    private CheckAttempt current;
    /** The current check reported a status before its end (HAProxy's mysql and ldap checks do): its duration is kept. */
    private boolean reported;
    /** The analysis of its live traffic ({@code observe}), null when none. */
    private final TrafficAnalysis analysis;
    /** Times the analysis triggered its {@code on-error} ({@code hanafail}). */
    private volatile long analysisFailures;

    public HealthCheck(Server server, CheckPlan plan, EventLoop loop, Transport transport, int spreadPercent) {
        this.server = server;
        this.config = server.config().check();
        this.plan = plan;
        this.loop = loop;
        this.transport = transport;
        this.timer = new CheckTimer(loop, spreadPercent, this::run, this::abandon);
        this.rise = config.rise();
        this.fall = config.fall();
        this.analysis = config.observe().layer() == dev.sluice.config.model.ServerObserve.Layer.NONE ? null
                : new TrafficAnalysis(this, config.observe());
        var init = server.config().initState();
        if (init == null) {
            health = rise;
        } else {
            health = switch (init) {
                case FULLY_UP -> rise + fall - 1;
                case UP -> rise;
                case DOWN -> rise - 1;
                case FULLY_DOWN -> 0;
            };
        }
        if (server.config().disabled()) {
            paused = true;
            health = 0;
        }
    }

    @Override
    public Server server() {
        return server;
    }

    public CheckPlan plan() {
        return plan;
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Transport transport() {
        return transport;
    }

    // what a tcp-check run reads (TcpCheckOwner)

    @Override
    public TcpCheckPlan tcpRules() {
        return plan.tcp();
    }

    @Override
    public int bufsize() {
        return plan.bufsize();
    }

    @Override
    public ProcScope process() {
        return plan.process();
    }

    @Override
    public long timeoutCheck() {
        return plan.timeoutCheck();
    }

    @Override
    public long timeoutConnect() {
        return plan.timeoutConnect();
    }

    @Override
    public long inter() {
        return config.inter();
    }

    @Override
    public String proxyName() {
        return server.backend().name();
    }

    public int rise() {
        return rise;
    }

    public int fall() {
        return fall;
    }

    @Override
    public int health() {
        return health;
    }

    public CheckStatus status() {
        return status;
    }

    /** The HTTP status of the last check when its status carries one, else 0. */
    @Override
    public int statusCode() {
        return status.code();
    }

    @Override
    public int resultCode() {
        return status.result().code();
    }

    /** The server's check, or null when it has none: the runtime attached every one, so each is a HealthCheck. */
    public static HealthCheck of(Server s) {
        return (HealthCheck) s.check();
    }

    public int code() {
        return status.hasCode() ? code : 0;
    }

    /** Milliseconds the last finished check took, -1 before the first. */
    public long duration() {
        return duration;
    }

    /** The last check's description ({@code last_chk}: a reason phrase, an error), "" when none. */
    public String desc() {
        return desc;
    }

    /** Whether a check is in progress now ({@code * } before the status in {@code show stat}). */
    public boolean running() {
        return running;
    }

    /** Whether checks are enabled ({@code disable health} turns them off). */
    @Override
    public boolean enabled() {
        return enabled;
    }

    /** Whether checks are suspended (maintenance). */
    public boolean paused() {
        return paused;
    }

    /** Failed checks while the server had health left ({@code chkfail}). */
    public long failures() {
        return failures;
    }

    /** Whether the server's live traffic is analysed ({@code observe}). */
    public boolean observing() {
        return analysis != null;
    }

    /** Times the analysis of live traffic triggered its {@code on-error} ({@code hanafail}). */
    public long analysisFailures() {
        return analysisFailures;
    }

    /** HAProxy's {@code srv_check_state} bits: configured (2), enabled (4), paused (8), in progress (1). */
    @Override
    public int stateBits() {
        return 2 | (enabled ? 4 : 0) | (paused ? 8 : 0) | (running ? 1 : 0);
    }

    /** Where the checks connect: {@code addr}/{@code port} (or their admin overrides), else the server's address. */
    @Override
    public InetSocketAddress target() {
        InetSocketAddress srv = server.address();
        InetAddress ip = addrOverride != null ? addrOverride
                : config.addr() != null ? Addresses.literal(config.addr()) : srv.getAddress();
        int port = portOverride > 0 ? portOverride : config.port() > 0 ? config.port() : srv.getPort();
        return new InetSocketAddress(ip, port);
    }

    /** A server on a UNIX socket is checked there, unless {@code addr} (or {@code set server ... check-addr}) says elsewhere. */
    @Override
    public java.net.SocketAddress unixTarget() {
        return server.unix() && addrOverride == null && config.addr() == null ? transport.domainAddress(server.config().unixPath()) : null;
    }

    /** The check port shown by {@code show servers state}: the configured or set one, 0 when checks use the server's. */
    @Override
    public int checkPort() {
        return portOverride > 0 ? portOverride : config.port();
    }

    /** The check address shown by {@code show servers state}, null when checks use the server's. */
    @Override
    public String checkAddr() {
        InetAddress a = addrOverride;
        return a != null ? a.getHostAddress() : config.addr();
    }

    /** Whether checks speak TLS: {@code check-ssl}, or the server's {@code ssl} when checks go to the server's own address. */
    @Override
    public boolean tls() {
        return server.tls() != null && (config.ssl() || toServerItself());
    }

    /** Whether checks go to the server's own address and port (no {@code port}/{@code addr}, in the configuration or set since). */
    private boolean toServerItself() {
        return !config.redirected() && portOverride == 0 && addrOverride == null;
    }

    /**
     * The PROXY protocol version a check's connection starts with (0: none): {@code check-send-proxy}, or the server's
     * {@code send-proxy}/{@code send-proxy-v2} when checks go to the server's own address, as in HAProxy; v1 when
     * {@code check-send-proxy} is set on a server that sends none.
     */
    @Override
    public int proxyHeaderVersion() {
        int v = server.config().proxyVersion();
        if (config.sendProxy()) {
            return v != 0 ? v : 1;
        }
        return toServerItself() ? v : 0;
    }

    /** The SNI of a TLS check: {@code check-sni}, else none (HAProxy sends none by default). */
    @Override
    public String sni() {
        return config.sni();
    }

    /** HAProxy's server state as checks see it: {@code UP}, {@code UP 1/3}, {@code NOLB}, {@code DOWN 1/2}, {@code DOWN}. */
    public String stateText() {
        int h = health;
        if (server.up()) {
            String word = server.stopping() ? "NOLB" : "UP";
            return h == rise + fall - 1 ? word : word + " " + (h - rise + 1) + "/" + fall;
        }
        return h > 0 ? "DOWN " + h + "/" + rise : "DOWN";
    }

    // ------------------------------------------------------------------ schedule

    /** Starts checking after {@code delayMs} (the runtime spreads the first checks of all servers over an interval). */
    public void start(long delayMs) {
        timer.start(delayMs);
    }

    /** How long until this check's next run (0: running or due); see {@link CheckTimer#remainingMs}. Any thread. */
    public long remainingMs() {
        return timer.remainingMs();
    }

    /**
     * Starts the checks of a runtime: the first ones spread over the shortest interval in declaration order, as HAProxy;
     * after an in-process reload a check whose server was checked by the previous configuration keeps that check's
     * rhythm instead ({@code previous}: its next run, in ms from now, by "backend/server"; at most the new interval).
     */
    public static void startAll(List<HealthCheck> checks, List<AgentCheck> agents, Map<String, Long> previousChecks,
            Map<String, Long> previousAgents) {
        long minInter = checks.stream().mapToLong(c -> c.server().config().check().inter()).min().orElse(0);
        for (int i = 0; i < checks.size(); i++) {
            HealthCheck c = checks.get(i);
            Long left = previousChecks.get(key(c.server()));
            c.start(left != null ? Math.min(left, c.server().config().check().inter()) : minInter * i / checks.size());
        }
        for (int i = 0; i < agents.size(); i++) {
            AgentCheck a = agents.get(i);
            long inter = a.server().config().check().inter();
            Long left = previousAgents.get(key(a.server()));
            a.start(left != null ? Math.min(left, inter) : inter * i / agents.size());
        }
    }

    /** When the health checks of a runtime being replaced run next, by "backend/server", for {@link #startAll}. */
    public static Map<String, Long> schedule(List<HealthCheck> checks) {
        return schedule(checks, HealthCheck::server, HealthCheck::remainingMs);
    }

    /** The same for agent checks. */
    public static Map<String, Long> agentSchedule(List<AgentCheck> agents) {
        return schedule(agents, AgentCheck::server, AgentCheck::remainingMs);
    }

    private static <T> Map<String, Long> schedule(List<T> checks, java.util.function.Function<T, Server> server,
            java.util.function.ToLongFunction<T> remaining) {
        Map<String, Long> m = new HashMap<>();
        for (T c : checks) {
            m.put(key(server.apply(c)), remaining.applyAsLong(c));
        }
        return m;
    }

    static String key(Server s) {
        return s.backend().name() + "/" + s.name();
    }

    /** Stops checking; a check in progress is abandoned. Any thread. */
    public void stop() {
        timer.stop();
    }

    private void abandon() {
        if (current != null) {
            current.abandon();
            current = null;
        }
    }

    private void run() {
        if (!enabled || paused) {
            schedule();
            return;
        }
        var external = server.backend().config().checks().external();
        begin(external != null ? new ExternalCheckRun(this, external)
                : plan.tcp() != null ? new TcpCheckRun(this)
                : plan.httpSteps() != null ? new HttpCheckChain(this, plan.httpSteps())
                : new CheckRun(this, plan.http() ? plan.request(this) : null));
    }

    /** Starts {@code attempt} as the current check (tests start one directly). On the loop. */
    void begin(CheckAttempt attempt) {
        running = true;
        startNanos = System.nanoTime();
        reported = false;
        current = attempt;
        current.start();
    }

    /** Elapsed milliseconds since the current check started. */
    long elapsedMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /**
     * The current check reports {@code outcome} before it ends (HAProxy's set_server_check_status called by a protocol
     * parser): applied at once, the duration taken now; the end applies its own outcome again. On the loop.
     */
    @Override
    public void interim(CheckAttempt run, Expectations.Outcome outcome) {
        if (run != current || timer.stopped()) {
            return;
        }
        duration = elapsedMs();
        reported = true;
        if (enabled && !paused) {
            apply(outcome.status(), outcome.code(), outcome.desc());
        }
    }

    /** The current check ended with {@code outcome}; on the loop. */
    @Override
    public void completed(CheckAttempt run, Expectations.Outcome outcome) {
        if (run != current) {
            return;
        }
        current = null;
        running = false;
        if (timer.stopped()) {
            return;
        }
        if (!reported) {
            duration = elapsedMs();
        }
        if (enabled && !paused) {
            apply(outcome.status(), outcome.code(), outcome.desc());
        }
        schedule();
    }

    private void schedule() {
        timer.after(interval());
    }

    /** HAProxy's srv_getinter: inter when fully up, downinter when fully down, fastinter in between. */
    long interval() {
        int h = health;
        return config.interval(h == rise + fall - 1, !server.up() && h == 0);
    }

    // ------------------------------------------------------------------ results

    /** A check that took {@code durationMs} ended with {@code o} (tests drive the state machine through this). On the loop. */
    void record(Expectations.Outcome o, long durationMs) {
        duration = durationMs;
        apply(o.status(), o.code(), o.desc());
    }

    /** Applies a check result to the health counter and the server's state, with HAProxy's log lines. On the loop. */
    void apply(CheckStatus st, int httpCode, String description) {
        CheckStatus prev = status;
        status = st;
        code = httpCode;
        desc = description == null ? "" : description;
        boolean report = false;
        int h = health;
        switch (st.result()) {
            case FAILED -> {
                if (h > 0) {
                    failures++;
                    report = true;
                    h--;
                    if (h < rise) {
                        h = 0;
                    }
                }
            }
            case PASSED, CONDPASS -> {
                if (analysis != null) {
                    analysis.reset();
                }
                if (h < rise + fall - 1 && (st.result() == CheckStatus.Result.PASSED || h > 0)) {
                    report = true;
                    h++;
                    if (h >= rise) {
                        h = rise + fall - 1;
                    }
                }
            }
            default -> {
            }
        }
        health = h;
        boolean log = plan.logsEveryCheck();
        if (log && (st != prev || report)) {
            String line = "Health check for " + (server.backup() ? "backup " : "") + "server " + server.backend().name() + "/" + server.name()
                    + " " + (st.result() == CheckStatus.Result.CONDPASS ? "conditionally " : "")
                    + (st.result() == CheckStatus.Result.FAILED ? "failed" : "succeeded") + reason() + ", status: "
                    + (h >= rise ? (h - rise + 1) + "/" + fall + " " + (server.weight() > 0 ? "UP" : "DRAIN") : h + "/" + rise + " DOWN") + ".";
            server.backend().events().report(ServerEvents.NOTICE, line, null, ServerEvents.INFO);
        }
        if (server.maintenance() || (server.adminState() & Server.FORCED_MAINT) != 0) {
            return;
        }
        String why = log ? "" : reason();
        switch (st.result()) {
            case FAILED -> {
                if (h == 0 && server.up()) {
                    int level = server.stopping() ? ServerEvents.NOTICE : ServerEvents.ALERT;
                    server.checkedState(false, false, n -> server.backend().events().report(level,
                            ServerEvents.name(server) + " is DOWN" + why + ServerEvents.tail(server, true, n) + ".", null, level));
                }
            }
            case PASSED -> {
                if (h >= rise && (!server.up() || server.stopping()) && !server.agentDown()) {
                    server.checkedState(true, false, n -> server.backend().events().report(ServerEvents.NOTICE,
                            ServerEvents.name(server) + " is UP" + why + ServerEvents.tail(server, false, n) + ".", null, ServerEvents.NOTICE));
                }
            }
            case CONDPASS -> {
                if (h >= rise && !server.stopping() && !server.agentDown()) {
                    server.checkedState(true, true, n -> server.backend().events().report(ServerEvents.NOTICE,
                            ServerEvents.name(server) + " is stopping" + why + ServerEvents.tail(server, false, n) + ".", null));
                }
            }
            default -> {
            }
        }
    }

    // ------------------------------------------------------------------ live traffic (observe)

    /** What a stream saw of the server. Any thread. */
    @Override
    public void observed(TrafficEvent event) {
        TrafficAnalysis a = analysis;
        if (a != null) {
            a.observed(event);
        }
    }

    /**
     * {@code errors} consecutive errors, the last one {@code last}, reached {@code error-limit}: HAProxy's on-error, as
     * __health_adjust applies it (a check status HANA, "Detected N consecutive errors, last one was: ...", with no
     * duration, for every mode but fastinter; sudden-death leaves a single failure before DOWN, mark-down none), then the
     * next check within {@code fastinter} when one is set. On the loop.
     */
    void analysisFailed(int errors, TrafficEvent last) {
        if (timer.stopped()) {
            return;
        }
        String msg = "Detected " + errors + " consecutive errors, last one was: " + last.description();
        switch (analysis.config().onError()) {
            case FASTINTER -> {
            }
            case SUDDEN_DEATH -> {
                if (health > rise) {
                    health = rise + 1;
                }
                analyzed(msg);
            }
            case FAIL_CHECK -> analyzed(msg);
            case MARK_DOWN -> {
                health = rise;
                analyzed(msg);
            }
        }
        analysisFailures++;
        if (config.fastinter() > 0) {
            timer.sooner(config.fastinter());
        }
    }

    private void analyzed(String msg) {
        duration = -1;
        apply(CheckStatus.HANA, 0, msg);
    }

    /** {@code , reason: Layer7 wrong status, code: 500, info: "Internal Error", check duration: 1ms}. */
    String reason() {
        StringBuilder b = new StringBuilder(96).append(", reason: ").append(status.description());
        if (status.hasCode()) {
            b.append(", code: ").append(code);
        }
        String d = desc;
        if (!d.isEmpty()) {
            b.append(", info: \"");
            asciiEncode(b, d);
            b.append('"');
        }
        if (duration >= 0) {
            b.append(", check duration: ").append(duration).append("ms");
        }
        return b.toString();
    }

    /** HAProxy's chunk_asciiencode with '"' escaped: control and 8-bit bytes as \xHH, the quote as \". */
    static void asciiEncode(StringBuilder b, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 32 || c > 126 || c == '"' || c == '\\') {
                if (c == '"' || c == '\\') {
                    b.append('\\').append(c);
                } else {
                    b.append("\\x").append(Character.forDigit((c >> 4) & 0xf, 16)).append(Character.forDigit(c & 0xf, 16));
                }
            } else {
                b.append(c);
            }
        }
    }

    // ------------------------------------------------------------------ admin

    /**
     * {@code set server ... health up|stopping|down}: the counter goes to fully up or to 0, as HAProxy's CLI sets it.
     * Any thread.
     */
    @Override
    public void forceHealth(boolean up) {
        loop.execute(() -> health = up ? rise + fall - 1 : 0);
    }

    /**
     * A server state file's health counter, last status and enabled flag, before the checks start: the status and the flag
     * at once, the counter on the check's loop, after the maintenance change queued before it (which sets the counter too).
     */
    @Override
    public void restore(int health, int status, boolean enabled) {
        for (CheckStatus x : CheckStatus.values()) {
            if (x.code() == status) {
                this.status = x;
            }
        }
        this.enabled = enabled;
        loop.execute(() -> this.health = Math.max(0, Math.min(health, rise + fall - 1)));
    }

    /**
     * {@code enable|disable health}. Any thread; visible at once (a volatile write), so that the next command sees it, as
     * in HAProxy ({@code show servers state} written to a state file right after, for one).
     */
    @Override
    public void enabled(boolean on) {
        enabled = on;
    }

    /** {@code set server ... check-port}. Any thread. */
    @Override
    public void port(int port) {
        portOverride = port;
    }

    /** {@code set server ... check-addr}. Any thread. */
    @Override
    public void addr(InetAddress addr) {
        addrOverride = addr;
    }

    /**
     * The server entered ({@code true}) or left maintenance: checks pause, the counter drops to 0; leaving, the server
     * starts UP with the counter at {@code rise}, so the first failed check takes it down (HAProxy's "UP/READY (leaving
     * forced maintenance)"). Any thread: the state shows at once (the admin command that set it answers after it, as
     * {@code show servers state} right after it expects), and is set again on the loop, after any check result that was
     * being applied there when it changed.
     */
    @Override
    public void maintenance(boolean on) {
        paused = on;
        health = on ? 0 : rise;
        loop.execute(() -> {
            paused = on;
            health = on ? 0 : rise;
        });
    }
}
