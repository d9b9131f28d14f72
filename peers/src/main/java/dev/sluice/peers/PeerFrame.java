package dev.sluice.peers;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

/**
 * One decoded message: class, type and, for the stick-table messages, the payload (empty otherwise). Owns a
 * reference to the payload: whoever receives a frame releases it.
 */
public final class PeerFrame extends AbstractReferenceCounted {
    private final int cls;
    private final int type;
    private final ByteBuf payload;

    public PeerFrame(int cls, int type, ByteBuf payload) {
        this.cls = cls;
        this.type = type;
        this.payload = payload == null ? Unpooled.EMPTY_BUFFER : payload;
    }

    public int cls() {
        return cls;
    }

    public int type() {
        return type;
    }

    public ByteBuf payload() {
        return payload;
    }

    @Override
    protected void deallocate() {
        payload.release();
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        payload.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return "PeerFrame(" + cls + "," + type + "," + payload.readableBytes() + " bytes)";
    }
}
