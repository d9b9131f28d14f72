package dev.sluice.proxy.stream;

import dev.sluice.config.model.Mode;
import dev.sluice.config.model.ProxyOptions;
import dev.sluice.config.model.Timeouts;
import dev.sluice.config.model.Tune;
import dev.sluice.pools.Budget;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.log.AccessLog;
import dev.sluice.proxy.log.LogCaptures;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * A layer-4 stream (a connection of a {@code mode tcp} frontend), as a state machine: the frontend's content inspection
 * ({@code tcp-request content} rules waiting for the client's bytes up to {@code tcp-request inspect-delay}, see
 * {@link Inspection}), the backend (the first {@code use_backend} rule that holds on the final content, else the default
 * backend, else the listen's own), the backend's own content inspection, the server slot and connection
 * ({@link ServerPath}: queue, connect, retries, redispatch), the backend's response inspection ({@code tcp-response
 * content}: the server's first bytes held until its rules let them through), then the relay of bytes both ways
 * ({@link TcpRelay}) until both directions are shut or a side fails or times out; then its counters
 * ({@link Accounting}) and its log line ({@link RequestLog#tcp}). Its termination flags are HAProxy's in TCP mode:
 * {@code --} for a clean end, {@code PR}/{@code PD} for a rule's reject, {@code cR} for a client timeout during
 * inspection, {@code CD}/{@code SD} for a side that failed in the data phase, {@code cD}/{@code sD} for a timeout,
 * {@code CC} for a client gone while connecting, {@code SC}/{@code sC} when no connection could be had, {@code K-} when
 * killed. Created by its client connection once admitted; lives on that connection's event loop.
 */
public final class TcpStream extends Live implements Exchange, TcpRelay.Listener {

    private final TcpClientSide client;
    private final Frontend frontend;
    private final long number = RequestLog.NUMBERS.getAndIncrement();
    private final Accounting accounting;
    private final TcpTarget target;
    private final Persistence persistence;
    private final Termination outcome = new Termination();
    private final TcpRelay relay;
    private Backend backend;
    private Server server;
    private TcpServerSide conn;
    /** The last server connection, still read by the ssl_bc_* fetches of the log line once the stream let it go. */
    private TcpServerSide lastConn;
    private Attempts attempts;
    private Path path;
    private boolean finished;
    private boolean logged;
    /** The content inspection under way (the frontend's rules, then the backend's), or null. */
    private Inspection inspection;
    /** The client connection is to be dropped silently, not closed ({@code silent-drop}). */
    private boolean abortClient;
    /** The inspection of the server's first bytes by the backend's {@code tcp-response content} rules, or null. */
    private Inspection responseInspection;
    /** The server connection is to be reset, not closed (a response rejected). */
    private boolean resetServer;
    /** The server connection was closed by a response rule: the client's bytes are dropped until the end. */
    private boolean serverClosed;
    /** When the stream left its queue without a slot (the client left): the log's queue time ends there; -1 otherwise. */
    private long queueLeft = -1;
    /** The frontend's stream budget while this stream holds a place in it; given back once, at the end. */
    private Budget budget;

    public TcpStream(TcpClientSide client, Frontend frontend) {
        this.client = client;
        this.frontend = frontend;
        this.accounting = new Accounting(this, client, frontend, true);
        this.target = new TcpTarget(this, client, frontend);
        this.persistence = new Persistence(client, null, target);
        this.relay = new TcpRelay(this, client, client.loop(), timeout(frontend.timeouts().client()));
    }

    /** The way to the server: {@link ServerPath} with what a layer-4 stream does once it has its connection, or none. */
    private final class Path extends ServerPath {
        Path(Backend backend, Attempts attempts) {
            super(TcpStream.this, client, backend, attempts);
        }

        @Override
        void established(ServerConnection connection) {
            serverConnected((TcpServerSide) connection);
        }

        @Override
        void unreachable() {
            if (outcome.cause() == Cause.NONE) {
                // no usable server, or the attempts are spent: HAProxy's SC, sC when the last one timed out
                outcome.set(lastFailureTimedOut() ? Cause.SERVER_TIMEOUT : Cause.SERVER_ABORT, State.CONNECT);
            }
            finish();
        }
    }

    // ------------------------------------------------------------------ start: backend, server

    /** The connection was admitted: backend, server, connection. */
    public void start() {
        register(frontend.streams(), client.loopIndex());
        Budget b = frontend.streamBudget();
        if (b != null) {
            if (!b.take()) {
                // the memory ceiling (-m): a resource of the proxy is exhausted
                outcome.set(Cause.RESOURCE, State.CONNECT);
                finish();
                return;
            }
            budget = b;
        }
        relay.start();
        LogCaptures captures = frontend.captures().newCaptures();
        if (captures != null) {
            target.captures(captures);
        }
        List<Rule> rules = frontend.rules().content();
        if (!rules.isEmpty()) {
            // HAProxy's stream first runs with the first bytes read (cpu_calls): counted by clientReadComplete
            inspection = new Inspection(rules, false, frontend.config().tcpRules().inspectDelay(), client.loop(), this::inspect);
            inspect();
            return;
        }
        target.woken();
        frontendRulesDone();
    }

    /**
     * Runs the content inspection under way on what the client sent so far (on each read batch, the client's FIN, the
     * inspect-delay's end, a client timeout); once its rules let the stream go on, the next step.
     */
    private void inspect() {
        if (finished || inspection == null) {
            return;
        }
        Tune tune = frontend.tune();
        // final: the client closed or timed out, or the buffer is full (HAProxy keeps maxrewrite free)
        boolean end = relay.client.inputShut || outcome.cause() != Cause.NONE
                || relay.heldBytes() >= tune.bufsize() - tune.maxrewrite();
        int r = inspection.run(target, end);
        if (r == Inspection.WAIT) {
            return;
        }
        inspection = null;
        if (r == Inspection.ENDED) {
            rejected();
        } else if (target.switchModeRequested()) {
            switchToHttp(null, target.switchProto());
        } else if (backend == null) {
            frontendRulesDone();
        } else {
            backendRulesDone();
        }
    }

    /**
     * Runs the response inspection on what the server sent so far (on each read batch, its FIN, the delay's end); once
     * its rules let the stream go on, the held bytes go to the client and the relay flows both ways.
     */
    private void inspectResponse() {
        if (finished || responseInspection == null) {
            return;
        }
        Tune tune = frontend.tune();
        boolean end = relay.server.inputShut || relay.heldFromServerBytes() >= tune.bufsize() - tune.maxrewrite();
        int r = responseInspection.run(target, end);
        if (r == Inspection.WAIT) {
            return;
        }
        responseInspection = null;
        if (r == Inspection.ENDED) {
            responseRejected();
            return;
        }
        relay.release(relay.server);
        if (target.closeServerRequested()) {
            closeServer();
        }
    }

    /**
     * A response rule ended the stream: {@code reject} counts a denied response (frontend, backend, server) with HAProxy's
     * {@code PD}; {@code silent-drop} is counted and flagged as in the request ({@code PR}: HAProxy's action does so).
     * The server connection is reset, as HAProxy kills it.
     */
    private void responseRejected() {
        if (target.ended() == TcpTarget.DROPPED) {
            accounting.deniedContent(true);
            outcome.set(Cause.PROXY, State.REQUEST);
            abortClient = true;
        } else {
            accounting.denied(true);
            outcome.set(Cause.PROXY, State.DATA);
        }
        resetServer = true;
        finish();
    }

    /**
     * {@code tcp-response content close}: the server connection is reset now, what it sent goes to the client, then the
     * client's connection ends (with a FIN, once that is out), whatever the client still sends.
     */
    private void closeServer() {
        TcpServerSide c = conn;
        conn = null;
        serverClosed = true;
        if (c != null) {
            c.reset();
        }
        client.shutdownOutput(this::finish);
    }

    /**
     * The connection becomes HTTP ({@code switch-mode http}, on the multiplexer {@code proto} forces, or {@code chosen}, an
     * HTTP backend): this layer-4 stream goes away
     * without a line nor counters of its own (the HTTP streams have theirs), and what the client sent so far is the HTTP
     * handler's first bytes.
     */
    private void switchToHttp(Backend chosen, String proto) {
        ByteBuf sent = relay.held();
        if ("h2".equals(proto) && sent != null && ProxyHeader.prefixMatch(sent, HttpVersion.H2_PREFACE) < 0) {
            // HTTP/2 forced on bytes that are not its preface: HAProxy's HTTP/2 multiplexer closes without a word (its
            // settings go only after the client's preface), and the stream's line says PR, nothing counted as denied
            outcome.set(Cause.PROXY, State.REQUEST);
            finish();
            return;
        }
        finished = true;
        logged = true;
        ByteBuf held = relay.takeHeld();
        relay.end();
        Trackers trackers = target.trackersIfAny();
        if (trackers != null) {
            trackers.endSession();
        }
        Budget b = budget;
        if (b != null) {
            budget = null;
            b.give();
        }
        frontend.streams().remove(this, client.loopIndex());
        client.switchToHttp(held, chosen, proto);
    }

    /** A content rule ended the stream: HAProxy's {@code PR}, the request counted as denied. */
    private void rejected() {
        boolean dropped = target.ended() == TcpTarget.DROPPED;
        accounting.deniedContent(dropped);
        if (outcome.cause() == Cause.NONE) {
            outcome.set(Cause.PROXY, State.REQUEST);
        }
        if (dropped) {
            // HAProxy makes the socket quiet (TCP_REPAIR), else it resets it
            abortClient = true;
        }
        finish();
    }

    /** The frontend's content rules let the stream go on: its backend, then the backend's own content rules. */
    private void frontendRulesDone() {
        Backend be = frontend.selectBackend(target);
        if (be == null) {
            if (outcome.cause() == Cause.NONE) {
                // a frontend without a backend: HAProxy closes at once, flags SC
                outcome.set(Cause.SERVER_ABORT, State.CONNECT);
            }
            finish();
            return;
        }
        if (be.config().mode() == Mode.HTTP && outcome.cause() == Cause.NONE) {
            // HAProxy's implicit upgrade: the connection is HTTP from now on, its first request goes to this backend
            switchToHttp(be, null);
            return;
        }
        backend = be;
        accounting.backendChosen(be);
        relay.timeouts(timeout(frontend.timeouts().client()), timeout(be.timeouts().server()), timeout(be.timeouts().tunnel()),
                timeout(frontend.timeouts().clientFin()), timeout(be.timeouts().serverFin()));
        List<Rule> rules = be.rules().content();
        if (!rules.isEmpty() && be.config() != frontend.config()) {
            // a listen's rules ran once, as the frontend's
            inspection = new Inspection(rules, false, be.config().tcpRules().inspectDelay(), client.loop(), this::inspect);
            inspect();
            return;
        }
        backendRulesDone();
    }

    /** The content rules are done: the server. */
    private void backendRulesDone() {
        if (outcome.cause() != Cause.NONE) {
            // the client timed out during the inspection: the rules ran on what it sent, nothing connects (the timeout
            // ends the stream)
            return;
        }
        Backend be = backend;
        attempts = new Attempts(be, null, be.retries());
        path = new Path(be, attempts);
        Server to = persistence.route(be, null);
        path.assign(to, persistence.persistTarget() != null);
    }

    /**
     * {@code option splice-*} of the frontend or the backend, as HAProxy: a direction is spliced when either asks for it
     * ({@code splice-auto}: both directions; small exchanges stay a copy anyway), unless {@code nosplice}.
     */
    private void spliceIfAsked() {
        Tune tune = frontend.tune();
        if (tune.noSplice() || !Splicing.enabled()) {
            return;
        }
        java.util.Set<ProxyOptions.Splice> asked = java.util.EnumSet.noneOf(ProxyOptions.Splice.class);
        asked.addAll(frontend.config().options().splice());
        asked.addAll(backend.config().options().splice());
        boolean auto = asked.contains(ProxyOptions.Splice.AUTO);
        boolean request = auto || asked.contains(ProxyOptions.Splice.REQUEST);
        boolean response = auto || asked.contains(ProxyOptions.Splice.RESPONSE);
        if (request || response) {
            relay.splice(request, response, tune.pipesize());
        }
    }

    private static long timeout(long t) {
        return t == Timeouts.UNSET ? 0 : t;
    }

    /** The server connection is there: the relay starts. */
    private void serverConnected(TcpServerSide c) {
        conn = lastConn = c;
        accounting.connected(false);
        List<Rule> rules = backend.rules().responseContent();
        if (!rules.isEmpty()) {
            // what the server sends waits for its content rules
            relay.holdServer();
            responseInspection = new Inspection(rules, true, backend.config().tcpRules().responseInspectDelay(), client.loop(),
                    this::inspectResponse);
        }
        relay.connected(c);
        spliceIfAsked();
        c.attach(this);
        if (responseInspection != null) {
            inspectResponse();
        }
        AccessLog al = frontend.accessLog();
        if (al != null && al.logAsap() && !finished) {
            // option logasap: the line goes now, with the connect time as its total
            logged = true;
            RequestLog.tcp(this, true);
        }
    }

    // ------------------------------------------------------------------ the client connection's events

    /** Bytes from the client; takes ownership. */
    public void clientData(ByteBuf data) {
        if (serverClosed) {
            // tcp-response content close: nothing goes to the server any more
            data.release();
            return;
        }
        accounting.received(data.readableBytes());
        relay.received(relay.client, data);
        accounting.credit(conn != null);
    }

    public void clientReadComplete() {
        relay.readComplete(relay.client);
        if (inspection != null) {
            target.woken();
            inspect();
        }
    }

    /**
     * The client sent its FIN: carried to the server. Before the server connection exists, a client that sent nothing
     * aborts the connection attempt (HAProxy's {@code CC}, {@code CQ} in a queue); what it sent goes first otherwise.
     */
    public void clientInputShut() {
        if (finished || serverClosed) {
            return;
        }
        if (inspection != null) {
            // the rules decide now, on what was sent; the FIN goes to the server once connected, as HAProxy forwards it
            relay.inputShut(relay.client);
            target.woken();
            inspect();
            return;
        }
        if (!relay.connected() && relay.heldBytes() == 0) {
            clientLeft();
            return;
        }
        relay.inputShut(relay.client);
    }

    public void clientWritable(boolean writable) {
        relay.writabilityChanged(relay.client, writable);
    }

    /** The client connection failed (a reset) or closed before the stream ended. */
    public void clientFailed() {
        if (finished) {
            return;
        }
        if (!relay.connected()) {
            clientLeft();
            return;
        }
        relay.failed(relay.client);
    }

    /** The client left before the server connection: no abort counted, as HAProxy. */
    private void clientLeft() {
        State at = waitingState();
        if (at == State.QUEUE) {
            queueLeft = System.nanoTime();
        }
        outcome.set(Cause.CLIENT_ABORT, at);
        finish();
    }

    /**
     * Where a stream without a server connection is: its content inspected, in a queue, or connecting (or between
     * attempts).
     */
    private State waitingState() {
        if (path == null && (inspection != null || outcome.state() == State.REQUEST)) {
            return State.REQUEST;
        }
        return path != null && path.slot().waiting() ? State.QUEUE : State.CONNECT;
    }

    // ------------------------------------------------------------------ the server connection's events

    /** Bytes from the server; takes ownership. */
    public void serverData(ByteBuf data) {
        relay.received(relay.server, data);
        accounting.credit(conn != null);
    }

    public void serverReadComplete() {
        relay.readComplete(relay.server);
        if (responseInspection != null) {
            inspectResponse();
        }
    }

    public void serverInputShut() {
        relay.inputShut(relay.server);
        if (responseInspection != null) {
            // final now: the rules decide on what the server sent
            inspectResponse();
        }
    }

    public void serverWritable(boolean writable) {
        relay.writabilityChanged(relay.server, writable);
    }

    /** The server connection failed (a reset, a write error) or closed without its FIN. */
    public void serverFailed() {
        relay.failed(relay.server);
    }

    // ------------------------------------------------------------------ how the relay ended

    @Override
    public void relayEnded() {
        finish();
    }

    @Override
    public void sideFailed(boolean fromClient) {
        if (fromClient) {
            accounting.clientAborted();
            outcome.set(Cause.CLIENT_ABORT, State.DATA);
        } else {
            accounting.serverAborted(false);
            outcome.set(Cause.SERVER_ABORT, State.DATA);
        }
        finish();
    }

    @Override
    public void sideTimedOut(boolean fromClient) {
        if (fromClient) {
            outcome.set(Cause.CLIENT_TIMEOUT, relay.connected() ? State.DATA : waitingState());
            if (inspection != null) {
                // as HAProxy, the content rules then run on what the client sent, and the backend is chosen (logged,
                // counting the abort)
                inspect();
                accounting.clientAborted();
                if (!finished) {
                    finish();
                }
                return;
            }
            accounting.clientAborted();
        } else {
            accounting.serverAborted(true);
            outcome.set(Cause.SERVER_TIMEOUT, State.DATA);
        }
        finish();
    }

    // ------------------------------------------------------------------ the end

    /** The stream is over: the slot goes back, the counters and the log line are made, both connections close. */
    private void finish() {
        if (finished) {
            return;
        }
        finished = true;
        Inspection i = inspection;
        if (i != null) {
            inspection = null;
            i.cancel();
        }
        i = responseInspection;
        if (i != null) {
            responseInspection = null;
            i.cancel();
        }
        relay.end();
        if (path != null) {
            // before the line: its queue positions are known and %sc counts the other streams
            path.slot().leaveBeforeLog();
        }
        Trackers trackers = target.trackersIfAny();
        if (trackers != null) {
            // bytes only: a layer-4 stream has no status that counts as an HTTP error
            trackers.end(0, true, accounting.bytesIn(), client.bytesOut());
        }
        Budget b = budget;
        if (b != null) {
            budget = null;
            b.give();
        }
        frontend.streams().remove(this, client.loopIndex());
        accounting.end(path == null ? null : path.slot());
        if (!logged) {
            logged = true;
            AccessLog al = frontend.accessLog();
            if (al != null && !(al.dontLogNull() && accounting.bytesIn() == 0)) {
                // option dontlognull: nothing from the client, no line, whatever happened
                RequestLog.tcp(this, false);
            }
        }
        if (path != null) {
            // the slot goes to a waiting stream after the line
            path.slot().release();
        }
        TcpServerSide c = conn;
        conn = null;
        if (c != null) {
            if (resetServer) {
                c.reset();
            } else {
                c.release();
            }
        }
        if (abortClient) {
            client.dropSilently();
        } else {
            client.close();
        }
    }

    // ------------------------------------------------------------------ what the log and the counters read

    /** Bytes read from the server: HAProxy's {@code %B} counts what entered the response buffer, forwarded or not. */
    long bytesFromServer() {
        return relay.server.bytesRead;
    }

    TcpServerSide lastConnection() {
        return lastConn;
    }

    /** The client's bytes held while inspecting or connecting, or null. */
    ByteBuf heldRequest() {
        return relay.held();
    }

    /** The server's bytes held for response inspection, or null. */
    ByteBuf heldResponse() {
        return relay.heldFromServer();
    }

    /** The process-wide number of the stream ({@code %rt}). */
    long number() {
        return number;
    }

    /** {@link System#nanoTime()} when the stream's wait for a server ended: its last slot, a queue timeout, or the client leaving the queue; -1 when it never did. */
    long queueEnd() {
        long t = path == null ? -1 : path.slot().grantedAt();
        return t >= 0 ? t : queueLeft;
    }

    ServerSlot slot() {
        return path == null ? null : path.slot();
    }

    Attempts attempts() {
        return attempts;
    }

    // ------------------------------------------------------------------ Exchange

    @Override
    public Backend backend() {
        return backend;
    }

    @Override
    public Server server() {
        return server;
    }

    @Override
    public void server(Server s) {
        server = s;
    }

    @Override
    public TcpTarget target() {
        return target;
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

    @Override
    public boolean finished() {
        return finished;
    }

    // ------------------------------------------------------------------ Live

    @Override
    public Frontend frontend() {
        return frontend;
    }

    @Override
    public TcpClientSide client() {
        return client;
    }

    @Override
    public long startDate() {
        return client.acceptDate();
    }

    @Override
    public State phase() {
        return relay.connected() ? State.DATA : waitingState();
    }

    /** A layer-4 stream carries no request. */
    @Override
    public String describe() {
        return null;
    }

    /**
     * {@code shutdown session}: flags {@code K-} once connected, as HAProxy 2.6 logs a killed TCP stream (its shutdown
     * aborts both channels without an error that would set the state letter), {@code K} and where it waited otherwise.
     */
    @Override
    public void kill(Cause why) {
        if (finished) {
            return;
        }
        outcome.set(why, relay.connected() ? State.NONE : waitingState());
        finish();
    }
}
