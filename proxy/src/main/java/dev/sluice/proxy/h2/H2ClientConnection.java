package dev.sluice.proxy.h2;

import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.http.Deadline;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.runtime.Frontend;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * An HTTP/2 client connection (h2 after TLS ALPN, or h2c with prior knowledge). Each request stream
 * gets an {@link H2ClientStream}, the {@code ClientSide} of its {@code Stream}. Built on Netty's
 * {@link Http2ConnectionHandler} with this class as the frame listener (no child channels, no frame
 * objects). Flood protections are on: RST_STREAM rate, empty DATA frames, queued control frames,
 * CONTINUATION floods; each rejection is counted. Request body bytes are returned to the client's
 * flow-control window only once the server side can take more, which is the back-pressure.
 * One instance per connection, used only on its event loop.
 */
public final class H2ClientConnection extends Http2ConnectionHandler implements Http2FrameListener {

    /** HAProxy's tune.h2.max-concurrent-streams default. */
    static final int MAX_CONCURRENT_STREAMS = 100;
    /** HAProxy's tune.h2.initial-window-size default. */
    static final int INITIAL_WINDOW = 65535;
    /** Connection-level receive window: large, so one slow stream does not stall the others. */
    static final int CONNECTION_WINDOW = 16 * 1024 * 1024;

    /** Counts of the protections that fired, process-wide. */
    public static final LongAdder PROTOCOL_ERRORS = new LongAdder();
    public static final LongAdder FLOOD_REJECTIONS = new LongAdder();

    private final Frontend frontend;
    private final ConnectionLimit limit;
    private boolean admitted;
    private final IntObjectMap<H2ClientStream> streams = new IntObjectHashMap<>();

    private ChannelHandlerContext ctx;
    private int loopIndex;
    private Deadline timer;
    private final RoundFlush roundFlush = new RoundFlush(this::flush);
    private long acceptDate;
    private boolean tls;
    /** The client shut its side down (FIN): HTTP/2 has no half-close, the connection ends with its last stream. */
    private boolean inputClosed;
    private dev.sluice.proxy.tls.TlsSession tlsSession;

    private H2ClientConnection(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings, Frontend frontend,
            boolean admitted) {
        super(decoder, encoder, settings);
        this.frontend = frontend;
        this.limit = frontend.limit();
        this.admitted = admitted;
        decoder.frameListener(this);
        connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamRemoved(Http2Stream stream) {
                H2ClientStream s = streams.remove(stream.id());
                if (s != null) {
                    s.onStreamRemoved();
                }
                if (streams.isEmpty()) {
                    if (inputClosed) {
                        ctx.close();
                        return;
                    }
                    armIdle();
                }
            }
        });
        encoder.flowController().listener(stream -> {
            H2ClientStream s = streams.get(stream.id());
            if (s != null) {
                s.writabilityChanged(encoder.flowController().isWritable(stream));
            }
        });
    }

    /** Builds the handler for one accepted connection. */
    public static H2ClientConnection create(Frontend frontend, boolean admitted) {
        return new Builder(frontend, admitted).build();
    }

    private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<H2ClientConnection, Builder> {
        private final Frontend frontend;
        private final boolean admitted;

        Builder(Frontend frontend, boolean admitted) {
            this.frontend = frontend;
            this.admitted = admitted;
            server(true);
            validateHeaders(true);
            initialSettings(Http2Settings.defaultSettings()
                    .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                    .initialWindowSize(INITIAL_WINDOW)
                    .maxHeaderListSize(frontend.h1Limits().maxHeadBytes() * 2L));
            decoderEnforceMaxRstFramesPerWindow(200, 30);
            decoderEnforceMaxConsecutiveEmptyDataFrames(2);
            encoderEnforceMaxQueuedControlFrames(10000);
            decoderEnforceMaxSmallContinuationFrames(16);
            gracefulShutdownTimeoutMillis(5000);
        }

        @Override
        protected H2ClientConnection build() {
            return super.build();
        }

        @Override
        protected H2ClientConnection build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
            return new H2ClientConnection(decoder, encoder, initialSettings, frontend, admitted);
        }
    }

    long acceptDate() {
        return acceptDate;
    }

    boolean tls() {
        return tls;
    }

    dev.sluice.proxy.tls.TlsSession tlsSession() {
        return tlsSession;
    }

    Frontend frontend() {
        return frontend;
    }

    ChannelHandlerContext ctx() {
        return ctx;
    }

    int loopIndex() {
        return loopIndex;
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        roundFlush.attach(ctx);
        super.handlerAdded(ctx);
        if (ctx.channel().isActive()) {
            started();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        super.channelActive(ctx);
        started();
    }

    private void started() {
        if (timer != null) {
            return;
        }
        loopIndex = frontend.workers().indexOf(ctx.channel().eventLoop());
        timer = new Deadline(ctx.channel().eventLoop(), this::onTimeout);
        frontend.countConnection(loopIndex, true);
        dev.sluice.proxy.rules.Trackers.sessionStarted(ctx.channel().attr(dev.sluice.proxy.http.ClientSide.SESSION_TRACKERS).get());
        acceptDate = System.currentTimeMillis();
        tlsSession = dev.sluice.proxy.tls.TlsSession.of(ctx.channel());
        tls = tlsSession != null;
        if (frontend.accessLog() != null) {
            frontend.accessLog().logConnect((java.net.InetSocketAddress) ctx.channel().remoteAddress(),
                    (java.net.InetSocketAddress) ctx.channel().localAddress(), frontend.name());
        }
        try {
            // widen the connection window beyond the initial 64 KiB
            connection().local().flowController().incrementWindowSize(connection().connectionStream(), CONNECTION_WINDOW - INITIAL_WINDOW);
        } catch (Http2Exception e) {
            ctx.close();
            return;
        }
        long t = frontend.timeouts().httpRequest();
        timer.arm(t != Timeouts.UNSET ? t : frontend.timeouts().client());
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt == ConnectionLimit.Admitted.INSTANCE) {
            admitted = true;
            return;
        }
        if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
            inputClosed = true;
            if (streams.isEmpty()) {
                ctx.close();
            }
            return;
        }
        if (evt == dev.sluice.proxy.http.SoftStop.EVENT) {
            shutdownGracefully();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (timer != null) {
            timer.cancel();
            frontend.connectionClosed(true);
        }
        super.channelInactive(ctx);
        if (admitted) {
            admitted = false;
            limit.release();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (streams.isEmpty() && timer != null) {
            timer.arm(frontend.timeouts().client());
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        for (H2ClientStream s : streams.values()) {
            s.flushServer();
        }
        roundFlush.flushed();
        super.channelReadComplete(ctx);
    }

    /** Flushes frames written by streams, once per event-loop round (see {@link RoundFlush}). */
    void flushIfNeeded() {
        roundFlush.request();
    }

    void markDirty() {
        roundFlush.markDirty();
    }

    @Override
    protected void onConnectionError(ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
        if (http2Ex != null && http2Ex.error() == Http2Error.ENHANCE_YOUR_CALM) {
            FLOOD_REJECTIONS.increment();
        } else {
            PROTOCOL_ERRORS.increment();
            if (!outbound && http2Ex != null) {
                // the client broke the protocol: its connection counts as an invalid request
                frontend.countInvalidRequest(0);
            }
        }
        super.onConnectionError(ctx, outbound, cause, http2Ex);
    }

    @Override
    protected void onStreamError(ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception.StreamException http2Ex) {
        PROTOCOL_ERRORS.increment();
        if (!outbound) {
            // an invalid request stream (RST_STREAM PROTOCOL_ERROR): HTTP/2's choke point for ereq
            frontend.countInvalidRequest(0);
        }
        H2ClientStream s = streams.remove(http2Ex.streamId());
        if (s != null) {
            s.onReset();
        }
        super.onStreamError(ctx, outbound, cause, http2Ex);
    }

    private void armIdle() {
        if (timer == null) {
            return;
        }
        long ka = frontend.timeouts().effectiveKeepAlive();
        timer.arm(ka != Timeouts.UNSET ? ka : frontend.timeouts().client());
    }

    private void onTimeout() {
        if (!streams.isEmpty()) {
            if (!ctx.channel().isWritable()) {
                // the client stopped reading its responses
                ctx.close();
            } else {
                timer.arm(frontend.timeouts().client());
            }
            return;
        }
        // idle: tell the client no new stream will be served, then close
        goAway(ctx, connection().remote().lastStreamCreated(), Http2Error.NO_ERROR.code(), io.netty.buffer.Unpooled.EMPTY_BUFFER,
                ctx.newPromise());
        flush(ctx);
        ctx.close();
    }

    /** Stops taking new streams (soft stop): GOAWAY, then close once the running streams are done. */
    public void shutdownGracefully() {
        // the streams in progress may take their time: the process's hard-stop-after bounds the wait
        gracefulShutdownTimeoutMillis(-1);
        ctx.close();
    }

    // ------------------------------------------------------------------ frame listener

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) throws Http2Exception {
        H2ClientStream s = streams.get(streamId);
        if (s == null) {
            return data.readableBytes() + padding;
        }
        return padding + s.onData(data, endOfStream);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream)
            throws Http2Exception {
        H2ClientStream existing = streams.get(streamId);
        if (existing != null) {
            if (!endOfStream) {
                throw Http2Exception.streamError(streamId, Http2Error.PROTOCOL_ERROR, "trailers without END_STREAM");
            }
            existing.onTrailers(H2Messages.trailers(headers));
            return;
        }
        if (timer != null) {
            timer.disarm();
        }
        H2Messages.Request r = H2Messages.request(headers, endOfStream);
        if (r.streamError()) {
            throw Http2Exception.streamError(streamId, Http2Error.PROTOCOL_ERROR, "%s", r.error());
        }
        H2ClientStream s = new H2ClientStream(this, streamId);
        streams.put(streamId, s);
        if (r.head() == null) {
            PROTOCOL_ERRORS.increment();
            frontend.countInvalidRequest(r.status());
            s.reject(GeneratedResponse.of(r.status()), endOfStream);
            return;
        }
        s.start(r.head(), endOfStream);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency, short weight,
            boolean exclusive, int padding, boolean endOfStream) throws Http2Exception {
        onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
        H2ClientStream s = streams.remove(streamId);
        if (s != null) {
            s.onReset();
        }
    }

    @Override
    public void onPriorityRead(ChannelHandlerContext ctx, int streamId, int streamDependency, short weight, boolean exclusive) {
    }

    @Override
    public void onSettingsAckRead(ChannelHandlerContext ctx) {
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
    }

    @Override
    public void onPingRead(ChannelHandlerContext ctx, long data) {
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
    }

    @Override
    public void onPushPromiseRead(ChannelHandlerContext ctx, int streamId, int promisedStreamId, Http2Headers headers, int padding)
            throws Http2Exception {
        throw Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR, "PUSH_PROMISE from a client");
    }

    @Override
    public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    }

    @Override
    public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {
    }

    @Override
    public void onUnknownFrame(ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags, ByteBuf payload) {
    }

    /** Returns flow-control credit for bytes a stream has now forwarded. */
    void consumed(int streamId, int bytes) {
        Http2Stream st = connection().stream(streamId);
        if (st == null || bytes <= 0) {
            return;
        }
        try {
            if (decoder().flowController().consumeBytes(st, bytes)) {
                markDirty();
            }
        } catch (Http2Exception e) {
            onError(ctx, false, e);
        }
    }

    Http2Connection h2() {
        return connection();
    }
}
