package dev.sluice.proxy.runtime;

import dev.sluice.proxy.listener.ClientAddresses;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.stream.ClientTimes;
import dev.sluice.proxy.stream.ConnectionRules;
import dev.sluice.proxy.stream.Frontend;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The first handler of a connection accepted on a {@code bind ... accept-proxy}: once the connection is admitted it
 * reads the PROXY protocol header, keeps what it said on the channel ({@link ProxyHeader#RECEIVED}: from then on the
 * client's addresses are the header's), and gives its place to the handler the bind would have started with (TLS
 * set-up, HTTP/1 or HTTP/2), passing on the bytes that followed the header. A connection whose header is invalid,
 * incomplete at {@code timeout client}, or missing is closed without an answer, its slot given back, and logged as
 * HAProxy logs embryonic sessions ({@code 127.0.0.1:40000 [date] fe/1: Received an invalid PROXY protocol header}).
 * As in HAProxy, {@code tcp-request connection} rules ran before, on the connection's real addresses. One per
 * connection, on its event loop.
 */
final class ProxyHeaderReader extends ChannelInboundHandlerAdapter {
    /** The v2 header's largest size: 16 bytes and a 16-bit length. */
    private static final int MAX = 16 + 65535;

    private final Frontend frontend;
    private final String bindName;
    private final long timeoutMs;
    private final Function<Boolean, ChannelHandler> next;
    private boolean admitted;
    private boolean done;
    private long acceptDate;
    private InetSocketAddress client;
    private ByteBuf received;
    private ScheduledFuture<?> timer;

    /**
     * @param next creates the handler that follows the header (called with {@code true}: the slot is then its own)
     */
    ProxyHeaderReader(Frontend frontend, String bindName, long timeoutMs, boolean admitted, Function<Boolean, ChannelHandler> next) {
        this.frontend = frontend;
        this.bindName = bindName;
        this.timeoutMs = timeoutMs;
        this.admitted = admitted;
        this.next = next;
    }

    /**
     * The first handler of a connection of a frontend with {@code tcp-request connection expect-proxy layer4} rules: the
     * reader when a rule asked for a header on this connection, else the handler the bind starts with.
     */
    static ChannelHandler ifExpected(Frontend frontend, String bindName, long timeoutMs, boolean admitted,
            Function<Boolean, ChannelHandler> next) {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                boolean expected = ctx.channel().hasAttr(ConnectionRules.EXPECT_PROXY);
                ctx.pipeline().replace(this, ctx.name(), expected ? new ProxyHeaderReader(frontend, bindName, timeoutMs, admitted, next)
                        : next.apply(admitted));
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        acceptDate = System.currentTimeMillis();
        ClientTimes.accepted(ctx.channel(), acceptDate, System.nanoTime());
        client = ClientAddresses.remote(ctx.channel());
        if (admitted) {
            armTimer(ctx);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelTimer();
        if (received != null) {
            received.release();
            received = null;
        }
    }

    private void armTimer(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            timer = null;
            fail(ctx, cutShort(ProxyHeader.Failure.TIMEOUT));
        }, timeoutMs, TimeUnit.MILLISECONDS);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ConnectionLimit.Admitted.INSTANCE) {
            if (done) {
                return;
            }
            admitted = true;
            if (ctx.channel().isActive()) {
                armTimer(ctx);
            } else {
                admitted = false;
                frontend.limit().release();
            }
            return;
        }
        if (evt instanceof ChannelInputShutdownEvent) {
            // the client closed its side before its header was complete
            fail(ctx, cutShort(ProxyHeader.Failure.CLOSED));
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (done || !(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        received = received == null ? in : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), received, in);
        Object r = ProxyHeader.read(received);
        if (r == null) {
            if (received.readableBytes() > MAX) {
                fail(ctx, ProxyHeader.Failure.INVALID);
            }
            return;
        }
        if (r instanceof ProxyHeader.Failure f) {
            fail(ctx, f);
            return;
        }
        ProxyHeader.Received header = (ProxyHeader.Received) r;
        done = true;
        cancelTimer();
        ctx.channel().attr(ProxyHeader.RECEIVED).set(header);
        ByteBuf rest = received.skipBytes(header.length());
        received = null;
        admitted = false;
        // the next handler owns the slot from now on; this context forwards to it once replaced
        ctx.pipeline().replace(this, ctx.name(), next.apply(true));
        if (rest.isReadable()) {
            ctx.fireChannelRead(rest);
        } else {
            rest.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!admitted && !done) {
            // held unread by the connection limit, as HAProxy leaves it in the backlog: nothing to log
            done = true;
            ctx.fireChannelInactive();
            return;
        }
        fail(ctx, cutShort(ProxyHeader.Failure.CLOSED));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cutShort(ProxyHeader.Failure.ERROR));
    }

    /** Why a connection that ends now had no header: truncated when a part of one came, else {@code nothing}. */
    private ProxyHeader.Failure cutShort(ProxyHeader.Failure nothing) {
        return received != null && received.isReadable() ? ProxyHeader.Failure.TRUNCATED : nothing;
    }

    /** Closes the connection, gives its slot back and logs why; once. */
    private void fail(ChannelHandlerContext ctx, ProxyHeader.Failure why) {
        if (done) {
            return;
        }
        done = true;
        cancelTimer();
        if (received != null) {
            received.release();
            received = null;
        }
        if (admitted) {
            admitted = false;
            frontend.limit().release();
        }
        ctx.close();
        if (frontend.accessLog() != null && client != null) {
            frontend.accessLog().logConnectionError(client, acceptDate, frontend.name(), bindName, why.message(), why.empty());
        }
    }
}
