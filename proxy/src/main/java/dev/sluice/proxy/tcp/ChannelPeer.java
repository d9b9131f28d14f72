package dev.sluice.proxy.tcp;

import dev.sluice.proxy.stream.TcpPeer;
import dev.sluice.proxy.stream.TcpSplice;
import dev.sluice.proxy.transport.SocketFin;
import dev.sluice.proxy.transport.SpliceRegion;
import dev.sluice.proxy.transport.QuietClose;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.handler.ssl.SslHandler;

/**
 * What both ends of a layer-4 stream do the same way on their channel, as the relay's {@link TcpPeer}: writes flushed
 * once per batch, reading switched by autoRead, a FIN after the pending writes (over TLS, a close_notify before it),
 * the peer's half-close heard as its FIN or its close_notify. Called on the channel's event loop.
 */
abstract class ChannelPeer extends ChannelInboundHandlerAdapter implements TcpPeer {
    /** Set when the handler is added. */
    protected ChannelHandlerContext ctx;
    protected Channel ch;
    /** Written since the last flush. */
    private boolean dirty;
    /** Bytes spliced towards this channel that wait in a pipe. */
    long splicePending;
    /** The peer sent its TLS close_notify (and it was reported as its half-close). */
    private boolean closeNotified;
    /** This side sent its TLS close_notify. */
    private boolean closeNotifySent;
    /** This side's FIN went out: the peer's, when it comes, closes the channel (see {@link #finEnded}). */
    private boolean finSent;
    /** The peer's half-close was reported. */
    private boolean inputReported;
    /** The channel's TLS handler, once looked up (null: clear text). */
    private SslHandler tls;
    private boolean tlsLooked;
    /** A failure the socket reported to a call of Sluice's own (splice), which Netty's reads no longer see. */
    private java.io.IOException failure;

    @Override
    public void write(ByteBuf data) {
        if (closeNotified && data.isReadable() && tlsOutputDone()) {
            // the peer's close_notify ended the TLS session both ways: BoringSSL answers it at once and encrypts nothing
            // after it (HAProxy's OpenSSL goes on writing). These bytes cannot reach the peer, which counts as gone.
            data.release();
            ch.close();
            return;
        }
        written(data.readableBytes());
        dirty = true;
        ctx.write(data, ctx.voidPromise());
    }

    /** Writes pipe bytes spliced towards this channel (counted as written), without flushing. */
    final void writeRegion(SpliceRegion region, io.netty.channel.ChannelFutureListener done) {
        written((int) region.count());
        dirty = true;
        ctx.write(region).addListener(done);
    }

    /** Whether the channel carries TLS (its bytes cannot be spliced). */
    final boolean encrypted() {
        return tls() != null;
    }

    @Override
    public TcpSplice spliceTo(TcpPeer target, int pipeSize, Runnable drained) {
        return target instanceof ChannelPeer t ? ChannelSplice.between(this, t, pipeSize, drained) : null;
    }

    /**
     * The socket failed in a call Netty did not make (splice): the end Netty reads next is that failure, not the
     * peer's FIN.
     */
    final void failed(java.io.IOException e) {
        failure = e;
    }

    /** {@code bytes} are written to the peer. */
    protected void written(int bytes) {
    }

    /**
     * Whether {@code evt} is the peer's half-close: its FIN, or its TLS close_notify (the FIN that usually follows then
     * changes nothing: the relay hears a side's end once).
     */
    protected final boolean halfClosed(Object evt) {
        if (evt instanceof ChannelInputShutdownEvent && failure != null) {
            // the end after a reset: the close reports the failure
            ch.close();
            return false;
        }
        if (evt instanceof ChannelInputShutdownEvent) {
            inputReported = true;
            return true;
        }
        // Netty's OpenSSL engine also says its session is closed on the first read after this side's own close_notify:
        // only an engine whose input is done heard the peer's
        return evt instanceof SslCloseCompletionEvent e && e.isSuccess() && peerCloseNotify();
    }

    /**
     * Whether the channel, now inactive, ended with the peer's FIN after this side's own (call from
     * {@code channelInactive}): once the FIN went, the channel does not keep a half-closed input (Netty would shut a
     * socket that is already gone, and fail with a stack trace on every connection) and closes when the peer's FIN
     * comes, which is then its half-close, not a failure. Reported once.
     */
    protected final boolean finEnded() {
        if (!finSent || inputReported || failure != null) {
            return false;
        }
        inputReported = true;
        return true;
    }

    /**
     * Whether this side had ended both ways (its FIN and this side's) when the channel closed: its end was reported
     * already, the close is no failure.
     */
    protected final boolean endedBothWays() {
        return finSent && inputReported;
    }

    /**
     * Whether the peer's close_notify came after this side's own, once (call after each read batch): Netty reported
     * the session closed already, at the first read after ours, so its close_notify has no event of its own.
     */
    protected final boolean closeNotifyAfterOurs() {
        return closeNotifySent && peerCloseNotify();
    }

    /** Whether the peer's close_notify came and was not reported yet. */
    private boolean peerCloseNotify() {
        if (closeNotified) {
            return false;
        }
        SslHandler tls = tls();
        if (tls == null || !tls.engine().isInboundDone()) {
            return false;
        }
        closeNotified = true;
        inputReported = true;
        return true;
    }

    /** Whether TLS encrypts nothing more on this channel (its close_notify went). */
    private boolean tlsOutputDone() {
        SslHandler tls = tls();
        return tls != null && tls.engine().isOutboundDone();
    }

    /** The TLS handler before this one (it is there before this handler is added, and stays), or null. */
    private SslHandler tls() {
        if (!tlsLooked) {
            tlsLooked = true;
            tls = ch.pipeline().get(SslHandler.class);
        }
        return tls;
    }

    @Override
    public void flush() {
        if (dirty) {
            dirty = false;
            ctx.flush();
        }
    }

    @Override
    public boolean isWritable() {
        return ch.isWritable();
    }

    /** Bytes written and not yet handed to the kernel. */
    @Override
    public long pendingBytes() {
        ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
        return (b == null ? 0 : b.totalPendingWriteBytes()) + splicePending;
    }

    @Override
    public void reading(boolean on) {
        ch.config().setAutoRead(on);
    }

    @Override
    public void shutdownOutput(Runnable done) {
        dirty = false;
        shutdownOutput(ctx, () -> closeNotifySent = true, () -> {
            finSent = true;
            done.run();
        });
    }

    @Override
    public void close() {
        ch.close();
    }

    @Override
    public void dropSilently() {
        QuietClose.prepare(ch);
        ch.close();
    }

    @Override
    public void reset() {
        if (ch.isActive()) {
            // no lingering: the close sends a reset
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
        }
        ch.close();
    }

    /**
     * Sends a FIN once what was written before is out (Netty fails the pending writes of a channel whose output is
     * shut, so the FIN waits for them), then runs {@code done}; over TLS a close_notify goes first, as HAProxy sends
     * it. A failed write or shutdown runs nothing: the channel is closed and its handler reports the failure (a socket
     * whose peer reset it fails the shutdown without closing, which would leave the stream waiting for its timeouts). A
     * channel that cannot half-close is closed instead.
     */
    private static void shutdownOutput(ChannelHandlerContext ctx, Runnable closeNotify, Runnable done) {
        Channel ch = ctx.channel();
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
            if (!f.isSuccess()) {
                ch.close();
                return;
            }
            if (!ch.isActive()) {
                return;
            }
            SslHandler tls = ch.pipeline().get(SslHandler.class);
            if (tls == null) {
                fin(ch, done);
                return;
            }
            // after the pending writes: closing the engine's output fails what it has not encrypted yet
            closeNotify.run();
            tls.closeOutbound().addListener(x -> {
                if (!x.isSuccess()) {
                    ch.close();
                } else if (ch.isActive()) {
                    fin(ch, done);
                }
            });
        });
    }

    /**
     * Sends the FIN. A channel whose input is over already (its peer's FIN was read) is closed instead: the close sends
     * the FIN, nothing is left to read, and the stream closes it next anyway (a shutdown then a close cost Netty a
     * system call and an exception with its stack trace more). Otherwise the FIN is a half-close, after which the
     * peer's FIN closes the channel; on a clear-text epoll socket it is the system call itself ({@link SocketFin}).
     */
    private static void fin(Channel ch, Runnable done) {
        if (!(ch instanceof DuplexChannel d) || d.isInputShutdown()) {
            // done first: the close may report the channel inactive at once, and it is then done both ways
            done.run();
            ch.close();
            return;
        }
        if (ch.pipeline().get(SslHandler.class) == null) {
            SocketFin.Result r = SocketFin.send(ch);
            if (r != SocketFin.Result.UNAVAILABLE) {
                finished(ch, r == SocketFin.Result.SENT, done);
                return;
            }
        }
        d.shutdownOutput().addListener(x -> finished(ch, x.isSuccess(), done));
    }

    private static void finished(Channel ch, boolean sent, Runnable done) {
        if (sent) {
            ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false);
            done.run();
        } else {
            ch.close();
        }
    }
}
