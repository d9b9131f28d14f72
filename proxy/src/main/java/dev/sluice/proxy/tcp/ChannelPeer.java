package dev.sluice.proxy.tcp;

import dev.sluice.proxy.stream.TcpPeer;
import dev.sluice.proxy.transport.QuietClose;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DuplexChannel;

/**
 * What both ends of a layer-4 stream do the same way on their channel, as the relay's {@link TcpPeer}: writes flushed
 * once per batch, reading switched by autoRead, a FIN after the pending writes. Called on the channel's event loop.
 */
abstract class ChannelPeer extends ChannelInboundHandlerAdapter implements TcpPeer {
    /** Set when the handler is added. */
    protected ChannelHandlerContext ctx;
    protected Channel ch;
    /** Written since the last flush. */
    private boolean dirty;

    @Override
    public void write(ByteBuf data) {
        dirty = true;
        ctx.write(data, ctx.voidPromise());
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
        return b == null ? 0 : b.totalPendingWriteBytes();
    }

    @Override
    public void reading(boolean on) {
        ch.config().setAutoRead(on);
    }

    @Override
    public void shutdownOutput(Runnable done) {
        dirty = false;
        shutdownOutput(ctx, done);
    }

    @Override
    public void close() {
        ch.close();
    }

    @Override
    public void dropSilently() {
        if (QuietClose.quiet(ch)) {
            ch.close();
        } else {
            reset();
        }
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
     * shut, so the FIN waits for them), then runs {@code done}. A failed write or shutdown runs nothing: the channel
     * closes and its handler reports the failure. A channel that cannot half-close is closed instead.
     */
    private static void shutdownOutput(ChannelHandlerContext ctx, Runnable done) {
        Channel ch = ctx.channel();
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
            if (!f.isSuccess() || !ch.isActive()) {
                return;
            }
            if (!(ch instanceof DuplexChannel d)) {
                ch.close();
                done.run();
                return;
            }
            d.shutdownOutput().addListener(x -> {
                if (x.isSuccess()) {
                    done.run();
                }
            });
        });
    }
}
