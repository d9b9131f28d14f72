package dev.sluice.proxy.h2;

import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.listener.ClientAddresses;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.stats.H2Counters;
import dev.sluice.proxy.stream.ClientEnd;
import dev.sluice.proxy.stream.ClientTimes;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.SoftStop;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.ChannelInputShutdownEvent;
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
import io.netty.handler.codec.http2.Http2FrameLogger;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.logging.LogLevel;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * An HTTP/2 client connection (h2 after TLS ALPN, or h2c with prior knowledge). Each request stream
 * gets an {@link H2ClientStream}, the {@code ClientSide} of its {@code Stream}. Built on Netty's
 * {@link Http2ConnectionHandler} with this class as the frame listener (no child channels, no frame
 * objects). Flood protections are on: RST_STREAM received and provoked, empty DATA frames, queued control
 * frames, CONTINUATION floods; each ends the connection with GOAWAY ENHANCE_YOUR_CALM and is counted by kind
 * in the frontend's {@link H2Counters}, which also keeps HAProxy's h2 frame and error columns. Request body
 * bytes are returned to the client's flow-control window only once the server side can take more, which is
 * the back-pressure. One instance per connection, used only on its event loop.
 */
public final class H2ClientConnection extends Http2ConnectionHandler implements Http2FrameListener {
    /** The server connections private to this client connection ({@code http-reuse never}), in first-use order; null until one. */
    List<ServerSide> privateConnections;

    /** HAProxy's tune.h2.max-concurrent-streams default (tune.h2.* sets the SETTINGS: {@link H2Tuning}). */
    static final int MAX_CONCURRENT_STREAMS = 100;
    /** HTTP/2's initial connection window, which SETTINGS do not change. */
    static final int DEFAULT_WINDOW = 65535;
    /** Connection-level receive window: large, so one slow stream does not stall the others. */
    static final int CONNECTION_WINDOW = 16 * 1024 * 1024;

    /** RST_STREAM frames received (rapid reset) or provoked within {@link #RST_WINDOW_SECONDS} before the connection is closed. */
    static final int MAX_RST_PER_WINDOW = 200;
    static final int RST_WINDOW_SECONDS = 30;
    /** Consecutive DATA frames without payload nor END_STREAM before the connection is closed. */
    static final int MAX_EMPTY_DATA = 2;
    /** Control frames (SETTINGS and PING acknowledgements, RST_STREAM) queued unwritten before the connection is closed. */
    static final int MAX_QUEUED_CONTROL_FRAMES = 10000;
    /** CONTINUATION frames under 16 KiB in one header block before the connection is closed. */
    static final int MAX_SMALL_CONTINUATIONS = 16;

    private Frontend frontend;
    private final H2Counters h2Counters;
    /** Fields a header block may carry, pseudo-header fields included: HAProxy's {@code 2 * tune.http.maxhdr - 1}. */
    private final int maxFields;
    /** Frames received and not yet added to {@link #h2Counters} (added once per read, see {@link #addFrames}). */
    private int headersRcvd;
    private int dataRcvd;
    private int settingsRcvd;
    private int rstRcvd;
    private int goawayRcvd;
    private boolean settingsSeen;
    /** A {@code tcp-request session} rule rejected the connection: it closes, nothing else happens. */
    private boolean sessionRejected;
    /** The stream of the last HEADERS frame Netty's reader decoded, whatever became of it. */
    private int lastHeadersDecoded;
    /** The highest stream a request HEADERS frame reached {@link #onHeadersRead} for. */
    private int lastRequestStream;
    /** A stream whose request head {@link #onHeadersRead} refused with a stream error. */
    private int rejectedHead = -1;
    /** The header block had too many fields (a COMPRESSION_ERROR whose HEADERS frame is already counted). */
    private boolean tooManyFields;
    /** A connection error was counted: later errors of the same connection are consequences. */
    private boolean connectionErrorCounted;
    private final ConnectionLimit limit;
    private boolean admitted;
    /** Upgraded from an HTTP/1 connection that saw the preface ({@link #upgraded}). */
    private final boolean upgraded;
    private final IntObjectMap<H2ClientStream> streams = new IntObjectHashMap<>();

    private ChannelHandlerContext ctx;
    private int loopIndex;
    private Deadline timer;
    private final RoundFlush roundFlush = new RoundFlush(this::flush);
    /** Streams holding a piece of response body back until this round's flush ({@link H2ClientStream#sendBody}). */
    private final ArrayList<H2ClientStream> holding = new ArrayList<>(4);
    private ClientTimes times;
    private boolean tls;
    /** The client shut its side down (FIN): HTTP/2 has no half-close, the connection ends with its last stream. */
    private boolean inputClosed;
    private TlsSession tlsSession;
    private InetSocketAddress remote;
    private InetSocketAddress local;
    private ProxyHeader.Received proxyHeader;

    private H2ClientConnection(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings, Frontend frontend,
            boolean admitted, boolean upgraded) {
        super(decoder, encoder, settings);
        this.upgraded = upgraded;
        this.frontend = frontend;
        this.h2Counters = frontend.h2();
        this.maxFields = 2 * frontend.h1Limits().maxFields() - 1;
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
        return new Builder(frontend, admitted, false).build();
    }

    /**
     * The HTTP/2 side of an HTTP/1 client connection whose first bytes were HTTP/2's preface (as HAProxy's HTTP/1
     * multiplexer upgrades to HTTP/2 on it): the connection is already counted, logged and tracked as a session, so
     * only the HTTP/2 connection counters move.
     */
    public static H2ClientConnection upgraded(Frontend frontend, boolean admitted) {
        return new Builder(frontend, admitted, true).build();
    }

    private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<H2ClientConnection, Builder> {
        private final Frontend frontend;
        private final boolean admitted;
        private final boolean upgraded;

        Builder(Frontend frontend, boolean admitted, boolean upgraded) {
            this.frontend = frontend;
            this.admitted = admitted;
            this.upgraded = upgraded;
            server(true);
            validateHeaders(true);
            initialSettings(H2Tuning.settings(frontend.tune(), true).maxHeaderListSize(frontend.h1Limits().maxHeadBytes() * 2L));
            decoderEnforceMaxRstFramesPerWindow(MAX_RST_PER_WINDOW, RST_WINDOW_SECONDS);
            encoderEnforceMaxRstFramesPerWindow(MAX_RST_PER_WINDOW, RST_WINDOW_SECONDS);
            decoderEnforceMaxConsecutiveEmptyDataFrames(MAX_EMPTY_DATA);
            encoderEnforceMaxQueuedControlFrames(MAX_QUEUED_CONTROL_FRAMES);
            decoderEnforceMaxSmallContinuationFrames(MAX_SMALL_CONTINUATIONS);
            frameLogger(HeadersCounter.INSTANCE);
            gracefulShutdownTimeoutMillis(5000);
        }

        @Override
        protected H2ClientConnection build() {
            return super.build();
        }

        @Override
        protected H2ClientConnection build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
            return new H2ClientConnection(decoder, encoder, initialSettings, frontend, admitted, upgraded);
        }
    }

    long acceptDate() {
        return times.acceptDate();
    }

    /** The connection's times: each stream takes its accept and handshake time from them when it starts. */
    ClientTimes times() {
        return times;
    }

    /** The client's address: the PROXY header's when the connection started with one ({@code accept-proxy}). */
    /** {@code set-src}, {@code set-dst}: for the connection's streams from now on. */
    void setAddress(boolean source, InetSocketAddress a) {
        if (source) {
            remote = a;
        } else {
            local = a;
        }
    }

    InetSocketAddress remoteAddress() {
        return remote != null ? remote : ClientAddresses.remote(ctx.channel());
    }

    InetSocketAddress localAddress() {
        return local != null ? local : ClientAddresses.local(ctx.channel());
    }

    ProxyHeader.Received proxyHeader() {
        return proxyHeader;
    }

    boolean tls() {
        return tls;
    }

    TlsSession tlsSession() {
        return tlsSession;
    }

    /** The frontend of a new stream: after an in-process reload, the new configuration's. */
    Frontend frontend() {
        Frontend f = frontend;
        if (f.isStopped()) {
            return f;
        }
        return frontend = f.current(ctx == null ? null : ctx.channel());
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
        if (timer != null || sessionRejected) {
            return;
        }
        proxyHeader = ProxyHeader.Received.of(ctx.channel());
        remote = ProxyHeader.Received.remote(proxyHeader, ctx.channel());
        local = ProxyHeader.Received.local(proxyHeader, ctx.channel());
        if (!upgraded && !frontend.startSession(ctx.channel(), remote, local)) {
            sessionRejected = true;
            ctx.channel().close();
            return;
        }
        remote = ClientEnd.overridden(ctx.channel(), true, remote);
        local = ClientEnd.overridden(ctx.channel(), false, local);
        loopIndex = frontend.workers().indexOf(ctx.channel().eventLoop());
        timer = new Deadline(ctx.channel().eventLoop(), this::onTimeout);
        if (upgraded) {
            frontend.countH2Upgrade();
        } else {
            frontend.countConnection(loopIndex, true);
        }
        times = ClientTimes.of(ctx.channel());
        tlsSession = TlsSession.of(ctx.channel());
        tls = tlsSession != null;
        if (frontend.accessLog() != null && !upgraded) {
            frontend.accessLog().logConnect(remote, local, frontend.name(), true);
        }
        try {
            // widen the connection window beyond the initial 64 KiB
            connection().local().flowController().incrementWindowSize(connection().connectionStream(), CONNECTION_WINDOW - DEFAULT_WINDOW);
        } catch (Http2Exception e) {
            ctx.close();
            return;
        }
        armIdle();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt == ConnectionLimit.Admitted.INSTANCE) {
            admitted = true;
            return;
        }
        if (evt instanceof ChannelInputShutdownEvent) {
            inputClosed = true;
            if (streams.isEmpty()) {
                ctx.close();
            }
            return;
        }
        if (evt == SoftStop.EVENT || evt == SoftStop.IF_REMOVED && frontend.isStopped()) {
            shutdownGracefully();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        addFrames();
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
        if (streams.isEmpty() && timer != null && idleTimeout() == Timeouts.UNSET) {
            // only timeout client, the fallback, counts from the last read; the others from the start of the idle time
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
        addFrames();
        super.channelReadComplete(ctx);
    }

    /** Adds the frames counted since the last read to the frontend's counters: a few adds per read, none per frame. */
    private void addFrames() {
        if ((headersRcvd | dataRcvd | settingsRcvd | rstRcvd | goawayRcvd) == 0) {
            return;
        }
        h2Counters.addFrames(headersRcvd, dataRcvd, settingsRcvd, rstRcvd, goawayRcvd);
        headersRcvd = 0;
        dataRcvd = 0;
        settingsRcvd = 0;
        rstRcvd = 0;
        goawayRcvd = 0;
    }

    /** Flushes frames written by streams, once per event-loop round (see {@link RoundFlush}). */
    void flushIfNeeded() {
        roundFlush.request();
    }

    void markDirty() {
        roundFlush.markDirty();
    }

    void holding(H2ClientStream s) {
        holding.add(s);
    }

    /** Writes the pieces of body streams held back in this round (their responses did not end in it), then flushes. */
    @Override
    public void flush(ChannelHandlerContext ctx) {
        // a write may wake a stream that holds a piece in turn: the list may grow while it is walked
        for (int i = 0; i < holding.size(); i++) {
            H2ClientStream s = holding.get(i);
            s.listed = false;
            s.writeHeld();
        }
        holding.clear();
        super.flush(ctx);
    }

    /**
     * A connection error: Netty answers GOAWAY with its code and closes. Counted as HAProxy counts it: a
     * protocol error detected ({@code h2_detected_conn_protocol_errors}; not an HPACK failure, which HAProxy
     * counts in neither error column), a GOAWAY sent on error ({@code h2_goaway_resp}; not for NO_ERROR,
     * ENHANCE_YOUR_CALM, REFUSED_STREAM or CANCEL); a flood (ENHANCE_YOUR_CALM) counts by kind instead.
     */
    @Override
    protected void onConnectionError(ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
        if (http2Ex == null) {
            UnexpectedErrors.report("H2ClientConnection", cause);
        }
        if (http2Ex != null && !connectionErrorCounted) {
            connectionErrorCounted = true;
            Http2Error error = http2Ex.error();
            if (error == Http2Error.ENHANCE_YOUR_CALM) {
                h2Counters.flood(floodKind(outbound, http2Ex.getMessage()));
            } else {
                if (!outbound) {
                    if (error != Http2Error.COMPRESSION_ERROR) {
                        h2Counters.add(H2Counters.Column.CONN_PROTO_ERR);
                    } else if (!tooManyFields) {
                        // the header block could not be decoded: HAProxy counts its HEADERS frame all the same
                        headersRcvd++;
                    }
                    // the client broke the protocol: its connection counts as an invalid request
                    countInvalidRequest(0);
                }
                if (error != Http2Error.NO_ERROR && error != Http2Error.REFUSED_STREAM && error != Http2Error.CANCEL) {
                    h2Counters.add(H2Counters.Column.GOAWAY_RESP);
                }
            }
        }
        super.onConnectionError(ctx, outbound, cause, http2Ex);
    }

    /** Which protection an ENHANCE_YOUR_CALM error comes from; Netty tells only by its message. */
    static H2Counters.Flood floodKind(boolean outbound, String message) {
        String m = message == null ? "" : message;
        if (m.contains("RST frames")) {
            // received ones are counted by the decoder (inbound), the ones the client provoked by the encoder
            return outbound ? H2Counters.Flood.RESETS_SENT : H2Counters.Flood.RAPID_RESET;
        }
        if (m.contains("empty data frames")) {
            return H2Counters.Flood.EMPTY_DATA;
        }
        if (m.contains("outstanding control frames")) {
            return H2Counters.Flood.CONTROL_FRAMES;
        }
        if (m.contains("continuations frames")) {
            return H2Counters.Flood.CONTINUATION;
        }
        return H2Counters.Flood.OTHER;
    }

    /**
     * A stream error: Netty answers RST_STREAM ({@code h2_rst_stream_resp}). One found in a request's header
     * block (Netty's header validation, the strict rules of {@link H2Messages}, a refused stream) is not a
     * protocol error for HAProxy; one found on a stream already started (flow control, WINDOW_UPDATE of 0, ...)
     * is ({@code h2_detected_strm_protocol_errors}), unless it is only a frame on a closed stream.
     */
    @Override
    protected void onStreamError(ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception.StreamException http2Ex) {
        if (!outbound) {
            int id = http2Ex.streamId();
            Http2Error error = http2Ex.error();
            h2Counters.add(H2Counters.Column.RST_STREAM_RESP);
            if (id > lastRequestStream || id == rejectedHead) {
                if (id != lastHeadersDecoded) {
                    // the block failed to decode or validate: HAProxy counts its HEADERS frame all the same
                    headersRcvd++;
                    lastHeadersDecoded = id;
                }
                if (error != Http2Error.REFUSED_STREAM) {
                    // an invalid request (RST_STREAM PROTOCOL_ERROR, or 431 then RST for a head over the size limit):
                    // HTTP/2's choke point for ereq
                    countInvalidRequest(http2Ex instanceof Http2Exception.HeaderListSizeException ? 431 : 0);
                }
            } else {
                if (error != Http2Error.STREAM_CLOSED && error != Http2Error.REFUSED_STREAM && error != Http2Error.CANCEL) {
                    h2Counters.add(H2Counters.Column.STRM_PROTO_ERR);
                }
                // the request was counted when it started
                countRequestError();
            }
        }
        H2ClientStream s = streams.remove(http2Ex.streamId());
        if (s != null) {
            s.onReset();
        }
        super.onStreamError(ctx, outbound, cause, http2Ex);
    }

    /**
     * The connection has no stream: HAProxy 2.6's idle timeouts for an HTTP/2 client connection. After a first
     * stream, {@code timeout http-keep-alive}; before it (or without keep-alive), {@code timeout http-request};
     * both count from the moment the connection became idle, whatever frames (PING, SETTINGS) come meanwhile.
     * Without either, {@code timeout client}, re-armed by every read. At expiry: GOAWAY NO_ERROR, then close.
     */
    private void armIdle() {
        if (timer == null) {
            return;
        }
        long t = idleTimeout();
        timer.arm(t != Timeouts.UNSET ? t : frontend.timeouts().client());
    }

    private long idleTimeout() {
        Timeouts t = frontend.timeouts();
        return lastRequestStream > 0 && t.httpKeepAlive() != Timeouts.UNSET ? t.httpKeepAlive() : t.httpRequest();
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
        goAway(ctx, connection().remote().lastStreamCreated(), Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER,
                ctx.newPromise());
        flush(ctx);
        ctx.close();
    }

    /** Stops taking new streams (soft stop): GOAWAY, then close once the running streams are done. */
    public void shutdownGracefully() {
        // the streams in progress may take their time: the process's hard-stop-after bounds the wait
        gracefulShutdownTimeoutMillis(-1);
        // through the pipeline's tail, so that this handler's close() runs: GOAWAY NO_ERROR, then the close once
        // the streams are done (ctx.close() would start past this handler and cut the streams off)
        ctx.channel().close();
    }

    // ------------------------------------------------------------------ frame listener

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) throws Http2Exception {
        dataRcvd++;
        H2ClientStream s = streams.get(streamId);
        if (s == null) {
            return data.readableBytes() + padding;
        }
        return padding + s.onData(data, endOfStream);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream)
            throws Http2Exception {
        if (headers.size() > maxFields) {
            // HAProxy decodes a header block into 2 * tune.http.maxhdr entries, one of them the end marker, and
            // answers a longer block with GOAWAY COMPRESSION_ERROR
            tooManyFields = true;
            throw Http2Exception.connectionError(Http2Error.COMPRESSION_ERROR, "more than %d header fields", maxFields);
        }
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
        if (streamId > lastRequestStream) {
            lastRequestStream = streamId;
        }
        H2Messages.Request r = H2Messages.request(headers, endOfStream);
        if (r.streamError()) {
            rejectedHead = streamId;
            throw Http2Exception.streamError(streamId, Http2Error.PROTOCOL_ERROR, "%s", r.error());
        }
        H2ClientStream s = new H2ClientStream(this, streamId);
        streams.put(streamId, s);
        if (r.head() == null) {
            countInvalidRequest(r.status());
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
        rstRcvd++;
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
        settingsRcvd++;
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
        // HAProxy 2.6 counts the SETTINGS frame of the client's preface twice (once in its preface state, once as
        // a frame); counted the same way so that the columns compare
        settingsRcvd += settingsSeen ? 1 : 2;
        settingsSeen = true;
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
        goawayRcvd++;
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

    /**
     * A stream this side resets because its DATA broke the protocol (more or less than its content-length):
     * counted as Netty's stream errors on a started stream are.
     */
    void streamProtocolError() {
        h2Counters.add(H2Counters.Column.STRM_PROTO_ERR);
        h2Counters.add(H2Counters.Column.RST_STREAM_RESP);
        countRequestError();
    }

    private void headersDecoded(int streamId) {
        headersRcvd++;
        lastHeadersDecoded = streamId;
    }

    /**
     * Counts HEADERS frames as Netty's frame reader decodes them, before the connection decoder checks the
     * stream's state: HAProxy counts a HEADERS frame the state check then refuses (on an idle even stream, past
     * the stream limit) too. Netty's frame logger hook, shared by every connection (the connection is the
     * handler of the context it is given); it logs nothing.
     */
    private static final class HeadersCounter extends Http2FrameLogger {
        static final HeadersCounter INSTANCE = new HeadersCounter();

        private HeadersCounter() {
            super(LogLevel.TRACE, H2ClientConnection.class);
        }

        private static void counted(Direction d, ChannelHandlerContext ctx, int streamId) {
            if (d == Direction.INBOUND && ctx.handler() instanceof H2ClientConnection c) {
                c.headersDecoded(streamId);
            }
        }

        @Override
        public boolean isEnabled() {
            return false;
        }

        @Override
        public void logHeaders(Direction d, ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endStream) {
            counted(d, ctx, streamId);
        }

        @Override
        public void logHeaders(Direction d, ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency, short weight,
                boolean exclusive, int padding, boolean endStream) {
            counted(d, ctx, streamId);
        }

        @Override
        public void logData(Direction d, ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endStream) {
        }

        @Override
        public void logPriority(Direction d, ChannelHandlerContext ctx, int streamId, int streamDependency, short weight, boolean exclusive) {
        }

        @Override
        public void logRstStream(Direction d, ChannelHandlerContext ctx, int streamId, long errorCode) {
        }

        @Override
        public void logSettingsAck(Direction d, ChannelHandlerContext ctx) {
        }

        @Override
        public void logSettings(Direction d, ChannelHandlerContext ctx, Http2Settings settings) {
        }

        @Override
        public void logPing(Direction d, ChannelHandlerContext ctx, long data) {
        }

        @Override
        public void logPingAck(Direction d, ChannelHandlerContext ctx, long data) {
        }

        @Override
        public void logPushPromise(Direction d, ChannelHandlerContext ctx, int streamId, int promisedStreamId, Http2Headers headers,
                int padding) {
        }

        @Override
        public void logGoAway(Direction d, ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
        }

        @Override
        public void logWindowsUpdate(Direction d, ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {
        }

        @Override
        public void logUnknownFrame(Direction d, ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags, ByteBuf data) {
        }
    }

    /** An invalid request (ereq): the frontend's counters and its listener's ({@code option socket-stats}). */
    private void countInvalidRequest(int status) {
        frontend.countInvalidRequest(status, ctx == null ? null : ctx.channel());
    }

    private void countRequestError() {
        frontend.countRequestError(ctx == null ? null : ctx.channel());
    }
}
