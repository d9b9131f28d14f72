package dev.sluice.proxy.h2;

import dev.sluice.proxy.stream.ServerFailure;
import dev.sluice.config.model.Tune;
import dev.sluice.proxy.backend.MultiplexedConnection;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
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
import io.netty.handler.ssl.SslHandler;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * An HTTP/2 connection to a server (h2c, or h2 chosen by ALPN), carrying streams of many client
 * requests of the same event loop, as {@code http-reuse} lets them share it (see {@link ServerConnector}). It takes
 * new streams while the server's concurrent-stream limit allows and it has not been told to go away. Without
 * streams it is idle: kept or closed at once as the server's estimated need decides ({@link ServerConnector#keepIdle}),
 * then closed by the pool purge ({@code pool-purge-delay}), as HAProxy does; no timeout of its own. A private one
 * ({@code http-reuse never}) closes with its client connection. One instance per connection, used only on its event loop.
 */
public final class H2ServerConnection extends Http2ConnectionHandler implements Http2FrameListener, MultiplexedConnection {

    /** The server; a reload may hand the idle connection to its successor ({@link #moveTo}). */
    private Server server;
    private final int loopIndex;
    private final String sni;
    private boolean tls;
    private final IntObjectMap<H2ServerStream> streams = new IntObjectHashMap<>();
    private final ArrayDeque<ServerConnector.Callback> waiting = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean ready;
    /** {@code tune.h2.max-concurrent-streams}: the most streams this connection carries at once, whatever the server allows. */
    private int maxStreams = H2ClientConnection.MAX_CONCURRENT_STREAMS;
    /** Counted in the server's used connections of this loop (it carries or waits for streams). */
    private boolean inUse;
    /** The client connection this one is private to ({@code http-reuse never}), or null. */
    private Object owner;
    /** The client connection whose streams it carries now, or null. */
    private Object reservedBy;
    private boolean closed;
    private boolean draining;
    private final RoundFlush roundFlush = new RoundFlush(this::flush);
    private int served;

    private H2ServerConnection(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings, Server server,
            int loopIndex, String sni) {
        super(decoder, encoder, settings);
        this.server = server;
        this.loopIndex = loopIndex;
        this.sni = sni;
        decoder.frameListener(this);
        connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamRemoved(Http2Stream stream) {
                H2ServerStream s = streams.remove(stream.id());
                if (s != null) {
                    s.onRemoved();
                }
                updateUse();
            }

            @Override
            public void onGoAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {
                draining = true;
            }
        });
        encoder.flowController().listener(stream -> {
            H2ServerStream s = streams.get(stream.id());
            if (s != null) {
                s.writabilityChanged(encoder.flowController().isWritable(stream));
            }
        });
    }

    /** {@code sni}: the TLS server name the connection is opened with (null: none, or clear text). */
    public static H2ServerConnection create(Server server, int loopIndex, String sni) {
        return create(server, loopIndex, sni, Tune.DEFAULT);
    }

    /** The same, with the global section's HTTP/2 settings ({@code tune.h2.*}, {@code tune.bufsize}). */
    public static H2ServerConnection create(Server server, int loopIndex, String sni, Tune tune) {
        return new Builder(server, loopIndex, sni, tune).build();
    }

    private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<H2ServerConnection, Builder> {
        private final Server server;
        private final int loopIndex;
        private final String sni;
        private final int maxStreams;

        Builder(Server server, int loopIndex, String sni, Tune tune) {
            this.server = server;
            this.loopIndex = loopIndex;
            this.sni = sni;
            this.maxStreams = H2Tuning.serverStreams(tune);
            server(false);
            validateHeaders(true);
            initialSettings(H2Tuning.settings(tune, false));
            encoderEnforceMaxConcurrentStreams(false);
            decoderEnforceMaxRstFramesPerWindow(0, 0);
            gracefulShutdownTimeoutMillis(0);
        }

        @Override
        protected H2ServerConnection build() {
            return super.build();
        }

        @Override
        protected H2ServerConnection build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
            H2ServerConnection c = new H2ServerConnection(decoder, encoder, initialSettings, server, loopIndex, sni);
            c.maxStreams = maxStreams;
            return c;
        }
    }

    Server server() {
        return server;
    }

    @Override
    public boolean moveTo(Server successor) {
        if (!isIdle() || owner != null || reservedBy != null || closed || draining) {
            return false;
        }
        server = successor;
        return true;
    }

    ChannelHandlerContext ctx() {
        return ctx;
    }

    /** Whether the connection is over TLS (requests then carry {@code :scheme https}). */
    boolean tls() {
        return tls;
    }

    @Override
    public String sni() {
        return sni;
    }

    // ------------------------------------------------------------------ MultiplexedConnection

    @Override
    public boolean offer(ServerConnector.Callback cb, Object session) {
        if (closed || draining) {
            return false;
        }
        if (!ready) {
            if (waiting.size() >= maxStreams) {
                return false;
            }
            reserve(session);
            waiting.add(cb);
            updateUse();
            return true;
        }
        if (!connection().local().canOpenStream()) {
            return false;
        }
        reserve(session);
        cb.connected(newStream());
        return true;
    }

    private void reserve(Object session) {
        if (isIdle()) {
            reservedBy = session;
        }
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public void owner(Object session, Future<?> sessionEnd) {
        owner = session;
        if (sessionEnd != null) {
            sessionEnd.addListener(f -> {
                if (!closed) {
                    closed = true;
                    ServerConnector.remove(server, loopIndex, this);
                    if (ctx != null) {
                        ctx.close();
                    }
                }
            });
        }
    }

    @Override
    public Object reservedBy() {
        return reservedBy;
    }

    @Override
    public java.net.SocketAddress remoteAddress() {
        return ctx == null ? null : ctx.channel().remoteAddress();
    }

    @Override
    public boolean isIdle() {
        // not while it is leaving the used ones (updateUse asks whether it may stay idle, counting the others)
        return !inUse && streams.isEmpty() && waiting.isEmpty() && !closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ServerConnector.remove(server, loopIndex, this);
        if (ctx != null) {
            // through the pipeline's tail: GOAWAY NO_ERROR first
            ctx.channel().close();
        }
    }

    /**
     * Follows whether the connection carries (or waits for) streams: counted in the server's used connections of
     * this loop while it does; when it stops, it is released from its client connection and either waits idle or,
     * beyond what the server is estimated to need, closes at once.
     */
    private void updateUse() {
        boolean now = !streams.isEmpty() || !waiting.isEmpty();
        if (now == inUse) {
            return;
        }
        if (now) {
            inUse = true;
            ServerConnector.used(server, loopIndex);
            return;
        }
        boolean keep = owner != null || closed || draining || ServerConnector.keepIdle(server, loopIndex);
        inUse = false;
        reservedBy = null;
        ServerConnector.unused(server, loopIndex);
        if (keep && owner == null && !closed && !draining && server.retired()) {
            // a reload replaced the server while the streams ran: idle, the connection is its successor's
            Server next = server.successor();
            if (next == null) {
                keep = false;
            } else {
                ServerConnector.remove(server, loopIndex, this);
                server = next;
                ServerConnector.add(next, loopIndex, this);
            }
        }
        if (!keep) {
            close();
        } else if (draining && !closed) {
            // told to go away: nothing more will come on it
            close();
        }
    }

    @Override
    public List<ServerConnector.Callback> abandon() {
        closed = true;
        ServerConnector.remove(server, loopIndex, this);
        List<ServerConnector.Callback> out = new ArrayList<>(waiting);
        waiting.clear();
        updateUse();
        return out;
    }

    @Override
    public void connectFailed(Throwable cause) {
        closed = true;
        ServerConnector.remove(server, loopIndex, this);
        List<ServerConnector.Callback> failed = new ArrayList<>(waiting);
        waiting.clear();
        updateUse();
        for (ServerConnector.Callback cb : failed) {
            cb.failed(cause);
        }
    }

    private H2ServerStream newStream() {
        served++;
        return new H2ServerStream(this, served > 1);
    }

    /** Gives a new stream its id (when its request head is written). */
    int register(H2ServerStream s) {
        int id = connection().local().incrementAndGetNextStreamId();
        streams.put(id, s);
        updateUse();
        return id;
    }

    boolean usable() {
        return ready && !closed && !draining && ctx.channel().isActive();
    }

    void markDirty() {
        roundFlush.markDirty();
    }

    /** Flushes frames written by streams, once per event-loop round (see {@link RoundFlush}). */
    void flushIfNeeded() {
        roundFlush.request();
    }

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

    // ------------------------------------------------------------------ channel events

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        roundFlush.attach(ctx);
        this.tls = ctx.pipeline().get(SslHandler.class) != null;
        super.handlerAdded(ctx);
        if (ctx.channel().isActive()) {
            // added after the TLS handshake: the preface was written in super.handlerAdded
            roundFlush.markDirty();
            becomeReady();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        super.channelActive(ctx);
        becomeReady();
    }

    private void becomeReady() {
        ready = true;
        ServerConnector.Callback cb;
        while ((cb = waiting.peek()) != null) {
            // each stream registers itself (sendHead) before it leaves the queue: the connection stays in use
            cb.connected(newStream());
            waiting.poll();
        }
        updateUse();
        flushIfNeeded();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        ServerConnector.remove(server, loopIndex, this);
        List<ServerConnector.Callback> failed = new ArrayList<>(waiting);
        waiting.clear();
        H2ServerStream[] open = streams.values().toArray(new H2ServerStream[0]);
        streams.clear();
        updateUse();
        for (ServerConnector.Callback cb : failed) {
            cb.failed(new IOException("connection to " + server + " closed"));
        }
        for (H2ServerStream s : open) {
            s.onConnectionClosed();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        for (H2ServerStream s : streams.values()) {
            s.flushClient();
        }
        roundFlush.flushed();
        super.channelReadComplete(ctx);
    }

    @Override
    protected void onConnectionError(ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
        if (http2Ex == null) {
            UnexpectedErrors.report("H2ServerConnection", cause);
        }
        super.onConnectionError(ctx, outbound, cause, http2Ex);
    }

    @Override
    protected void onStreamError(ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception.StreamException http2Ex) {
        H2ServerStream s = streams.remove(http2Ex.streamId());
        if (s != null) {
            if (!outbound && !s.headReceived()) {
                // what the server sent before a valid head broke the rules (Netty's header validation: an upper-case
                // or connection-specific field, a bad content-length, ...): an invalid response, 502 without a retry
                s.onInvalid();
            } else {
                s.onReset(false);
            }
        }
        super.onStreamError(ctx, outbound, cause, http2Ex);
    }

    // ------------------------------------------------------------------ frame listener

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
        H2ServerStream s = streams.get(streamId);
        if (s == null) {
            return data.readableBytes() + padding;
        }
        return padding + s.onData(data, endOfStream);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream)
            throws Http2Exception {
        H2ServerStream s = streams.get(streamId);
        if (s == null) {
            return;
        }
        if (s.headReceived()) {
            s.onTrailers(H2Messages.trailers(headers));
            return;
        }
        ResponseHead head = H2Messages.response(headers);
        if (head == null) {
            s.onInvalid();
            resetStream(ctx, streamId, Http2Error.PROTOCOL_ERROR.code(), ctx.newPromise());
            return;
        }
        if (!head.isInterim()) {
            if (endOfStream) {
                head.bodyNone();
            } else {
                H2Messages.noBodyFor(s.request(), head);
            }
        }
        s.onHead(head, endOfStream);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency, short weight,
            boolean exclusive, int padding, boolean endOfStream) throws Http2Exception {
        onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
        H2ServerStream s = streams.remove(streamId);
        if (s != null) {
            s.onReset(errorCode == Http2Error.REFUSED_STREAM.code());
        }
    }

    @Override
    public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
        draining = true;
        // streams above lastStreamId were not processed: they can be replayed elsewhere
        for (H2ServerStream s : streams.values().toArray(new H2ServerStream[0])) {
            if (s.id() > lastStreamId) {
                streams.remove(s.id());
                s.onReset(true);
            }
        }
        updateUse();
        if (streams.isEmpty() && waiting.isEmpty()) {
            close();
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
        // as HAProxy: the server's SETTINGS_MAX_CONCURRENT_STREAMS, but never more than tune.h2.max-concurrent-streams
        if (connection().local().maxActiveStreams() > maxStreams) {
            connection().local().maxActiveStreams(maxStreams);
        }
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
        throw Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR, "push is disabled");
    }

    @Override
    public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {
    }

    @Override
    public void onUnknownFrame(ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags, ByteBuf payload) {
    }

    /** Attaches a stream's server-side timer expiry. */
    void timeout(H2ServerStream s) {
        streams.remove(s.id());
        resetStream(ctx, s.id(), Http2Error.CANCEL.code(), ctx.newPromise());
        flushIfNeeded();
        s.failure(ServerFailure.TIMEOUT);
    }
}
