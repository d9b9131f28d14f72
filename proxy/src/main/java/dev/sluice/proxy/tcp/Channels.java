package dev.sluice.proxy.tcp;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DuplexChannel;

/** What both ends of a layer-4 stream do the same way on their channel. Static; called on the channel's event loop. */
final class Channels {
    private Channels() {
    }

    /** Bytes written to {@code ch} and not yet handed to the kernel. */
    static long pendingBytes(Channel ch) {
        ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
        return b == null ? 0 : b.totalPendingWriteBytes();
    }

    /**
     * Sends a FIN once what was written before is out (Netty fails the pending writes of a channel whose output is
     * shut, so the FIN waits for them), then runs {@code done}. A failed write or shutdown runs nothing: the channel
     * closes and its handler reports the failure. A channel that cannot half-close is closed instead.
     */
    static void shutdownOutput(ChannelHandlerContext ctx, Runnable done) {
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
