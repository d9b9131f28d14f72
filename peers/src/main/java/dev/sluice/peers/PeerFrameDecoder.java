package dev.sluice.peers;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Splits a peer session's bytes: first the handshake's lines ({@link String}s without the LF and an optional CR
 * before it), then, once the session calls {@link #messages()}, {@link PeerFrame}s. A line longer than the message
 * limit without a LF, a message length over {@link Wire#MAX_LENGTH_BYTES} varint bytes, and a length over the limit
 * end the decoding with one {@link Problem} (the session answers and closes, as HAProxy's peer_recv_msg and
 * peer_getline do); the bytes after it are dropped.
 */
public final class PeerFrameDecoder extends ByteToMessageDecoder {

    /** What ended the decoding. */
    public enum Problem {
        /** A handshake line too long (HAProxy ends the session without a word). */
        LINE_TOO_LONG,
        /** A message length that is not a varint of at most 5 bytes: HAProxy's protocol error. */
        PROTOCOL,
        /** A message longer than the limit: HAProxy's size-limit error. */
        SIZE
    }

    private final int maxMessage;
    private boolean frames;
    private boolean failed;

    public PeerFrameDecoder(int maxMessage) {
        this.maxMessage = maxMessage;
    }

    public PeerFrameDecoder() {
        this(Wire.DEFAULT_MAX_MESSAGE);
    }

    /** From now on, decode messages (the handshake is over). */
    public void messages() {
        frames = true;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (!frames) {
            int lf = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
            if (lf < 0) {
                if (in.readableBytes() >= maxMessage) {
                    fail(in, out, Problem.LINE_TOO_LONG);
                }
                return;
            }
            int end = lf;
            if (end > in.readerIndex() && in.getByte(end - 1) == '\r') {
                end--;
            }
            String line = in.toString(in.readerIndex(), end - in.readerIndex(), StandardCharsets.ISO_8859_1);
            in.readerIndex(lf + 1);
            out.add(line);
            return;
        }
        if (in.readableBytes() < 2) {
            return;
        }
        int start = in.readerIndex();
        int cls = in.getUnsignedByte(start);
        int type = in.getUnsignedByte(start + 1);
        if ((type & 0x80) == 0) {
            in.skipBytes(2);
            out.add(new PeerFrame(cls, type, null));
            return;
        }
        in.readerIndex(start + 2);
        int lenStart = in.readerIndex();
        long len = VarInt.decode(in);
        if (len == VarInt.TRUNCATED) {
            if (in.readableBytes() >= Wire.MAX_LENGTH_BYTES) {
                in.readerIndex(start);
                fail(in, out, Problem.PROTOCOL);
                return;
            }
            in.readerIndex(start);
            return;
        }
        if (len < 0 || in.readerIndex() - lenStart > Wire.MAX_LENGTH_BYTES) {
            fail(in, out, Problem.PROTOCOL);
            return;
        }
        if (len > maxMessage) {
            fail(in, out, Problem.SIZE);
            return;
        }
        if (in.readableBytes() < len) {
            in.readerIndex(start);
            return;
        }
        out.add(new PeerFrame(cls, type, in.readRetainedSlice((int) len)));
    }

    private void fail(ByteBuf in, List<Object> out, Problem p) {
        failed = true;
        in.skipBytes(in.readableBytes());
        out.add(p);
    }
}
