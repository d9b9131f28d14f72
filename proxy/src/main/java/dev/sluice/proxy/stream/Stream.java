package dev.sluice.proxy.stream;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Retries.RetryOn;
import dev.sluice.pools.Budget;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.cache.CacheFill;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.log.LogCaptures;
import dev.sluice.proxy.rules.Action;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/**
 * One request/response exchange, as a state machine: runs the frontend's and backend's rules (resuming them after a
 * {@code wait-for-body}), picks the backend and the server, obtains a server connection (queueing, retrying), then
 * streams the request body to the server and the response back to the client with back-pressure both ways, and
 * decides how it ended ({@link Termination}). What rules see of it is its {@link StreamTarget}; persistence, the held
 * request body, the counters and the log line are its {@link Persistence}, {@link RequestBody}, {@link Accounting}
 * and {@link RequestLog}. Protocol-neutral: it sees a {@link ClientSide} and a {@link ServerSide}. Created and owned by
 * the client side; lives on the client connection's event loop and is never touched by another thread.
 */
public final class Stream extends Live implements Exchange {

    private final ClientSide client;
    private final Frontend frontend;
    private final RequestHead request;
    private final long number = RequestLog.NUMBERS.getAndIncrement();
    private final Accounting accounting;
    private final StreamTarget target;
    private final RequestBody body;
    private final Persistence persistence;
    private final RequestRules rules;
    private ResponseRules responseRules;
    /** The response compression; null unless the request asked for an algorithm both ends offer. */
    private Compression compression;
    private final Termination outcome = new Termination();
    private Backend backend;
    private Server server;
    private ServerSide conn;
    ServerSide lastConn; // the last server connection, detached or not: StreamTarget's, for ssl_bc_* in the log line
    /** Retries, redispatches, the replay copy of the request: decided there; null until the backend's rules passed. */
    private Attempts attempts;
    /** The server slot: assignment, queueing, hand-off; null until the backend's rules passed. */
    private ServerSlot slot;
    /** Gets the server connection ({@link ServerPath}) and sends the request; null until the backend's rules passed. */
    private Connecting connecting;
    private boolean responseStarted;
    private boolean finished;
    private boolean tunnel;
    private ResponseHead response;
    private boolean responsePhase;
    private int status;
    private boolean closeAfter;
    private boolean logged;
    private boolean lineLogged;
    /** The response going into a cache ({@code cache-store}), or null. */
    private CacheFill cacheFill;
    /** The frontend's stream budget while this stream holds a place in it; given back once, at {@link #log}. */
    private Budget budget;

    public Stream(ClientSide client, Frontend frontend, RequestHead request) {
        this.client = client;
        this.frontend = frontend;
        this.request = request;
        this.accounting = new Accounting(this, client, frontend);
        this.target = new StreamTarget(this, client, frontend, request);
        this.body = new RequestBody(this, client, request);
        this.persistence = new Persistence(client, request, target);
        this.rules = new RequestRules(this, frontend, request, target);
    }

    public RequestHead request() {
        return request;
    }

    @Override
    public Frontend frontend() {
        return frontend;
    }

    @Override
    public Backend backend() {
        return backend;
    }

    void backend(Backend b) {
        backend = b;
    }

    @Override
    public Server server() {
        return server;
    }

    @Override
    public void server(Server s) {
        server = s;
    }

    /** The status sent to the client (0 until a final response head was sent). */
    public int status() {
        return status;
    }

    @Override
    public boolean finished() {
        return finished;
    }

    /** The response being sent (the server's or one the proxy made), null before. */
    ResponseHead response() {
        return response;
    }

    /** Whether the response rules run (or ran): rules then see the response. */
    boolean responsePhase() {
        return responsePhase;
    }

    /** What the rules see of this stream. */
    @Override
    public StreamTarget target() {
        return target;
    }

    RequestBody body() {
        return body;
    }

    @Override
    public Accounting accounting() {
        return accounting;
    }

    @Override
    public Persistence persistence() {
        return persistence;
    }

    @Override
    public Termination outcome() {
        return outcome;
    }

    ServerSlot slot() {
        return slot;
    }

    Attempts attempts() {
        return attempts;
    }

    /** The response rules' wait, made by the first {@code wait-for-body} that needs it (a cached response is whole). */
    ResponseRules responseRules(boolean make) {
        if (responseRules == null && make) {
            responseRules = fromCache() ? new ResponseRules(this, target).complete() : new ResponseRules(this, target);
        }
        return responseRules;
    }

    /** The proxy's own answers; made when one is needed (it holds nothing of its own), not with every stream. */
    Answers answers() {
        return new Answers(this, client, frontend);
    }

    /** The process-wide number of the exchange ({@code %rt}). */
    long number() {
        return number;
    }

    // ------------------------------------------------------------------ request: rules, backend, server

    /** Processes the request head: monitor URI, rules, backend, server, connection. */
    public void start() {
        target.woken();
        register(frontend.streams(), client.loopIndex());
        accounting.requestStarted(request);
        Budget b = frontend.streamBudget();
        if (b != null) {
            if (!b.take()) {
                // the memory ceiling (-m): a resource of the proxy is exhausted
                outcome.set(Cause.RESOURCE, State.REQUEST);
                fail(503);
                return;
            }
            budget = b;
        }
        if (frontend.isMonitorRequest(request)) {
            // answered before any rule; as in HAProxy, neither forwarded nor logged
            logged = true;
            fail(frontend.monitorFails(target) ? 503 : 200);
            return;
        }
        LogCaptures captures = frontend.captures().newCaptures();
        if (captures != null) {
            // header captures are taken before any rule, as HAProxy does, whether the frontend logs or not (rules read
            // them with capture.req.hdr)
            target.captures(captures);
            captures.capture(false, request.fields());
        }
        Trackers session = client.sessionTrackers();
        if (session != null) {
            target.trackSession(session);
        }
        if (Rule.run(frontend.rules().content(), target) == Action.Verdict.DONE) {
            return;
        }
        // stick counters count the request once the tcp-request content rules let it through
        target.countRequest();
        processRequest();
    }

    /** The request rules from where they stopped (they stop at a wait-for-body), then the server. */
    private void processRequest() {
        if (!rules.resume()) {
            return;
        }
        // HAProxy's order: the cookies (captured, then the persistence one), the unique id, X-Forwarded-For; then
        // stickiness and the balancing
        persistence.captureCookie(target.captures());
        Server cookie = persistence.cookieServer(backend);
        rules.forwardFor();
        compression = Compression.select(frontend, request, backend);
        if (target.cacheHit() != null) {
            CacheAnswer.serve(this, client, target.cacheHit());
            return;
        }
        AsciiString idHeader = frontend.uniqueIdHeader();
        if (idHeader != null) {
            request.fields().add(idHeader, new AsciiString(target.uniqueId()));
        }
        attempts = new Attempts(backend, request, target.retries() >= 0 ? target.retries() : backend.retries(), target.l7RetryDisabled());
        connecting = new Connecting(this, client, request, backend, attempts);
        slot = connecting.slot();
        Server to = persistence.route(backend, cookie);
        connecting.assign(to, persistence.persistTarget() != null);
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

    // ------------------------------------------------------------------ server connection (see Connecting)

    /** The server connection {@code c} now carries the request. */
    void attach(ServerSide c) {
        conn = lastConn = c;
        c.attach(this);
    }

    /** Takes the server connection away from the stream (null when it has none); the caller closes or keeps it. */
    ServerSide detach() {
        ServerSide c = conn;
        conn = null;
        return c;
    }

    /** Closes the server connection, if any, taken away from the stream first; returns it (or null). */
    private ServerSide abortServer() {
        ServerSide c = detach();
        if (c != null) {
            c.abort();
        }
        return c;
    }

    // ------------------------------------------------------------------ request body

    /** A piece of request body from the client; takes ownership. */
    public void onRequestBody(ByteBuf data) {
        accounting.received(data.readableBytes());
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
            accounting.credit(true);
            return;
        }
        if (body.hold(data)) {
            bodyArrived();
        }
    }

    public void onRequestEnd(HttpFields trailers) {
        accounting.ended(false, request, trailers);
        body.markEnded();
        if (finished) {
            return;
        }
        if (conn != null) {
            conn.sendEnd(trailers);
        } else {
            body.keepTrailers(trailers);
            if (body.waiting()) {
                bodyArrived();
            }
        }
        target.wokenByClientRead();
    }

    /**
     * {@code wait-for-body} (see {@link RequestBody#waitFor}; the response's: {@link ResponseRules#waitFor}): true when the
     * rules may go on at once; otherwise they resume when enough body arrived, or the request gets a 408 and its
     * connection closes (flags cR).
     */
    boolean waitForBody(long millis, long atLeast) {
        return responsePhase ? responseRules(true).waitFor(millis, atLeast) : body.waitFor(millis, atLeast, () -> {
            outcome.set(Cause.CLIENT_TIMEOUT, State.REQUEST);
            closeAfter = true;
            fail(408);
        });
    }

    private void bodyArrived() {
        target.wokenByClientRead();
        body.arrived();
        processRequest();
    }

    // ------------------------------------------------------------------ response

    public void onResponseHead(ResponseHead head) {
        if (finished) {
            return;
        }
        target.woken();
        if (!head.isInterim()) {
            if (backend.retryPolicy().statuses().contains(head.status()) && connecting.againAfterSending(null, head.status(), conn)) {
                // retry-on <status>: this response is dropped (nor counted, as in HAProxy) and the request sent again
                return;
            }
            attempts.release();
            responseStarted = true;
            status = head.status();
            accounting.responseReceived(head.status());
        }
        accounting.responded(head.htxSize());
        accounting.responseHead(head.status());
        boolean switching = head.status() == 101 && request.upgrade() != null
                || request.isConnect() && head.status() >= 200 && head.status() < 300;
        if (!head.isInterim()) {
            LogCaptures captures = target.captures();
            if (captures != null) {
                captures.capture(true, head.fields());
            }
            // http-response rules after compression decided (ResponseRules: a rule may answer instead, or wait for the body)
            response = head;
            responsePhase = true;
            boolean compressing = !switching && compression != null && compression.decide(backend, head);
            persistence.stickStore(backend, server, true);
            if (ResponseRules.start(this, target, compressing)) {
                responseRulesPassed(head, compressing);
            }
        } else {
            client.sendHead(head);
            accounting.credit(conn != null);
        }
        if (switching && conn != null && !finished) {
            tunnel = true;
            client.startTunnel();
            conn.startTunnel();
            client.flush();
        }
    }

    /** The response rules passed (at once, or once a wait-for-body had its body): the head goes to the client. */
    void responseRulesPassed(ResponseHead head, boolean compressing) {
        LogCaptures captures = target.captures();
        if (captures != null) {
            // the server's cookie is captured after the response rules, as HAProxy reads it with its persistence cookie
            captures.cookie(true, head.fields());
        }
        persistence.response(backend, head, server, attempts.direct());
        afterResponse(head);
        accounting.sent(head.status());
        if (compressing) {
            compression.start(backend, head);
            accounting.compressing();
            cacheFill = cacheFill != null && cacheFill.compressedBefore(compression.byFrontend(backend)) ? null : cacheFill;
        }
        client.sendHead(head);
        accounting.credit(conn != null);
        if (frontend.accessLog() != null && frontend.accessLog().logAsap()) {
            logLine(true);
        }
    }

    /** Whether the exchange became a tunnel (WebSocket, CONNECT). */
    public boolean tunnel() {
        return tunnel;
    }

    public void onTunnelFromClient(ByteBuf data) {
        accounting.received(data.readableBytes());
        if (finished || conn == null) {
            data.release();
            return;
        }
        conn.sendRaw(data);
        if (!conn.isWritable()) {
            client.pauseRequestBody();
        }
        accounting.credit(conn != null);
    }

    public void onTunnelFromServer(ByteBuf data) {
        accounting.responded(data.readableBytes());
        if (finished) {
            data.release();
            return;
        }
        client.sendRaw(data);
        if (!client.isWritable() && conn != null) {
            conn.pauseResponseBody();
        }
        accounting.credit(conn != null);
    }

    /** One side of a tunnel closed or timed out: the other side goes too (server first), then the log; the exchange is over. */
    public void onTunnelClosed(boolean byClient, boolean timeout) {
        if (finished) {
            return;
        }
        finished = true;
        if (timeout) {
            outcome.set(byClient ? Cause.CLIENT_TIMEOUT : Cause.SERVER_TIMEOUT, State.DATA);
        }
        abortServer();
        client.abort();
        log();
    }

    /** A piece of response body from the server; takes ownership. */
    public void onResponseBody(ByteBuf data) {
        if (finished) {
            data.release();
            return;
        }
        accounting.responded(data.readableBytes());
        if (responseRules == null || !responseRules.hold(data)) {
            sendResponseBody(data);
        }
    }

    /** A piece of response body the rules let through goes to the client (and the cache); takes ownership. */
    void sendResponseBody(ByteBuf data) {
        if (cacheFill != null) {
            cacheFill.append(data);
        }
        data = compression != null ? compression.compress(data) : data;
        if (data == null) {
            return;
        }
        client.sendBody(data);
        if (!client.isWritable() && conn != null) {
            conn.pauseResponseBody();
        }
        accounting.credit(conn != null);
    }

    public void onResponseEnd(HttpFields trailers) {
        if (finished || responseRules != null && responseRules.holdEnd(trailers)) {
            return;
        }
        finished = true;
        accounting.ended(true, response, trailers);
        ServerSide c = conn;
        conn = null;
        // back to the pool first, so a pipelined next request may reuse it at once
        c.release();
        if (cacheFill != null) {
            cacheFill.complete();
        }
        endTracking();
        if (compression != null) {
            compression.finish(client, backend);
        }
        client.sendEnd(trailers);
        log();
    }

    /** The server connection failed; decides between a retry, an error response and an abort. */
    public void onServerFailure(ServerFailure failure) {
        if (finished) {
            return;
        }
        ServerSide c = abortServer();
        boolean timeout = failure == ServerFailure.TIMEOUT;
        if (!responseStarted) {
            if (connecting.againAfterSending(switch (failure) {
                case CLOSED_BEFORE_RESPONSE -> RetryOn.EMPTY_RESPONSE;
                case TIMEOUT -> RetryOn.RESPONSE_TIMEOUT;
                default -> RetryOn.JUNK_RESPONSE;
            }, 0, c)) {
                return;
            }
            accounting.responseError(failure);
            outcome.set(timeout ? Cause.SERVER_TIMEOUT : failure == ServerFailure.INVALID_RESPONSE ? Cause.PROXY : Cause.SERVER_ABORT,
                    State.HEADERS);
            fail(timeout ? 504 : 502);
            return;
        }
        finished = true;
        accounting.serverAborted(timeout, failure);
        outcome.set(timeout ? Cause.SERVER_TIMEOUT : Cause.SERVER_ABORT, State.DATA);
        releasePending();
        client.abort();
        log();
    }

    // ------------------------------------------------------------------ client side events

    /**
     * The client half-closed its connection (a FIN) once the whole request was received. HAProxy cannot tell a client
     * that only closed its output from one that left, so by default the exchange goes on. With {@code option abortonclose}
     * it is aborted while that is still possible, as HAProxy 2.6 does: a request waiting in a queue (CQ) or for its
     * server connection (CC) ends without a response and the connection closes; one waiting for the response head gets
     * a 400 and its server connection is closed (CH). Returns whether the exchange ended.
     */
    public boolean onClientHalfClosed() {
        if (finished || responseStarted || tunnel || outcome.state() == State.TARPIT || backend == null
                || !backend.config().options().abortOnClose()) {
            return false;
        }
        if (conn == null) {
            // HAProxy counts no client abort for a request it drops from a queue or a connection attempt
            finished = true;
            outcome.set(Cause.CLIENT_ABORT, waitingState());
            releasePending();
            client.abort();
            log();
            return true;
        }
        accounting.clientAborted();
        outcome.set(Cause.CLIENT_ABORT, State.HEADERS);
        // the server connection goes with the request it carries
        abortServer();
        fail(400);
        return true;
    }

    /** Where a request without a server connection waits: in a queue, for its connection, or still in the request. */
    private State waitingState() {
        return slot != null && slot.waiting() ? State.QUEUE : accounting.connectStarted() ? State.CONNECT : State.REQUEST;
    }

    public void onClientClosed() {
        clientGone(Cause.CLIENT_ABORT);
    }

    /** {@code timeout client} expired while the client had to read (or send) something: logged {@code cD}, {@code cH}, ... */
    public void onClientTimeout() {
        clientGone(Cause.CLIENT_TIMEOUT);
    }

    private void clientGone(Cause why) {
        if (finished) {
            return;
        }
        finished = true;
        // as HAProxy: D also while the request body was still coming to a connected server (its body forwarding ended it)
        outcome.set(why, responseStarted || conn != null && !body.ended() ? State.DATA : conn != null ? State.HEADERS : waitingState());
        accounting.clientAborted();
        releasePending();
        abortServer();
        log();
    }

    public void onClientWritable(boolean writable) {
        if (conn != null && writable) {
            conn.resumeResponseBody();
        } else if (conn != null) {
            conn.pauseResponseBody();
        }
    }

    public void onServerWritable(boolean writable) {
        if (finished || body.paused()) {
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
        target.clientReadEnded();
        if (conn != null) {
            conn.flush();
        }
    }

    /** Flushes what the server side's reads wrote to the client. */
    public void flushClient() {
        client.flush();
    }

    // ------------------------------------------------------------------ the cache

    /** {@code cache-store}: the response's body goes into the cache too as it passes. */
    void cacheFill(CacheFill f) {
        cacheFill = f;
    }

    /** Whether the cache answered ({@code <CACHE>} in the log), not a server. */
    boolean fromCache() {
        return target.cacheHit() != null && responseStarted;
    }

    /** The cache's response goes out as a server's would (see {@link CacheAnswer}); false when a response rule answered. */
    boolean localResponse(ResponseHead head, long bodyBytes) {
        responseStarted = true;
        status = head.status();
        response = head;
        responsePhase = true;
        boolean compressing = compression != null && compression.decide(backend, head);
        // a wait-for-body finds the whole body here (responseRules(true))
        if (!ResponseRules.start(this, target, compressing)) {
            return false;
        }
        afterResponse(head);
        accounting.sent(head.status());
        if (compressing) {
            compression.start(backend, head);
            accounting.compressing();
        }
        finished = true;
        // HAProxy's cache applet counts the HTX it sends: the stored head (measured from its fields) and body
        accounting.responded(head.htxSize() + bodyBytes);
        endTracking();
        return true;
    }

    Compression compression() {
        return compression;
    }

    // ------------------------------------------------------------------ the ends the proxy makes (see Answers)

    /** Answers with a generated error page. */
    public void fail(int code) {
        answers().fail(code);
    }

    /** The exchange stops here: held request body released, server connection closed; the caller answers and logs. */
    void stop() {
        finished = true;
        releasePending();
        abortServer();
    }

    void status(int code) {
        status = code;
    }

    /** Ends the stick counters before the last bytes go out: the client's next request, on any loop, sees this one finished. */
    void endTracking() {
        Trackers trackers = target.trackersIfAny();
        if (trackers != null) {
            trackers.end(status, outcome.cause() == Cause.LOCAL, accounting.bytesIn(), accounting.bytesOut());
        }
        // the queue and the server's cur_sess too; the slot goes after the line (log), in the same task
        if (slot != null) {
            slot.leaveBeforeLog();
        }
    }

    /** The http-after-response rules (backend's, then frontend's) on the response to send; its status is then the logged one. */
    void afterResponse(ResponseHead head) {
        response = head;
        responsePhase = true;
        AsciiString altSvc = frontend.altSvc();
        if (altSvc != null && request.version() != HttpVersion.HTTP_3 && !head.fields().contains(HeaderNames.ALT_SVC)) {
            // option h3-alt-svc: tell TCP clients where this frontend serves HTTP/3
            head.fields().add(HeaderNames.ALT_SVC, altSvc);
        }
        if (backend != null) {
            target.runAfterResponse(backend.rules().after());
        }
        target.runAfterResponse(frontend.rules().after());
        status = head.status();
    }

    /** {@code timeout server} for this stream (a rule may have changed it), 0 for none. */
    public long serverTimeout() {
        return target.serverTimeout(backend);
    }

    /** {@code timeout tunnel} for this stream, falling back to the server timeout. */
    public long tunnelTimeout() {
        return target.tunnelTimeout(backend);
    }

    // ------------------------------------------------------------------ the end

    /** Emits the access-log line of this stream, once, and ends its server accounting. */
    void log() {
        if (compression != null) {
            compression.end(backend);
        }
        ResponseRules.release(responseRules);
        target.releaseHit();
        Budget b = budget;
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
            accounting.sent(-1);
        }
        accounting.end(slot);
        if (!lineLogged) {
            logLine(false);
        }
        if (slot != null) {
            // a stream the slot goes to connects after this line (%sc as HAProxy's); this client's next request,
            // read after this task, finds it free
            slot.release();
        }
    }

    /** The access-log line, once: at the end, or when the response head left with {@code option logasap}. */
    private void logLine(boolean asap) {
        lineLogged = true;
        RequestLog.stream(this, asap);
    }

    private void releasePending() {
        if (attempts != null) {
            attempts.release();
        }
        body.release();
        ResponseRules.release(responseRules);
    }

    // ------------------------------------------------------------------ admin view

    /** Epoch milliseconds when the request started to arrive. */
    @Override
    public long startDate() {
        return accounting.requestDate();
    }

    @Override
    public ClientSide client() {
        return client;
    }

    /** The request line. */
    @Override
    public String describe() {
        return request.method() + " " + request.target() + " " + request.version().text();
    }

    /** Where the exchange is: the state it would end in now. */
    @Override
    public State phase() {
        return tunnel || responseStarted ? State.DATA : conn != null ? State.HEADERS : accounting.connectStarted() ? State.CONNECT : State.REQUEST;
    }

    @Override
    public void kill(Cause why) {
        if (!finished) {
            outcome.set(why, phase());
            answers().killed();
        }
    }
}
