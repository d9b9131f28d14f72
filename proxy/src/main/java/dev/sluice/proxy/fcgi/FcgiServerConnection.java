package dev.sluice.proxy.fcgi;

import dev.sluice.config.model.FcgiApp;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.h1.InputBuffer;
import dev.sluice.proxy.rules.FcgiRules;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * A FastCGI connection to a {@code proto fcgi} server, one request at a time (the connection-pool design of
 * {@code h1.H1ServerConnection}), for an application that takes one request per connection at a time (no {@code option
 * mpxs-conns} with {@code max-reqs} above 1, no {@code option get-values}: those get a {@link FcgiMuxConnection}). The
 * request and its response are a {@link FcgiExchange}; request ids go 1, 3, 5... on a connection, as HAProxy 2.6 numbers
 * them. STDERR is logged ({@code log-stderr}). With {@code option keep-conn} (the default) the application keeps the
 * connection and it goes back to its loop's idle pool, as an HTTP/1 one does. One instance per connection, used only on
 * its loop.
 */
public final class FcgiServerConnection extends ChannelInboundHandlerAdapter implements ServerSide, FcgiRecordReader.Sink, FcgiExchange.Wire {
    /** A request body held for its length beyond this is refused (500). */
    static final int MAX_HELD_BODY = FcgiExchange.MAX_HELD_BODY;

    private final Server server;
    private final int loopIndex;
    private final FcgiExchange.App app;
    private final FcgiRecordReader reader = new FcgiRecordReader(this);
    private final InputBuffer input = new InputBuffer();
    private ChannelHandlerContext ctx;
    private Channel ch;
    private FcgiExchange exchange;
    private Stream stream;
    private int requests;
    /** The highest request id used on the connection (HAProxy's max_id). */
    private int maxId = -1;
    private Object owner;
    private boolean parked;
    private boolean inUse;
    private boolean dirty;
    /** Inside {@link #channelRead}: the input buffer is the reader's until it returns. */
    private boolean reading;

    public FcgiServerConnection(Server server, int loopIndex, FcgiApp app, FcgiRules rules, String software) {
        this.server = server;
        this.loopIndex = loopIndex;
        this.app = FcgiExchange.App.of(server, app, rules, software);
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession tlsSession() {
        return ch == null ? null : dev.sluice.proxy.tls.TlsSession.of(ch);
    }

    @Override
    public Channel channel() {
        return ch;
    }

    /** HAProxy 2.6 answers 1 for every HTX mux but H2's, FastCGI's included. */
    @Override
    public int httpMajor() {
        return 1;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.ch = ctx.channel();
        this.exchange = new FcgiExchange(app, this, ch.eventLoop(), this::onTimeout);
    }

    // ------------------------------------------------------------------ FcgiExchange.Wire

    @Override
    public ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    @Override
    public void write(ByteBuf records) {
        ctx.write(records);
        dirty = true;
    }

    // ------------------------------------------------------------------ ServerSide

    @Override
    public void attach(Stream s) {
        stream = s;
        parked = false;
        if (!inUse) {
            inUse = true;
            ServerConnector.used(server, loopIndex);
        }
        requests++;
        maxId = FcgiRecords.nextId(maxId);
        exchange.start(s, maxId);
    }

    @Override
    public boolean isOpen() {
        return ch.isActive();
    }

    @Override
    public String sni() {
        return null;
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public void owner(Object session) {
        this.owner = session;
    }

    @Override
    public Server server() {
        return server;
    }

    @Override
    public void ownerGone(Object session) {
        if (owner == session) {
            abort();
        }
    }

    @Override
    public boolean reused() {
        return requests > 1;
    }

    private void notInUse() {
        if (inUse) {
            inUse = false;
            ServerConnector.unused(server, loopIndex);
        }
    }

    @Override
    public void sendHead(RequestHead h) {
        exchange.sendHead(h);
    }

    @Override
    public void sendBody(ByteBuf data) {
        exchange.sendBody(data);
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        exchange.sendEnd();
    }

    @Override
    public boolean isWritable() {
        return ch.isWritable();
    }

    @Override
    public void flush() {
        if (dirty) {
            dirty = false;
            ctx.flush();
        }
    }

    @Override
    public void pauseResponseBody() {
        ch.config().setAutoRead(false);
        exchange.disarm();
    }

    @Override
    public void resumeResponseBody() {
        ch.config().setAutoRead(true);
        if (stream != null && !exchange.responseEnded()) {
            exchange.arm();
        }
    }

    @Override
    public void release() {
        stream = null;
        ch.config().setAutoRead(true);
        exchange.detach();
        // after a reload the connection closes: its application's settings (docroot, params) are the old configuration's;
        // once the last request id (32767) is used, no other request can go on it
        boolean keep = app.app().keepConn() && exchange.requestEnded() && exchange.responseEnded() && ch.isActive() && !input.isReadable()
                && !server.retired() && FcgiRecords.nextId(maxId) > 0
                && (owner != null || ServerConnector.keepIdle(server, loopIndex)) && ServerConnector.current(server, ch.remoteAddress());
        notInUse();
        if (keep) {
            parked = true;
            ServerConnector.park(server, loopIndex, this);
        } else {
            ch.close();
        }
    }

    @Override
    public void startTunnel() {
        // FastCGI carries no tunnel
        abort();
    }

    @Override
    public void sendRaw(ByteBuf data) {
        data.release();
    }

    @Override
    public void abort() {
        stream = null;
        reader.stop();
        notInUse();
        if (exchange != null) {
            exchange.detach();
        }
        ch.close();
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (stream == null || reader.failed()) {
            // nothing was asked: an application talking out of turn cannot be trusted with another request
            in.release();
            ch.close();
            return;
        }
        exchange.arm();
        reading = true;
        try {
            reader.read(input.append(ctx.alloc(), in));
        } finally {
            reading = false;
        }
        if (!ch.isActive() || reader.failed()) {
            input.release();
            return;
        }
        input.compact();
        exchange.afterRead();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.flushClient();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.onServerWritable(ch.isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        exchange.cancelTimer();
        notInUse();
        if (parked) {
            parked = false;
            ServerConnector.unpark(server, loopIndex, this);
        }
        if (stream != null) {
            exchange.closed(null);
        }
        reader.stop();
        exchange.detach();
        if (!reading) {
            input.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        UnexpectedErrors.report("FcgiServerConnection", cause);
        ch.close();
    }

    private void onTimeout() {
        if (stream == null || !exchange.timedOut()) {
            ch.close();
        }
    }

    private void invalid() {
        if (stream == null || !exchange.invalid()) {
            ch.close();
        }
    }

    // ------------------------------------------------------------------ records

    @Override
    public void onStdout(int rid, ByteBuf data) {
        if (stream == null || rid != exchange.id()) {
            data.release();
            return;
        }
        exchange.onStdout(data);
    }

    @Override
    public void onStderr(int rid, ByteBuf data) {
        FcgiExchange.logStderr(server, data);
    }

    @Override
    public void onEndRequest(int rid, long appStatus, int protocolStatus) {
        if (stream == null || rid != exchange.id()) {
            return;
        }
        exchange.onEndRequest(protocolStatus);
    }

    @Override
    public void onValues(ByteBuf content) {
        // never asked for (option get-values gets a multiplexed connection)
    }

    @Override
    public void onError(String why) {
        invalid();
        if (ch.isActive()) {
            ch.close();
        }
    }
}
