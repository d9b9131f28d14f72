package dev.sluice.proxy.h3;

import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.h2.H2Messages;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stream.ClientSide;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.Stream;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3Exception;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One request stream of an HTTP/3 connection: the {@link ClientSide} of its {@link Stream}. The first HEADERS
 * frame is validated and translated as an HTTP/2 header block is (a malformed one is a stream error,
 * H3_MESSAGE_ERROR: RESET_STREAM and STOP_SENDING); the request has no body when its FIN came with the
 * headers, else it is streamed until FIN, DATA frames going to the stream as they come. Pausing the request
 * body stops reading the stream, so QUIC flow control holds the client back. A response completed before the
 * request body was read ends with STOP_SENDING H3_NO_ERROR (RFC 9114 4.1). Used only on its event loop.
 */
final class H3ClientStream extends Http3RequestStreamInboundHandler implements ClientSide {
    private final H3ClientConnection conn;
    private ChannelHandlerContext ctx;
    private QuicStreamChannel ch;
    private Stream stream;
    private RequestHead request;
    private boolean headersSeen;
    private boolean requestEnded;
    private boolean responseEnded;
    private boolean headOnly;
    private boolean counted;
    private final long requestStart = System.nanoTime();
    private long bytesOut;
    /** Whether the final HEADERS frame of a response with content went out: a DATA frame may follow. */
    private boolean inBody;
    /** The stream's first handler: holds the response's bytes until a flush and ends the stream with them. */
    private final H3StreamWrites writes;

    H3ClientStream(H3ClientConnection conn, H3StreamWrites writes) {
        this.conn = conn;
        this.writes = writes;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.ch = (QuicStreamChannel) ctx.channel();
        if (!conn.streamOpened(this, ch.streamId())) {
            // after GOAWAY or on a refused connection: H3_REQUEST_REJECTED, the client may retry elsewhere
            responseEnded = true;
            ch.shutdown(Http3ErrorCode.H3_REQUEST_REJECTED.code());
            return;
        }
        counted = true;
    }

    // ------------------------------------------------------------------ frames

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
        if (!headersSeen) {
            headersSeen = true;
            start(frame.headers());
            return;
        }
        if (!requestEnded) {
            // trailers; the FIN follows
            requestEnded = true;
            if (stream != null) {
                stream.onRequestEnd(H3Messages.trailers(frame.headers()));
            }
        }
    }

    private void start(Http3Headers headers) {
        boolean fin = ch.isInputShutdown();
        H2Messages.Request r = H2Messages.request(headers, headers.size(), fin, HttpVersion.HTTP_3, true);
        if (r.streamError()) {
            malformed();
            return;
        }
        requestEnded = fin;
        if (r.head() == null) {
            conn.countInvalidRequest(r.status());
            GeneratedResponse g = GeneratedResponse.of(r.status());
            sendGenerated(g.head(), g.body());
            return;
        }
        request = r.head();
        stream = new Stream(this, conn.frontend(), request);
        if (request.method().contentEquals(RequestHead.CONNECT)) {
            stream.fail(501);
            return;
        }
        stream.start();
        if (fin && stream != null) {
            stream.onRequestEnd(null);
        }
    }

    /** A malformed request (RFC 9114 4.1.2): a stream error of type H3_MESSAGE_ERROR, counted as an invalid request. */
    private void malformed() {
        conn.countInvalidRequest(0);
        abortStream();
        responseEnded = true;
        ch.shutdown(Http3ErrorCode.H3_MESSAGE_ERROR.code());
    }

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
        ByteBuf data = frame.content();
        if (stream == null || requestEnded || !data.isReadable()) {
            frame.release();
            return;
        }
        stream.onRequestBody(data.retain());
        frame.release();
    }

    @Override
    protected void channelInputClosed(ChannelHandlerContext ctx) {
        if (!headersSeen) {
            if (!responseEnded) {
                // a request stream closed before its headers: H3_REQUEST_INCOMPLETE
                responseEnded = true;
                ch.shutdown(Http3ErrorCode.H3_REQUEST_INCOMPLETE.code());
            }
            return;
        }
        if (!requestEnded) {
            requestEnded = true;
            if (stream != null) {
                stream.onRequestEnd(null);
            }
        }
    }

    @Override
    protected void handleHttp3Exception(ChannelHandlerContext ctx, Http3Exception e) {
        // Netty's validation (pseudo-fields, content-length, frame order) already reset the stream
        if (e.errorCode() == Http3ErrorCode.H3_MESSAGE_ERROR && !responseEnded) {
            conn.countInvalidRequest(0);
            abortStream();
            responseEnded = true;
            ch.shutdownInput(Http3ErrorCode.H3_MESSAGE_ERROR.code());
        }
    }

    @Override
    protected void handleQuicException(ChannelHandlerContext ctx, QuicException e) {
        // the client reset the stream, or the connection failed
        abortStream();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof QuicException || cause instanceof Http3Exception) {
            super.exceptionCaught(ctx, cause);
            return;
        }
        if (!headersSeen) {
            // the field section could not be read as a request (Netty's checks threw): malformed
            headersSeen = true;
            if (!responseEnded) {
                malformed();
            }
            return;
        }
        // a write failed (STOP_SENDING from the client, stream closed): the exchange is over
        UnexpectedErrors.report("H3ClientStream", cause);
        abortStream();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.onClientWritable(ch.isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.flushServer();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed();
        ctx.fireChannelInactive();
    }

    /** The QUIC connection went away under the stream. */
    void onConnectionClosed() {
        if (!responseEnded) {
            abortStream();
        }
    }

    private void closed() {
        if (!responseEnded) {
            abortStream();
        }
        if (counted) {
            counted = false;
            conn.streamClosed(this);
        }
    }

    private void abortStream() {
        Stream s = stream;
        stream = null;
        if (s != null) {
            s.onClientClosed();
        }
    }

    // ------------------------------------------------------------------ ClientSide

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
        return ch.streamId() == 0;
    }

    @Override
    public Future<?> closeFuture() {
        return ch.parent().closeFuture();
    }

    @Override
    public Trackers sessionTrackers() {
        return ch.parent().attr(SESSION_TRACKERS).get();
    }

    @Override
    public EventLoop loop() {
        return ch.eventLoop();
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
    public long acceptDate() {
        return conn.acceptDate();
    }

    @Override
    public long requestStartNanos() {
        return requestStart;
    }

    @Override
    public boolean tls() {
        return true;
    }

    @Override
    public String sni() {
        return conn.sni();
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
            if (head.status() != 101) {
                ctx.write(new DefaultHttp3HeadersFrame(H3Messages.encodeResponse(head)), ctx.voidPromise());
            }
            return;
        }
        headOnly = request.isHead() || !head.hasBody();
        ctx.write(new DefaultHttp3HeadersFrame(H3Messages.encodeResponse(head)), ctx.voidPromise());
        if (headOnly) {
            responseEnded = true;
            fin();
        } else {
            inBody = true;
        }
    }

    @Override
    public void sendBody(ByteBuf data) {
        if (responseEnded || headOnly) {
            data.release();
            return;
        }
        bytesOut += data.readableBytes();
        ctx.write(new DefaultHttp3DataFrame(data), ctx.voidPromise());
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        if (!responseEnded) {
            responseEnded = true;
            if (trailers != null && trailers.size() > 0) {
                inBody = false;
                ctx.write(new DefaultHttp3HeadersFrame(H3Messages.encodeTrailers(trailers)), ctx.voidPromise());
            }
            fin();
        }
        done();
    }

    @Override
    public void sendGenerated(ResponseHead head, byte[] body) {
        if (!responseEnded) {
            responseEnded = true;
            boolean noBody = body.length == 0 || request != null && request.isHead();
            ctx.write(new DefaultHttp3HeadersFrame(H3Messages.encodeResponse(head)), ctx.voidPromise());
            bytesOut += body.length;
            if (!noBody) {
                ctx.write(new DefaultHttp3DataFrame(Unpooled.wrappedBuffer(body)), ctx.voidPromise());
            }
            inBody = !noBody;
            fin();
        }
        done();
    }

    /**
     * Ends the response stream: the FIN goes with the response's last bytes, in one write behind those already
     * queued for stream capacity ({@link H3StreamWrites}; Netty's {@code shutdownOutput()} would write it at once,
     * ahead of queued writes, and alone in its packet, where quiche does not retransmit it).
     */
    private void fin() {
        writes.finish(inBody);
    }

    /** The response is complete: a request body still coming is not needed any more. */
    private void done() {
        stream = null;
        if (!requestEnded) {
            requestEnded = true;
            // RFC 9114 4.1: a complete response may end the exchange; STOP_SENDING with H3_NO_ERROR
            ch.shutdownInput(Http3ErrorCode.H3_NO_ERROR.code());
        }
        ctx.flush();
    }

    @Override
    public boolean isWritable() {
        return ch.isWritable();
    }

    @Override
    public void flush() {
        ctx.flush();
    }

    @Override
    public void pauseRequestBody() {
        ch.config().setAutoRead(false);
    }

    @Override
    public void resumeRequestBody() {
        ch.config().setAutoRead(true);
    }

    @Override
    public void startTunnel() {
        // HTTP/3 has no upgrade and CONNECT is answered 501: nothing switches here
        abort();
    }

    @Override
    public void sendRaw(ByteBuf data) {
        data.release();
    }

    @Override
    public void abort() {
        stream = null;
        if (!responseEnded) {
            responseEnded = true;
            writes.discard();
            ch.shutdown(Http3ErrorCode.H3_INTERNAL_ERROR.code());
        }
    }
}
