package dev.sluice.proxy.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.ssl.SniCompletionEvent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

/**
 * Waits behind the TLS handler of a connection for the end of the handshake, then tells its
 * {@link Callback} what was negotiated ({@link TlsSession}: ALPN protocol, SNI, version) so that it can
 * add the HTTP/1 or HTTP/2 handlers, and removes itself. Anything read meanwhile is held and passed on
 * after the callback. A failed handshake, an exception, a close or a half-close before the end is reported once to
 * {@link Callback#handshakeFailed} and the connection is closed. One per connection, on its event loop.
 */
public final class TlsHandshakeHandler extends ChannelInboundHandlerAdapter {

    /** Told the outcome of one handshake, on the connection's event loop. */
    public interface Callback {
        /** The handshake succeeded: add the protocol handlers after {@code ctx} (this handler then leaves). */
        void handshakeDone(ChannelHandlerContext ctx, TlsSession session);

        /** The handshake failed or the connection closed first; the connection is being closed. */
        default void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
        }
    }

    private final Callback callback;
    private ArrayDeque<Object> held;
    /** The handshake succeeded. */
    private boolean done;
    /** The handshake failed and the connection is closing: what still arrives is dropped. */
    private boolean failed;

    public TlsHandshakeHandler(Callback callback) {
        this.callback = callback;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof ChannelInputShutdownEvent && !done && !failed) {
            // the peer sent FIN before the end of the handshake (connections allow half-closure): it is gone
            fail(ctx, new ClosedChannelException());
            return;
        }
        if (evt instanceof SniCompletionEvent e && !e.isSuccess() && !done && !failed) {
            // no ClientHello within the handshake timeout (several certificates: the SNI selector runs first)
            fail(ctx, e.cause());
            return;
        }
        if (evt instanceof SslHandshakeCompletionEvent e && !done && !failed) {
            if (e.isSuccess()) {
                done = true;
                SslHandler ssl = ctx.pipeline().get(SslHandler.class);
                TlsSession session = TlsSession.of(ssl);
                ctx.channel().attr(TlsSession.ATTRIBUTE).set(session);
                try {
                    callback.handshakeDone(ctx, session);
                } finally {
                    if (ctx.pipeline().context(this) != null) {
                        ctx.pipeline().remove(this);
                    }
                }
            } else {
                fail(ctx, e.cause());
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (done) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (failed) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (held == null) {
            held = new ArrayDeque<>(2);
        }
        held.add(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (done) {
            ctx.fireExceptionCaught(cause);
        } else if (!failed) {
            fail(ctx, cause);
        }
        // after a failure, the TLS handler's own report of it (a DecoderException) ends here
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (!done && !failed) {
            fail(ctx, new ClosedChannelException());
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        ArrayDeque<Object> h = held;
        held = null;
        if (h == null) {
            return;
        }
        if (done && ctx.channel().isActive()) {
            Object m;
            while ((m = h.poll()) != null) {
                ctx.fireChannelRead(m);
            }
            ctx.fireChannelReadComplete();
        } else {
            h.forEach(ReferenceCountUtil::release);
        }
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
        failed = true;
        if (held != null) {
            held.forEach(ReferenceCountUtil::release);
            held = null;
        }
        try {
            callback.handshakeFailed(ctx, cause);
        } finally {
            ctx.close();
        }
    }
}
