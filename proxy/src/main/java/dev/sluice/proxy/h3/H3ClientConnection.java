package dev.sluice.proxy.h3;

import dev.sluice.proxy.listener.ListenerCounters;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.stream.ClientEnd;
import dev.sluice.proxy.stream.ConnectionRules;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.SoftStop;
import dev.sluice.proxy.tls.TlsSession;
import dev.sluice.quic.QuicListener;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http3.DefaultHttp3GoAwayFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.SniCompletionEvent;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * An HTTP/3 client connection (one QUIC connection of a {@code quic4@}/{@code quic6@} bind): admission against
 * the frontend's {@code maxconn} and its {@code tcp-request connection} rules once the handshake is done, the
 * connection's counters and log line, the idle timer (GOAWAY then CONNECTION_CLOSE with H3_NO_ERROR), the
 * graceful stop ({@link SoftStop}: GOAWAY, the requests in progress finish, then H3_NO_ERROR), and its request
 * streams, each an {@link H3ClientStream}. Netty's {@link Http3ServerConnectionHandler} runs the control and
 * QPACK streams beside it. A refused connection is closed with CONNECTION_REFUSED. One instance per connection,
 * on its event loop.
 */
public final class H3ClientConnection extends ChannelInboundHandlerAdapter {
    /** The server connections private to this client connection ({@code http-reuse never}), in first-use order; null until one. */
    List<ServerSide> privateConnections;
    /** QUIC's CONNECTION_REFUSED transport error. */
    static final int CONNECTION_REFUSED = 0x2;

    private Frontend frontend;
    private final ConnectionLimit limit;
    private final ConnectionRules rules;
    private final List<H3ClientStream> streams = new ArrayList<>(4);
    private ChannelHandlerContext ctx;
    private QuicChannel quic;
    private boolean started;
    private boolean admitted;
    private boolean closing;
    /** Soft stop: GOAWAY sent, the streams below {@link #goAwayId} finish, then the connection closes. */
    private boolean draining;
    private long goAwayId = -1;
    private int loopIndex;
    private long acceptDate;
    private InetSocketAddress remote;
    private InetSocketAddress local;
    private String sni;
    private TlsSession tls;
    private Deadline timer;
    private long lastStreamId = -1;

    private H3ClientConnection(Frontend frontend, ConnectionRules rules) {
        this.frontend = frontend;
        this.limit = frontend.limit();
        this.rules = rules;
    }

    /**
     * What a QUIC connection of this frontend's binds gets in its pipeline: this handler, then Netty's HTTP/3
     * connection handler whose request streams get an {@link H3ClientStream} each.
     */
    public static ChannelInitializer<QuicChannel> initializer(Frontend frontend, ConnectionRules rules) {
        return initializer(frontend, rules, null);
    }

    /** The same, each connection counted by its listener's {@code counters} ({@code option socket-stats}; null: none). */
    public static ChannelInitializer<QuicChannel> initializer(Frontend frontend, ConnectionRules rules, ListenerCounters counters) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(QuicChannel ch) {
                if (counters != null) {
                    counters.accepted(ch);
                }
                dev.sluice.proxy.listener.ListenerIdentity listener = dev.sluice.proxy.listener.ListenerIdentity.of(ch);
                if (listener != null) {
                    listener.accepted(ch);
                }
                H3ClientConnection conn = new H3ClientConnection(frontend, rules);
                ch.pipeline().addLast("h3-conn", conn);
                ch.pipeline().addLast("h3", new Http3ServerConnectionHandler(new ChannelInitializer<QuicStreamChannel>() {
                    @Override
                    protected void initChannel(QuicStreamChannel s) {
                        // first, next to the transport: below Netty's HTTP/3 codec, it sees the frames as bytes
                        H3StreamWrites writes = new H3StreamWrites();
                        s.pipeline().addFirst("h3-writes", writes);
                        s.pipeline().addLast("h3-stream", new H3ClientStream(conn, writes));
                    }
                }, null, null, null, true)); // true: QPACK's dynamic table off (H3StreamWrites relies on it)
                ch.pipeline().addLast("h3-errors", ERRORS);
            }
        };
    }

    /** Last in a connection's pipeline: what Netty's HTTP/3 handler reports (its stream failures); a peer's errors end there. */
    private static final ChannelInboundHandlerAdapter ERRORS = new Errors();

    @ChannelHandler.Sharable
    private static final class Errors extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            UnexpectedErrors.report("H3ClientConnection stream", cause);
        }
    }

    /** The frontend of a new request stream: after an in-process reload, the new configuration's. */
    Frontend frontend() {
        Frontend f = frontend;
        return f.isStopped() ? f : (frontend = f.current(null));
    }

    int loopIndex() {
        return loopIndex;
    }

    long acceptDate() {
        return acceptDate;
    }

    /** {@code set-src}, {@code set-dst}: for the connection's streams from now on. */
    void setAddress(boolean source, InetSocketAddress a) {
        if (source) {
            remote = a;
        } else {
            local = a;
        }
    }

    InetSocketAddress remoteAddress() {
        return remote;
    }

    InetSocketAddress localAddress() {
        return local;
    }

    String sni() {
        return sni;
    }

    TlsSession tlsSession() {
        return tls;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.quic = (QuicChannel) ctx.channel();
        if (quic.isActive()) {
            started();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        started();
        if (admitted) {
            // a refused connection is closing: HTTP/3 must not open its control stream on it
            ctx.fireChannelActive();
        }
    }

    /** The handshake is done: admit the connection or refuse it. */
    private void started() {
        if (started) {
            return;
        }
        started = true;
        remote = (InetSocketAddress) quic.remoteSocketAddress();
        local = (InetSocketAddress) quic.localSocketAddress();
        acceptDate = System.currentTimeMillis();
        if (remote == null || local == null) {
            quic.close();
            return;
        }
        if (frontend.isStopped()) {
            // the process stops gracefully: a handshake that completes now gets no service
            refuse("stopping");
            return;
        }
        if (rules != null && !rules.accept(quic, remote, local)) {
            refuse("rejected");
            return;
        }
        if (!limit.tryAdmit()) {
            refuse("maxconn");
            return;
        }
        admitted = true;
        if (!frontend.startSession(quic, remote, local)) {
            refuse("rejected");
            return;
        }
        remote = ClientEnd.overridden(quic, true, remote);
        local = ClientEnd.overridden(quic, false, local);
        loopIndex = frontend.workers().indexOf(quic.eventLoop());
        timer = new Deadline(quic.eventLoop(), this::onTimeout);
        frontend.countConnection(loopIndex);
        SSLEngine engine = quic.sslEngine();
        SSLSession s = engine == null ? null : engine.getSession();
        tls = new TlsSession(s == null ? "TLSv1.3" : s.getProtocol(), s == null ? null : s.getCipherSuite(), "h3", sni, false);
        frontend.countTlsSession(false);
        ListenerCounters lc = ListenerCounters.of(quic);
        if (lc != null) {
            lc.tlsSession(false);
        }
        if (frontend.accessLog() != null) {
            frontend.accessLog().logConnect(remote, local, frontend.name(), true);
        }
        long t = frontend.timeouts().httpRequest();
        timer.arm(t != Timeouts.UNSET ? t : frontend.timeouts().client());
    }

    /** Closes a connection refused by a rule or by maxconn: CONNECTION_CLOSE with CONNECTION_REFUSED. */
    private void refuse(String why) {
        closing = true;
        quic.close(false, CONNECTION_REFUSED, Unpooled.copiedBuffer(why, StandardCharsets.US_ASCII));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == SoftStop.EVENT || evt == SoftStop.IF_REMOVED && frontend.isStopped()) {
            softStop();
            return;
        }
        if (evt instanceof SniCompletionEvent e && e.isSuccess()) {
            sni = e.hostname();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * The process stops gracefully, as HTTP/2 does: GOAWAY now, the requests already taken finish, new ones are
     * refused (H3_REQUEST_REJECTED, the client may retry them elsewhere), then the connection closes with
     * H3_NO_ERROR. A connection still in its handshake is refused (CONNECTION_REFUSED).
     */
    private void softStop() {
        if (closing || draining) {
            return;
        }
        if (!started) {
            refuse("stopping");
            return;
        }
        if (!admitted) {
            return;
        }
        draining = true;
        goAway();
        if (streams.isEmpty()) {
            drained();
        }
    }

    /** GOAWAY (once): streams from this id on are not taken. */
    private void goAway() {
        if (goAwayId >= 0) {
            return;
        }
        goAwayId = lastStreamId < 0 ? 0 : lastStreamId + 4;
        QuicStreamChannel control = Http3.getLocalControlStream(quic);
        if (control != null && control.isActive()) {
            control.writeAndFlush(new DefaultHttp3GoAwayFrame(goAwayId));
        }
    }

    /**
     * The last request of a draining connection is done: close once its response had time to be acknowledged.
     * A CONNECTION_CLOSE discards the stream data still unacknowledged, so the close waits for the closing period
     * (min(3 x PTO, 1 s), in which a lost packet is sent again), unless the client closes first.
     */
    private void drained() {
        if (timer != null) {
            timer.disarm();
        }
        quic.eventLoop().schedule(() -> {
            if (!closing && quic.isOpen()) {
                closing = true;
                quic.close(true, Http3ErrorCode.H3_NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
            }
        }, QuicListener.closingPeriodNanos(quic), TimeUnit.NANOSECONDS);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // connection-level errors (QUIC, TLS, HTTP/3 control streams): the connection closes
        UnexpectedErrors.report("H3ClientConnection", cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ended();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        ended();
    }

    private void ended() {
        if (timer != null) {
            timer.cancel();
        }
        for (H3ClientStream s : new ArrayList<>(streams)) {
            s.onConnectionClosed();
        }
        streams.clear();
        if (admitted) {
            admitted = false;
            limit.release();
        }
    }

    /** A request stream opened; false when the connection does not take new ones (refused, closing, past GOAWAY). */
    boolean streamOpened(H3ClientStream s, long id) {
        if (!admitted || closing || (draining && (id >= goAwayId || streams.isEmpty()))) {
            return false;
        }
        streams.add(s);
        lastStreamId = Math.max(lastStreamId, id);
        if (timer != null) {
            timer.disarm();
        }
        return true;
    }

    void streamClosed(H3ClientStream s) {
        if (streams.remove(s) && streams.isEmpty() && draining && !closing) {
            drained();
            return;
        }
        if (streams.isEmpty() && timer != null && !closing && !draining) {
            long ka = frontend.timeouts().effectiveKeepAlive();
            timer.arm(ka != Timeouts.UNSET ? ka : frontend.timeouts().client());
        }
    }

    private void onTimeout() {
        if (closing || !quic.isOpen()) {
            return;
        }
        if (!streams.isEmpty()) {
            timer.arm(frontend.timeouts().client());
            return;
        }
        shutdown();
    }

    /** Idle: tell the client no new request is taken (GOAWAY), then close with H3_NO_ERROR. */
    public void shutdown() {
        if (closing) {
            return;
        }
        goAway();
        closing = true;
        quic.close(true, Http3ErrorCode.H3_NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
    }

    /** An invalid request on this connection (ereq): the frontend's counters and its listener's. */
    void countInvalidRequest(int status) {
        frontend.countInvalidRequest(status, quic);
    }
}
