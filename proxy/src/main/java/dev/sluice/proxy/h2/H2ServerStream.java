package dev.sluice.proxy.h2;

import dev.sluice.proxy.stream.ServerFailure;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * One request stream on an {@link H2ServerConnection}: the {@link ServerSide} of a client's
 * {@link Stream}. Its id is taken when the request head is written. Applies {@code timeout server} while
 * waiting for the server. Used only on the connection's event loop.
 */
final class H2ServerStream implements ServerSide {
    private final H2ServerConnection conn;
    private final boolean reused;
    private Stream stream;
    private int id = -1;
    private RequestHead request;
    private boolean requestEnded;
    private boolean headReceived;
    private boolean responseEnded;
    /** The response has no body (HEAD, 204, 304): DATA the server sends anyway is not relayed. */
    private boolean bodyDropped;
    private boolean paused;
    private int unconsumed;
    private Deadline timer;

    H2ServerStream(H2ServerConnection conn, boolean reused) {
        this.conn = conn;
        this.reused = reused;
    }

    int id() {
        return id;
    }

    boolean headReceived() {
        return headReceived;
    }

    RequestHead request() {
        return request;
    }

    private ChannelHandlerContext ctx() {
        return conn.ctx();
    }

    @Override
    public void attach(Stream s) {
        stream = s;
    }

    @Override
    public boolean isOpen() {
        return conn.usable();
    }

    @Override
    public String sni() {
        return conn.sni();
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession tlsSession() {
        ChannelHandlerContext c = ctx();
        return c == null ? null : dev.sluice.proxy.tls.TlsSession.of(c.channel());
    }

    @Override
    public io.netty.channel.Channel channel() {
        ChannelHandlerContext c = ctx();
        return c == null ? null : c.channel();
    }

    @Override
    public int httpMajor() {
        return 2;
    }

    @Override
    public boolean reused() {
        return reused;
    }

    /** The connection's owner: an HTTP/2 connection is made private when it is opened (see ServerConnector). */
    @Override
    public Object owner() {
        return conn.owner();
    }

    private long serverTimeout() {
        if (stream != null) {
            return stream.serverTimeout();
        }
        long t = conn.server().backend().timeouts().server();
        return t == Timeouts.UNSET ? 0 : t;
    }

    @Override
    public void sendHead(RequestHead head) {
        request = head;
        id = conn.register(this);
        boolean end = head.body() == MessageHead.Body.NONE;
        conn.encoder().writeHeaders(ctx(), id, H2Messages.encodeRequest(head), 0, end, ctx().newPromise());
        conn.markDirty();
        if (end) {
            requestEnded = true;
        }
        timer = new Deadline(ctx().channel().eventLoop(), () -> conn.timeout(this));
        timer.arm(serverTimeout());
    }

    @Override
    public void sendBody(ByteBuf data) {
        if (requestEnded || id < 0) {
            data.release();
            return;
        }
        conn.encoder().writeData(ctx(), id, data, 0, false, ctx().newPromise());
        conn.markDirty();
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        if (!requestEnded && id > 0) {
            requestEnded = true;
            if (trailers != null && trailers.size() > 0) {
                conn.encoder().writeHeaders(ctx(), id, H2Messages.encodeTrailers(trailers), 0, true, ctx().newPromise());
            } else {
                conn.encoder().writeData(ctx(), id, Unpooled.EMPTY_BUFFER, 0, true, ctx().newPromise());
            }
            conn.markDirty();
        }
        conn.flushIfNeeded();
    }

    @Override
    public boolean isWritable() {
        Http2Stream st = id > 0 ? conn.connection().stream(id) : null;
        return st != null && conn.encoder().flowController().isWritable(st);
    }

    @Override
    public void flush() {
        conn.flushIfNeeded();
    }

    @Override
    public void pauseResponseBody() {
        paused = true;
        // the server is not read while the client cannot take more: timeout server waits (timeout client runs)
        if (timer != null) {
            timer.disarm();
        }
    }

    @Override
    public void resumeResponseBody() {
        paused = false;
        if (timer != null && !responseEnded) {
            timer.arm(serverTimeout());
        }
        if (unconsumed > 0) {
            int n = unconsumed;
            unconsumed = 0;
            conn.consumed(id, n);
            conn.flushIfNeeded();
        }
    }

    @Override
    public void release() {
        stream = null;
        cancelTimer();
        if (!responseEnded || !requestEnded) {
            reset(Http2Error.CANCEL);
        }
    }

    @Override
    public void startTunnel() {
        abort();
    }

    @Override
    public void sendRaw(ByteBuf data) {
        data.release();
    }

    @Override
    public void abort() {
        stream = null;
        cancelTimer();
        if (!responseEnded) {
            reset(Http2Error.CANCEL);
        }
    }

    private void reset(Http2Error error) {
        if (id > 0 && conn.connection().stream(id) != null) {
            conn.resetStream(ctx(), id, error.code(), ctx().newPromise());
            conn.markDirty();
            conn.flushIfNeeded();
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
        }
    }

    // ------------------------------------------------------------------ from the connection

    void onHead(ResponseHead head, boolean endStream) {
        if (!head.isInterim()) {
            headReceived = true;
            bodyDropped = head.body() == MessageHead.Body.NONE;
        }
        if (timer != null) {
            timer.arm(serverTimeout());
        }
        Stream s = stream;
        if (s == null) {
            return;
        }
        s.onResponseHead(head);
        if (endStream && !head.isInterim()) {
            end(null);
        }
    }

    int onData(ByteBuf data, boolean endStream) {
        int n = data.readableBytes();
        if (timer != null) {
            timer.arm(serverTimeout());
        }
        Stream s = stream;
        if (s != null && n > 0 && !bodyDropped) {
            s.onResponseBody(data.retain());
        }
        if (endStream) {
            end(null);
        }
        if (paused) {
            unconsumed += n;
            return 0;
        }
        return n;
    }

    void onTrailers(HttpFields trailers) {
        end(trailers);
    }

    private void end(HttpFields trailers) {
        responseEnded = true;
        cancelTimer();
        Stream s = stream;
        if (s != null) {
            s.onResponseEnd(trailers);
        }
    }

    void onInvalid() {
        failure(ServerFailure.INVALID_RESPONSE);
    }

    /** The server reset the stream; {@code refused} means it was never processed (safe to replay). */
    void onReset(boolean refused) {
        cancelTimer();
        failure(refused || !headReceived ? ServerFailure.CLOSED_BEFORE_RESPONSE : ServerFailure.TRUNCATED);
    }

    void onRemoved() {
        cancelTimer();
        if (!responseEnded) {
            failure(headReceived ? ServerFailure.TRUNCATED : ServerFailure.CLOSED_BEFORE_RESPONSE);
        }
    }

    void onConnectionClosed() {
        onRemoved();
    }

    void failure(ServerFailure f) {
        Stream s = stream;
        stream = null;
        responseEnded = true;
        if (s != null) {
            s.onServerFailure(f);
        }
    }

    void writabilityChanged(boolean writable) {
        if (stream != null) {
            stream.onServerWritable(writable);
        }
    }

    void flushClient() {
        if (stream != null) {
            stream.flushClient();
        }
    }
}
