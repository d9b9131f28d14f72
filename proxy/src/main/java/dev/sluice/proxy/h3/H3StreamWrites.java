package dev.sluice.proxy.h3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.handler.codec.quic.QuicStreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;

/**
 * The first handler of a request stream's pipeline, next to the QUIC transport: the bytes Netty's HTTP/3 frame codec
 * writes for a response (a HEADERS frame, DATA frames) are held until the stream is flushed and then go to QUIC as
 * one write, and the end of the response (the FIN) goes with the last of them.
 * <p>
 * Why. Netty hands every write on a QUIC stream to quiche at once and, outside the connection's read loop, has
 * quiche build and send a packet for it: a response written as HEADERS, DATA and then {@code shutdownOutput()} left
 * as three datagrams (a 6-byte body: 45, 8 and 0 bytes of stream data), three times the packets, the encryption and
 * the loss a client whose socket buffer overflows sees. Worse, quiche keeps no state for a FIN sent alone in an empty
 * STREAM frame: once the bytes before it are acknowledged the stream counts as complete and is collected, and when
 * that packet is lost the FIN is never sent again (quiche's qlog shows it "dropped"), so the client waits for the
 * response's end until its idle timeout. Here the FIN rides on stream bytes quiche retransmits: the pending bytes, or,
 * when the last bytes already left in an earlier flush, an empty DATA frame (two bytes, allowed by RFC 9114; only
 * where a DATA frame may come, see {@link #finish(boolean)}).
 * <p>
 * Past {@link #HOLD_LIMIT} bytes held, they are written without waiting for the flush, so the stream's writability
 * (quiche's stream capacity) still holds a large body back. Writes that are not bytes pass through in order. The FIN
 * is a write, so it stays behind writes Netty queued for stream capacity; it would not stay behind writes the HTTP/3
 * codec itself held back, which it does only for HEADERS waiting for QPACK's encoder stream, and QPACK's dynamic
 * table is off ({@link H3ClientConnection}). Used only on the stream's event loop.
 */
final class H3StreamWrites extends ChannelOutboundHandlerAdapter {
    /** Bytes held before they are written without waiting for a flush. */
    static final int HOLD_LIMIT = 16 * 1024;
    /** Up to this many bytes, held writes are copied into one buffer (one stream write in quiche); above, a composite. */
    static final int COPY_LIMIT = 4096;
    /** An HTTP/3 DATA frame with no payload: type 0x00, length 0. */
    private static final byte[] EMPTY_DATA_FRAME = {0x00, 0x00};

    private ChannelHandlerContext ctx;
    private final List<ByteBuf> held = new ArrayList<>(4);
    /** Promises of held writes that must be told how the write went (void promises are not kept). */
    private List<ChannelPromise> promises;
    private int heldBytes;
    private boolean finished;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf b) || finished) {
            // a stream frame (FIN) or anything else keeps its place after what is held
            writeHeld(false);
            ctx.write(msg, promise);
            return;
        }
        held.add(b);
        heldBytes += b.readableBytes();
        if (!promise.isVoid()) {
            if (promises == null) {
                promises = new ArrayList<>(4);
            }
            promises.add(promise);
        }
        if (heldBytes > HOLD_LIMIT) {
            writeHeld(false);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writeHeld(false);
        ctx.flush();
    }

    /**
     * Ends the stream: what is held goes with the FIN. With nothing held, the FIN goes on an empty DATA frame when
     * {@code dataAllowed} (the response has a body, its final HEADERS frame went out, no trailers), so that it rides on
     * stream bytes quiche retransmits when lost; otherwise (a response without content) it goes alone.
     */
    void finish(boolean dataAllowed) {
        if (finished) {
            return;
        }
        if (held.isEmpty()) {
            if (dataAllowed) {
                ByteBuf b = ctx.alloc().directBuffer(EMPTY_DATA_FRAME.length).writeBytes(EMPTY_DATA_FRAME);
                held.add(b);
                heldBytes += b.readableBytes();
            } else {
                finished = true;
                ctx.write(QuicStreamFrame.EMPTY_FIN, ctx.voidPromise());
                ctx.flush();
                return;
            }
        }
        writeHeld(true);
        finished = true;
        ctx.flush();
    }

    /** Drops what is held (the stream is reset or gone): the buffers are released and their writes fail. */
    void discard() {
        if (held.isEmpty()) {
            return;
        }
        List<ChannelPromise> ps = promises;
        promises = null;
        for (ByteBuf b : held) {
            ReferenceCountUtil.safeRelease(b);
        }
        held.clear();
        heldBytes = 0;
        if (ps != null) {
            for (ChannelPromise p : ps) {
                p.tryFailure(new ClosedChannelException());
            }
        }
    }

    /** Bytes held, waiting for a flush (for tests). */
    int heldBytes() {
        return heldBytes;
    }

    private void writeHeld(boolean fin) {
        if (held.isEmpty()) {
            return;
        }
        ByteBuf out = merge();
        List<ChannelPromise> ps = promises;
        promises = null;
        ChannelPromise p = ps == null ? ctx.voidPromise() : ctx.newPromise().addListener(f -> {
            for (ChannelPromise each : ps) {
                if (f.isSuccess()) {
                    each.trySuccess();
                } else {
                    each.tryFailure(f.cause());
                }
            }
        });
        ctx.write(fin ? new DefaultQuicStreamFrame(out, true) : out, p);
    }

    /** One buffer of what is held (the held list is emptied; ownership moves to the result). */
    private ByteBuf merge() {
        ByteBuf out;
        int n = held.size();
        if (n == 1) {
            out = held.get(0);
        } else if (heldBytes <= COPY_LIMIT) {
            out = ctx.alloc().directBuffer(heldBytes);
            for (ByteBuf b : held) {
                out.writeBytes(b, b.readerIndex(), b.readableBytes());
                b.release();
            }
        } else {
            CompositeByteBuf c = ctx.alloc().compositeDirectBuffer(n);
            for (ByteBuf b : held) {
                c.addComponent(true, b);
            }
            out = c;
        }
        held.clear();
        heldBytes = 0;
        return out;
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        discard();
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        discard();
    }
}
