package dev.sluice.config;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.Balance;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Captures;
import dev.sluice.config.model.Compression;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.Cookie;
import dev.sluice.config.model.EmailAlert;
import dev.sluice.config.model.ErrorPages;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.HashType;
import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.LogFormat;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.Logging;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Monitor;
import dev.sluice.config.model.Persist;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.config.model.ProxyOptions;
import dev.sluice.config.model.ServerStateFiles;
import dev.sluice.config.model.Retries;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.StickRule;
import dev.sluice.config.model.StickTableDecl;
import dev.sluice.config.model.TcpRules;
import dev.sluice.config.model.Timeouts;
import dev.sluice.config.model.UseBackend;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mutable state of one proxy or defaults section while it is being parsed. A proxy starts as a copy
 * of the defaults section in force; {@link #build} freezes it into a {@link Proxy}. Parse-time only.
 */
public final class ProxyBuilder {
    public final Section section;
    public final String name;
    public final SourceRef where;
    /** The {@code default-path} directory the section's lines were read in (null: the start directory). */
    String directory;

    public Mode mode;
    public final List<Bind> binds = new ArrayList<>();
    /** The TLS options given on each bind line, parallel to {@link #binds}; resolved after parsing. */
    final List<TlsOptions> bindOptions = new ArrayList<>();
    public int maxconn;
    /** {@code backlog}: the listen queue of the binds that set none (0: the default). */
    int backlog;
    public long timeoutClient = Timeouts.UNSET;
    public long timeoutServer = Timeouts.UNSET;
    public long timeoutConnect = Timeouts.UNSET;
    public long timeoutHttpRequest = Timeouts.UNSET;
    public long timeoutHttpKeepAlive = Timeouts.UNSET;
    public long timeoutTunnel = Timeouts.UNSET;
    /** {@code timeout client-fin} and {@code server-fin}. */
    public long timeoutClientFin = Timeouts.UNSET;
    public long timeoutServerFin = Timeouts.UNSET;
    public long timeoutQueue = Timeouts.UNSET;
    public Retries retries = Retries.DEFAULT;
    public long timeoutTarpit = Timeouts.UNSET;
    public long timeoutCheck = Timeouts.UNSET;
    /** Health checks: {@code option httpchk}, {@code http-check ...}, {@code option log-health-checks}. */
    CheckKeywords.Builder checks = new CheckKeywords.Builder();
    boolean clientTcpKeepAlive;
    boolean serverTcpKeepAlive;
    long poolPurgeDelay = HttpOptions.DEFAULT_POOL_PURGE_DELAY_MS;
    public HttpOptions.ConnectionMode connectionMode = HttpOptions.ConnectionMode.KEEP_ALIVE;
    public boolean acceptInvalidRequest;
    public HttpOptions.Reuse reuse = HttpOptions.Reuse.SAFE;
    /** {@code compression algo}, {@code type} and {@code offload}. */
    final List<String> compAlgos = new ArrayList<>();
    /** {@code email-alert ...}, inherited from defaults. */
    MailersKeywords.Alert emailAlert = new MailersKeywords.Alert();
    /** The email alerts after the mailers section was looked up (null: none); set before {@link #build}. */
    EmailAlert emailAlertResolved;
    /** {@code description} (null: none; not passed on by defaults, as in HAProxy). */
    String description;
    final List<String> compTypes = new ArrayList<>();
    boolean compOffload;
    /** {@code filter compression} was declared (once per proxy). */
    boolean compressionFilter;
    /** The filters in declaration order: compression and caches, explicit or declared by a cache rule. */
    final List<CacheKeywords.Filter> filters = new ArrayList<>();
    /** {@code use-fcgi-app} or {@code filter fcgi-app}: the application's name (null: none) and where it was named. */
    String fcgiApp;
    SourceRef fcgiAppWhere;
    /** The application once all sections are read ({@link FcgiAppKeywords#resolve}). */
    dev.sluice.config.model.FcgiApp fcgiResolved;
    public HttpOptions.ForwardFor forwardFor;
    /** {@code option originalto}, null when off. */
    public HttpOptions.ForwardFor originalTo;
    boolean useProxyHeader;
    long h3AltSvcMaxAge = -1;
    public final List<Acl> acls = new ArrayList<>();
    public final List<HttpRule> httpRequestRules = new ArrayList<>();
    /** {@code redirect} lines: HAProxy runs them after every http-request rule of the proxy. */
    final List<HttpRule> redirectRules = new ArrayList<>();
    public final List<HttpRule> httpResponseRules = new ArrayList<>();
    public final List<HttpRule> httpAfterResponseRules = new ArrayList<>();
    public StickTableDecl stickTable;
    public final List<StickRule> stickRules = new ArrayList<>();
    public final List<HttpRule> tcpRequestConnectionRules = new ArrayList<>();
    public final List<HttpRule> tcpRequestSessionRules = new ArrayList<>();
    public final List<HttpRule> tcpRequestContentRules = new ArrayList<>();
    public final List<HttpRule> tcpResponseContentRules = new ArrayList<>();
    /** {@code tcp-request inspect-delay} and {@code tcp-response inspect-delay} in milliseconds (0: none). */
    long tcpInspectDelay;
    long tcpResponseInspectDelay;
    /**
     * The named defaults section whose tcp-request/tcp-response rules this proxy runs before its own (HAProxy 2.6: rules of
     * a defaults section are not copied but referenced), null when the defaults it inherits has no rules.
     */
    ProxyBuilder rulesDefaults;
    /** On a defaults section with rules: the kind of the first proxy that used it (frontends and backends cannot share it). */
    Section rulesUsedBy;
    /** The {@code option httplog} line in force (null when another format replaced it): a TCP frontend falls back to tcplog. */
    SourceRef httplogWhere;
    /** {@code option splice-auto|splice-request|splice-response}. */
    final Set<ProxyOptions.Splice> splice = EnumSet.noneOf(ProxyOptions.Splice.class);
    /** {@code option persist}, inherited from defaults. */
    boolean persistDown;
    /** {@code force-persist} / {@code ignore-persist}, in order (not in defaults). */
    final List<Persist.Rule> persistRules = new ArrayList<>();
    /** {@code persist rdp-cookie}'s cookie name, inherited from defaults; null when not set. */
    String rdpPersistCookie;
    /** {@code http-send-name-header}, lower case, inherited from defaults; null when not set. */
    String sendNameHeader;
    /** {@code option http-buffer-request}: where it was set (inherited from defaults), null when off. */
    SourceRef bufferRequest;
    public final List<UseBackend> useBackends = new ArrayList<>();
    /** The {@code use-server} rules, in order (a frontend's are ignored, with HAProxy's warning). */
    public final List<dev.sluice.config.model.UseServer> useServers = new ArrayList<>();
    public String defaultBackend;
    public SourceRef defaultBackendWhere;
    public Balance balance = Balance.DEFAULT;
    /** {@code hash-type} and {@code option allbackups}, folded into {@link #balance} when built. */
    public HashType hashType = HashType.DEFAULT;
    public boolean allBackups;
    /** {@code cookie} (null: none), its attributes as they piled up over the lines, and {@code dynamic-cookie-key}. */
    Cookie cookie;
    String cookieAttrs;
    String dynamicCookieKey;
    /** {@code option prefer-last-server}. */
    boolean preferLastServer;
    /** {@code load-server-state-from-file} (null: not set, none). */
    ServerStateFiles.From serverStateFrom;
    /** {@code server-state-file-name} (null: the backend's name); not inherited from defaults, as in HAProxy. */
    String serverStateFileName;
    /** {@code fullconn} (0: HAProxy's default). */
    int fullconn;
    /** {@code option abortonclose}. */
    boolean abortOnClose;
    /** {@code option contstats}. */
    boolean contStats;
    /** {@code option http-ignore-probes}. */
    boolean ignoreProbes;
    /** {@code option socket-stats}. */
    boolean socketStats;
    /** {@code option http-restrict-req-hdr-names}; null: not set. */
    ProxyOptions.HeaderNames headerNames;
    /** {@code dispatch} ("host:port"; null: none) and {@code option transparent}. */
    String dispatch;
    boolean transparent;
    public final List<Server> servers = new ArrayList<>();
    /** The TLS options of each server line, parallel to {@link #servers}; resolved after parsing. */
    final List<TlsOptions> serverOptions = new ArrayList<>();
    /** The TLS options of {@code default-server}. */
    TlsOptions defaultServerTls = new TlsOptions();
    /** Logging: own {@code log} lines, {@code log global}, format and options. */
    final List<LogTarget> logs = new ArrayList<>();
    boolean logGlobal;
    LogFormat logFormat;
    boolean dontLogNull;
    boolean logSeparateErrors;
    boolean dontLogNormal;
    String logTag;
    SourceRef logFormatWhere;
    boolean logAsap;
    LogFormat uniqueIdFormat;
    SourceRef uniqueIdWhere;
    String uniqueIdHeader;
    /** Capture slots in declaration order (frontends only; not inherited from defaults, as HAProxy). */
    final List<Captures.Slot> requestCaptures = new ArrayList<>();
    final List<Captures.Slot> responseCaptures = new ArrayList<>();
    Captures.Cookie captureCookie;
    /** {@code errorfile}/{@code errorfiles} pages by status. */
    final Map<Integer, byte[]> errorPages = new HashMap<>();
    /** {@code http-error} replies built when the error happens (the arguments of a return), by status. */
    final Map<Integer, List<String>> errorReplies = new HashMap<>();
    /** The {@code stats} keywords of the HTML page. */
    final StatsPageBuilder stats = new StatsPageBuilder();

    /** {@code monitor-uri} (null when unset) and the {@code monitor fail} conditions. */
    String monitorUri;
    final List<Condition> monitorFail = new ArrayList<>();
    /** {@code default-server} values. */
    ServerParams defaultServer = new ServerParams();

    public ProxyBuilder(Section section, String name, SourceRef where) {
        this.section = section;
        this.name = name;
        this.where = where;
    }

    /** Copies what a defaults section passes on to the proxies that follow it. */
    public void inherit(ProxyBuilder d) {
        mode = d.mode;
        maxconn = d.maxconn;
        backlog = d.backlog;
        timeoutClient = d.timeoutClient;
        timeoutServer = d.timeoutServer;
        timeoutConnect = d.timeoutConnect;
        timeoutHttpRequest = d.timeoutHttpRequest;
        timeoutHttpKeepAlive = d.timeoutHttpKeepAlive;
        timeoutTunnel = d.timeoutTunnel;
        timeoutClientFin = d.timeoutClientFin;
        timeoutServerFin = d.timeoutServerFin;
        tcpInspectDelay = d.tcpInspectDelay;
        tcpResponseInspectDelay = d.tcpResponseInspectDelay;
        httplogWhere = d.httplogWhere;
        splice.addAll(d.splice);
        persistDown = d.persistDown;
        rdpPersistCookie = d.rdpPersistCookie;
        sendNameHeader = d.sendNameHeader;
        bufferRequest = d.bufferRequest;
        timeoutQueue = d.timeoutQueue;
        retries = d.retries;
        timeoutTarpit = d.timeoutTarpit;
        timeoutCheck = d.timeoutCheck;
        checks = d.checks.copy();
        clientTcpKeepAlive = d.clientTcpKeepAlive;
        serverTcpKeepAlive = d.serverTcpKeepAlive;
        poolPurgeDelay = d.poolPurgeDelay;
        connectionMode = d.connectionMode;
        acceptInvalidRequest = d.acceptInvalidRequest;
        reuse = d.reuse;
        compAlgos.addAll(d.compAlgos);
        compTypes.addAll(d.compTypes);
        compOffload = d.compOffload;
        forwardFor = d.forwardFor;
        originalTo = d.originalTo;
        useProxyHeader = d.useProxyHeader;
        h3AltSvcMaxAge = d.h3AltSvcMaxAge;
        defaultBackend = d.defaultBackend;
        defaultBackendWhere = d.defaultBackendWhere;
        balance = d.balance;
        hashType = d.hashType;
        allBackups = d.allBackups;
        cookie = d.cookie;
        cookieAttrs = d.cookieAttrs;
        dynamicCookieKey = d.dynamicCookieKey;
        preferLastServer = d.preferLastServer;
        serverStateFrom = d.serverStateFrom;
        fullconn = d.fullconn;
        abortOnClose = d.abortOnClose;
        contStats = d.contStats;
        ignoreProbes = d.ignoreProbes;
        headerNames = d.headerNames;
        transparent = d.transparent;
        socketStats = d.socketStats;
        defaultServer = d.defaultServer.copy();
        defaultServerTls = d.defaultServerTls.copy();
        logs.addAll(d.logs);
        logGlobal = d.logGlobal;
        logFormat = d.logFormat;
        dontLogNull = d.dontLogNull;
        logSeparateErrors = d.logSeparateErrors;
        dontLogNormal = d.dontLogNormal;
        logTag = d.logTag;
        logFormatWhere = d.logFormatWhere;
        logAsap = d.logAsap;
        uniqueIdFormat = d.uniqueIdFormat;
        uniqueIdWhere = d.uniqueIdWhere;
        uniqueIdHeader = d.uniqueIdHeader;
        errorPages.putAll(d.errorPages);
        errorReplies.putAll(d.errorReplies);
        monitorUri = d.monitorUri;
        stats.copyFrom(d.stats);
        emailAlert = d.emailAlert.copy();
    }

    public ProxyKind kind() {
        return switch (section) {
            case FRONTEND -> ProxyKind.FRONTEND;
            case BACKEND -> ProxyKind.BACKEND;
            case LISTEN -> ProxyKind.LISTEN;
            default -> throw new IllegalStateException(section + " is not a proxy");
        };
    }

    public Proxy build(Global global) {
        List<LogTarget> targets = new ArrayList<>(logs);
        if (logGlobal) {
            targets.addAll(global.logs());
        }
        // HAProxy: 'option httplog' in a TCP frontend falls back to 'option tcplog' (ModeChecks warns)
        LogFormat format = effectiveMode() == Mode.TCP && tcplogFallback() ? LogFormats.parse(LogFormats.TCPLOG) : logFormat;
        Logging logging = new Logging(targets, format, dontLogNull, logSeparateErrors,
                dontLogNormal, logTag != null ? logTag : global.logTag(), format == null || format != logFormat ? null : logFormatWhere,
                new Captures(requestCaptures, responseCaptures, captureCookie), logAsap, uniqueIdFormat, uniqueIdWhere,
                uniqueIdHeader);
        return build(logging, global.tune().compMaxLevel(), global.process().insecureForkWanted());
    }

    /**
     * The servers with their ids: a server without {@code id} gets the first free id at or after its rank
     * counter, which starts at 1 and moves on by one per server, as HAProxy numbers them.
     */
    static List<Server> withIds(List<Server> servers) {
        Set<Integer> used = new HashSet<>();
        for (Server s : servers) {
            if (s.id() > 0) {
                used.add(s.id());
            }
        }
        List<Server> out = new ArrayList<>(servers.size());
        int next = 1;
        for (Server s : servers) {
            if (s.id() > 0) {
                out.add(s);
            } else {
                while (used.contains(next)) {
                    next++;
                }
                used.add(next);
                out.add(s.withId(next));
            }
            next++;
        }
        return out;
    }

    private Proxy build(Logging logging, int compressionLevel, boolean forkAllowed) {
        ProxyKind kind = kind();
        Timeouts timeouts = new Timeouts(timeoutClient, timeoutServer, timeoutConnect, timeoutHttpRequest, timeoutHttpKeepAlive,
                timeoutQueue, timeoutTunnel, timeoutClientFin, timeoutServerFin, timeoutCheck, timeoutTarpit);
        Mode effective = effectiveMode();
        return new Proxy(name, kind, where, effective,
                kind.hasFrontend() ? binds.stream().map(b -> b.withDefaultBacklog(backlog)).toList() : List.of(),
                kind.hasFrontend() ? maxconn : 0,
                timeouts,
                new HttpOptions(connectionMode, forwardFor, acceptInvalidRequest, useProxyHeader, reuse, clientTcpKeepAlive, serverTcpKeepAlive,
                        poolPurgeDelay, h3AltSvcMaxAge, compAlgos.isEmpty() && compTypes.isEmpty() && !compOffload ? null
                                : new Compression(compAlgos, compTypes, compOffload, compressionLevel), originalTo),
                acls, requestRules(), httpResponseRules,
                httpAfterResponseRules,
                kind.hasFrontend() ? useBackends : List.of(),
                kind.hasFrontend() ? defaultBackend : null,
                effective == Mode.TCP && needsHttp(balance) ? Balance.of(Balance.Algorithm.ROUNDROBIN, balance.where()).with(hashType, allBackups)
                        : balance.with(hashType, allBackups),
                kind.hasBackend() ? withIds(servers) : List.of(),
                logging,
                new ErrorPages(errorPages, errorReplies),
                stickTable,
                tcpRules(kind),
                kind.hasFrontend() ? new Monitor(monitorUri, monitorFail)
                        : Monitor.NONE,
                kind.hasBackend() ? stickRules : List.of(),
                stats.build(),
                retries,
                kind.hasBackend() ? checks.build(forkAllowed) : HealthChecks.NONE,
                kind.hasBackend() && cookie != null ? cookie.withDynamicKey(dynamicCookieKey) : null,
                new ProxyOptions(kind.hasBackend() && preferLastServer, kind.hasBackend() ? fullconn : 0,
                        kind.hasBackend() && abortOnClose, kind.hasFrontend() && contStats,
                        kind.hasFrontend() && ignoreProbes, splice,
                        kind.hasBackend() ? new Persist(persistDown, persistRules, rdpPersistCookie)
                                : Persist.NONE,
                        kind.hasBackend() ? sendNameHeader : null, serverStateLoad(), kind.hasFrontend() && socketStats, headerNames,
                        serverless() ? dispatch : null, serverless() && dispatch == null && transparent),
                description, directory, kind.hasBackend() ? useServers : List.of(), emailAlertResolved,
                kind.hasBackend() ? fcgiResolved : null);
    }

    /**
     * Whether {@code dispatch} or {@code option transparent} decide where requests go: only in a backend without a
     * balance algorithm (HAProxy: "ignored in balance mode"; dispatch wins over transparent).
     */
    private boolean serverless() {
        return kind().hasBackend() && balance == Balance.DEFAULT && (dispatch != null || transparent);
    }

    /** {@code load-server-state-from-file} with its file name, as a backend sees it. */
    private ServerStateFiles.Load serverStateLoad() {
        if (!kind().hasBackend() || serverStateFrom == null || serverStateFrom == ServerStateFiles.From.NONE) {
            return ServerStateFiles.Load.NONE;
        }
        return new ServerStateFiles.Load(serverStateFrom, serverStateFileName);
    }

    /**
     * The http-request rules, the redirects after them; with {@code option http-buffer-request}, a wait for the body
     * first (HAProxy's AN_REQ_HTTP_BODY analyser comes before the proxy's http-request rules): the whole body or a
     * buffer's worth, until {@code timeout http-request} (else {@code timeout client}), then 408.
     */
    private List<HttpRule> requestRules() {
        List<HttpRule> rules = redirectRules.isEmpty() ? httpRequestRules : concat(httpRequestRules, redirectRules);
        if (bufferRequest == null || effectiveMode() != Mode.HTTP) {
            return rules;
        }
        long ms = timeoutHttpRequest > 0 ? timeoutHttpRequest : timeoutClient > 0 ? timeoutClient : 86_400_000L;
        return concat(List.of(new HttpRule.Action(bufferRequest, null, "wait-for-body", List.of("time", ms + "ms"))), rules);
    }

    /** The mode in force: HAProxy's default is tcp. */
    Mode effectiveMode() {
        return mode == null ? Mode.TCP : mode;
    }

    /** Whether this frontend's format is {@code option httplog}'s, which a TCP frontend replaces with tcplog's. */
    boolean tcplogFallback() {
        return httplogWhere != null && kind().hasFrontend() && logFormat != null;
    }

    /** HAProxy's algorithms that read the HTTP request: a TCP backend falls back to roundrobin (ModeChecks warns). */
    static boolean needsHttp(Balance b) {
        return b.algorithm() == Balance.Algorithm.URI || b.algorithm() == Balance.Algorithm.URL_PARAM || b.algorithm() == Balance.Algorithm.HDR;
    }

    private TcpRules tcpRules(ProxyKind kind) {
        ProxyBuilder d = rulesDefaults;
        return new TcpRules(kind.hasFrontend() ? withDefaults(d == null ? null : d.tcpRequestConnectionRules, tcpRequestConnectionRules) : List.of(),
                kind.hasFrontend() ? withDefaults(d == null ? null : d.tcpRequestSessionRules, tcpRequestSessionRules) : List.of(),
                withDefaults(d == null ? null : d.tcpRequestContentRules, tcpRequestContentRules), tcpInspectDelay,
                kind.hasBackend() ? withDefaults(d == null ? null : d.tcpResponseContentRules, tcpResponseContentRules) : List.of(),
                kind.hasBackend() ? tcpResponseInspectDelay : 0);
    }

    private static List<HttpRule> withDefaults(List<HttpRule> inherited, List<HttpRule> own) {
        return inherited == null || inherited.isEmpty() ? own : concat(inherited, own);
    }

    /** Whether this (defaults) section has tcp-request or tcp-response rules, which proxies then reference. */
    boolean hasTcpRules() {
        return !tcpRequestConnectionRules.isEmpty() || !tcpRequestSessionRules.isEmpty() || !tcpRequestContentRules.isEmpty()
                || !tcpResponseContentRules.isEmpty();
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
