package dev.sluice.proxy.backend;

import dev.sluice.proxy.listener.ProxyHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.net.InetSocketAddress;

/**
 * The first handler of a server connection that starts with a PROXY protocol header ({@code send-proxy},
 * {@code send-proxy-v2}, or a health check's): writes the header before anything else goes out (a TLS ClientHello,
 * an HTTP/2 preface or a request, whichever comes first: the connect promise may complete before channelActive
 * runs), then leaves the pipeline. One per connection, on its loop.
 */
public final class ProxyHeaderWriter extends ChannelDuplexHandler {
    private final int version;
    private final InetSocketAddress source;
    private final InetSocketAddress destination;
    private final int options;
    private final ProxyHeader.Client client;
    private final boolean own;
    private boolean sent;

    /** {@code source} and {@code destination} null: no client addresses (v1 {@code UNKNOWN}, v2 {@code LOCAL}). */
    public ProxyHeaderWriter(int version, InetSocketAddress source, InetSocketAddress destination) {
        this(version, source, destination, 0, null, false);
    }

    /** With v2's extra fields: {@code options} ({@code proxy-v2-options} bits) about {@code client}. */
    public ProxyHeaderWriter(int version, InetSocketAddress source, InetSocketAddress destination, int options, ProxyHeader.Client client) {
        this(version, source, destination, options, client, false);
    }

    private ProxyHeaderWriter(int version, InetSocketAddress source, InetSocketAddress destination, int options, ProxyHeader.Client client,
            boolean own) {
        this.version = version;
        this.source = source;
        this.destination = destination;
        this.options = options;
        this.client = client;
        this.own = own;
    }

    /**
     * The header of a health check's connection, as HAProxy 2.6 writes it: v2's LOCAL command (no client; of the
     * extra fields {@code options} asks for, only CRC32C and an SSL field saying "not TLS"), v1's line with the check
     * connection's own addresses.
     */
    public static ProxyHeaderWriter forCheck(int version, int options) {
        return new ProxyHeaderWriter(version, null, null, options, null, version == 1);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (send(ctx)) {
            ctx.flush();
        }
        ctx.fireChannelActive();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        send(ctx);
        ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        send(ctx);
        ctx.flush();
    }

    /** Writes the header unless done; then leaves the pipeline. Whether it wrote it now. */
    private boolean send(ChannelHandlerContext ctx) {
        if (sent) {
            return false;
        }
        sent = true;
        ByteBuf header = own
                ? ProxyHeader.write(ctx.alloc(), version, ctx.channel().localAddress() instanceof InetSocketAddress l ? l : null,
                        ctx.channel().remoteAddress() instanceof InetSocketAddress r ? r : null)
                : ProxyHeader.write(ctx.alloc(), version, source, destination, options, client);
        ctx.write(header, ctx.voidPromise());
        ctx.pipeline().remove(this);
        return true;
    }
}
