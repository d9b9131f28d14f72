package dev.sluice.proxy.http;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.rules.HttpRequestRule;
import dev.sluice.proxy.runtime.Frontend;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One request/response exchange: runs the frontend rules, picks the backend and the server, obtains a
 * server connection (retrying failed connects), then streams the request body to the server and the
 * response back to the client with back-pressure both ways. Protocol-neutral: it sees a {@link ClientSide}
 * and a {@link ServerSide}. Lives on the client connection's event loop; never touched by another thread.
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

    /** Request body held while no server connection is ready; beyond this the client is paused. */
    private static final int MAX_PENDING_BODY = 64 * 1024;

    private final ClientSide client;
    private final Frontend frontend;
    private final RequestHead request;
    private Backend backend;
    private Server server;
    private ServerSide conn;
    private int retriesLeft;
    private boolean requestEnded;
    private HttpFields requestTrailers;
    private ArrayDeque<ByteBuf> pending;
    private int pendingBytes;
    private boolean pausedForPending;
    private boolean responseStarted;
    private boolean finished;
    private int status;

    public Stream(ClientSide client, Frontend frontend, RequestHead request) {
        this.client = client;
        this.frontend = frontend;
        this.request = request;
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

    /** Processes the request head: rules, backend, server, connection. */
    public void start() {
        frontend.countRequest();
        for (HttpRequestRule rule : frontend.requestRules()) {
            if (rule.action().apply(this)) {
                return;
            }
        }
        backend = frontend.selectBackend();
        if (backend == null) {
            fail(503);
            return;
        }
        forwardFor();
        server = backend.pickServer();
        if (server == null) {
            fail(503);
            return;
        }
        retriesLeft = backend.retries();
        connect(true);
    }

    /** The stricter of the frontend's and the backend's connection modes. */
    public HttpOptions.ConnectionMode connectionMode() {
        HttpOptions.ConnectionMode a = frontend.http().connectionMode();
        HttpOptions.ConnectionMode b = backend == null ? a : backend.http().connectionMode();
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    private void forwardFor() {
        ForwardFor ff = backend.forwardFor() != null ? backend.forwardFor() : frontend.forwardFor();
        if (ff != null) {
            ff.apply(request, client.remoteAddress().getAddress());
        }
    }

    private void connect(boolean reuse) {
        long timeout = backend.timeouts().connect();
        backend.connector().acquire(server, client.loop(), client.loopIndex(), client.localAddress(), timeout == Timeouts.UNSET ? 0 : timeout,
                reuse, this);
    }

    @Override
    public void connected(ServerSide c) {
        if (finished) {
            c.release();
            return;
        }
        conn = c;
        c.attach(this);
        server.countRequest();
        c.sendHead(request);
        if (pending != null) {
            ByteBuf b;
            while ((b = pending.poll()) != null) {
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
        if (retriesLeft-- > 0) {
            // HAProxy waits MIN(1s, timeout connect) before retrying a server that refused
            long delay = 1000;
            long ct = backend.timeouts().connect();
            if (ct != Timeouts.UNSET && ct < delay) {
                delay = ct;
            }
            if (cause instanceof io.netty.channel.ConnectTimeoutException) {
                delay = 0;
            }
            client.loop().schedule(() -> {
                if (!finished) {
                    connect(true);
                }
            }, delay, TimeUnit.MILLISECONDS);
            return;
        }
        fail(503);
    }

    /** A piece of request body from the client; takes ownership. */
    public void onRequestBody(ByteBuf data) {
        if (finished) {
            data.release();
            return;
        }
        if (conn != null) {
            conn.sendBody(data);
            if (!conn.isWritable()) {
                client.pauseRequestBody();
            }
            return;
        }
        if (pending == null) {
            pending = new ArrayDeque<>();
        }
        pending.add(data);
        pendingBytes += data.readableBytes();
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
        }
    }

    public void onResponseHead(ResponseHead head) {
        if (finished) {
            return;
        }
        if (!head.isInterim()) {
            responseStarted = true;
            status = head.status();
        }
        client.sendHead(head);
    }

    /** A piece of response body from the server; takes ownership. */
    public void onResponseBody(ByteBuf data) {
        if (finished) {
            data.release();
            return;
        }
        client.sendBody(data);
        if (!client.isWritable() && conn != null) {
            conn.pauseResponseBody();
        }
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
        client.sendEnd(trailers);
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
            if (failure == ServerFailure.CLOSED_BEFORE_RESPONSE && c != null && c.reused() && replayable()) {
                // a stale idle connection: replay the request on a fresh one
                connect(false);
                return;
            }
            fail(failure == ServerFailure.TIMEOUT ? 504 : 502);
            return;
        }
        finished = true;
        releasePending();
        client.abort();
    }

    /** A request can be sent again when none of its body has gone out. */
    private boolean replayable() {
        return !request.hasBody();
    }

    public void onClientClosed() {
        if (finished) {
            return;
        }
        finished = true;
        releasePending();
        if (conn != null) {
            conn.abort();
            conn = null;
        }
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
        releasePending();
        if (conn != null) {
            conn.abort();
            conn = null;
        }
        status = code;
        GeneratedResponse g = GeneratedResponse.of(code);
        client.sendGenerated(g.head(), g.body());
    }

    /** Answers with a response built by a rule. */
    public void respond(ResponseHead head, byte[] body) {
        finished = true;
        releasePending();
        status = head.status();
        client.sendGenerated(head, body);
    }

    private void releasePending() {
        if (pending != null) {
            ByteBuf b;
            while ((b = pending.poll()) != null) {
                b.release();
            }
            pendingBytes = 0;
        }
    }
}
