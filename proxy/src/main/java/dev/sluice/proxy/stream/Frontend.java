package dev.sluice.proxy.stream;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.config.model.Timeouts;
import dev.sluice.config.model.Tune;
import dev.sluice.pools.Budget;
import dev.sluice.proxy.auth.Userlists;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.h1.ErrorResponses;
import dev.sluice.proxy.http.h1.H1Limits;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.ListenerCounters;
import dev.sluice.proxy.log.AccessLog;
import dev.sluice.proxy.log.CapturePlan;
import dev.sluice.proxy.rules.Cond;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.cache.Caches;
import dev.sluice.proxy.cache.HttpCache;
import dev.sluice.proxy.rules.PageService;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.Service;
import dev.sluice.proxy.rules.Template;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.proxy.stats.ErrorCapture;
import dev.sluice.proxy.stats.H2Counters;
import dev.sluice.proxy.transport.Workers;
import io.netty.channel.Channel;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A frontend at run time: its rules, where its requests go, its timeouts and limits, and its counters.
 * Built from the configuration, then completed before it accepts connections by the setters the runtime calls
 * (alt-svc, stats page, services, stream budget, userlists); from then on only its counters and last error change.
 * Shared by every connection it accepts.
 */
public final class Frontend {
    private final java.util.List<dev.sluice.proxy.listener.ListenerCounters> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Proxy config;
    private final Workers workers;
    private final LiveStreams streams;
    private final ProxyRules rules;
    private final Map<String, Backend> backends;
    private final Backend defaultBackend;
    private final ConnectionLimit limit;
    private final H1Limits h1Limits;
    private final ForwardFor forwardFor;
    /** {@code option originalto}, or null. */
    private final ForwardFor originalTo;
    private final AccessLog accessLog;
    private final CapturePlan captures;
    private final ErrorResponses errors;
    private final AsciiString monitorUri;
    /** {@code unique-id-format} compiled (null: none) and the {@code unique-id-header} it goes in (null: none). */
    private final Template uniqueIdFormat;
    private final AsciiString uniqueIdHeader;
    private Userlists userlists = Userlists.NONE;
    private Budget streamBudget;
    /** TLS handshakes completed, of which resumed, and failed (HAProxy's ssl_sess, ssl_reused_sess, ssl_failed_handshake). */
    LongAdder tlsSessions = new LongAdder();
    LongAdder tlsReused = new LongAdder();
    LongAdder tlsFailures = new LongAdder();
    private Counters counters = new Counters();
    private H2Counters h2 = new H2Counters();
    /** The frontend of the same name in the configuration loaded after this one's (in-process reload), or null. */
    private volatile Frontend successor;
    /** The client connections of this frontend's generation, until they close or move to a successor's. */
    private io.netty.channel.group.ChannelGroup clients;
    private final int id;
    private volatile boolean stopped;
    private AsciiString altSvc;
    private Tune tune = Tune.DEFAULT;
    private HttpHandoff httpHandoff;
    /** The {@code tcp-request session} rules, or null. */
    private final ConnectionRules sessionRules;
    private ProcScope process = new ProcScope();

    public Frontend(Proxy config, int id, Workers workers, LiveStreams streams, ProxyRules rules, Map<String, Backend> backends, Backend defaultBackend,
            ConnectionLimit limit, H1Limits h1Limits, AccessLog accessLog) {
        this.config = config;
        this.id = id;
        this.workers = workers;
        this.streams = streams;
        this.rules = rules;
        this.backends = backends;
        this.defaultBackend = defaultBackend;
        this.limit = limit;
        this.h1Limits = h1Limits;
        this.accessLog = accessLog;
        this.sessionRules = rules.session().isEmpty() ? null : new ConnectionRules(rules.session(), this, true);
        this.errors = new ErrorResponses(config.errors());
        this.forwardFor = config.http().forwardFor() == null ? null : new ForwardFor(config.http().forwardFor());
        this.originalTo = config.http().originalTo() == null ? null : new ForwardFor(config.http().originalTo());
        this.monitorUri = config.monitor().uri() == null ? null : new AsciiString(config.monitor().uri());
        var logging = config.logging();
        this.captures = new CapturePlan(logging.captures());
        this.uniqueIdFormat = logging.uniqueIdFormat() == null ? null : Template.uniqueId(logging.uniqueIdFormat().text());
        this.uniqueIdHeader = logging.uniqueIdHeader() == null || uniqueIdFormat == null ? null
                : AsciiString.cached(logging.uniqueIdHeader().toLowerCase(Locale.ROOT));
    }

    /** The capture slots of this frontend's streams, whether or not it logs. */
    public CapturePlan captures() {
        return captures;
    }

    /** {@code unique-id-format}, or null. */
    public Template uniqueIdFormat() {
        return uniqueIdFormat;
    }

    /** {@code unique-id-header} (lower case), or null when no id is sent to servers. */
    public AsciiString uniqueIdHeader() {
        return uniqueIdHeader;
    }

    /**
     * The client connection {@code ch}, coming from {@code remote} to {@code local} (after its PROXY header), becomes a
     * session once its handshakes are over: the {@code tcp-request session} rules run on it, then its stick counters
     * count the session. False when a rule rejected it (counted): the caller closes it and does nothing else, as HAProxy
     * kills such a session without a log line.
     */
    public boolean startSession(Channel ch, InetSocketAddress remote, InetSocketAddress local) {
        ConnectionRules r = sessionRules;
        if (r != null && !r.accept(ch, ClientEnd.overridden(ch, true, remote), ClientEnd.overridden(ch, false, local))) {
            return false;
        }
        Trackers.sessionStarted(ch.attr(ClientEnd.SESSION_TRACKERS).get());
        return true;
    }

    /** The process's variables and environment, which every stream's rules share; before start. */
    public void process(ProcScope scope) {
        this.process = scope;
    }

    public ProcScope process() {
        return process;
    }

    /** The global section's tuning (HTTP/2 settings, buffer sizes); before start. */
    public void tune(Tune t) {
        this.tune = t;
    }

    /**
     * The global section's tuning: what HTTP/2 connections advertise ({@code tune.h2.*}), what a layer-4 stream holds for
     * content inspection ({@code tune.bufsize}, {@code tune.maxrewrite}).
     */
    public Tune tune() {
        return tune;
    }

    /** Sets the {@code alt-svc} value added to TCP responses ({@code option h3-alt-svc}); before start. */
    public void altSvc(AsciiString value) {
        this.altSvc = value;
    }

    /** What {@code option h3-alt-svc} adds to responses on TCP connections (HTTP/1, HTTP/2), or null. */
    public AsciiString altSvc() {
        return altSvc;
    }

    private Map<String, Service> services = Map.of();

    private PageService statsPage;

    /** The stats page this proxy serves ({@code stats enable|uri ...}), or null. */
    public PageService statsPage() {
        return statsPage;
    }

    /** Sets the stats page; before the frontend accepts connections. */
    public void statsPage(PageService page) {
        this.statsPage = page;
    }

    private Caches caches;

    /** Sets the configuration's caches ({@code cache-use}, {@code cache-store}); before the frontend accepts connections. */
    public void caches(Caches c) {
        this.caches = c;
    }

    /** The cache of that name, or null. */
    public HttpCache cache(String name) {
        return caches == null ? null : caches.get(name);
    }

    /** Sets the services {@code use-service} may name; before the frontend accepts connections. */
    public void services(Map<String, Service> s) {
        this.services = Map.copyOf(s);
    }

    /** The service of this name, or null. */
    public Service service(String name) {
        return services.get(name);
    }

    /** The budget every stream of this frontend takes ({@code show pools}' stream line, the {@code -m} ceiling). */
    public void streamBudget(Budget b) {
        this.streamBudget = b;
    }

    /** The stream budget, or null when none was set (unit tests). */
    public Budget streamBudget() {
        return streamBudget;
    }

    /** Sets the configuration's userlists; before the frontend accepts connections. */
    public void userlists(Userlists u) {
        this.userlists = u;
    }

    public Userlists userlists() {
        return userlists;
    }

    /** Whether the request target is exactly the {@code monitor-uri}. */
    public boolean isMonitorRequest(RequestHead r) {
        return monitorUri != null && monitorUri.contentEquals(r.target());
    }

    /** Whether a {@code monitor fail} condition holds for this request. */
    public boolean monitorFails(Txn t) {
        for (Cond c : rules.monitorFail()) {
            if (c.test(t)) {
                return true;
            }
        }
        return false;
    }

    /** The frontend's errorfile pages. */
    public ErrorResponses errors() {
        return errors;
    }

    /** The access log, or null when the frontend has no log target. */
    public AccessLog accessLog() {
        return accessLog;
    }

    /** The process-wide connection count (the log's %ac). */
    public int globalConnections() {
        return limit.parentCurrent();
    }

    /** The compiled {@code option forwardfor} of this frontend, or null. */
    public ForwardFor forwardFor() {
        return forwardFor;
    }

    /** {@code option originalto}, or null. */
    public ForwardFor originalTo() {
        return originalTo;
    }

    public String name() {
        return config.name();
    }

    public Proxy config() {
        return config;
    }

    public Workers workers() {
        return workers;
    }

    /** The streams in progress on each loop of the process ({@code show sess}, {@code shutdown session}). */
    public LiveStreams streams() {
        return streams;
    }

    public ProxyRules rules() {
        return rules;
    }

    /**
     * The backend for a request: the first {@code use_backend} rule whose condition holds and whose
     * backend exists (a dynamic name that names no backend falls through, as in HAProxy), else the
     * default backend, else null.
     */
    /** The backend (or listen) section named {@code name} in this frontend's configuration, or null. */
    public Backend backend(String name) {
        return backends.get(name);
    }

    private Map<String, Frontend> siblings = Map.of();

    /** The frontends of the same configuration, by name (the state fetches' {@code fe_conn(<frontend>)}...). */
    public void siblings(Map<String, Frontend> frontends) {
        siblings = frontends;
    }

    /** The frontend named {@code name} in this frontend's configuration (itself included), or null. */
    public Frontend frontend(String name) {
        Frontend f = siblings.get(name);
        return f == null && name.equals(name()) ? this : f;
    }

    /** A listen section's own backend side (where its requests are before any switching, as HAProxy's s->be), else null. */
    public Backend ownBackend() {
        return config.kind() == ProxyKind.LISTEN ? backends.get(config.name()) : null;
    }

    public Backend selectBackend(Txn t) {
        List<ProxyRules.Switch> sw = rules.switching();
        for (int i = 0; i < sw.size(); i++) {
            ProxyRules.Switch s = sw.get(i);
            if (!Cond.holds(s.cond(), t)) {
                continue;
            }
            Backend b = backends.get(s.dynamic() != null ? s.dynamic().render(t) : s.backend());
            if (b != null) {
                return b;
            }
        }
        return defaultBackend;
    }

    /** The counters of a listener of this frontend ({@code option socket-stats}), in bind order. Before start. */
    public void listenerCounters(dev.sluice.proxy.listener.ListenerCounters lc) {
        listeners.add(lc);
    }

    /** Its listeners' counters ({@code option socket-stats}; empty without). */
    public java.util.List<dev.sluice.proxy.listener.ListenerCounters> listenerCounters() {
        return listeners;
    }

    public ConnectionLimit limit() {
        return limit;
    }

    public H1Limits h1Limits() {
        return h1Limits;
    }

    public Timeouts timeouts() {
        return config.timeouts();
    }

    public HttpOptions http() {
        return config.http();
    }

    /** The proxy id ({@code iid} in {@code show stat}, {@code #<id>} in admin commands). */
    public int id() {
        return id;
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

    /** The HTTP/2 frame, error and flood counters of this frontend's client connections. */
    public H2Counters h2() {
        return h2;
    }

    /** The counters right now, with the current number of connections. */
    public Counters.Snapshot snapshot() {
        Counters.Snapshot s = counters.snapshot(limit.current());
        return new Counters.Snapshot(s.values(), s.rates(), s.rateMaxes(), s.current(), limit.peak(), s.lastSession());
    }

    /** HTTP/1 and HTTP/2 client connections since the start and open now (the h1_ and h2_ columns of show stat). */
    private final LongAdder h1Total = new LongAdder();
    private final LongAdder h1Open = new LongAdder();
    private final LongAdder h2Total = new LongAdder();
    private final LongAdder h2Open = new LongAdder();

    /**
     * A client connection was accepted on loop {@code loop} (one session per connection), speaking HTTP/2 or
     * HTTP/1; on that loop.
     */
    public void countConnection(int loop, boolean h2) {
        (h2 ? h2Total : h1Total).increment();
        (h2 ? h2Open : h1Open).increment();
        countConnection(loop);
    }

    /** A layer-4 connection (already counted as a session) became an HTTP/1 one: the HTTP/1 connection counters move. */
    public void countSwitchedToHttp() {
        h1Total.increment();
        h1Open.increment();
    }

    /** Sets how this frontend's layer-4 connections become HTTP ones; before start. */
    public void httpHandoff(HttpHandoff h) {
        this.httpHandoff = h;
    }

    /** How this frontend's layer-4 connections become HTTP ones, or null (no HTTP handler: tests of layer 4 only). */
    public HttpHandoff httpHandoff() {
        return httpHandoff;
    }

    /** An HTTP/1 connection (already counted) turned HTTP/2 on its first bytes: HAProxy counts it in both protocols' totals. */
    public void countH2Upgrade() {
        h2Total.increment();
        h2Open.increment();
    }

    /** A QUIC connection was admitted on loop {@code loop}: a session, counted by neither HTTP/1 nor HTTP/2. */
    public void countConnection(int loop) {
        streams.accepted(loop);
        counters.add(Counter.CONNECTIONS);
        counters.add(Counter.SESSIONS);
    }

    public void countRequest() {
        counters.add(Counter.REQUESTS);
    }

    /**
     * A request rejected before it became a stream (400, 408, 413, 414, 431, or an HTTP/2 protocol error):
     * it counts as a request, an invalid request ({@code ereq}) and, when answered, a response.
     */
    public void countInvalidRequest(int status) {
        counters.add(Counter.REQUESTS);
        counters.add(Counter.REQUEST_ERRORS);
        if (status > 0) {
            counters.countResponse(status);
        }
    }

    /**
     * A request already counted turned out invalid (an HTTP/2 stream error after its head, a body not matching
     * its content-length): {@code ereq} only.
     */
    public void countRequestError() {
        counters.add(Counter.REQUEST_ERRORS);
    }

    /** An invalid request (ereq) on connection {@code ch} (null: none known): this frontend's and its listener's counters. */
    public void countInvalidRequest(int status, Channel ch) {
        countInvalidRequest(status);
        listenerError(ch);
    }

    /** A request error on connection {@code ch} (null: none known): this frontend's and its listener's counters. */
    public void countRequestError(Channel ch) {
        countRequestError();
        listenerError(ch);
    }

    /** The {@code option socket-stats} counters of the listener {@code ch} came in on count an invalid request. */
    private static void listenerError(Channel ch) {
        ListenerCounters lc = ch == null ? null : ListenerCounters.of(ch);
        if (lc != null) {
            lc.invalidRequest();
        }
    }

    /** A client connection counted by {@link #countConnection} closed. */
    public void connectionClosed(boolean h2) {
        (h2 ? h2Open : h1Open).decrement();
    }

    /** {h1 open, h1 total, h2 open, h2 total} client connections. */
    public long[] protocolConnections() {
        return new long[] {h1Open.sum(), h1Total.sum(), h2Open.sum(), h2Total.sum()};
    }

    /** A TLS handshake with a client completed. */
    public void countTlsSession(boolean resumed) {
        tlsSessions.increment();
        if (resumed) {
            tlsReused.increment();
        }
    }

    /** A TLS handshake with a client failed (or the client left during it). */
    public void countTlsFailure() {
        tlsFailures.increment();
    }

    public long totalTlsSessions() {
        return tlsSessions.sum();
    }

    public long totalTlsReused() {
        return tlsReused.sum();
    }

    public long totalTlsFailures() {
        return tlsFailures.sum();
    }

    public long totalConnections() {
        return counters.get(Counter.CONNECTIONS);
    }

    public long totalRequests() {
        return counters.get(Counter.REQUESTS);
    }

    /**
     * An in-process reload replaced this frontend's configuration: it carries on the counters of {@code old}, the
     * frontend of the same name in the configuration before (HAProxy's counters survive nothing; Sluice's survive a
     * reload inside the process). Before start.
     */
    public void continues(Frontend old) {
        this.counters = old.counters;
        this.h2 = old.h2;
        this.tlsSessions = old.tlsSessions;
        this.tlsReused = old.tlsReused;
        this.tlsFailures = old.tlsFailures;
    }

    /** Where this frontend's client connections are registered (the graceful stop and the reload reach them there). */
    public void clients(io.netty.channel.group.ChannelGroup group) {
        this.clients = group;
    }

    /**
     * The configuration was reloaded: connections of this frontend take {@code next} for their next request (null:
     * the frontend is gone, its connections close after their current exchange).
     */
    public void succeededBy(Frontend next) {
        successor = next;
        if (next == null) {
            stopped = true;
        }
    }

    /**
     * The frontend a new request of connection {@code ch} belongs to: this one, or the latest of its successors, the
     * connection then registered with the successor's generation (one volatile read when nothing was reloaded).
     */
    public Frontend current(io.netty.channel.Channel ch) {
        Frontend f = successor;
        if (f == null) {
            return this;
        }
        for (Frontend n = f.successor; n != null; n = n.successor) {
            f = n;
        }
        if (clients != null && ch != null) {
            clients.remove(ch);
        }
        if (f.clients != null && ch != null && ch.isActive()) {
            f.clients.add(ch);
        }
        return f;
    }

    /** The listeners were closed for good (soft or hard stop). */
    public void stopped() {
        stopped = true;
    }

    /** Whether the process is stopping: a response now ends its connection ({@code Connection: close}). */
    public boolean isStopped() {
        return stopped;
    }

    /** HAProxy's frontend status: OPEN, FULL (at maxconn), PAUSED ({@code disable frontend}) or STOP. */
    public String status() {
        if (stopped) {
            return "STOP";
        }
        if (limit.disabled()) {
            return "PAUSED";
        }
        return limit.current() >= limit.max() ? "FULL" : "OPEN";
    }
}
