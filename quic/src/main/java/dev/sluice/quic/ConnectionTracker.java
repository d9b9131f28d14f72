package dev.sluice.quic;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionAddress;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.handler.codec.quic.QuicConnectionPathStats;
import io.netty.handler.codec.quic.QuicConnectionStats;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicTransportParameters;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The first handler of every QUIC connection: it lists the connection for {@code show quic}, counts
 * half-open connections (Retry's threshold), and turns every close the server makes into a closing record.
 * <ul>
 *   <li>A close through the pipeline (the application's: idle policy, shutdown, HTTP/3 errors; or this
 *       handler's own) is bracketed by {@link ClosingConnections#beginCapture}/{@code endCapture}: the codec
 *       sends CONNECTION_CLOSE and frees the connection synchronously, the datagram is kept.</li>
 *   <li>A close the QUIC stack decides on a protocol error found in a received packet: quiche queues its own
 *       CONNECTION_CLOSE and Netty reports the error to this pipeline ({@link QuicException} from its receive or
 *       send path; the close itself never goes through the pipeline, and Netty would then keep the whole
 *       connection through quiche's draining period, never re-sending). It is closed here at once, the same
 *       way, so that it too becomes a compact record ({@code ClosingConnectionsTest} provokes one with a forged
 *       packet: without this, no record is kept).</li>
 *   <li>A close by the peer ({@link QuicConnectionCloseEvent}) frees the connection at once and keeps nothing:
 *       nothing may be sent while draining.</li>
 * </ul>
 * One instance per connection, on its event loop.
 */
final class ConnectionTracker extends ChannelDuplexHandler {
    /** RFC 9002's initial RTT, when the connection has no sample yet. */
    private static final long INITIAL_RTT_NANOS = TimeUnit.MILLISECONDS.toNanos(333);

    private final QuicSocket socket;
    private final QuicCounters counters;
    private QuicChannel channel;
    private long prefix;
    private boolean ours;
    private boolean established;
    private boolean counted;
    private boolean peerClosed;
    private boolean closing;
    final long createdNanos = System.nanoTime();

    ConnectionTracker(QuicSocket socket) {
        this.socket = socket;
        this.counters = socket.listener.counters();
    }

    QuicChannel channel() {
        return channel;
    }

    boolean established() {
        return established;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = (QuicChannel) ctx.channel();
        QuicConnectionAddress local = channel.localAddress();
        if (local != null) {
            byte[] cid = Cids.bytes(local);
            if (cid.length == Cids.LENGTH) {
                prefix = Cids.prefix(cid, 0);
                ours = true;
            }
        }
        socket.added(this, ours, prefix);
        counted = true;
        counters.halfOpen.incrementAndGet();
        counters.connections.increment();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        established = true;
        uncount();
        ctx.fireChannelActive();
    }

    /** The connection is gone (a connection that never became active gets no channelInactive, but this). */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        socket.removed(this, ours, prefix);
        uncount();
    }

    private void uncount() {
        if (counted) {
            counted = false;
            counters.halfOpen.decrementAndGet();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof QuicConnectionCloseEvent) {
            // the peer closed: the stack drains (sends nothing); free everything now, keep nothing
            peerClosed = true;
            counters.peerCloses.increment();
            ctx.fireUserEventTriggered(evt);
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if ((cause instanceof QuicException || cause instanceof SSLException) && channel.isOpen() && !peerClosed) {
            // the stack closed the connection itself (protocol or TLS error): its CONNECTION_CLOSE is pending;
            // close now so that it is sent, captured and the connection freed (through this handler's own close:
            // ctx.close() would start below it)
            ctx.fireExceptionCaught(cause);
            close(ctx, ctx.newPromise());
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        InetSocketAddress peer = (InetSocketAddress) channel.remoteSocketAddress();
        if (closing || peerClosed || !ours || peer == null || !channel.isOpen()) {
            closing = true;
            ctx.close(promise);
            return;
        }
        closing = true;
        long rx = 0;
        long tx = 0;
        QuicConnectionStats stats = channel.collectStats().getNow();
        if (stats != null) {
            rx = stats.recvBytes();
            tx = stats.sentBytes();
        }
        long pto = ptoNanos(channel);
        socket.closing.beginCapture(peer);
        try {
            ctx.close(promise);
        } finally {
            socket.closing.endCapture(prefix, rx, tx, established, 3 * pto);
        }
    }

    long prefix() {
        return prefix;
    }

    /**
     * The connection's probe timeout: RFC 9002's srtt + 4 x rttvar + max_ack_delay without an RTT variance
     * sample (rttvar = srtt / 2), from the path's RTT (333 ms before any sample) and the peer's max_ack_delay.
     */
    static long ptoNanos(QuicChannel channel) {
        long rtt = INITIAL_RTT_NANOS;
        long ackDelay = 25;
        QuicConnectionPathStats path = channel.collectPathStats(0).getNow();
        if (path != null && path.rtt() > 0) {
            rtt = path.rtt();
        }
        QuicTransportParameters tp = channel.peerTransportParameters();
        if (tp != null) {
            ackDelay = tp.maxAckDelay();
        }
        return 3 * rtt + TimeUnit.MILLISECONDS.toNanos(ackDelay);
    }
}
