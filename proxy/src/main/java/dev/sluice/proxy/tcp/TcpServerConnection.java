package dev.sluice.proxy.tcp;

import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.stream.TcpServerSide;
import dev.sluice.proxy.stream.TcpStream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * A connection to a server for one layer-4 stream ({@link TcpStream}): never pooled nor shared, {@link #release()}
 * closes it. What it reads and hears goes to its stream. The connector hands it out when connected, before anything is
 * read; what would arrive before its stream is attached is kept for it. One instance per connection, used only on its
 * event loop.
 */
public final class TcpServerConnection extends ChannelPeer implements TcpServerSide {
    private final Server server;
    private final String sni;
    private TcpStream stream;
    /** Bytes read before the stream was attached; null when none. */
    private ArrayDeque<ByteBuf> early;
    private boolean earlyFin;
    private boolean earlyEnd;

    /** {@code sni}: the TLS server name the connection is opened with (null: none, or clear text). */
    public TcpServerConnection(Server server, String sni) {
        this.server = server;
        this.sni = sni;
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession tlsSession() {
        return ch == null ? null : dev.sluice.proxy.tls.TlsSession.of(ch);
    }

    @Override
    public io.netty.channel.Channel channel() {
        return ch;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.ch = ctx.channel();
        // a half-closed socket must stay in the epoll set: guarded since it was made (ServerConnector)
    }

    @Override
    public void attach(TcpStream s) {
        stream = s;
        ArrayDeque<ByteBuf> e = early;
        early = null;
        if (e != null) {
            ByteBuf b;
            while ((b = e.poll()) != null) {
                s.serverData(b);
            }
            s.serverReadComplete();
        }
        if (earlyFin) {
            s.serverInputShut();
        }
        if (earlyEnd) {
            s.serverFailed();
        }
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf b)) {
            ReferenceCountUtil.release(msg);
        } else if (stream != null) {
            stream.serverData(b);
        } else {
            if (early == null) {
                early = new ArrayDeque<>();
            }
            early.add(b);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.serverReadComplete();
            if (closeNotifyAfterOurs()) {
                stream.serverInputShut();
            }
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (halfClosed(evt)) {
            if (stream != null) {
                stream.serverInputShut();
            } else {
                earlyFin = true;
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.serverWritable(ch.isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (stream != null) {
            if (finEnded()) {
                // its FIN, after ours: this side is done, the other may still be
                stream.serverInputShut();
            } else if (!endedBothWays()) {
                stream.serverFailed();
            }
        } else {
            earlyEnd = true;
            ArrayDeque<ByteBuf> e = early;
            early = null;
            if (e != null) {
                e.forEach(ByteBuf::release);
            }
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // resets and the like end the stream (SD); anything else is reported too
        UnexpectedErrors.report("TcpServerConnection", cause);
        if (stream != null) {
            stream.serverFailed();
        }
        ch.close();
    }


    // ------------------------------------------------------------------ ServerConnection

    @Override
    public boolean isOpen() {
        return ch.isActive();
    }

    @Override
    public String sni() {
        return sni;
    }

    @Override
    public boolean reused() {
        return false;
    }

    @Override
    public Server server() {
        return server;
    }

    /** The stream is over: the connection closes (it is never kept for another). */
    @Override
    public void release() {
        stream = null;
        ch.close();
    }

    @Override
    public void abort() {
        release();
    }

    /** Detached from its stream, then reset. */
    @Override
    public void reset() {
        stream = null;
        super.reset();
    }
}
