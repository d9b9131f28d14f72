package dev.sluice.proxy.tcp;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.listener.ClientAddresses;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stream.ClientEnd;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.HttpHandoff;
import dev.sluice.proxy.stream.SoftStop;
import dev.sluice.proxy.stream.TcpClientSide;
import dev.sluice.proxy.stream.TcpStream;
import dev.sluice.proxy.tls.TlsSession;
import dev.sluice.proxy.transport.EpollEmptyInterest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;

/**
 * A client connection of a {@code mode tcp} frontend: admitted (or held unread until {@code maxconn} leaves room) as
 * an HTTP/1 connection is, counted as a session, then the one {@link TcpStream} it carries is created and fed with
 * what the connection reads and hears (bytes, read batches, its FIN, writability, its end). What the stream's relay
 * writes goes out through it. A soft stop leaves it running, as HAProxy lets TCP sessions finish. One instance per
 * connection, used only on its event loop.
 */
public final class TcpClientConnection extends ChannelPeer implements TcpClientSide {
    private final Frontend frontend;
    private final ConnectionLimit limit;
    private boolean admitted;
    private boolean started;
    private int loopIndex;
    private long acceptDate;
    private long acceptNanos;
    private TlsSession tlsSession;
    private ProxyHeader.Received proxyHeader;
    private InetSocketAddress remote;
    private InetSocketAddress local;
    private TcpStream stream;
    private long bytesOut;

    public TcpClientConnection(Frontend frontend, boolean admitted) {
        this(frontend, admitted, 0, 0);
    }

    /**
     * A connection accepted before this handler starts ({@code acceptDate}, epoch ms, and {@code acceptNanos}, on
     * {@link System#nanoTime()}'s clock; 0: when it starts): its TLS handshake came first, and the log's date and
     * timers count from the accept, as HAProxy's.
     */
    public TcpClientConnection(Frontend frontend, boolean admitted, long acceptDate, long acceptNanos) {
        this.frontend = frontend;
        this.limit = frontend.limit();
        this.admitted = admitted;
        this.acceptDate = acceptDate;
        this.acceptNanos = acceptNanos;
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.ch = ctx.channel();
        // a half-closed socket must stay in the epoll set (guarded already when accepted: Listener)
        EpollEmptyInterest.guard(ch);
        if (ch.isActive()) {
            // added after a PROXY header or a TLS handshake
            started();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        started();
        ctx.fireChannelActive();
    }

    private void started() {
        if (started) {
            return;
        }
        started = true;
        proxyHeader = ProxyHeader.Received.of(ch);
        remote = ProxyHeader.Received.remote(proxyHeader, ch);
        local = ProxyHeader.Received.local(proxyHeader, ch);
        if (!frontend.startSession(ch, remote, local)) {
            // no stream, no log line
            ch.close();
            return;
        }
        remote = ClientEnd.overridden(ch, true, remote);
        local = ClientEnd.overridden(ch, false, local);
        loopIndex = frontend.workers().indexOf(ch.eventLoop());
        // a session, neither HTTP/1 nor HTTP/2 (show stat's h1 and h2 columns do not count it)
        frontend.countConnection(loopIndex);
        if (acceptDate == 0) {
            acceptDate = System.currentTimeMillis();
            acceptNanos = System.nanoTime();
        }
        tlsSession = TlsSession.of(ch);
        if (frontend.accessLog() != null) {
            frontend.accessLog().logConnect(remoteAddress(), localAddress(), frontend.name(), false);
        }
        if (admitted) {
            begin();
        }
    }

    private void begin() {
        stream = new TcpStream(this, frontend);
        stream.start();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ConnectionLimit.Admitted.INSTANCE) {
            admitted = true;
            if (started && stream == null && ch.isActive()) {
                begin();
            }
            return;
        }
        if (halfClosed(evt)) {
            if (stream != null) {
                stream.clientInputShut();
            } else {
                ch.close();
            }
            return;
        }
        if (evt == SoftStop.EVENT || evt == ChannelInputShutdownReadComplete.INSTANCE) {
            // a layer-4 stream runs to its end during a soft stop (or until hard-stop-after)
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        TcpStream s = stream;
        if (s != null && msg instanceof ByteBuf b) {
            s.clientData(b);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.clientReadComplete();
            if (closeNotifyAfterOurs()) {
                stream.clientInputShut();
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.clientWritable(ch.isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (stream != null) {
            if (finEnded()) {
                // its FIN, after ours: this side is done, the other may still be
                stream.clientInputShut();
            } else if (!endedBothWays()) {
                stream.clientFailed();
            }
        }
        if (admitted) {
            admitted = false;
            limit.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // resets and the like end the stream (CD); anything else is reported too
        UnexpectedErrors.report("TcpClientConnection", cause);
        if (stream != null) {
            stream.clientFailed();
        }
        ch.close();
    }

    /**
     * The HTTP handler of the frontend takes the connection over, in this handler's place: it gets the admission (it
     * releases the limit when the connection closes), the bytes held, and reading goes on.
     */
    @Override
    public void switchToHttp(ByteBuf held, Backend chosen, String proto) {
        stream = null;
        HttpHandoff handoff = frontend.httpHandoff();
        if (handoff == null) {
            if (held != null) {
                held.release();
            }
            ch.close();
            return;
        }
        ChannelHandler next = handoff.connection(chosen, proto);
        admitted = false;
        ChannelPipeline p = ch.pipeline();
        p.replace(this, "conn", next);
        ChannelHandlerContext nctx = p.context(next);
        ChannelInboundHandler in = (ChannelInboundHandler) next;
        try {
            if (held != null) {
                in.channelRead(nctx, held);
            }
            in.channelReadComplete(nctx);
        } catch (Exception e) {
            UnexpectedErrors.report("TcpClientConnection", e);
            ch.close();
        }
        // reading may have been paused while the bytes were held
        ch.config().setAutoRead(true);
    }

    // ------------------------------------------------------------------ TcpPeer

    @Override
    protected void written(int bytes) {
        bytesOut += bytes;
    }

    // ------------------------------------------------------------------ ClientEnd

    @Override
    public void setAddress(boolean source, InetSocketAddress a) {
        if (source) {
            remote = a;
        } else {
            local = a;
        }
    }

    @Override
    public EventLoop loop() {
        return ch.eventLoop();
    }

    @Override
    public int loopIndex() {
        return loopIndex;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote != null ? remote : ClientAddresses.remote(ch);
    }

    @Override
    public InetSocketAddress localAddress() {
        return local != null ? local : ClientAddresses.local(ch);
    }

    /** When the connection was accepted: a layer-4 stream has no request of its own. */
    @Override
    public long acceptDate() {
        return acceptDate;
    }

    @Override
    public long requestStartNanos() {
        return acceptNanos;
    }

    @Override
    public boolean tls() {
        return tlsSession != null;
    }

    @Override
    public TlsSession tlsSession() {
        return tlsSession;
    }

    @Override
    public long bytesOut() {
        return bytesOut;
    }

    @Override
    public Trackers sessionTrackers() {
        return ch == null ? null : ch.attr(SESSION_TRACKERS).get();
    }

    @Override
    public Future<?> closeFuture() {
        return ch.closeFuture();
    }

    @Override
    public ProxyHeader.Received proxyHeader() {
        return proxyHeader;
    }
}
