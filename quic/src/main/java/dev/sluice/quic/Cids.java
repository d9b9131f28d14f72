package dev.sluice.quic;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.quic.QuicConnectionAddress;

/**
 * The layout of the connection IDs Sluice issues, and how to find one in a datagram. Every CID is
 * {@link #LENGTH} bytes; its first {@link #PREFIX_LENGTH} bytes are the same for all CIDs of one connection
 * and identify it:
 *
 * <pre>
 *   byte 0     first octet (QUIC-LB style): config rotation 0 in the top 3 bits, CID length - 1 below
 *   byte 1     server id: which process issued it (for a layer-4 balancer; 0 by default)
 *   byte 2     socket index: which of the bind's SO_REUSEPORT sockets owns the connection
 *   bytes 3-7  connection nonce (random, unique among the socket's live and closing connections)
 *   bytes 8-15 random, new for every CID
 * </pre>
 *
 * Stateless.
 */
public final class Cids {
    private Cids() {
    }

    public static final int LENGTH = 16;
    public static final int PREFIX_LENGTH = 8;
    static final int FIRST_OCTET = LENGTH - 1;
    static final int SERVER_ID = 1;
    static final int SOCKET_INDEX = 2;

    /** The prefix of a CID held in {@code b} at {@code offset} (big-endian, as the bytes read). */
    public static long prefix(byte[] b, int offset) {
        long v = 0;
        for (int i = 0; i < PREFIX_LENGTH; i++) {
            v = v << 8 | (b[offset + i] & 0xff);
        }
        return v;
    }

    /** The socket index a prefix carries. */
    static int socketIndex(long prefix) {
        return (int) (prefix >>> 40) & 0xff;
    }

    /**
     * Whether {@code d} starts with a QUIC packet whose destination CID has Sluice's length; the prefix is then
     * {@link #datagramPrefix}. A long-header packet names its DCID length; a short-header one does not, so
     * {@link #LENGTH} is assumed, as the codec does.
     */
    public static boolean hasOurCid(ByteBuf d) {
        int r = d.readerIndex();
        int n = d.readableBytes();
        if (n < 1) {
            return false;
        }
        byte first = d.getByte(r);
        if ((first & 0x80) != 0) {
            return n >= 6 + LENGTH && d.getUnsignedByte(r + 5) == LENGTH;
        }
        return n >= 1 + LENGTH;
    }

    /** The prefix of the destination CID of the packet {@code d} starts with; only after {@link #hasOurCid}. */
    public static long datagramPrefix(ByteBuf d) {
        int r = d.readerIndex();
        return d.getLong(r + ((d.getByte(r) & 0x80) != 0 ? 6 : 1));
    }

    /**
     * The bytes of a connection address. Netty keeps them private; its {@code toString()} prints them in hex,
     * and the result is checked against the address, so a change in that format fails loudly rather than
     * silently (see {@code CidsTest}).
     */
    public static byte[] bytes(QuicConnectionAddress a) {
        String s = a.toString();
        int start = s.indexOf("connId=");
        int end = s.lastIndexOf('}');
        if (start < 0 || end < start) {
            throw new IllegalStateException("unexpected QuicConnectionAddress format: " + s);
        }
        byte[] b = ByteBufUtil.decodeHexDump(s, start + 7, end - start - 7);
        if (!new QuicConnectionAddress(b).equals(a)) {
            throw new IllegalStateException("QuicConnectionAddress format changed: " + s);
        }
        return b;
    }

    static String hex(long prefix) {
        return String.format("%016x", prefix);
    }
}
