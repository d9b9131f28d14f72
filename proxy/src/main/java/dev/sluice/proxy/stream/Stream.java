package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.PersistenceCookie;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.Status;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.h1.ErrorResponses;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.rules.Action;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.rules.Cond;
import dev.sluice.proxy.rules.RuleTarget;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One request/response exchange: runs the frontend rules, picks the backend and the server, obtains a
 * server connection (retrying failed connects), then streams the request body to the server and the
 * response back to the client with back-pressure both ways. Protocol-neutral: it sees a {@link ClientSide}
 * and a {@link ServerSide}. Lives on the client connection's event loop; never touched by another thread.
 */
public final class Stream implements ServerConnector.Callback, RuleTarget {

    /** How a server exchange failed. */
    public enum ServerFailure {
        /** The connection closed (or reset) before any byte of the response. */
        CLOSED_BEFORE_RESPONSE,
        /** The response head was invalid. */
        INVALID_RESPONSE,
        /** The connection closed in the middle of the response. */
        TRUNCATED,
        /** {@code timeout server} expired. */
        TIMEOUT
    }

    /** Request body held while no server connection is ready; beyond this the client is paused. */
    private static final int MAX_PENDING_BODY = 64 * 1024;
    /**
     * The most request body {@code wait-for-body} holds: HAProxy's buffer is full at {@code tune.bufsize}
     * (16384) less {@code tune.maxrewrite} (1024).
     */
    static final int MAX_HELD_BODY = 16384 - 1024;

    private final ClientSide client;
    private final Frontend frontend;
    private final RequestHead request;
    private Backend backend;
    private Server server;
    private ServerSide conn;
    /** Retries, redispatches, the replay copy of the request: decided there; null until the backend's rules passed. */
    private Attempts attempts;
    private boolean requestEnded;
    private HttpFields requestTrailers;
    private ArrayDeque<ByteBuf> pending;
    private int pendingBytes;
    private boolean pausedForPending;
    private boolean responseStarted;
    private boolean finished;
    private boolean tunnel;
    /** Response compression: the algorithm chosen on the request (null: none), the response's compressor. */
    private String compressionAlgo;
    private Compressor compressor;
    private ResponseHead response;
    private boolean responsePhase;
    private java.util.Map<String, Object> vars;
    private dev.sluice.proxy.rules.Trackers trackers;
    private boolean requestCounted;
    private long serverTimeout = -1;
    private long tunnelTimeout = -1;
    private int retriesOverride = -1;
    private int status;
    /** Where the request rules stopped for {@code wait-for-body}: the next rule, and whether it is a backend rule. */
    private int ruleIndex;
    private boolean backendRules;
    /** Set once a {@code wait-for-body} ran: the held body is what {@code req.body} reads. */
    private boolean bodyHeld;
    private boolean waitingBody;
    private long waitBodyBytes;
    private java.util.concurrent.ScheduledFuture<?> waitBodyTimer;
    private byte[] heldBody;
    private boolean closeAfter;
    /** Timers for the log, from {@link System#nanoTime()}; -1 until reached. */
    private final long tHead = System.nanoTime();
    private long requestStart;
    private long requestDate;
    private long tConnectStart = -1;
    private long tConnected = -1;
    private long tResponse = -1;
    /** The server slot: assignment, queueing, hand-off; null until the backend's rules passed. */
    private ServerSlot slot;
    private boolean logged;
    /** The frontend's stream budget while this stream holds a place in it; given back once, at {@link #log}. */
    private dev.sluice.pools.Budget budget;
    /** Request bytes received from the client (head as HTTP/1 text, body, tunnel), for bin. */
    private long bytesIn;
    /** {@code option contstats}: the byte counters follow the transfer; what was added to them so far. */
    private final boolean contStats;
    private long creditedIn;
    private long creditedOut;
    /** The cause and state letters of the log's termination flags, decided where the outcome is. */
    private char cause = '-';
    private char state = '-';
    /** Position in this loop's {@link LiveStreams} (-1 when not registered), the stream's id and epoch there. */
    int liveSlot = -1;
    private long liveId;
    private int epoch;
    /** Capture slots, cookies, unique id and log level (null until the frontend or a rule needs them). */
    private dev.sluice.proxy.log.LogCaptures captures;
    private boolean lineLogged;
    /** What the backend's persistence cookie made of this request (null: no cookie on the way yet). */
    private PersistenceCookie.Txn cookieTxn;
    /** The server persistence (a cookie, a stick match) sent the request to, null when balanced. */
    private Server persistTarget;
    /** The server {@code option prefer-last-server} chose instead of the balancing, or null. */
    private Server preferredTarget;
    private final long number = COUNTER.getAndIncrement();
    private static final java.util.concurrent.atomic.AtomicLong COUNTER = new java.util.concurrent.atomic.AtomicLong();

    public Stream(ClientSide client, Frontend frontend, RequestHead request) {
        this.client = client;
        this.frontend = frontend;
        this.request = request;
        this.requestStart = client.requestStartNanos();
        this.contStats = frontend.config().options().contStats();
        this.requestDate = System.currentTimeMillis() - (tHead - requestStart) / 1_000_000;
    }

    public RequestHead request() {
        return request;
    }

    public Frontend frontend() {
        return frontend;
    }

    public Backend backend() {
        return backend;
    }

    public Server server() {
        return server;
    }

    /** The status sent to the client (0 until a final response head was sent). */
    public int status() {
        return status;
    }

    public boolean finished() {
        return finished;
    }

    /** Processes the request head: monitor URI, rules, backend, server, connection. */
    public void start() {
        LiveStreams live = frontend.streams();
        liveId = live.add(this, client.loopIndex());
        epoch = live.epoch();
        frontend.countRequest();
        bytesIn = headBytes(request);
        dev.sluice.pools.Budget b = frontend.streamBudget();
        if (b != null) {
            if (!b.take()) {
                // the memory ceiling (-m): a resource of the proxy is exhausted
                cause = 'R';
                state = 'R';
                fail(503);
                return;
            }
            budget = b;
        }
        if (frontend.isMonitorRequest(request)) {
            // answered before any rule; as in HAProxy, neither forwarded nor logged
            logged = true;
            fail(frontend.monitorFails(this) ? 503 : 200);
            return;
        }
        if ((captures = frontend.captures().newCaptures()) != null) {
            // header captures are taken before any rule, as HAProxy does, whether the frontend logs or not (rules read
            // them with capture.req.hdr)
            captures.capture(false, request.fields());
        }
        dev.sluice.proxy.rules.Trackers session = client.sessionTrackers();
        if (session != null) {
            trackers = new dev.sluice.proxy.rules.Trackers(session);
        }
        if (Rule.run(frontend.rules().content(), this) == Action.Verdict.DONE) {
            return;
        }
        // stick counters count the request once the tcp-request content rules let it through
        requestCounted = true;
        if (trackers != null) {
            trackers.startRequest();
        }
        processRequest();
    }

    /** The request rules from where they stopped (they stop at a wait-for-body), then the backend and the server. */
    private void processRequest() {
        if (!backendRules) {
            int r = Rule.resume(frontend.rules().request(), this, ruleIndex);
            if (r == Rule.ENDED) {
                return;
            }
            if (waitingBody) {
                ruleIndex = r;
                return;
            }
            if (servePage(frontend.statsPage(), frontend.rules().request().size())) {
                return;
            }
            backend = frontend.selectBackend(this);
            if (backend == null) {
                fail(503);
                return;
            }
            backend.counters().add(Counter.SESSIONS);
            backend.counters().add(Counter.REQUESTS);
            backendRules = true;
            ruleIndex = 0;
            if (Rule.run(backend.rules().content(), this) == Action.Verdict.DONE) {
                return;
            }
        }
        int r = Rule.resume(backend.rules().request(), this, ruleIndex);
        if (r == Rule.ENDED) {
            return;
        }
        if (waitingBody) {
            ruleIndex = r;
            return;
        }
        if (servePage(backend.statsPage(), backend.rules().request().size())) {
            return;
        }
        // HAProxy's order: the persistence cookie, the unique id, X-Forwarded-For; then stickiness and the balancing
        Server sticky = cookieServer(backend);
        forwardFor();
        selectCompression();
        io.netty.util.AsciiString idHeader = frontend.uniqueIdHeader();
        if (idHeader != null) {
            request.fields().add(idHeader, new io.netty.util.AsciiString(uniqueId()));
        }
        attempts = new Attempts(backend, request, retriesOverride >= 0 ? retriesOverride : backend.retries());
        slot = new ServerSlot(this, backend, client.loop());
        if (sticky == null) {
            // a valid cookie comes first: stick match rules only look when it designated no server
            sticky = stickyServer();
        }
        attempts.direct(sticky != null);
        persistTarget = sticky;
        if (sticky == null) {
            preferredTarget = lastServer();
        }
        assigned(slot.assign(sticky != null ? sticky : preferredTarget, sticky != null, null));
    }

    /** Goes on from an assignment: connect, wait in the queue, or 503. */
    private void assigned(ServerSlot.Outcome o) {
        switch (o) {
            case ASSIGNED -> serverAssigned();
            case QUEUED -> server = slot.server();
            case NO_SERVER -> fail(503);
            case QUEUE_FULL -> {
                // the server's queue holds maxqueue requests already: flags SQ
                server = slot.server();
                queueFailed('S');
            }
        }
    }

    /** A slot is held on {@code slot.server()}: the request goes there. */
    private void serverAssigned() {
        server = slot.server();
        attempts.assigned(server);
        if (attempts.direct() && server != persistTarget) {
            // its server's queue was full and option redispatch balanced it
            attempts.direct(false);
        }
        if (!attempts.direct() && server != preferredTarget) {
            // lbtot counts what the balancing chose, not what persistence (a cookie, a stick match) imposed, nor the last server
            server.counters().add(Counter.SELECTED);
            backend.counters().add(Counter.SELECTED);
        }
        stickStore(false);
        connect(true);
    }

    /** The queue handed this stream a slot (on its loop). */
    void slotGranted() {
        if (!finished) {
            serverAssigned();
        }
    }

    /** The server this stream waited for went down and {@code option redispatch} sends it elsewhere. */
    void slotRequeued() {
        if (!finished) {
            attempts.leaving(server);
            attempts.direct(false);
            server = null;
            assigned(slot.assign(null, false, attempts.previous()));
        }
    }

    /** {@code timeout queue} struck while waiting: 503, flags sQ, counted as a connection failure, as HAProxy does. */
    void queueTimedOut() {
        if (!finished) {
            queueFailed('s');
        }
    }

    /** No slot from the queue: 503, counted as a connection failure (econ), termination flags {@code why} and Q. */
    private void queueFailed(char why) {
        if (server != null) {
            server.counters().add(Counter.CONNECT_ERRORS);
        }
        backend.counters().add(Counter.CONNECT_ERRORS);
        cause = why;
        state = 'Q';
        fail(503);
    }

    /**
     * The stats page of the proxy whose rules just ran, when the request is for it: answered (true), or held
     * until its body arrived (true too: {@link #processRequest} comes back here, the rules before it done).
     */
    private boolean servePage(dev.sluice.proxy.rules.PageService page, int rulesDone) {
        if (page == null || !page.matches(request)) {
            return false;
        }
        if (page.needsBody(request)) {
            long t = frontend.timeouts().httpRequest();
            if (t == Timeouts.UNSET || t <= 0) {
                t = frontend.timeouts().client() == Timeouts.UNSET ? 10_000 : frontend.timeouts().client();
            }
            if (!waitForBody(t, 0)) {
                ruleIndex = rulesDone;
                return true;
            }
        }
        dev.sluice.proxy.rules.Service.send(this, page.serve(this));
        return true;
    }

    /**
     * The server the request's persistence cookie designates in {@code be} (null: none, or no cookie configured), the
     * request's {@code Cookie} fields rewritten as the cookie's mode says. Done once per request.
     */
    private Server cookieServer(Backend be) {
        PersistenceCookie pc = be.cookie();
        if (pc == null) {
            return null;
        }
        if (cookieTxn == null) {
            cookieTxn = new PersistenceCookie.Txn();
        }
        if (!cookieTxn.requestDone) {
            pc.request(request.fields(), cookieTxn, be.servers(), System.currentTimeMillis() / 1000);
        }
        return cookieTxn.designated;
    }

    /**
     * {@code option prefer-last-server} (HAProxy's assign_server before its balancing, for the algorithms that do not
     * hash): the server of the first private connection ({@code http-reuse never}) of the client connection, in the order
     * they were first used, that is still open and goes to a usable server of this backend; the request then goes there,
     * waiting in its queue if need be (HAProxy's default {@code max-keep-alive-queue}). Null otherwise.
     */
    private Server lastServer() {
        if (!backend.config().options().preferLastServer() || !backend.balancesWithoutHash()) {
            return null;
        }
        java.util.List<ServerSide> mine = client.privateConnections();
        if (mine == null) {
            return null;
        }
        for (java.util.Iterator<ServerSide> it = mine.iterator(); it.hasNext();) {
            ServerSide c = it.next();
            if (!c.isOpen() || c.owner() != client.session()) {
                it.remove();
                continue;
            }
            Server s = c.server();
            if (s != null && s.backend() == backend && s.usable()) {
                return s;
            }
        }
        return null;
    }

    /**
     * A request rule denied the request: as HAProxy, the persistence cookie is still read so that the log tells what
     * the client sent (and names the server it designates), in the backend or, before switching, in a listen section.
     */
    private void cookieForLog() {
        if (responsePhase || server != null) {
            return;
        }
        Backend be = backend != null ? backend : frontend.ownBackend();
        if (be != null) {
            Server s = cookieServer(be);
            if (s != null) {
                server = s;
            }
        }
    }

    /**
     * {@code stick match|on}: the server stored for the request's key, when it is not stopped (the request then
     * waits in its queue when it is full); null to let the load-balancing algorithm choose.
     */
    private Server stickyServer() {
        for (ProxyRules.Stick r : backend.rules().stick()) {
            if (!r.match() || !Cond.holds(r.cond(), this)) {
                continue;
            }
            dev.sluice.sticktable.StickKey key = StickTables.keyOf(r.table(), r.key().get(this));
            dev.sluice.sticktable.StickEntry e = key == null ? null : r.table().lookup(key);
            if (e != null) {
                Server s = backend.serverById(e.serverId());
                if (s != null && s.running()) {
                    // as HAProxy: any server that is not stopped (draining, weight 0 and NOLB ones included)
                    return s;
                }
            }
        }
        return null;
    }

    /** {@code stick store-request|on} (or {@code store-response} when {@code response}): keeps the key with the server. */
    private void stickStore(boolean response) {
        for (ProxyRules.Stick r : backend.rules().stick()) {
            if (!r.store() || r.response() != response || !Cond.holds(r.cond(), this)) {
                continue;
            }
            dev.sluice.sticktable.StickKey key = StickTables.keyOf(r.table(), r.key().get(this));
            if (key != null) {
                Server s = server;
                r.table().update(key, e -> {
                    e.setServerId(s.id());
                    e.setServerKey(s.name());
                });
            }
        }
    }

    /** The stricter of the frontend's and the backend's connection modes. */
    public HttpOptions.ConnectionMode connectionMode() {
        if (closeAfter) {
            return HttpOptions.ConnectionMode.CLOSE;
        }
        HttpOptions.ConnectionMode a = frontend.http().connectionMode();
        HttpOptions.ConnectionMode b = backend == null ? a : backend.http().connectionMode();
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    /** The response compression this request asked for, chosen on its Accept-Encoding (see {@link Compressor#select}). */
    private void selectCompression() {
        compressionAlgo = Compressor.select(backend.http().compression(), frontend.http().compression(), request);
    }

    /** Ends compression (once, on every path): frees zlib's state and counts what went through it. */
    private void endCompression() {
        Compressor z = compressor;
        if (z == null) {
            return;
        }
        compressor = null;
        z.release();
        z.count(frontend.counters());
        if (backend != null) {
            z.count(backend.counters());
        }
    }

    private void forwardFor() {
        ForwardFor ff = backend.forwardFor() != null ? backend.forwardFor() : frontend.forwardFor();
        if (ff != null) {
            ff.apply(request, client.remoteAddress().getAddress());
        }
    }

    /** The size of the request head written as HTTP/1 text (what HAProxy counts in bin for HTTP/1). */
    private static long headBytes(RequestHead r) {
        long n = r.method().length() + r.target().length() + r.version().text().length() + 4 + 2;
        HttpFields f = r.fields();
        for (int i = 0; i < f.size(); i++) {
            n += f.name(i).length() + f.value(i).length() + 4;
        }
        return n;
    }

    private void connect(boolean reuse) {
        server.counters().add(Counter.SESSIONS);
        tConnectStart = System.nanoTime();
        long timeout = backend.timeouts().connect();
        backend.connector().acquire(server, client.loop(), client.loopIndex(), client.localAddress(), timeout == Timeouts.UNSET ? 0 : timeout,
                reuse, server.sniFor(this), client.session(), firstRequest(), reusePolicy(), this);
    }

    @Override
    public io.netty.util.concurrent.Future<?> sessionEnd() {
        return client.closeFuture();
    }

    /**
     * The backend's {@code http-reuse}, except towards a server that gets a PROXY protocol header: a connection that
     * told the server who the client is only ever carries that client connection's requests (HAProxy 2.6 puts the
     * header's addresses in the connection's reuse key, which comes to the same).
     */
    private HttpOptions.Reuse reusePolicy() {
        return server.config().sendProxy() != 0 ? HttpOptions.Reuse.NEVER : backend.http().reuse();
    }

    @Override
    public java.net.InetSocketAddress proxiedSource() {
        return client.remoteAddress();
    }

    @Override
    public java.net.InetSocketAddress proxiedDestination() {
        return client.localAddress();
    }

    @Override
    public void connected(ServerConnection connection) {
        // every server connection handler is a ServerSide (ServerConnector's HandlerFactory makes only those)
        ServerSide c = (ServerSide) connection;
        if (finished) {
            c.release();
            return;
        }
        conn = c;
        c.attach(this);
        if (reusePolicy() == HttpOptions.Reuse.NEVER && c.owner() == null) {
            // http-reuse never: this server connection only ever serves this client connection, and goes with it
            Object session = client.session();
            c.owner(session);
            io.netty.util.concurrent.Future<?> end = client.closeFuture();
            if (end != null) {
                end.addListener(f -> c.ownerGone(session));
            }
        }
        if (reusePolicy() == HttpOptions.Reuse.NEVER && c.owner() == client.session()) {
            java.util.List<ServerSide> mine = client.privateConnections();
            if (mine != null && !mine.contains(c)) {
                // closed ones go first, so that a long client connection keeps no more than its open private connections
                mine.removeIf(x -> !x.isOpen());
                mine.add(c);
            }
        }
        tConnected = c.reused() ? tConnectStart : System.nanoTime();
        server.countRequest();
        if (c.reused()) {
            server.counters().add(Counter.REUSES);
            backend.counters().add(Counter.REUSES);
        }
        attempts.sending(c);
        c.sendHead(request);
        if (pending != null) {
            ByteBuf b;
            while ((b = pending.poll()) != null) {
                attempts.sent(b);
                c.sendBody(b);
            }
            pendingBytes = 0;
        }
        if (requestEnded) {
            c.sendEnd(requestTrailers);
        } else {
            c.flush();
        }
        if (pausedForPending) {
            pausedForPending = false;
            if (c.isWritable()) {
                client.resumeRequestBody();
            }
        }
    }

    @Override
    public void failed(Throwable cause) {
        if (finished) {
            return;
        }
        if (attempts.connectFailed()) {
            retry(!(cause instanceof io.netty.channel.ConnectTimeoutException), true);
            return;
        }
        server.counters().add(Counter.CONNECT_ERRORS);
        backend.counters().add(Counter.CONNECT_ERRORS);
        fail(503);
    }

    /**
     * Tries again, on the same server or, as {@code option redispatch} decides, on another one (HAProxy's
     * stream_choose_redispatch); after a refused connection, staying on the server (or redispatching with a
     * single usable server) waits MIN(1s, timeout connect) first, as HAProxy 2.6 does. {@code reuse}: the same
     * server's idle connections may serve the new attempt.
     */
    private void retry(boolean refused, boolean reuse) {
        boolean redispatch = attempts.redispatch(server);
        long delay = refused && backend.waitBeforeRetry(redispatch) ? backend.retryDelay() : 0;
        if (redispatch) {
            slot.releaseForRetry();
        } else {
            server.counters().add(Counter.RETRIES);
            backend.counters().add(Counter.RETRIES);
        }
        Runnable again = () -> {
            if (finished) {
                return;
            }
            if (redispatch) {
                server = null;
                assigned(slot.assign(null, false, attempts.previous()));
            } else {
                connect(reuse);
            }
        };
        if (delay > 0) {
            client.loop().schedule(again, delay, TimeUnit.MILLISECONDS);
        } else {
            again.run();
        }
    }

    /**
     * The request went out and failed by {@code event} or got {@code status} (0: none): sends it again when
     * {@link Attempts#afterSending} allows, a stale reused connection on a new connection at once, a {@code retry-on}
     * failure as HAProxy's L7 retries (counted as a retry, perhaps redispatched). True when it goes again.
     */
    private boolean againAfterSending(dev.sluice.config.model.Retries.RetryOn event, int status, ServerSide c) {
        Attempts.Again a = attempts.afterSending(event, status, c != null && c.reused(), requestEnded);
        if (a == Attempts.Again.NO) {
            return false;
        }
        if (conn != null) {
            // a response to retry: the connection has the rest of it
            ServerSide x = conn;
            conn = null;
            x.abort();
        }
        // HAProxy's do_l7_retry counts a retry, and stream_choose_redispatch another one unless it redispatches
        server.counters().add(Counter.RETRIES);
        backend.counters().add(Counter.RETRIES);
        ArrayDeque<ByteBuf> body = attempts.replayBody();
        if (body != null) {
            pending = body;
            for (ByteBuf b : body) {
                pendingBytes += b.readableBytes();
            }
        }
        tResponse = -1;
        if (a == Attempts.Again.STALE) {
            connect(false);
        } else {
            retry(false, true);
        }
        return true;
    }

    /** A piece of request body from the client; takes ownership. */
    public void onRequestBody(ByteBuf data) {
        bytesIn += data.readableBytes();
        if (finished) {
            data.release();
            return;
        }
        if (conn != null) {
            attempts.sent(data);
            conn.sendBody(data);
            if (!conn.isWritable()) {
                client.pauseRequestBody();
            }
            creditBytes();
            return;
        }
        if (pending == null) {
            pending = new ArrayDeque<>();
        }
        pending.add(data);
        pendingBytes += data.readableBytes();
        heldBody = null;
        if (waitingBody && pendingBytes >= waitBodyBytes) {
            bodyArrived();
            return;
        }
        if (pendingBytes > MAX_PENDING_BODY && !pausedForPending) {
            pausedForPending = true;
            client.pauseRequestBody();
        }
    }

    public void onRequestEnd(HttpFields trailers) {
        requestEnded = true;
        if (finished) {
            return;
        }
        if (conn != null) {
            conn.sendEnd(trailers);
        } else {
            requestTrailers = trailers;
            if (waitingBody) {
                bodyArrived();
            }
        }
    }

    /**
     * {@code wait-for-body}: the rules go on at once when the body is complete or {@code atLeast} bytes (at
     * most {@link #MAX_HELD_BODY}) are held; otherwise the stream holds the request, answering an
     * {@code Expect: 100-continue} itself as HAProxy does, and resumes the rules when enough arrived, or
     * answers 408 and closes after {@code millis}.
     */
    @Override
    public boolean waitForBody(long millis, long atLeast) {
        bodyHeld = true;
        long want = atLeast > 0 ? Math.min(atLeast, MAX_HELD_BODY) : MAX_HELD_BODY;
        if (requestEnded || !request.hasBody() || pendingBytes >= want) {
            return true;
        }
        waitingBody = true;
        waitBodyBytes = want;
        io.netty.util.AsciiString expect = request.fields().get(HeaderNames.EXPECT);
        if (expect != null && expect.contentEqualsIgnoreCase("100-continue")) {
            request.fields().removeAll(HeaderNames.EXPECT);
            client.sendHead(new ResponseHead(HttpVersion.HTTP_1_1, 100, Status.reason(100), new HttpFields(0)));
            client.flush();
        }
        waitBodyTimer = client.loop().schedule(() -> {
            if (waitingBody && !finished) {
                waitingBody = false;
                cause = 'c';
                state = 'R';
                closeAfter = true;
                fail(408);
            }
        }, millis, TimeUnit.MILLISECONDS);
        return false;
    }

    private void bodyArrived() {
        waitingBody = false;
        if (waitBodyTimer != null) {
            waitBodyTimer.cancel(false);
            waitBodyTimer = null;
        }
        processRequest();
    }

    @Override
    public byte[] requestBody() {
        if (!bodyHeld) {
            return null;
        }
        if (heldBody == null) {
            byte[] b = new byte[pendingBytes];
            int at = 0;
            if (pending != null) {
                for (ByteBuf p : pending) {
                    int n = p.readableBytes();
                    p.getBytes(p.readerIndex(), b, at, n);
                    at += n;
                }
            }
            heldBody = b;
        }
        return heldBody;
    }

    @Override
    public dev.sluice.proxy.auth.Userlists userlists() {
        return frontend.userlists();
    }

    @Override
    public dev.sluice.proxy.rules.Service service(String name) {
        return frontend.service(name);
    }

    @Override
    public boolean proxyAuthentication() {
        io.netty.util.AsciiString t = request.target();
        return frontend.http().useProxyHeader() && t.length() > 0 && t.byteAt(0) != '/';
    }

    public void onResponseHead(ResponseHead head) {
        if (finished) {
            return;
        }
        if (!head.isInterim()) {
            if (backend.retryPolicy().statuses().contains(head.status()) && againAfterSending(null, head.status(), conn)) {
                // retry-on <status>: this response is dropped (nor counted, as in HAProxy) and the request sent again
                return;
            }
            attempts.release();
            responseStarted = true;
            status = head.status();
            tResponse = System.nanoTime();
            server.counters().countResponse(head.status());
        }
        boolean switching = head.status() == 101 && request.upgrade() != null
                || request.isConnect() && head.status() >= 200 && head.status() < 300;
        if (!head.isInterim()) {
            if (captures != null) {
                captures.capture(true, head.fields());
            }
            // http-response rules: the backend's, then the frontend's; a rule may answer instead
            response = head;
            responsePhase = true;
            stickStore(true);
            if (Rule.run(backend.rules().response(), this) == Action.Verdict.DONE
                    || Rule.run(frontend.rules().response(), this) == Action.Verdict.DONE) {
                return;
            }
            PersistenceCookie pc = backend.cookie();
            if (pc != null && (head.status() >= 200 || head.status() == 101)) {
                if (cookieTxn == null) {
                    cookieTxn = new PersistenceCookie.Txn();
                }
                pc.response(head, cookieTxn, server, attempts.direct(), request, System.currentTimeMillis() / 1000);
            }
            afterResponse(head);
            countSent(head.status());
            if (compressionAlgo != null && !switching) {
                compressor = Compressor.start(compressionAlgo, backend.http().compression(), frontend.http().compression(), request, head);
                if (compressor != null) {
                    frontend.counters().add(Counter.COMP_RSP);
                    backend.counters().add(Counter.COMP_RSP);
                }
            }
        }
        client.sendHead(head);
        creditBytes();
        if (!head.isInterim() && frontend.accessLog() != null && frontend.accessLog().logAsap()) {
            logLine(true);
        }
        if (switching && conn != null) {
            tunnel = true;
            client.startTunnel();
            conn.startTunnel();
            client.flush();
        }
    }

    /** Whether the exchange became a tunnel (WebSocket, CONNECT). */
    public boolean tunnel() {
        return tunnel;
    }

    public void onTunnelFromClient(ByteBuf data) {
        bytesIn += data.readableBytes();
        if (finished || conn == null) {
            data.release();
            return;
        }
        conn.sendRaw(data);
        if (!conn.isWritable()) {
            client.pauseRequestBody();
        }
        creditBytes();
    }

    public void onTunnelFromServer(ByteBuf data) {
        if (finished) {
            data.release();
            return;
        }
        client.sendRaw(data);
        if (!client.isWritable() && conn != null) {
            conn.pauseResponseBody();
        }
        creditBytes();
    }

    /** One side of a tunnel closed or timed out: the other side goes too; the exchange is over. */
    public void onTunnelClosed(boolean byClient, boolean timeout) {
        if (finished) {
            return;
        }
        finished = true;
        if (timeout) {
            cause = byClient ? 'c' : 's';
            state = 'D';
        }
        closeBoth();
    }

    /** Closes the server connection (if any) and the client connection, then logs: the exchange is over. */
    private void closeBoth() {
        ServerSide c = conn;
        conn = null;
        if (c != null) {
            c.abort();
        }
        client.abort();
        log();
    }

    /** A piece of response body from the server; takes ownership. */
    public void onResponseBody(ByteBuf data) {
        if (finished) {
            data.release();
            return;
        }
        if (compressor != null) {
            data = compressor.compress(data.alloc(), data);
            if (!data.isReadable()) {
                data.release();
                return;
            }
        }
        client.sendBody(data);
        if (!client.isWritable() && conn != null) {
            conn.pauseResponseBody();
        }
        creditBytes();
    }

    public void onResponseEnd(HttpFields trailers) {
        if (finished) {
            return;
        }
        finished = true;
        ServerSide c = conn;
        conn = null;
        // back to the pool first, so a pipelined next request may reuse it at once
        c.release();
        endTracking();
        long before = client.bytesOut();
        if (compressor != null) {
            ByteBuf tail = compressor.finish(io.netty.buffer.ByteBufAllocator.DEFAULT);
            if (tail != null) {
                client.sendBody(tail);
            }
            endCompression();
        }
        client.sendEnd(trailers);
        if (trackers != null) {
            trackers.creditBytesOut(client.bytesOut() - before);
        }
        log();
    }

    /** The server connection failed; decides between a retry, an error response and an abort. */
    public void onServerFailure(ServerFailure failure) {
        if (finished) {
            return;
        }
        ServerSide c = conn;
        conn = null;
        if (c != null) {
            c.abort();
        }
        if (!responseStarted) {
            if (againAfterSending(switch (failure) {
                case CLOSED_BEFORE_RESPONSE -> dev.sluice.config.model.Retries.RetryOn.EMPTY_RESPONSE;
                case TIMEOUT -> dev.sluice.config.model.Retries.RetryOn.RESPONSE_TIMEOUT;
                default -> dev.sluice.config.model.Retries.RetryOn.JUNK_RESPONSE;
            }, 0, c)) {
                return;
            }
            server.counters().add(Counter.RESPONSE_ERRORS);
            backend.counters().add(Counter.RESPONSE_ERRORS);
            cause = failure == ServerFailure.TIMEOUT ? 's' : failure == ServerFailure.INVALID_RESPONSE ? 'P' : 'S';
            state = 'H';
            fail(failure == ServerFailure.TIMEOUT ? 504 : 502);
            return;
        }
        finished = true;
        server.counters().add(Counter.SERVER_ABORTS);
        backend.counters().add(Counter.SERVER_ABORTS);
        if (failure != ServerFailure.TIMEOUT) {
            // a response cut short by an error on the server side (closed, reset, a body not matching its
            // content-length) is also a response error for HAProxy, which counts both
            server.counters().add(Counter.RESPONSE_ERRORS);
            backend.counters().add(Counter.RESPONSE_ERRORS);
        }
        cause = failure == ServerFailure.TIMEOUT ? 's' : 'S';
        state = 'D';
        releasePending();
        client.abort();
        log();
    }


    /**
     * The client half-closed its connection (a FIN) once the whole request was received. HAProxy cannot tell a client
     * that only closed its output from one that left, so by default the exchange goes on. With {@code option abortonclose}
     * it is aborted while that is still possible, as HAProxy 2.6 does: a request waiting in a queue (CQ) or for its
     * server connection (CC) ends without a response and the connection closes; one waiting for the response head gets
     * a 400 and its server connection is closed (CH). Returns whether the exchange ended.
     */
    public boolean onClientHalfClosed() {
        if (finished || responseStarted || tunnel || state == 'T' || backend == null || !backend.config().options().abortOnClose()) {
            return false;
        }
        cause = 'C';
        if (conn == null) {
            // HAProxy counts no client abort for a request it drops from a queue or a connection attempt
            finished = true;
            state = slot != null && slot.waiting() ? 'Q' : tConnectStart >= 0 ? 'C' : 'R';
            releasePending();
            client.abort();
            log();
            return true;
        }
        backend.counters().add(Counter.CLIENT_ABORTS);
        server.counters().add(Counter.CLIENT_ABORTS);
        // the server connection goes with the request it carries
        ServerSide c = conn;
        conn = null;
        c.abort();
        state = 'H';
        fail(400);
        return true;
    }

    public void onClientClosed() {
        clientGone('C');
    }

    /** {@code timeout client} expired while the client had to read (or send) something: logged {@code cD}, {@code cH}, ... */
    public void onClientTimeout() {
        clientGone('c');
    }

    private void clientGone(char why) {
        if (finished) {
            return;
        }
        finished = true;
        cause = why;
        state = responseStarted ? 'D' : conn != null ? 'H' : slot != null && slot.waiting() ? 'Q' : tConnectStart >= 0 ? 'C' : 'R';
        if (backend != null) {
            backend.counters().add(Counter.CLIENT_ABORTS);
            if (server != null && tConnectStart >= 0) {
                server.counters().add(Counter.CLIENT_ABORTS);
            }
        }
        releasePending();
        if (conn != null) {
            conn.abort();
            conn = null;
        }
        log();
    }

    public void onClientWritable(boolean writable) {
        if (conn != null) {
            if (writable) {
                conn.resumeResponseBody();
            } else {
                conn.pauseResponseBody();
            }
        }
    }

    public void onServerWritable(boolean writable) {
        if (finished || pausedForPending) {
            return;
        }
        if (writable) {
            client.resumeRequestBody();
        } else {
            client.pauseRequestBody();
        }
    }

    /** Flushes what the client side's reads wrote to the server. */
    public void flushServer() {
        if (conn != null) {
            conn.flush();
        }
    }

    /** Flushes what the server side's reads wrote to the client. */
    public void flushClient() {
        client.flush();
    }

    /** Answers with a generated error page. */
    public void fail(int code) {
        finished = true;
        if (cause == '-') {
            // no server could be reached (503), or the request was refused before that
            cause = code == 503 ? 'S' : 'P';
            state = code == 503 ? 'C' : 'R';
        }
        releasePending();
        if (conn != null) {
            conn.abort();
            conn = null;
        }
        status = code;
        ErrorResponses pages = backend != null && backend.errors().head(code) != null || backend != null && backend.errors().closes(code)
                ? backend.errors() : frontend.errors();
        if (pages.closes(code)) {
            // an empty errorfile: close without a reply
            countSent(code);
            client.abort();
        } else {
            ResponseHead custom = pages.head(code);
            if (custom != null) {
                sendGenerated(custom, pages.body(code));
            } else {
                GeneratedResponse g = GeneratedResponse.of(code);
                sendGenerated(g.head(), g.body());
            }
        }
        log();
    }

    /** Sends a response the proxy made, after the http-after-response rules saw it. */
    private void sendGenerated(ResponseHead head, byte[] body) {
        response = head;
        afterResponse(head);
        status = head.status();
        endTracking();
        countSent(status);
        long before = client.bytesOut();
        client.sendGenerated(head, body);
        if (trackers != null) {
            trackers.creditBytesOut(client.bytesOut() - before);
        }
    }

    /**
     * Releases the stick counters before the last bytes go to the client, so that a client's next
     * request, whichever loop serves it, sees this one finished ({@code conn_cur}, error counts).
     */
    private void endTracking() {
        if (trackers != null) {
            trackers.end(status, cause == 'L', bytesIn, client.bytesOut());
        }
        // the server slot too (maxconn, leastconn, queues): a client that got the response may send its next
        // request at once, and must find the slot free
        if (slot != null) {
            slot.release();
        }
    }

    /** The http-after-response rules (backend's, then frontend's) on the response about to be sent. */
    private void afterResponse(ResponseHead head) {
        response = head;
        responsePhase = true;
        io.netty.util.AsciiString altSvc = frontend.altSvc();
        if (altSvc != null && request.version() != HttpVersion.HTTP_3 && !head.fields().contains(HeaderNames.ALT_SVC)) {
            // option h3-alt-svc: tell TCP clients where this frontend serves HTTP/3
            head.fields().add(HeaderNames.ALT_SVC, altSvc);
        }
        if (backend != null) {
            Rule.run(backend.rules().after(), afterTarget);
        }
        Rule.run(frontend.rules().after(), afterTarget);
    }

    // ------------------------------------------------------------------ RuleTarget

    @Override
    public ResponseHead response() {
        return response;
    }

    @Override
    public java.net.InetSocketAddress clientAddress() {
        return client.remoteAddress();
    }

    @Override
    public java.net.InetSocketAddress frontendAddress() {
        return client.localAddress();
    }

    @Override
    public boolean tls() {
        return client.tls();
    }

    @Override
    public String sni() {
        return client.sni();
    }

    @Override
    public dev.sluice.proxy.listener.ProxyHeader.Received proxyHeader() {
        return client.proxyHeader();
    }

    @Override
    public String frontendName() {
        return frontend.name();
    }

    @Override
    public String backendName() {
        return backend == null ? null : backend.name();
    }

    @Override
    public dev.sluice.proxy.rules.Trackers trackers() {
        if (trackers == null) {
            trackers = new dev.sluice.proxy.rules.Trackers(null);
            if (requestCounted) {
                trackers.startRequest();
            }
        }
        return trackers;
    }

    @Override
    public java.util.Map<String, Object> vars() {
        if (vars == null) {
            vars = new java.util.HashMap<>();
        }
        return vars;
    }

    @Override
    public MessageHead head() {
        return responsePhase ? response : request;
    }

    @Override
    public boolean responsePhase() {
        return responsePhase;
    }

    /** An answer made by a rule; in the response phase it replaces the server's response. */
    @Override
    public void answer(ResponseHead head, byte[] body, char why) {
        finished = true;
        if (why == 'L' && !responsePhase) {
            frontend.counters().add(Counter.INTERCEPTED);
        }
        if (why == 'P') {
            cookieForLog();
        }
        releasePending();
        cause = why;
        state = responsePhase ? 'H' : 'R';
        if (conn != null) {
            conn.abort();
            conn = null;
        }
        sendGenerated(head, body);
        log();
    }

    @Override
    public void answerStatus(int code, char why) {
        if (why == 'P') {
            countDenied();
        }
        cause = why;
        state = responsePhase ? 'H' : 'R';
        fail(code);
    }

    @Override
    public void drop() {
        finished = true;
        countDenied();
        releasePending();
        cause = 'P';
        state = responsePhase ? 'H' : 'R';
        if (conn != null) {
            conn.abort();
            conn = null;
        }
        client.abort();
        log();
    }

    @Override
    public void tarpit(int code) {
        tarpit(code, null);
    }

    @Override
    public void tarpit(int code, Action reply) {
        long t = frontend.timeouts().tarpit();
        if (t == Timeouts.UNSET) {
            t = frontend.timeouts().connect() != Timeouts.UNSET ? frontend.timeouts().connect() : 0;
        }
        countDenied();
        cause = 'P';
        state = 'T';
        client.loop().schedule(() -> {
            if (!finished) {
                if (reply != null) {
                    reply.apply(this);
                } else {
                    fail(code);
                }
            }
        }, t, TimeUnit.MILLISECONDS);
    }

    @Override
    public void setTimeout(String which, long millis) {
        switch (which) {
            case "server" -> serverTimeout = millis;
            case "tunnel" -> tunnelTimeout = millis;
            default -> {
                // the client side keeps its own timeout
            }
        }
    }

    @Override
    public void capture(boolean isResponse, int slot, CharSequence value) {
        if (captures != null) {
            captures.set(isResponse, slot, value);
        }
    }

    @Override
    public String captured(boolean isResponse, int slot) {
        return captures == null ? null : captures.get(isResponse, slot);
    }

    @Override
    public void setLogLevel(int level) {
        logCaptures().level(level);
    }

    @Override
    public long requestDate() {
        return requestDate;
    }

    @Override
    public long requestCounter() {
        return number;
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
        dev.sluice.proxy.rules.Template f = frontend.uniqueIdFormat();
        if (f == null) {
            return null;
        }
        dev.sluice.proxy.log.LogCaptures c = logCaptures();
        if (c.uniqueId() == null) {
            c.uniqueId(f.render(this));
        }
        return c.uniqueId();
    }

    private dev.sluice.proxy.log.LogCaptures logCaptures() {
        if (captures == null) {
            captures = frontend.captures().captures();
        }
        return captures;
    }

    @Override
    public void setRetries(int n) {
        retriesOverride = n;
    }

    /** A rule denied the request (dreq) or the response (dresp). */
    private void countDenied() {
        cookieForLog();
        Counter c = responsePhase ? Counter.DENIED_RESPONSES : Counter.DENIED_REQUESTS;
        frontend.counters().add(c);
        if (backend != null) {
            backend.counters().add(c);
        }
        if (responsePhase && server != null) {
            server.counters().add(c);
        }
    }

    /** {@code timeout server} for this stream (a rule may have changed it), 0 for none. */
    public long serverTimeout() {
        if (serverTimeout >= 0) {
            return serverTimeout;
        }
        long t = backend == null ? Timeouts.UNSET : backend.timeouts().server();
        return t == Timeouts.UNSET ? 0 : t;
    }

    /** {@code timeout tunnel} for this stream, falling back to the server timeout. */
    public long tunnelTimeout() {
        if (tunnelTimeout >= 0) {
            return tunnelTimeout;
        }
        long t = backend == null ? Timeouts.UNSET : backend.timeouts().tunnel();
        return t == Timeouts.UNSET ? serverTimeout() : t;
    }

    /** The rules of http-after-response act on the response head whatever the phase. */
    private final RuleTarget afterTarget = new AfterTarget();

    private final class AfterTarget implements RuleTarget {
        @Override
        public RequestHead request() {
            return request;
        }

        @Override
        public ResponseHead response() {
            return response;
        }

        @Override
        public java.net.InetSocketAddress clientAddress() {
            return Stream.this.clientAddress();
        }

        @Override
        public java.net.InetSocketAddress frontendAddress() {
            return Stream.this.frontendAddress();
        }

        @Override
        public boolean tls() {
            return Stream.this.tls();
        }

        @Override
        public String sni() {
            return Stream.this.sni();
        }

        @Override
        public dev.sluice.proxy.listener.ProxyHeader.Received proxyHeader() {
            return Stream.this.proxyHeader();
        }

        @Override
        public String frontendName() {
            return Stream.this.frontendName();
        }

        @Override
        public String backendName() {
            return Stream.this.backendName();
        }

        @Override
        public java.util.Map<String, Object> vars() {
            return Stream.this.vars();
        }

        @Override
        public dev.sluice.proxy.rules.Trackers trackers() {
            return Stream.this.trackers();
        }

        @Override
        public dev.sluice.proxy.auth.Userlists userlists() {
            return Stream.this.userlists();
        }

        @Override
        public byte[] requestBody() {
            return Stream.this.requestBody();
        }

        @Override
        public String captured(boolean isResponse, int slot) {
            return Stream.this.captured(isResponse, slot);
        }

        @Override
        public void capture(boolean isResponse, int slot, CharSequence value) {
            Stream.this.capture(isResponse, slot, value);
        }

        @Override
        public void setLogLevel(int level) {
            Stream.this.setLogLevel(level);
        }

        @Override
        public String uniqueId() {
            return Stream.this.uniqueId();
        }

        @Override
        public long requestDate() {
            return Stream.this.requestDate();
        }

        @Override
        public long requestCounter() {
            return Stream.this.requestCounter();
        }

        @Override
        public boolean firstRequest() {
            return Stream.this.firstRequest();
        }

        @Override
        public boolean proxyAuthentication() {
            return Stream.this.proxyAuthentication();
        }

        @Override
        public MessageHead head() {
            return response;
        }

        @Override
        public boolean responsePhase() {
            return true;
        }

        @Override
        public void answer(ResponseHead head, byte[] body, char why) {
            // http-after-response cannot replace a response
        }

        @Override
        public void answerStatus(int status, char why) {
        }

        @Override
        public void drop() {
        }

        @Override
        public void tarpit(int status) {
        }

        @Override
        public void setTimeout(String which, long millis) {
        }

        @Override
        public void setRetries(int retries) {
        }
    }

    private static long ms(long from, long to) {
        return from < 0 || to < 0 ? -1 : (to - from) / 1_000_000;
    }

    /** Emits the access-log line of this stream, once, and ends its server accounting. */
    private void log() {
        endCompression();
        dev.sluice.pools.Budget b = budget;
        if (b != null) {
            budget = null;
            b.give();
        }
        frontend.streams().remove(this, client.loopIndex());
        if (logged) {
            return;
        }
        logged = true;
        endTracking();
        if (status == 0) {
            // no response (the client left, the request was aborted or killed): HAProxy counts its status -1 as "other"
            countSent(-1);
        }
        account();
        timeStats();
        if (!lineLogged) {
            logLine(false);
        }
    }

    /** The access-log line, once: at the end, or when the response head left with {@code option logasap}. */
    private void logLine(boolean asap) {
        lineLogged = true;
        dev.sluice.proxy.log.AccessLog al = frontend.accessLog();
        if (al == null || !al.logsRequests()) {
            return;
        }
        long now = System.nanoTime();
        long start = requestStart;
        dev.sluice.proxy.log.LogEvent e = new dev.sluice.proxy.log.LogEvent();
        e.client = client.remoteAddress();
        e.frontendAddress = client.localAddress();
        e.acceptDate = client.acceptDate();
        e.requestDate = requestDate;
        e.frontend = frontend.name();
        e.frontendTls = client.tls();
        dev.sluice.proxy.tls.TlsSession ts = client.tlsSession();
        if (ts != null) {
            e.sslVersion = ts.protocol();
            e.sslCipher = ts.cipher();
        }
        e.backend = backend != null ? backend.name() : null;
        e.server = server != null ? server.name() : null;
        e.serverAddress = e.server != null ? server.address() : null;
        e.method = request.method().toString();
        e.uri = request.target().toString();
        e.version = request.version().text();
        e.requestLine = e.method + " " + e.uri + " " + e.version;
        // HAProxy logs -1 when no response was sent
        e.status = status > 0 ? status : -1;
        e.bytesOut = client.bytesOut();
        e.tRequest = ms(start, tHead);
        e.tQueue = slot != null ? slot.queueMillis() : -1;
        e.serverQueue = slot != null ? slot.serverQueuePosition() : 0;
        e.backendQueue = slot != null ? slot.backendQueuePosition() : 0;
        e.tConnect = tConnected >= 0 ? ms(tConnectStart, tConnected) : -1;
        e.tResponse = tResponse >= 0 && tConnected >= 0 ? ms(tConnected, tResponse) : -1;
        e.tActive = ms(start, now);
        e.cause = cause;
        e.state = state;
        Backend be = backend != null ? backend : frontend.ownBackend();
        if (be != null && be.cookie() != null && be.cookie().config().logsFlags()) {
            e.cookieFlags = cookieTxn == null ? "NN" : new String(new char[] {cookieTxn.clientFlag(), cookieTxn.serverFlag()});
        }
        e.retries = attempts != null ? attempts.done() : 0;
        e.redispatched = attempts != null && attempts.redispatched();
        e.actconn = frontend.globalConnections();
        e.feconn = frontend.limit().current();
        e.beconn = backend != null ? backend.activeStreams() : 0;
        e.srvconn = server != null ? server.activeStreams() : 0;
        e.error = status >= 500 || cause != '-' && cause != 'L';
        e.txn = this;
        e.logAsap = asap;
        e.requestCounter = number;
        if (frontend.uniqueIdFormat() != null) {
            uniqueId();
        }
        e.captures = captures;
        al.log(e);
    }

    /**
     * The request's queue, connect, response and total times into its server's and backend's averages, when
     * it reached a server and got a response head from it (HAProxy skips the others).
     */
    private void timeStats() {
        if (server == null || tConnectStart < 0 || tConnected < 0 || tResponse < 0) {
            return;
        }
        long c = ms(tConnectStart, tConnected);
        long r = ms(tConnected, tResponse);
        long t = ms(requestStart, System.nanoTime());
        int loop = client.loopIndex();
        long q = Math.max(0, slot.queueMillis());
        server.timeStats().record(loop, q, c, r, t);
        backend.timeStats().record(loop, q, c, r, t);
    }

    // ------------------------------------------------------------------ admin view

    /** The id {@code show sess} prints and {@code shutdown session} takes. */
    public long id() {
        return liveId;
    }

    /** The {@code show sess} epoch this stream started in. */
    public int epoch() {
        return epoch;
    }

    /** Epoch milliseconds when the request started to arrive. */
    public long startDate() {
        return requestDate;
    }

    /** The client connection's end of this stream. */
    public ClientSide client() {
        return client;
    }

    /** Where the exchange is: the log's state letter it would end with now. */
    public char phase() {
        if (tunnel) {
            return 'D';
        }
        if (responseStarted) {
            return 'D';
        }
        if (conn != null) {
            return 'H';
        }
        if (tConnectStart >= 0) {
            return 'C';
        }
        return 'R';
    }

    /**
     * {@code shutdown session}: ends the exchange at once, both connections closed, logged with HAProxy's
     * "killed" cause ({@code K}). Only on the stream's loop.
     */
    public void kill() {
        if (finished) {
            return;
        }
        char at = phase();
        finished = true;
        cause = 'K';
        state = at;
        releasePending();
        closeBoth();
    }

    /**
     * Counts the final status about to be sent to the client, for the frontend and the backend (the server
     * counted what it answered on receipt): before the bytes go, so a client that got its response finds
     * it counted, as in HAProxy.
     */
    private void countSent(int code) {
        frontend.counters().countResponse(code);
        if (backend != null) {
            backend.counters().countResponse(code);
        }
    }

    /**
     * {@code option contstats} (HAProxy's stream_process_counters on each wake-up): adds the bytes received and sent since
     * the last time to the frontend, backend and server counters, once the request has a server connection (before that,
     * nothing went through). Two shared adds per chunk, only with the option.
     */
    private void creditBytes() {
        if (!contStats || conn == null) {
            return;
        }
        long in = bytesIn - creditedIn;
        long out = client.bytesOut() - creditedOut;
        if (in == 0 && out == 0) {
            return;
        }
        creditedIn += in;
        creditedOut += out;
        add(frontend.counters(), in, out);
        add(backend.counters(), in, out);
        add(server.counters(), in, out);
    }

    private static void add(Counters c, long in, long out) {
        if (in > 0) {
            c.add(Counter.BYTES_IN, in);
        }
        if (out > 0) {
            c.add(Counter.BYTES_OUT, out);
        }
    }

    /**
     * Adds this exchange's bytes to the frontend, backend and server counters, once, at its end (what
     * {@link #creditBytes} did not add yet).
     */
    private void account() {
        long out = client.bytesOut() - creditedOut;
        long bytesIn = this.bytesIn - creditedIn;
        Counters fe = frontend.counters();
        fe.add(Counter.BYTES_IN, bytesIn);
        fe.add(Counter.BYTES_OUT, out);
        if (backend != null) {
            Counters be = backend.counters();
            be.add(Counter.BYTES_IN, bytesIn);
            be.add(Counter.BYTES_OUT, out);
            if (server != null && tConnectStart >= 0) {
                Counters srv = server.counters();
                srv.add(Counter.BYTES_IN, bytesIn);
                srv.add(Counter.BYTES_OUT, out);
            }
        }
    }

    private void releasePending() {
        if (attempts != null) {
            attempts.release();
        }
        if (pending != null) {
            ByteBuf b;
            while ((b = pending.poll()) != null) {
                b.release();
            }
            pendingBytes = 0;
        }
    }
}
