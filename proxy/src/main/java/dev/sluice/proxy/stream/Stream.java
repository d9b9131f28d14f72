package dev.sluice.proxy.stream;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Retries.RetryOn;
import dev.sluice.config.model.Timeouts;
import dev.sluice.pools.Budget;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.h1.ErrorResponses;
import dev.sluice.proxy.log.LogCaptures;
import dev.sluice.proxy.rules.Action;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.rules.PageService;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.Service;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One request/response exchange, as a state machine: runs the frontend's and backend's rules (resuming them after a
 * {@code wait-for-body}), picks the backend and the server, obtains a server connection (queueing, retrying), then
 * streams the request body to the server and the response back to the client with back-pressure both ways, and
 * decides how it ended ({@link Termination}). What rules see of it is its {@link StreamTarget}; persistence, the held
 * request body, the counters and the log line are its {@link Persistence}, {@link RequestBody}, {@link Accounting}
 * and {@link LogLine}. Protocol-neutral: it sees a {@link ClientSide} and a {@link ServerSide}. Created and owned by
 * the client side; lives on the client connection's event loop and is never touched by another thread.
 */
public final class Stream implements ServerConnector.Callback {

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

    private static final AtomicLong COUNTER = new AtomicLong();

    private final ClientSide client;
    private final Frontend frontend;
    private final RequestHead request;
    private final long number = COUNTER.getAndIncrement();
    private final Accounting accounting;
    private final StreamTarget target;
    private final RequestBody body;
    private final Persistence persistence;
    private final Termination outcome = new Termination();
    private Backend backend;
    private Server server;
    private ServerSide conn;
    /** Retries, redispatches, the replay copy of the request: decided there; null until the backend's rules passed. */
    private Attempts attempts;
    /** The server slot: assignment, queueing, hand-off; null until the backend's rules passed. */
    private ServerSlot slot;
    private boolean responseStarted;
    private boolean finished;
    private boolean tunnel;
    /** Response compression: the algorithm chosen on the request (null: none), the response's compressor. */
    private String compressionAlgo;
    private Compressor compressor;
    private ResponseHead response;
    private boolean responsePhase;
    private int status;
    /** Where the request rules stopped for {@code wait-for-body}: the next rule, and whether it is a backend rule. */
    private int ruleIndex;
    private boolean backendRules;
    private boolean closeAfter;
    private boolean logged;
    private boolean lineLogged;
    /** The frontend's stream budget while this stream holds a place in it; given back once, at {@link #log}. */
    private Budget budget;
    /** Position in this loop's {@link LiveStreams} (-1 when not registered), the stream's id and epoch there. */
    int liveSlot = -1;
    private long liveId;
    private int epoch;

    public Stream(ClientSide client, Frontend frontend, RequestHead request) {
        this.client = client;
        this.frontend = frontend;
        this.request = request;
        this.accounting = new Accounting(this, client, frontend);
        this.target = new StreamTarget(this, client, frontend, request);
        this.body = new RequestBody(this, client, request);
        this.persistence = new Persistence(client, request, target);
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

    /** The response being sent (the server's or one the proxy made), null before. */
    ResponseHead response() {
        return response;
    }

    /** Whether the response rules run (or ran): rules then see the response. */
    boolean responsePhase() {
        return responsePhase;
    }

    /** What the rules see of this stream. */
    StreamTarget target() {
        return target;
    }

    RequestBody body() {
        return body;
    }

    Accounting accounting() {
        return accounting;
    }

    Persistence persistence() {
        return persistence;
    }

    Termination outcome() {
        return outcome;
    }

    ServerSlot slot() {
        return slot;
    }

    Attempts attempts() {
        return attempts;
    }

    /** The process-wide number of the exchange ({@code %rt}). */
    long number() {
        return number;
    }

    // ------------------------------------------------------------------ request: rules, backend, server

    /** Processes the request head: monitor URI, rules, backend, server, connection. */
    public void start() {
        LiveStreams live = frontend.streams();
        liveId = live.add(this, client.loopIndex());
        epoch = live.epoch();
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

    /** The request rules from where they stopped (they stop at a wait-for-body), then the backend and the server. */
    private void processRequest() {
        if (!backendRules) {
            int r = Rule.resume(frontend.rules().request(), target, ruleIndex);
            if (r == Rule.ENDED) {
                return;
            }
            if (body.waiting()) {
                ruleIndex = r;
                return;
            }
            if (servePage(frontend.statsPage(), frontend.rules().request().size())) {
                return;
            }
            backend = frontend.selectBackend(target);
            if (backend == null) {
                fail(503);
                return;
            }
            accounting.backendChosen(backend);
            backendRules = true;
            ruleIndex = 0;
            if (Rule.run(backend.rules().content(), target) == Action.Verdict.DONE) {
                return;
            }
        }
        int r = Rule.resume(backend.rules().request(), target, ruleIndex);
        if (r == Rule.ENDED) {
            return;
        }
        if (body.waiting()) {
            ruleIndex = r;
            return;
        }
        if (servePage(backend.statsPage(), backend.rules().request().size())) {
            return;
        }
        // HAProxy's order: the persistence cookie, the unique id, X-Forwarded-For; then stickiness and the balancing
        Server cookie = persistence.cookieServer(backend);
        forwardFor();
        selectCompression();
        AsciiString idHeader = frontend.uniqueIdHeader();
        if (idHeader != null) {
            request.fields().add(idHeader, new AsciiString(target.uniqueId()));
        }
        attempts = new Attempts(backend, request, target.retries() >= 0 ? target.retries() : backend.retries());
        slot = new ServerSlot(this, backend, client.loop());
        Server to = persistence.route(backend, cookie);
        boolean persistent = persistence.persistTarget() != null;
        attempts.direct(persistent);
        assigned(slot.assign(to, persistent, null));
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
                queueFailed(Cause.SERVER_ABORT);
            }
        }
    }

    /** A slot is held on {@code slot.server()}: the request goes there. */
    private void serverAssigned() {
        server = slot.server();
        attempts.assigned(server);
        if (attempts.direct() && server != persistence.persistTarget()) {
            // its server's queue was full and option redispatch balanced it
            attempts.direct(false);
        }
        if (!attempts.direct() && server != persistence.preferredTarget()) {
            // lbtot counts what the balancing chose, not what persistence (a cookie, a stick match) imposed, nor the last server
            accounting.balanced();
        }
        persistence.stickStore(backend, server, false);
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
            queueFailed(Cause.SERVER_TIMEOUT);
        }
    }

    /** No slot from the queue: 503, counted as a connection failure (econ), termination flags {@code why} and Q. */
    private void queueFailed(Cause why) {
        accounting.connectError();
        outcome.set(why, State.QUEUE);
        fail(503);
    }

    /**
     * The stats page of the proxy whose rules just ran, when the request is for it: answered (true), or held
     * until its body arrived (true too: {@link #processRequest} comes back here, the rules before it done).
     */
    private boolean servePage(PageService page, int rulesDone) {
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
        Service.send(target, page.serve(target));
        return true;
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
            Server s = persistence.cookieServer(be);
            if (s != null) {
                server = s;
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

    // ------------------------------------------------------------------ server connection: connect, retry

    private void connect(boolean reuse) {
        accounting.connecting();
        long timeout = backend.timeouts().connect();
        backend.connector().acquire(server, client.loop(), client.loopIndex(), client.localAddress(), timeout == Timeouts.UNSET ? 0 : timeout,
                reuse, server.sniFor(target), client.session(), target.firstRequest(), reusePolicy(), this);
    }

    @Override
    public Future<?> sessionEnd() {
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
    public InetSocketAddress proxiedSource() {
        return client.remoteAddress();
    }

    @Override
    public InetSocketAddress proxiedDestination() {
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
            Future<?> end = client.closeFuture();
            if (end != null) {
                end.addListener(f -> c.ownerGone(session));
            }
        }
        if (reusePolicy() == HttpOptions.Reuse.NEVER && c.owner() == client.session()) {
            List<ServerSide> mine = client.privateConnections();
            if (mine != null && !mine.contains(c)) {
                // closed ones go first, so that a long client connection keeps no more than its open private connections
                mine.removeIf(x -> !x.isOpen());
                mine.add(c);
            }
        }
        accounting.connected(c.reused());
        attempts.sending(c);
        c.sendHead(request);
        body.sendTo(c, attempts);
    }

    @Override
    public void failed(Throwable cause) {
        if (finished) {
            return;
        }
        if (attempts.connectFailed()) {
            retry(!(cause instanceof ConnectTimeoutException), true);
            return;
        }
        accounting.connectError();
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
            accounting.retried();
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
    private boolean againAfterSending(RetryOn event, int status, ServerSide c) {
        Attempts.Again a = attempts.afterSending(event, status, c != null && c.reused(), body.ended());
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
        accounting.retried();
        ArrayDeque<ByteBuf> replay = attempts.replayBody();
        if (replay != null) {
            body.replay(replay);
        }
        accounting.responseDropped();
        if (a == Attempts.Again.STALE) {
            connect(false);
        } else {
            retry(false, true);
        }
        return true;
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
    }

    /**
     * {@code wait-for-body} (see {@link RequestBody#waitFor}): true when the rules may go on at once; otherwise they
     * resume when enough body arrived, or the request gets a 408 and its connection closes (flags cR).
     */
    boolean waitForBody(long millis, long atLeast) {
        return body.waitFor(millis, atLeast, () -> {
            outcome.set(Cause.CLIENT_TIMEOUT, State.REQUEST);
            closeAfter = true;
            fail(408);
        });
    }

    private void bodyArrived() {
        body.arrived();
        processRequest();
    }

    // ------------------------------------------------------------------ response

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
            accounting.responseReceived(head.status());
        }
        boolean switching = head.status() == 101 && request.upgrade() != null
                || request.isConnect() && head.status() >= 200 && head.status() < 300;
        if (!head.isInterim()) {
            LogCaptures captures = target.captures();
            if (captures != null) {
                captures.capture(true, head.fields());
            }
            // http-response rules: the backend's, then the frontend's; a rule may answer instead
            response = head;
            responsePhase = true;
            persistence.stickStore(backend, server, true);
            if (Rule.run(backend.rules().response(), target) == Action.Verdict.DONE
                    || Rule.run(frontend.rules().response(), target) == Action.Verdict.DONE) {
                return;
            }
            persistence.response(backend, head, server, attempts.direct());
            afterResponse(head);
            accounting.sent(head.status());
            if (compressionAlgo != null && !switching) {
                compressor = Compressor.start(compressionAlgo, backend.http().compression(), frontend.http().compression(), request, head);
                if (compressor != null) {
                    accounting.compressing();
                }
            }
        }
        client.sendHead(head);
        accounting.credit(conn != null);
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

    /** One side of a tunnel closed or timed out: the other side goes too; the exchange is over. */
    public void onTunnelClosed(boolean byClient, boolean timeout) {
        if (finished) {
            return;
        }
        finished = true;
        if (timeout) {
            outcome.set(byClient ? Cause.CLIENT_TIMEOUT : Cause.SERVER_TIMEOUT, State.DATA);
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
        accounting.credit(conn != null);
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
            ByteBuf tail = compressor.finish(ByteBufAllocator.DEFAULT);
            if (tail != null) {
                client.sendBody(tail);
            }
            endCompression();
        }
        client.sendEnd(trailers);
        Trackers trackers = target.trackersIfAny();
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
        boolean timeout = failure == ServerFailure.TIMEOUT;
        if (!responseStarted) {
            if (againAfterSending(switch (failure) {
                case CLOSED_BEFORE_RESPONSE -> RetryOn.EMPTY_RESPONSE;
                case TIMEOUT -> RetryOn.RESPONSE_TIMEOUT;
                default -> RetryOn.JUNK_RESPONSE;
            }, 0, c)) {
                return;
            }
            accounting.responseError();
            outcome.set(timeout ? Cause.SERVER_TIMEOUT : failure == ServerFailure.INVALID_RESPONSE ? Cause.PROXY : Cause.SERVER_ABORT,
                    State.HEADERS);
            fail(timeout ? 504 : 502);
            return;
        }
        finished = true;
        accounting.serverAborted(timeout);
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
        ServerSide c = conn;
        conn = null;
        c.abort();
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
        outcome.set(why, responseStarted ? State.DATA : conn != null ? State.HEADERS : waitingState());
        accounting.clientAborted();
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
        if (conn != null) {
            conn.flush();
        }
    }

    /** Flushes what the server side's reads wrote to the client. */
    public void flushClient() {
        client.flush();
    }

    // ------------------------------------------------------------------ answers the proxy makes

    /** Answers with a generated error page. */
    public void fail(int code) {
        finished = true;
        if (outcome.cause() == Cause.NONE) {
            // no server could be reached (503), or the request was refused before that
            outcome.set(code == 503 ? Cause.SERVER_ABORT : Cause.PROXY, code == 503 ? State.CONNECT : State.REQUEST);
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
            accounting.sent(code);
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
        accounting.sent(status);
        long before = client.bytesOut();
        client.sendGenerated(head, body);
        Trackers trackers = target.trackersIfAny();
        if (trackers != null) {
            trackers.creditBytesOut(client.bytesOut() - before);
        }
    }

    /**
     * Releases the stick counters before the last bytes go to the client, so that a client's next
     * request, whichever loop serves it, sees this one finished ({@code conn_cur}, error counts).
     */
    private void endTracking() {
        Trackers trackers = target.trackersIfAny();
        if (trackers != null) {
            trackers.end(status, outcome.cause() == Cause.LOCAL, accounting.bytesIn(), client.bytesOut());
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
        AsciiString altSvc = frontend.altSvc();
        if (altSvc != null && request.version() != HttpVersion.HTTP_3 && !head.fields().contains(HeaderNames.ALT_SVC)) {
            // option h3-alt-svc: tell TCP clients where this frontend serves HTTP/3
            head.fields().add(HeaderNames.ALT_SVC, altSvc);
        }
        if (backend != null) {
            target.runAfterResponse(backend.rules().after());
        }
        target.runAfterResponse(frontend.rules().after());
    }

    // ------------------------------------------------------------------ how rules end the exchange (see StreamTarget)

    /** An answer made by a rule; in the response phase it replaces the server's response. */
    void answer(ResponseHead head, byte[] body, Cause why) {
        finished = true;
        if (why == Cause.LOCAL && !responsePhase) {
            accounting.intercepted();
        }
        if (why == Cause.PROXY) {
            cookieForLog();
        }
        releasePending();
        outcome.set(why, phaseOfRules());
        if (conn != null) {
            conn.abort();
            conn = null;
        }
        sendGenerated(head, body);
        log();
    }

    /** A rule answers with the proxy's page for {@code code}. */
    void answerStatus(int code, Cause why) {
        if (why == Cause.PROXY) {
            countDenied();
        }
        outcome.set(why, phaseOfRules());
        fail(code);
    }

    /** A rule closes the client connection without a response. */
    void drop() {
        finished = true;
        countDenied();
        releasePending();
        outcome.set(Cause.PROXY, phaseOfRules());
        if (conn != null) {
            conn.abort();
            conn = null;
        }
        client.abort();
        log();
    }

    /** A rule holds the request for {@code timeout tarpit}, then answers with {@code reply}, or {@code code}'s page. */
    void tarpit(int code, Action reply) {
        long t = frontend.timeouts().tarpit();
        if (t == Timeouts.UNSET) {
            t = frontend.timeouts().connect() != Timeouts.UNSET ? frontend.timeouts().connect() : 0;
        }
        countDenied();
        outcome.set(Cause.PROXY, State.TARPIT);
        client.loop().schedule(() -> {
            if (!finished) {
                if (reply != null) {
                    reply.apply(target);
                } else {
                    fail(code);
                }
            }
        }, t, TimeUnit.MILLISECONDS);
    }

    /** The state a rule's ending leaves in the log: H in the response rules, R in the request rules. */
    private State phaseOfRules() {
        return responsePhase ? State.HEADERS : State.REQUEST;
    }

    /** A rule denied the request (dreq) or the response (dresp). */
    private void countDenied() {
        cookieForLog();
        accounting.denied(responsePhase);
    }

    /** {@code timeout server} for this stream (a rule may have changed it), 0 for none. */
    public long serverTimeout() {
        if (target.serverTimeout() >= 0) {
            return target.serverTimeout();
        }
        long t = backend == null ? Timeouts.UNSET : backend.timeouts().server();
        return t == Timeouts.UNSET ? 0 : t;
    }

    /** {@code timeout tunnel} for this stream, falling back to the server timeout. */
    public long tunnelTimeout() {
        if (target.tunnelTimeout() >= 0) {
            return target.tunnelTimeout();
        }
        long t = backend == null ? Timeouts.UNSET : backend.timeouts().tunnel();
        return t == Timeouts.UNSET ? serverTimeout() : t;
    }

    // ------------------------------------------------------------------ the end

    /** Emits the access-log line of this stream, once, and ends its server accounting. */
    private void log() {
        endCompression();
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
    }

    /** The access-log line, once: at the end, or when the response head left with {@code option logasap}. */
    private void logLine(boolean asap) {
        lineLogged = true;
        LogLine.stream(this, asap);
    }

    private void releasePending() {
        if (attempts != null) {
            attempts.release();
        }
        body.release();
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
        return accounting.requestDate();
    }

    /** The client connection's end of this stream. */
    public ClientSide client() {
        return client;
    }

    /** Where the exchange is: the state it would end in now. */
    public State phase() {
        if (tunnel || responseStarted) {
            return State.DATA;
        }
        if (conn != null) {
            return State.HEADERS;
        }
        if (accounting.connectStarted()) {
            return State.CONNECT;
        }
        return State.REQUEST;
    }

    /**
     * {@code shutdown session}: ends the exchange at once, both connections closed, logged with HAProxy's
     * "killed" cause ({@code K}). Only on the stream's loop.
     */
    public void kill() {
        if (finished) {
            return;
        }
        State at = phase();
        finished = true;
        outcome.set(Cause.KILLED, at);
        releasePending();
        closeBoth();
    }
}
