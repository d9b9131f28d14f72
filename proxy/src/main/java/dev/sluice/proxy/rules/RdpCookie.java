package dev.sluice.proxy.rules;

import io.netty.buffer.ByteBuf;

/**
 * The RDP cookie of a Remote Desktop connection request, read where it lies in the bytes a TCP stream holds, as
 * HAProxy 2.6's fetch_rdp_cookie_name reads it: after the 11 bytes of the TPKT and X.224 headers, a line
 * {@code Cookie: <name>=<value>\r\n} ("Cookie:" in any case, spaces after it skipped, the name compared without case).
 * Used by the {@code req.rdp_cookie} fetches, {@code balance rdp-cookie} and {@code persist rdp-cookie}. Nothing is copied;
 * the value's position is packed as {@link TlsHello}'s are ({@link TlsHello#offset}, {@link TlsHello#length}, from the
 * reader index).
 */
public final class RdpCookie {
    /** More bytes may change the answer. */
    public static final long TOO_SHORT = TlsHello.TOO_SHORT;
    /** Not an RDP cookie (of that name): more bytes will not change it. */
    public static final long NONE = TlsHello.NOT_HELLO;

    private static final byte[] COOKIE = {'c', 'o', 'o', 'k', 'i', 'e', ':'};

    private RdpCookie() {
    }

    /** The value of the cookie {@code name} (any cookie when {@code name} is empty), or {@link #TOO_SHORT} or {@link #NONE}. */
    public static long find(ByteBuf b, byte[] name) {
        int r = b.readerIndex();
        int left = b.readableBytes();
        if (left <= 11) {
            return TOO_SHORT;
        }
        int at = r + 11;
        left -= 11;
        if (left <= 7) {
            return TOO_SHORT;
        }
        if (!equalsIgnoreCase(b, at, COOKIE)) {
            return NONE;
        }
        at += 7;
        left -= 7;
        while (left > 0 && b.getByte(at) == ' ') {
            at++;
            left--;
        }
        int clen = name.length;
        if (clen > 0) {
            if (left <= clen) {
                return TOO_SHORT;
            }
            if (b.getByte(at + clen) != '=' || !equalsIgnoreCase(b, at, name)) {
                return NONE;
            }
            at += clen + 1;
            left -= clen + 1;
        } else {
            while (left > 0 && b.getByte(at) != '=') {
                byte c = b.getByte(at);
                if (c == '\r' || c == '\n') {
                    return NONE;
                }
                at++;
                left--;
            }
            if (left < 1) {
                return TOO_SHORT;
            }
            at++;
            left--;
        }
        int value = at;
        while (left > 0 && b.getByte(at) != '\r') {
            at++;
            left--;
        }
        if (left < 2) {
            return TOO_SHORT;
        }
        if (b.getByte(at + 1) != '\n') {
            return NONE;
        }
        return (long) (value - r) << 32 | (at - value);
    }

    /**
     * {@code persist rdp-cookie}: the IPv4 address (network order, as an int) and port of the server a cookie value
     * {@code <decimal address>.<decimal port>.} designates, packed as {@code address << 16 | port}, or -1. As HAProxy reads
     * them: the address is the 32-bit number of the address's bytes taken in little-endian order, the port's 16 bits are
     * swapped (both as Windows writes them).
     */
    public static long server(ByteBuf b, int offset, int length) {
        int at = b.readerIndex() + offset;
        int end = at + length;
        long[] n = new long[1];
        at = decimal(b, at, end, n);
        if (at >= end || b.getByte(at) != '.') {
            return -1;
        }
        int addr = (int) n[0];
        at = decimal(b, at + 1, end, n);
        if (at >= end || b.getByte(at) != '.') {
            return -1;
        }
        int a = Integer.reverseBytes(addr);
        int p = Short.toUnsignedInt(Short.reverseBytes((short) n[0]));
        return (a & 0xFFFF_FFFFL) << 16 | p;
    }

    /** strtoul's digits from {@code at} into {@code out[0]} (saturated at 2^64-1, as an unsigned long); where they end. */
    private static int decimal(ByteBuf b, int at, int end, long[] out) {
        long v = 0;
        boolean saturated = false;
        while (at < end) {
            byte c = b.getByte(at);
            if (c < '0' || c > '9') {
                break;
            }
            if (!saturated) {
                long next = v * 10 + (c - '0');
                if (Long.compareUnsigned(v, Long.divideUnsigned(-1L, 10)) > 0 || Long.compareUnsigned(next, v * 10) < 0) {
                    saturated = true;
                    v = -1L;
                } else {
                    v = next;
                }
            }
            at++;
        }
        out[0] = v;
        return at;
    }

    private static boolean equalsIgnoreCase(ByteBuf b, int at, byte[] lower) {
        for (int i = 0; i < lower.length; i++) {
            int c = b.getByte(at + i);
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            int d = lower[i];
            if (d >= 'A' && d <= 'Z') {
                d += 'a' - 'A';
            }
            if (c != d) {
                return false;
            }
        }
        return true;
    }
}
