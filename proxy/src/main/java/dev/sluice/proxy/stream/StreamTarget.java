package dev.sluice.proxy.stream;

import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.auth.Userlists;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.cache.CacheEntry;
import dev.sluice.proxy.cache.CacheFill;
import dev.sluice.proxy.cache.Cacheability;
import dev.sluice.proxy.cache.HttpCache;
import dev.sluice.proxy.cache.SecondaryKey;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.log.LogCaptures;
import dev.sluice.proxy.rules.Action;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.RuleTarget;
import dev.sluice.proxy.rules.Service;
import dev.sluice.proxy.rules.Template;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import io.netty.util.AsciiString;
import java.util.List;

/**
 * The {@link Stream} as rules, sample fetches, log formats and the balancing see it ({@link RuleTarget}): the exchange's
 * heads and addresses, and what rules leave on it (variables, stick counters, captures, timeouts, retries). One instance
 * per stream serves every rule set: request and response rules, where the ending actions (deny, return, tarpit, ...)
 * go to the stream, and {@code http-after-response} rules ({@link #runAfterResponse}), which only see and edit the
 * response about to be sent. Owned by its stream, used on the stream's event loop only.
 */
final class StreamTarget extends ClientTxn<ClientSide> implements RuleTarget {
    private final Stream stream;
    private final RequestHead request;
    /** Set while {@code http-after-response} rules run: they cannot end the exchange nor change its course. */
    private boolean afterResponse;
    private Trackers trackers;
    private boolean requestCounted;
    private long serverTimeout = -1;
    private long tunnelTimeout = -1;
    private int retries = -1;
    /** {@code disable-l7-retry} ran (HAProxy's TX_D_L7_RETRY). */
    private boolean l7RetryDisabled;
    /** What {@code cache-use} learnt of the request (its keys and cacheability), null before or without one. */
    private CacheFill.Request cacheRequest;
    private CacheEntry cacheHit;
    private HttpCache hitCache;
    private boolean hitReleased;

    StreamTarget(Stream stream, ClientSide client, Frontend frontend, RequestHead request) {
        super(client, frontend);
        this.stream = stream;
        this.request = request;
    }

    @Override
    public int processCalls() {
        return calls;
    }

    @Override
    public Long currentTimeout(boolean tunnel) {
        long set = tunnel ? tunnelTimeout : serverTimeout;
        if (set >= 0) {
            return set;
        }
        return connectedTimeout(stream.lastConn == null ? null : stream.backend(), tunnel);
    }

    /**
     * The stream's server or tunnel timeout as HAProxy sets it once the server connection is established: the backend's
     * ({@code b}, null while not connected), 0 when it has none or before.
     */
    static Long connectedTimeout(Backend b, boolean tunnel) {
        if (b == null) {
            return 0L;
        }
        long t = tunnel ? b.timeouts().tunnel() : b.timeouts().server();
        return t == Timeouts.UNSET ? 0L : t;
    }

    @Override
    public io.netty.channel.Channel serverChannel() {
        ServerSide c = stream.lastConn;
        return c == null ? null : c.channel();
    }

    @Override
    public int serverHttpMajor() {
        ServerSide c = stream.lastConn;
        return c == null ? 0 : c.httpMajor();
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession serverTlsSession() {
        ServerSide c = stream.lastConn;
        return c == null ? null : c.tlsSession();
    }

    /** Runs {@code rules} as {@code http-after-response} rules on the response about to be sent. */
    void runAfterResponse(List<Rule> rules) {
        boolean was = afterResponse;
        afterResponse = true;
        try {
            Rule.run(rules, this);
        } finally {
            afterResponse = was;
        }
    }

    // ------------------------------------------------------------------ what the stream reads back

    /** The stick counters, null when neither the connection nor a rule tracks any. */
    Trackers trackersIfAny() {
        return trackers;
    }

    /** The connection tracks stick counters ({@code tcp-request connection track-sc*}): the stream tracks them too. */
    void trackSession(Trackers session) {
        trackers = new Trackers(session);
    }

    /** The tcp-request content rules let the request through: stick counters count it from now on. */
    void countRequest() {
        requestCounted = true;
        if (trackers != null) {
            trackers.startRequest();
        }
    }

    /** {@code timeout server} of the exchange in {@code backend} (null: none yet), or as a rule set it; 0 for none. */
    long serverTimeout(Backend backend) {
        if (serverTimeout >= 0) {
            return serverTimeout;
        }
        long t = backend == null ? Timeouts.UNSET : backend.timeouts().server();
        return t == Timeouts.UNSET ? 0 : t;
    }

    /** {@code timeout tunnel} of the exchange in {@code backend}, or as a rule set it, falling back to the server timeout. */
    long tunnelTimeout(Backend backend) {
        if (tunnelTimeout >= 0) {
            return tunnelTimeout;
        }
        long t = backend == null ? Timeouts.UNSET : backend.timeouts().tunnel();
        return t == Timeouts.UNSET ? serverTimeout(backend) : t;
    }

    /** {@code set-retries}, -1 when no rule set it. */
    int retries() {
        return retries;
    }

    // ------------------------------------------------------------------ Txn

    @Override
    public RequestHead request() {
        return request;
    }

    @Override
    public ResponseHead response() {
        return stream.response();
    }

    @Override
    public dev.sluice.proxy.rules.ProxyStates states() {
        return new StateViews(frontend, stream);
    }

    @Override
    public String backendName() {
        return stream.backend() == null ? null : stream.backend().name();
    }

    @Override
    public dev.sluice.config.model.FcgiApp fcgiApp() {
        return stream.backend() == null ? null : stream.backend().config().fcgiApp();
    }

    @Override
    public Trackers trackers() {
        if (trackers == null) {
            trackers = new Trackers(null);
            if (requestCounted) {
                trackers.startRequest();
            }
        }
        return trackers;
    }

    @Override
    public Userlists userlists() {
        return frontend.userlists();
    }

    @Override
    public boolean proxyAuthentication() {
        AsciiString t = request.target();
        return frontend.http().useProxyHeader() && t.length() > 0 && t.byteAt(0) != '/';
    }

    @Override
    public byte[] requestBody() {
        return stream.body().held();
    }

    @Override
    public byte[] responseBody() {
        ResponseRules r = stream.responseRules(false);
        return r == null ? null : r.held();
    }

    @Override
    public long requestDate() {
        return stream.accounting().requestDate();
    }

    @Override
    public long requestCounter() {
        return stream.number();
    }

    /**
     * {@code http_first_req}: the first request of an HTTP/1 client connection. HAProxy marks every HTTP/2 and
     * HTTP/3 stream "not first" (its muxes set SE_FL_NOT_FIRST on each), so those are never first.
     */
    @Override
    public boolean firstRequest() {
        HttpVersion v = request.version();
        return (v == HttpVersion.HTTP_1_0 || v == HttpVersion.HTTP_1_1) && client.firstRequest();
    }

    /** The unique id, made from the frontend's {@code unique-id-format} on first use; null without one. */
    @Override
    public String uniqueId() {
        Template f = frontend.uniqueIdFormat();
        if (f == null) {
            return null;
        }
        LogCaptures c = logCaptures();
        if (c.uniqueId() == null) {
            c.uniqueId(f.render(this));
        }
        return c.uniqueId();
    }

    // ------------------------------------------------------------------ RuleTarget

    @Override
    public MessageHead head() {
        return afterResponse || stream.responsePhase() ? stream.response() : request;
    }

    @Override
    public boolean responsePhase() {
        return afterResponse || stream.responsePhase();
    }

    /** An answer made by a rule; in the response phase it replaces the server's response (not after it). */
    @Override
    public void answer(ResponseHead head, byte[] body, char why) {
        if (!afterResponse) {
            stream.answers().answer(head, body, Termination.Cause.of(why));
        }
    }

    @Override
    public void answerStatus(int code, char why) {
        if (!afterResponse) {
            stream.answers().answerStatus(code, Termination.Cause.of(why));
        }
    }

    @Override
    public void drop() {
        if (!afterResponse) {
            stream.answers().drop(false);
        }
    }

    @Override
    public void silentDrop() {
        if (!afterResponse) {
            stream.answers().drop(true);
        }
    }

    @Override
    public void tarpit(int code) {
        tarpit(code, null);
    }

    @Override
    public void tarpit(int code, Action reply) {
        if (!afterResponse) {
            stream.answers().tarpit(code, reply);
        }
    }

    @Override
    public void setTimeout(String which, long millis) {
        if (afterResponse) {
            return;
        }
        switch (which) {
            case "server" -> serverTimeout = millis;
            case "tunnel" -> tunnelTimeout = millis;
            default -> {
                // the client side keeps its own timeout
            }
        }
    }

    @Override
    public void disableL7Retry() {
        l7RetryDisabled = true;
    }

    /** Whether {@code disable-l7-retry} ran. */
    boolean l7RetryDisabled() {
        return l7RetryDisabled;
    }

    @Override
    public void setRetries(int n) {
        if (!afterResponse) {
            retries = n;
        }
    }

    @Override
    public void cacheUse(String name) {
        HttpCache cache = frontend.cache(name);
        if (afterResponse || cache == null || stream.responsePhase()) {
            return;
        }
        cacheRequest = null;
        HttpVersion v = request.version();
        HttpCache.Key key = HttpCache.key(request, v != HttpVersion.HTTP_1_0 && v != HttpVersion.HTTP_1_1 && !client.tls() ? "http://" : "https://");
        if (key == null) {
            return;
        }
        int flags = Cacheability.request(request);
        cacheRequest = new CacheFill.Request(key, flags, null);
        if ((flags & Cacheability.IGNORE) != 0) {
            return;
        }
        // counted on the proxy whose rule looked: the frontend's, or the backend's once chosen
        Counters counters = stream.backend() != null ? stream.backend().counters() : frontend.counters();
        counters.add(Counter.CACHE_LOOKUPS);
        CacheEntry e = cache.lookup(key, request.fields());
        if (e != null && cacheHit == null) {
            cache.using(e);
            cacheHit = e;
            hitCache = cache;
            counters.add(Counter.CACHE_HITS);
        } else if (e == null && cache.config().processVary()) {
            // every part of the secondary key, until the response tells which count
            cacheRequest = new CacheFill.Request(key, flags, SecondaryKey.of(request.fields(), SecondaryKey.ALL));
        }
    }

    @Override
    public void cacheStore(String name, String proxy) {
        HttpCache cache = frontend.cache(name);
        if (afterResponse || cache == null || !stream.responsePhase() || stream.fromCache()) {
            return;
        }
        CacheFill fill = CacheFill.start(cache, cacheRequest, request, stream.response());
        if (fill != null) {
            stream.cacheFill(fill.storedBy(proxy));
        }
    }

    @Override
    public String cacheName() {
        return stream.fromCache() ? hitCache.name() : null;
    }

    @Override
    public String compressionAlgo() {
        Compression c = stream.compression();
        return c == null ? null : c.algoUsed();
    }

    /** The entry a {@code cache-use} rule found for the request (held until {@link #releaseHit}), or null. */
    CacheEntry cacheHit() {
        return cacheHit;
    }

    /** The stream is done with the entry it found (it stays its {@link #cacheHit}, for the log). */
    void releaseHit() {
        if (cacheHit != null && !hitReleased) {
            hitReleased = true;
            hitCache.released(cacheHit);
        }
    }

    @Override
    public Service service(String name) {
        return afterResponse ? null : frontend.service(name);
    }

    @Override
    public boolean waitForBody(long millis, long atLeast) {
        return afterResponse || stream.waitForBody(millis, atLeast);
    }
}
