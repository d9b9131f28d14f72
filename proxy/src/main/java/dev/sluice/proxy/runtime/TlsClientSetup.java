package dev.sluice.proxy.runtime;

import dev.sluice.proxy.listener.ListenerCounters;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.stream.ClientTimes;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.tls.ServerTlsContext;
import dev.sluice.proxy.tls.TlsHandshakeHandler;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import javax.net.ssl.SSLException;

/**
 * The first handler of a connection accepted on a {@code bind ... ssl}. Once the connection is admitted
 * (at once, or when its {@link ConnectionLimit} makes room: a held connection is not read, so its
 * handshake does not start and cannot time out) it gives its place to the TLS handler and a
 * {@link TlsHandshakeHandler}. When the handshake is done it adds the handler its {@link Protocol} makes of what was
 * negotiated (by the frontend's mode: HTTP/2 if ALPN chose h2 or the bind says {@code proto h2}, else HTTP/1; or the
 * layer-4 connection), which then owns the connection's slot. A failed handshake closes the connection, gives the
 * slot back, is counted, and is logged the way HAProxy logs embryonic sessions, whatever the mode. One per
 * connection, on its event loop.
 */
final class TlsClientSetup extends ChannelInboundHandlerAdapter implements TlsHandshakeHandler.Callback {
    /** The handler a connection runs once its handshake is done; it owns the connection's slot. */
    @FunctionalInterface
    interface Protocol {
        /**
         * @param session    what the handshake negotiated
         * @param acceptDate when the connection was accepted (epoch ms; its handshake came after), with
         *                   {@code acceptNanos} on {@link System#nanoTime()}'s clock
         */
        ChannelHandler create(TlsSession session, long acceptDate, long acceptNanos);
    }

    private final Frontend frontend;
    private final ServerTlsContext context;
    private final Protocol protocol;
    private final String bindName;
    private final long handshakeTimeoutMs;
    private boolean admitted;
    /** {@code tune.ssl.capture-buffer-size}: 0, or the bytes of the hello the {@link ClientHelloRecorder} keeps. */
    private int captureSize;
    private long acceptDate;
    private long acceptNanos;
    private InetSocketAddress client;

    /**
     * @param bindName   the bind as HAProxy's connection error lines name it (its position in the frontend)
     * @param protocol   what runs on the connection after its handshake
     */
    TlsClientSetup(Frontend frontend, ServerTlsContext context, String bindName, Protocol protocol, long handshakeTimeoutMs,
            boolean admitted) {
        this.frontend = frontend;
        this.context = context;
        this.bindName = bindName;
        this.protocol = protocol;
        this.handshakeTimeoutMs = handshakeTimeoutMs;
        this.admitted = admitted;
    }

    /** Keeps {@code size} bytes of each client hello for the ssl_fc_cipherlist_* fetches (0: nothing). Returns this. */
    TlsClientSetup captureHello(int size) {
        captureSize = size;
        return this;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        acceptDate = System.currentTimeMillis();
        acceptNanos = System.nanoTime();
        client = ProxyHeader.Received.remote(ProxyHeader.Received.of(ctx.channel()), ctx.channel());
        if (admitted) {
            startHandshake(ctx);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt != ConnectionLimit.Admitted.INSTANCE) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        admitted = true;
        if (ctx.channel().isActive()) {
            startHandshake(ctx);
        } else {
            admitted = false;
            frontend.limit().release();
        }
    }

    private void startHandshake(ChannelHandlerContext ctx) {
        ctx.pipeline().addAfter(ctx.name(), "tls", context.newHandler(ctx.alloc(), handshakeTimeoutMs));
        ctx.pipeline().addAfter("tls", "handshake", new TlsHandshakeHandler(this));
        if (captureSize > 0) {
            ctx.pipeline().addBefore("tls", "hello-capture", new ClientHelloRecorder(captureSize));
        }
        ctx.pipeline().remove(this);
    }

    @Override
    public void handshakeDone(ChannelHandlerContext ctx, TlsSession session) {
        frontend.countTlsSession(session.resumed());
        ListenerCounters lc = ListenerCounters.of(ctx.channel());
        if (lc != null) {
            lc.tlsSession(session.resumed());
        }
        admitted = false;
        ClientTimes.accepted(ctx.channel(), acceptDate, acceptNanos);
        ctx.pipeline().addAfter(ctx.name(), "protocol", protocol.create(session, acceptDate, acceptNanos));
    }

    @Override
    public void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
        frontend.countTlsFailure();
        ListenerCounters lc = ListenerCounters.of(ctx.channel());
        if (lc != null) {
            lc.tlsFailure();
        }
        if (admitted) {
            admitted = false;
            frontend.limit().release();
        }
        if (frontend.accessLog() != null && client != null) {
            Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            String message;
            boolean empty = false;
            if (c instanceof SslHandshakeTimeoutException) {
                message = "Timeout during SSL handshake";
            } else if (c instanceof ClosedChannelException) {
                message = "Connection closed during SSL handshake";
                empty = true;
            } else if (c instanceof IOException && !(c instanceof SSLException)) {
                message = "Connection error during SSL handshake";
                empty = true;
            } else {
                String refused = TlsSession.verifyFailure(c);
                message = refused != null ? refused : "SSL handshake failure";
            }
            frontend.accessLog().logConnectionError(client, acceptDate, frontend.name(), bindName, message, empty);
        }
    }
}
