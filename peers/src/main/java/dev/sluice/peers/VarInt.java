package dev.sluice.peers;

import io.netty.buffer.ByteBuf;

/**
 * HAProxy's peers varint (src/peers.c intencode/intdecode, doc/peers-v2.0.txt): a value below 240 is one byte;
 * otherwise the first byte is {@code v | 0xF0} (its low 4 bits), then {@code (v - 240) >> 4} in 7-bit groups, each
 * with 0x80 set but the last. Values are unsigned 64-bit. Decoding reads at most {@link #MAX_BYTES} bytes: a longer
 * run of continuation bytes is malformed.
 */
public final class VarInt {
    private VarInt() {
    }

    /** The longest encoding of a 64-bit value (HAProxy's PEER_ENC_10BYTES). */
    public static final int MAX_BYTES = 10;

    /** Returned by {@link #decode} when the buffer ends inside the value (nothing is consumed). */
    public static final long TRUNCATED = -1;
    /** Returned by {@link #decode} when the value runs over {@link #MAX_BYTES} bytes (nothing is consumed). */
    public static final long MALFORMED = -2;

    /** Appends {@code v} (unsigned) to {@code out}. */
    public static void encode(long v, ByteBuf out) {
        if (Long.compareUnsigned(v, 0xF0) < 0) {
            out.writeByte((int) v);
            return;
        }
        out.writeByte((int) (v | 0xF0) & 0xFF);
        v = (v - 0xF0) >>> 4;
        while (Long.compareUnsigned(v, 0x80) >= 0) {
            out.writeByte((int) (v | 0x80) & 0xFF);
            v = (v - 0x80) >>> 7;
        }
        out.writeByte((int) v);
    }

    /** How many bytes {@link #encode} writes for {@code v}. */
    public static int size(long v) {
        if (Long.compareUnsigned(v, 0xF0) < 0) {
            return 1;
        }
        int n = 2;
        v = (v - 0xF0) >>> 4;
        while (Long.compareUnsigned(v, 0x80) >= 0) {
            v = (v - 0x80) >>> 7;
            n++;
        }
        return n;
    }

    /**
     * Reads one value at the reader index and moves past it. When the value is not whole, returns {@link #TRUNCATED}
     * ({@link #MALFORMED} past 10 bytes) and leaves the reader index alone. A value that needs all 64 bits may come back
     * negative: callers that expect small values check the range themselves ({@link #decodeInt}).
     */
    public static long decode(ByteBuf in) {
        int i = in.readerIndex();
        int end = in.writerIndex();
        if (i >= end) {
            return TRUNCATED;
        }
        long v = in.getUnsignedByte(i++);
        if (v >= 0xF0) {
            int shift = 4;
            int b;
            int n = 1;
            do {
                if (i >= end) {
                    return TRUNCATED;
                }
                if (++n > MAX_BYTES) {
                    return MALFORMED;
                }
                b = in.getUnsignedByte(i++);
                v += (long) b << shift;
                shift += 7;
            } while (b >= 0x80);
        }
        in.readerIndex(i);
        return v;
    }

    /**
     * As {@link #decode}, for a value that must fit in an unsigned 32-bit field (a length, an id, a counter): a
     * larger value is {@link #MALFORMED}. HAProxy truncates such values to 32 bits; Sluice refuses them.
     */
    public static long decodeInt(ByteBuf in) {
        int start = in.readerIndex();
        long v = decode(in);
        if (v < TRUNCATED || v > 0xFFFF_FFFFL) {
            in.readerIndex(start);
            return MALFORMED;
        }
        return v;
    }
}
