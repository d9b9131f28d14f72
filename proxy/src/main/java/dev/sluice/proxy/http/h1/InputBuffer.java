package dev.sluice.proxy.http.h1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * The bytes of a connection not consumed yet. Most reads are consumed whole, in which case the received
 * buffer is used as it is; only a partial head or pipelined data are merged into an accumulating buffer
 * (which is copied, not written in place, while slices of it are still out). Used on one event loop.
 */
public final class InputBuffer {
    private ByteBuf buf;

    public ByteBuf append(ByteBufAllocator alloc, ByteBuf in) {
        buf = buf == null ? in : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, buf, in);
        return buf;
    }

    public ByteBuf get() {
        return buf;
    }

    public int readableBytes() {
        return buf == null ? 0 : buf.readableBytes();
    }

    public boolean isReadable() {
        return buf != null && buf.isReadable();
    }

    /** Drops the buffer once everything in it was consumed. */
    public void compact() {
        if (buf != null && !buf.isReadable()) {
            buf.release();
            buf = null;
        }
    }

    public void release() {
        if (buf != null) {
            buf.release();
            buf = null;
        }
    }
}
