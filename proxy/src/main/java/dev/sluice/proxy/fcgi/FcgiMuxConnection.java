package dev.sluice.proxy.fcgi;

import dev.sluice.config.model.FcgiApp;
import dev.sluice.proxy.backend.MultiplexedConnection;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.http.h1.InputBuffer;
import dev.sluice.proxy.rules.FcgiRules;
import dev.sluice.proxy.stream.ServerFailure;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A FastCGI connection carrying several requests at once, as HAProxy 2.6's FastCGI multiplexer does (mux_fcgi.c), for an
 * application with {@code option mpxs-conns} and {@code option max-reqs} above 1, or {@code option get-values}: the
 * design of {@code h2.H2ServerConnection} (a {@link MultiplexedConnection} in its loop's list, shared as {@code
 * http-reuse} allows, see {@link ServerConnector}), each request a {@link FcgiMuxStream} under its own request id (1, 3,
 * 5..., never one used before on the connection), its records interleaved with the others'.
 * <p>
 * The connection takes up to its limit of requests at once: {@code max-reqs} (1 by default); with {@code option
 * get-values} it first sends FCGI_GET_VALUES and holds every record until the answer, whose FCGI_MAX_REQS then becomes
 * the limit and an FCGI_MPXS_CONNS other than 1 makes it 1 (the requests taken meanwhile go on). An END_REQUEST saying
 * FCGI_CANT_MPX_CONN makes it 1 too; one saying the application is overloaded or does not know the role closes the
 * connection. A request beyond the limit goes to another connection. A connection error (an unreadable record, the
 * application closing) fails every request on it; after an unreadable record each request begun gets an ABORT_REQUEST
 * first. Without requests it is idle: kept or closed as the server's estimated need decides, then closed by the pool
 * purge, as an HTTP/2 one; it closes once idle when {@code no option keep-conn}, after a reload, or when its request ids
 * are all used (32767). One instance per connection, used only on its event loop.
 */
public final class FcgiMuxConnection extends ChannelInboundHandlerAdapter implements MultiplexedConnection, FcgiRecordReader.Sink, FcgiExchange.Wire {
    private final Server server;
    private final int loopIndex;
    private final FcgiExchange.App app;
    private final FcgiRecordReader reader = new FcgiRecordReader(this);
    private final InputBuffer input = new InputBuffer();
    /** Every request on the connection, with a request id or not yet. */
    private final List<FcgiMuxStream> streams = new ArrayList<>();
    private final IntObjectMap<FcgiMuxStream> byId = new IntObjectHashMap<>();
    private final ArrayDeque<ServerConnector.Callback> waiting = new ArrayDeque<>();
    /** Records written while the GET_VALUES answer is awaited. */
    private final List<ByteBuf> held = new ArrayList<>();
    private ChannelHandlerContext ctx;
    private boolean active;
    /** GET_VALUES went out and its answer did not come yet (HAProxy's FCGI_CS_SETTINGS). */
    private boolean settings;
    /** The most requests at once (HAProxy's streams_limit). */
    private int limit;
    /** Whether the application multiplexes, as configured then as it told. */
    private boolean mpxs;
    private int maxId = -1;
    private int served;
    private int paused;
    private boolean inUse;
    private boolean closed;
    private boolean closing;
    private boolean dirty;
    private boolean reading;
    private Object owner;
    private Object reservedBy;

    public FcgiMuxConnection(Server server, int loopIndex, FcgiApp app, FcgiRules rules, String software) {
        this.server = server;
        this.loopIndex = loopIndex;
        this.app = FcgiExchange.App.of(server, app, rules, software);
        this.limit = Math.max(1, app.maxReqs());
        this.mpxs = app.mpxsConns();
    }

    FcgiExchange.App app() {
        return app;
    }

    EventLoop loop() {
        return ctx.channel().eventLoop();
    }

    Channel channel() {
        return ctx == null ? null : ctx.channel();
    }

    Server server() {
        return server;
    }

    /** The most requests it takes at once now. */
    int limit() {
        return limit;
    }

    boolean usable() {
        return active && !closed && ctx.channel().isActive();
    }

    @Override
    public String sni() {
        return null;
    }

    // ------------------------------------------------------------------ MultiplexedConnection

    @Override
    public boolean offer(ServerConnector.Callback cb, Object session) {
        if (closed || closing || streams.size() + waiting.size() >= limit || idsLeft() < 1) {
            return false;
        }
        reserve(session);
        if (!active) {
            waiting.add(cb);
            updateUse();
            return true;
        }
        cb.connected(newStream());
        return true;
    }

    /** HAProxy's fcgi_streams_left: the ids left, less those the requests without one yet will take. */
    private int idsLeft() {
        int reserved = waiting.size();
        for (FcgiMuxStream s : streams) {
            if (s.exchange.id() == 0) {
                reserved++;
            }
        }
        return FcgiRecords.MAX_ID - maxId - reserved - 1;
    }

    private void reserve(Object session) {
        if (isIdle()) {
            reservedBy = session;
        }
    }

    private FcgiMuxStream newStream() {
        FcgiMuxStream s = new FcgiMuxStream(this, served > 0 && streams.isEmpty());
        served++;
        streams.add(s);
        updateUse();
        return s;
    }

    /** Gives a request its id (when its head is sent). */
    int register(FcgiMuxStream s) {
        maxId = FcgiRecords.nextId(maxId);
        byId.put(maxId, s);
        return maxId;
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public void owner(Object session, Future<?> sessionEnd) {
        owner = session;
        if (sessionEnd != null) {
            sessionEnd.addListener(f -> close());
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
            ctx.channel().close();
        }
    }

    /**
     * Follows whether the connection carries (or waits for) requests, as {@code H2ServerConnection} does: counted in the
     * server's used connections of this loop while it does; when it stops, it is released from its client connection and
     * either waits idle or closes.
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
        boolean keep = owner != null || closed || ServerConnector.keepIdle(server, loopIndex);
        inUse = false;
        reservedBy = null;
        ServerConnector.unused(server, loopIndex);
        // after a reload the connection closes: its application's settings (docroot, params) are the old configuration's
        if (!app.app().keepConn() || closing || server.retired() || idsLeft() < 1 || ctx != null && !ctx.channel().isActive()) {
            keep = false;
        }
        if (!keep) {
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

    /**
     * A request leaves the connection: done, or abandoned (its client went, it timed out, it failed). One begun and not
     * sent whole gets an ABORT_REQUEST; the records that still come for its id are ignored.
     */
    void leave(FcgiMuxStream s) {
        if (!streams.remove(s)) {
            return;
        }
        FcgiExchange x = s.exchange;
        if (x.id() > 0) {
            byId.remove(x.id());
        }
        if (!closed && ctx.channel().isActive() && x.beginSent() && !x.requestEnded() && !x.responseEnded()) {
            write(FcgiRecords.abortRequest(ctx.alloc(), x.id()));
            flush();
        }
        x.detach();
        if (s.paused()) {
            paused(false);
        }
        updateUse();
    }

    /** A request's client cannot take more ({@code true}) or can again: the connection is not read while one cannot. */
    void paused(boolean on) {
        paused += on ? 1 : -1;
        if (ctx != null) {
            ctx.channel().config().setAutoRead(paused == 0);
        }
    }

    // ------------------------------------------------------------------ FcgiExchange.Wire

    @Override
    public ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    @Override
    public void write(ByteBuf records) {
        if (settings) {
            held.add(records);
            return;
        }
        ctx.write(records);
        dirty = true;
    }

    @Override
    public void flush() {
        if (dirty && !settings) {
            dirty = false;
            ctx.flush();
        }
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            // added after a TLS handshake
            becomeActive();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        becomeActive();
        ctx.fireChannelActive();
    }

    /** Connected: GET_VALUES first with {@code option get-values}, then the requests that waited. */
    private void becomeActive() {
        if (active) {
            return;
        }
        active = true;
        if (app.app().getValues()) {
            ctx.writeAndFlush(FcgiRecords.getValues(ctx.alloc()));
            settings = true;
        }
        ServerConnector.Callback cb;
        while ((cb = waiting.peek()) != null) {
            // each request is on the connection before it leaves the queue: the connection stays in use
            cb.connected(newStream());
            waiting.poll();
        }
        updateUse();
    }

    /** The GET_VALUES answer came (or an UNKNOWN_TYPE for it): the records held go out. */
    private void settled() {
        if (!settings) {
            return;
        }
        settings = false;
        for (ByteBuf b : held) {
            ctx.write(b);
        }
        dirty |= !held.isEmpty();
        held.clear();
        flush();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (reader.failed() || closed) {
            in.release();
            return;
        }
        reading = true;
        try {
            reader.read(input.append(ctx.alloc(), in));
        } finally {
            reading = false;
        }
        if (!ctx.channel().isActive() || reader.failed()) {
            input.release();
            return;
        }
        input.compact();
        for (FcgiMuxStream s : List.copyOf(streams)) {
            s.exchange.afterRead();
        }
        if (closing) {
            // overloaded, or the role unknown: no request goes on it any more
            error(ServerFailure.CLOSED_BEFORE_RESPONSE, false);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        for (FcgiMuxStream s : List.copyOf(streams)) {
            if (s.stream() != null) {
                s.stream().flushClient();
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        boolean w = ctx.channel().isWritable();
        for (FcgiMuxStream s : List.copyOf(streams)) {
            if (s.stream() != null) {
                s.stream().onServerWritable(w);
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        ServerConnector.remove(server, loopIndex, this);
        reader.stop();
        List<ServerConnector.Callback> failed = new ArrayList<>(waiting);
        waiting.clear();
        List<FcgiMuxStream> open = List.copyOf(streams);
        streams.clear();
        byId.clear();
        for (ByteBuf b : held) {
            b.release();
        }
        held.clear();
        if (paused > 0) {
            paused = 0;
        }
        updateUse();
        for (ServerConnector.Callback cb : failed) {
            cb.failed(new IOException("connection to " + server + " closed"));
        }
        for (FcgiMuxStream s : open) {
            s.connectionClosed(null);
        }
        if (!reading) {
            input.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        UnexpectedErrors.report("FcgiMuxConnection", cause);
        ctx.channel().close();
    }

    /**
     * A connection error, as HAProxy's FCGI_CS_CLOSED: each request begun whose response did not end gets an ABORT_REQUEST
     * when {@code aborts}, every request fails as {@code kind}, the connection closes.
     */
    private void error(ServerFailure kind, boolean aborts) {
        closing = true;
        reader.stop();
        List<FcgiMuxStream> open = List.copyOf(streams);
        if (aborts && ctx.channel().isActive()) {
            settled();
            for (FcgiMuxStream s : open) {
                if (s.exchange.beginSent() && !s.exchange.responseEnded()) {
                    write(FcgiRecords.abortRequest(ctx.alloc(), s.exchange.id()));
                }
            }
            flush();
        }
        streams.clear();
        byId.clear();
        for (FcgiMuxStream s : open) {
            s.connectionClosed(kind);
        }
        updateUse();
        close();
    }

    // ------------------------------------------------------------------ records

    @Override
    public void onHeader(int type, int id) {
        if (!settings) {
            return;
        }
        // the answer to GET_VALUES must come first (HAProxy: any other record closes the connection)
        if (id != 0 || type != FcgiRecords.GET_VALUES_RESULT && type != FcgiRecords.UNKNOWN_TYPE) {
            reader.stop();
            error(ServerFailure.INVALID_RESPONSE, true);
        } else if (type == FcgiRecords.UNKNOWN_TYPE) {
            settled();
        }
    }

    @Override
    public void onStdout(int rid, ByteBuf data) {
        FcgiMuxStream s = rid == 0 ? null : byId.get(rid);
        if (s == null) {
            // a request that left the connection, or none
            data.release();
            return;
        }
        s.exchange.arm();
        s.exchange.onStdout(data);
    }

    @Override
    public void onStderr(int rid, ByteBuf data) {
        if (rid == 0 || byId.get(rid) == null) {
            data.release();
            return;
        }
        FcgiExchange.logStderr(server, data);
    }

    @Override
    public void onEndRequest(int rid, long appStatus, int protocolStatus) {
        FcgiMuxStream s = rid == 0 ? null : byId.get(rid);
        if (s == null) {
            return;
        }
        s.exchange.arm();
        if (protocolStatus == FcgiRecords.CANT_MPX_CONN) {
            mpxs = false;
            limit = 1;
        } else if (protocolStatus == FcgiRecords.OVERLOADED || protocolStatus == FcgiRecords.UNKNOWN_ROLE) {
            closing = true;
        }
        s.exchange.onEndRequest(protocolStatus);
    }

    /**
     * The GET_VALUES answer, read as HAProxy reads it: FCGI_MPXS_CONNS "1" or not, FCGI_MAX_REQS the limit (its leading
     * digits), 1 when the application does not multiplex; a malformed answer is a connection error.
     */
    @Override
    public void onValues(ByteBuf content) {
        Map<String, String> v;
        try {
            v = FcgiRecords.readPairs(content);
        } catch (IllegalArgumentException e) {
            reader.stop();
            error(ServerFailure.INVALID_RESPONSE, true);
            return;
        }
        for (Map.Entry<String, String> e : v.entrySet()) {
            if (e.getKey().equalsIgnoreCase("FCGI_MPXS_CONNS")) {
                mpxs = e.getValue().equals("1");
            } else if (e.getKey().equalsIgnoreCase("FCGI_MAX_REQS")) {
                limit = leadingNumber(e.getValue());
            }
        }
        if (!mpxs) {
            limit = 1;
        }
        settled();
    }

    /** HAProxy's strl2ui: the leading decimal digits' value (0 for none), on 32 bits. */
    static int leadingNumber(String s) {
        long n = 0;
        for (int i = 0; i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9'; i++) {
            n = (n * 10 + s.charAt(i) - '0') & 0xffffffffL;
        }
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    @Override
    public void onError(String why) {
        error(ServerFailure.INVALID_RESPONSE, true);
    }
}
