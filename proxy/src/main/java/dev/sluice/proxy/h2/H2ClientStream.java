package dev.sluice.proxy.h2;

import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stream.ClientSide;
import dev.sluice.proxy.stream.ClientTimes;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.Stream;
import dev.sluice.proxy.tls.TlsSession;
import dev.sluice.proxy.transport.QuietClose;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One request stream of an HTTP/2 client connection: the {@link ClientSide} its {@link Stream} writes
 * the response to. Request DATA is handed to the stream and credited back to the client's window once
 * the server side took it; response writes go through the connection's encoder, whose flow controller
 * reports this stream's writability. Used only on the connection's event loop.
 */
final class H2ClientStream implements ClientSide {
    private final H2ClientConnection conn;
    private final int id;
    private Stream stream;
    private RequestHead request;
    private boolean requestEnded;
    private boolean responseEnded;
    private boolean headOnly;
    private boolean paused;
    private int unconsumed;
    private long expectedLength = -1;
    private long received;
    private final long requestStart = System.nanoTime();
    private long bytesOut;
    /** {@code timeout client} while the response is blocked by the client (see {@link #blocked}); made when first needed. */
    private Deadline clientTimer;
    /** The frame that ended the response (END_STREAM), for a reset that must follow it. */
    private ChannelPromise endWritten;
    /**
     * The last piece of response body, held back until the end of the event-loop round: when the response's end
     * comes in the same round (a small response read at once from its server), it goes out as this DATA frame's
     * END_STREAM flag, as HAProxy's multiplexer does, instead of an empty DATA frame of its own (a third frame per
     * response through the encoder, flow controller and a promise). Written by the next piece, the end, or the
     * connection's flush ({@link H2ClientConnection#flush}).
     */
    private ByteBuf held;
    /** In the connection's list of streams holding a piece. */
    boolean listed;

    /** This stream's accept and handshake time (%Th), taken from the connection's times when it started. */
    private final long streamAccept;
    private final long handshakeMs;

    H2ClientStream(H2ClientConnection conn, int id) {
        this.conn = conn;
        this.id = id;
        ClientTimes t = conn.times();
        this.streamAccept = t.streamAcceptNanos();
        this.handshakeMs = t.handshakeMs();
        // as HAProxy's HTTP/2 multiplexer: the next stream's accept is this one's start, without handshake
        t.next(requestStart);
    }

    private ChannelHandlerContext ctx() {
        return conn.ctx();
    }

    @Override
    public Object session() {
        return conn;
    }

    @Override
    public List<ServerSide> privateConnections() {
        if (conn.privateConnections == null) {
            conn.privateConnections = new ArrayList<>(2);
        }
        return conn.privateConnections;
    }

    @Override
    public boolean firstRequest() {
        return id <= 1;
    }

    @Override
    public int httpMajor() {
        return 2;
    }

    @Override
    public Future<?> closeFuture() {
        return ctx().channel().closeFuture();
    }

    @Override
    public Trackers sessionTrackers() {
        return ctx().channel().attr(SESSION_TRACKERS).get();
    }

    void start(RequestHead head, boolean endStream) {
        request = head;
        requestEnded = endStream;
        expectedLength = head.contentLength();
        stream = new Stream(this, conn.frontend(), head);
        if (head.isConnect()) {
            stream.fail(501);
            return;
        }
        stream.start();
        if (endStream && stream != null) {
            stream.onRequestEnd(null);
        }
    }

    /** A request the validation answers with an error status (400). */
    void reject(GeneratedResponse r, boolean endStream) {
        requestEnded = endStream;
        sendGenerated(r.head(), r.body());
    }

    /** DATA for this stream; returns how many bytes may be credited back to the client now. */
    int onData(ByteBuf data, boolean endStream) {
        int n = data.readableBytes();
        received += n;
        if (expectedLength >= 0 && (received > expectedLength || endStream && received != expectedLength)) {
            // DATA must add up to content-length
            conn.streamProtocolError();
            abortStream();
            conn.resetStream(ctx(), id, Http2Error.PROTOCOL_ERROR.code(), ctx().newPromise());
            return n;
        }
        if (stream == null || stream.finished() && requestEnded) {
            return n;
        }
        if (n > 0) {
            stream.onRequestBody(data.retain());
        }
        if (endStream) {
            requestEnded = true;
            stream.onRequestEnd(null);
        }
        if (paused) {
            unconsumed += n;
            return 0;
        }
        return n;
    }

    void onTrailers(HttpFields trailers) {
        requestEnded = true;
        if (stream != null) {
            stream.onRequestEnd(trailers);
        }
    }

    /** The client reset the stream, or the connection hit a stream error. */
    void onReset() {
        abortStream();
    }

    /** Netty forgot the stream (both sides ended, reset, or the connection closed). */
    void onStreamRemoved() {
        dropHeld();
        cancelClientTimer();
        if (!responseEnded) {
            abortStream();
        }
    }

    private void abortStream() {
        dropHeld();
        cancelClientTimer();
        Stream s = stream;
        stream = null;
        if (s != null) {
            s.onClientClosed();
        }
    }

    void writabilityChanged(boolean writable) {
        if (stream != null) {
            stream.onClientWritable(writable);
            blocked(!writable);
        }
    }

    /**
     * The response cannot go on (the client's window for this stream, or the connection, is full): {@code timeout
     * client} runs until it can, as HAProxy's stream-level client timeout does; then the stream is aborted, logged
     * {@code cD}, and reset. A stream waiting for its server has no client timeout.
     */
    private void blocked(boolean blocked) {
        if (blocked && !responseEnded) {
            if (clientTimer == null) {
                clientTimer = new Deadline(ctx().channel().eventLoop(), this::onClientTimeout);
            }
            if (!clientTimer.armed()) {
                clientTimer.arm(conn.frontend().timeouts().client());
            }
        } else if (clientTimer != null) {
            clientTimer.disarm();
        }
    }

    private void onClientTimeout() {
        Stream s = stream;
        if (s == null || responseEnded || isWritable()) {
            return;
        }
        stream = null;
        responseEnded = true;
        dropHeld();
        s.onClientTimeout();
        conn.resetStream(ctx(), id, Http2Error.CANCEL.code(), ctx().newPromise());
        conn.markDirty();
        conn.flushIfNeeded();
    }

    private void cancelClientTimer() {
        if (clientTimer != null) {
            clientTimer.cancel();
        }
    }

    void flushServer() {
        if (stream != null) {
            stream.flushServer();
        }
    }

    // ------------------------------------------------------------------ ClientSide

    @Override
    public EventLoop loop() {
        return ctx().channel().eventLoop();
    }

    @Override
    public int loopIndex() {
        return conn.loopIndex();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return conn.remoteAddress();
    }

    @Override
    public void setAddress(boolean source, InetSocketAddress a) {
        conn.setAddress(source, a);
    }

    @Override
    public InetSocketAddress localAddress() {
        return conn.localAddress();
    }

    @Override
    public ProxyHeader.Received proxyHeader() {
        return conn.proxyHeader();
    }

    @Override
    public long acceptDate() {
        return conn.acceptDate();
    }

    @Override
    public long requestStartNanos() {
        return requestStart;
    }

    @Override
    public long streamAcceptNanos() {
        return streamAccept;
    }

    @Override
    public long handshakeMs() {
        return handshakeMs;
    }

    @Override
    public boolean tls() {
        return conn.tls();
    }

    @Override
    public TlsSession tlsSession() {
        return conn.tlsSession();
    }

    @Override
    public long bytesOut() {
        return bytesOut;
    }

    @Override
    public void sendHead(ResponseHead head) {
        if (responseEnded) {
            return;
        }
        if (head.isInterim()) {
            if (head.status() == 101) {
                return;
            }
            conn.encoder().writeHeaders(ctx(), id, H2Messages.encodeResponse(head), 0, false, ctx().newPromise());
            conn.markDirty();
            return;
        }
        headOnly = request.isHead() || !head.hasBody();
        ChannelPromise p = ctx().newPromise();
        conn.encoder().writeHeaders(ctx(), id, H2Messages.encodeResponse(head), 0, headOnly, p);
        conn.markDirty();
        if (headOnly) {
            responseEnded = true;
            endWritten = p;
        }
    }

    @Override
    public void sendBody(ByteBuf data) {
        if (responseEnded || headOnly) {
            data.release();
            return;
        }
        bytesOut += data.readableBytes();
        if (held != null) {
            conn.encoder().writeData(ctx(), id, held, 0, false, ctx().newPromise());
        } else if (!listed) {
            listed = true;
            conn.holding(this);
        }
        held = data;
        conn.markDirty();
    }

    /** Writes the piece held back, if any, without END_STREAM: the round ends before the response. */
    void writeHeld() {
        ByteBuf d = held;
        if (d != null) {
            held = null;
            conn.encoder().writeData(ctx(), id, d, 0, false, ctx().newPromise());
        }
    }

    /** The stream is reset or gone: the piece held back is not sent. */
    private void dropHeld() {
        ByteBuf d = held;
        if (d != null) {
            held = null;
            d.release();
        }
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        if (!responseEnded) {
            responseEnded = true;
            endWritten = ctx().newPromise();
            if (trailers != null && trailers.size() > 0) {
                writeHeld();
                conn.encoder().writeHeaders(ctx(), id, H2Messages.encodeTrailers(trailers), 0, true, endWritten);
            } else {
                ByteBuf d = held;
                held = null;
                conn.encoder().writeData(ctx(), id, d != null ? d : Unpooled.EMPTY_BUFFER, 0, true, endWritten);
            }
            conn.markDirty();
        }
        done();
    }

    @Override
    public void sendGenerated(ResponseHead head, byte[] body) {
        if (!responseEnded) {
            responseEnded = true;
            boolean noBody = body.length == 0 || request != null && request.isHead();
            endWritten = ctx().newPromise();
            conn.encoder().writeHeaders(ctx(), id, H2Messages.encodeResponse(head), 0, noBody, noBody ? endWritten : ctx().newPromise());
            bytesOut += body.length;
            if (!noBody) {
                conn.encoder().writeData(ctx(), id, Unpooled.wrappedBuffer(body), 0, true, endWritten);
            }
            conn.markDirty();
        }
        done();
    }

    /** The response is complete; a request still being received is not needed any more. */
    private void done() {
        stream = null;
        cancelClientTimer();
        if (!requestEnded && endWritten != null) {
            // RFC 9113 8.1: a complete response may end the exchange; tell the client to stop sending, once the
            // response's last frame is out (DATA waits in the flow controller, a reset would overtake it)
            endWritten.addListener(f -> {
                if (f.isSuccess() && !requestEnded && conn.h2().stream(id) != null) {
                    conn.resetStream(ctx(), id, Http2Error.NO_ERROR.code(), ctx().newPromise());
                    conn.markDirty();
                    conn.flushIfNeeded();
                }
            });
        }
        conn.flushIfNeeded();
    }

    @Override
    public boolean isWritable() {
        Http2Stream st = conn.h2().stream(id);
        return st != null && conn.encoder().flowController().isWritable(st);
    }

    @Override
    public void flush() {
        conn.flushIfNeeded();
    }

    @Override
    public void pauseRequestBody() {
        paused = true;
    }

    @Override
    public void resumeRequestBody() {
        paused = false;
        if (unconsumed > 0) {
            int n = unconsumed;
            unconsumed = 0;
            conn.consumed(id, n);
            conn.flushIfNeeded();
        }
    }

    @Override
    public void startTunnel() {
        // HTTP/2 clients cannot upgrade (RFC 9113 8.6) and CONNECT is answered 501: nothing switches here
        abort();
    }

    @Override
    public void sendRaw(ByteBuf data) {
        data.release();
    }

    @Override
    public void dropSilently() {
        // silent-drop ends the connection, every stream of it, as HAProxy's does
        stream = null;
        responseEnded = true;
        dropHeld();
        cancelClientTimer();
        QuietClose.prepare(ctx().channel());
        ctx().channel().close();
    }

    @Override
    public void abort() {
        stream = null;
        responseEnded = true;
        dropHeld();
        cancelClientTimer();
        conn.resetStream(ctx(), id, Http2Error.INTERNAL_ERROR.code(), ctx().newPromise());
        // written outside any read of this connection: nothing else would flush it
        conn.markDirty();
        conn.flushIfNeeded();
    }
}
