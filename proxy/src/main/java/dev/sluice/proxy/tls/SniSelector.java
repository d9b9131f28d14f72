package dev.sluice.proxy.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import javax.net.ssl.SSLHandshakeException;

/**
 * The first handler of an accepted connection on a bind with several certificates or {@code strict-sni}:
 * reads the ClientHello's server name, then replaces itself with the {@code SslHandler} of the matching
 * context. When {@link SniMapping} finds none (strict-sni), it answers with a fatal
 * {@code unrecognized_name} alert and closes, as HAProxy refuses such handshakes. One per connection, on
 * its event loop.
 */
final class SniSelector extends SniHandler {
    /** TLS record: alert, TLS 1.2 record version, length 2, fatal (2), unrecognized_name (112). */
    private static final byte[] UNRECOGNIZED_NAME = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 112};

    /** {@code tune.ssl.hard-maxrecord} (0: not set). */
    private final int maxRecord;

    SniSelector(SniMapping<SslContext> mapping, long handshakeTimeoutMillis, int maxRecord) {
        super(mapping, handshakeTimeoutMillis);
        this.maxRecord = maxRecord;
    }

    @Override
    protected SslHandler newSslHandler(SslContext context, ByteBufAllocator allocator) {
        SslHandler h = super.newSslHandler(context, allocator);
        if (maxRecord > 0) {
            h.setWrapDataSize(maxRecord);
        }
        return h;
    }

    @Override
    protected void replaceHandler(ChannelHandlerContext ctx, String hostname, SslContext sslContext) throws Exception {
        if (sslContext != null) {
            super.replaceHandler(ctx, hostname, sslContext);
            return;
        }
        ByteBuf alert = ctx.alloc().buffer(UNRECOGNIZED_NAME.length).writeBytes(UNRECOGNIZED_NAME);
        ctx.writeAndFlush(alert).addListener(ChannelFutureListener.CLOSE);
        ctx.fireExceptionCaught(new SSLHandshakeException(hostname == null ? "strict-sni: the client sent no server name"
                : "strict-sni: no certificate for server name '" + hostname + "'"));
    }
}
