package dev.sluice.proxy.rules;

import io.netty.buffer.ByteBuf;

/**
 * The first TLS handshake message of a stream read where it lies, as HAProxy 2.6 reads it for the {@code req.ssl_*}
 * fetches (payload.c): nothing is copied or allocated, every answer is an {@code int} or a packed {@code long}. The
 * buffer's readable bytes are what the stream holds so far, from its first byte.
 * <p>
 * Each method answers {@link #TOO_SHORT} when more bytes could change the answer (the fetch then says its sample may
 * change), {@link #NOT_HELLO} when they cannot: not a TLS record, or malformed, or (for an extension) absent. A hello
 * is read from one record (a hello spanning two records is not reassembled). The SNI, ALPN and extension readers want
 * a handshake record ({@code 0x16}) of version 3.x, a ClientHello of version 3.1 or later, and, as HAProxy checks it,
 * at least the hello's length in bytes after the 5-byte record header (so the hello's last 4 bytes may still be
 * missing: an answer that needs them is {@link #TOO_SHORT}; HAProxy reads whatever its buffer holds there).
 * <p>
 * Positions are packed as {@code offset << 32 | length}, the offset counted from the reader index
 * ({@link #offset}, {@link #length}).
 */
public final class TlsHello {
    /** More bytes may change the answer. */
    public static final int TOO_SHORT = -1;
    /** Not a TLS hello, malformed, or the element asked for is absent: more bytes will not change it. */
    public static final int NOT_HELLO = -2;
    /** {@link #find}: the extension is not there. */
    private static final int ABSENT = -3;

    private static final int SERVER_NAME = 0;
    private static final int ELLIPTIC_CURVES = 10;
    private static final int ALPN = 16;
    private static final int SESSION_TICKET = 35;
    /** The largest record HAProxy takes for {@code req.ssl_ver}: 2^14 + 2048. */
    private static final int MAX_RECORD = (1 << 14) + 2048;

    private TlsHello() {
    }

    /** The offset part of a packed position. */
    public static int offset(long packed) {
        return (int) (packed >>> 32);
    }

    /** The length part of a packed position. */
    public static int length(long packed) {
        return (int) packed;
    }

    private static long pack(int offset, int length) {
        return (long) offset << 32 | length;
    }

    /**
     * The handshake message type of the first record ({@code req.ssl_hello_type}: 1 for a ClientHello,
     * {@code res.ssl_hello_type}: 2 for a ServerHello), once the whole message is there. Any record type 20 to 23 or 255
     * of version 3.x with room for a handshake header is read.
     */
    public static int helloType(ByteBuf b) {
        int n = b.readableBytes();
        int r = b.readerIndex();
        if (n < 1) {
            return TOO_SHORT;
        }
        int type = b.getUnsignedByte(r);
        if ((type < 0x14 || type > 0x17) && type != 0xff) {
            return NOT_HELLO;
        }
        if (n < 9) {
            return TOO_SHORT;
        }
        if (b.getUnsignedByte(r + 1) < 3 || b.getUnsignedShort(r + 3) < 4) {
            return NOT_HELLO;
        }
        if (n < 9 + b.getUnsignedMedium(r + 6)) {
            return TOO_SHORT;
        }
        return b.getUnsignedByte(r + 5);
    }

    /**
     * The version the client asks for ({@code req.ssl_ver}): {@code major << 16 | minor} of the ClientHello (not of the
     * record), once the whole record is there ({@code receiveLimit} caps what it may need: the bytes a stream buffer
     * can hold). Also reads an SSLv2-format ClientHello.
     */
    public static int version(ByteBuf b, int receiveLimit) {
        int n = b.readableBytes();
        int r = b.readerIndex();
        if (n < 1) {
            return TOO_SHORT;
        }
        int first = b.getUnsignedByte(r);
        int version;
        int needed;
        int left;
        if (first >= 0x14 && first <= 0x17 || first == 0xff) {
            if (n < 11) {
                return TOO_SHORT;
            }
            int record = b.getUnsignedByte(r + 1) << 16 | b.getUnsignedByte(r + 2);
            needed = b.getUnsignedShort(r + 3);
            if (record < 0x30000 || needed < 6 || needed > MAX_RECORD) {
                return NOT_HELLO;
            }
            left = n - 5;
            version = b.getUnsignedByte(r + 9) << 16 | b.getUnsignedByte(r + 10);
        } else {
            // SSLv2 record header: 2 bytes (15-bit length) or 3 (14-bit length and a padding length)
            int p;
            int padding;
            int length;
            if ((first & 0x80) != 0) {
                if (n < 3) {
                    return TOO_SHORT;
                }
                length = (first & 0x7f) << 8 | b.getUnsignedByte(r + 1);
                padding = 0;
                p = 2;
            } else {
                if (n < 4) {
                    return TOO_SHORT;
                }
                length = (first & 0x3f) << 8 | b.getUnsignedByte(r + 1);
                padding = b.getUnsignedByte(r + 2);
                p = 3;
            }
            if (b.getUnsignedByte(r + p) != 1) {
                return NOT_HELLO;
            }
            p++;
            if (n - p < 8) {
                return TOO_SHORT;
            }
            version = b.getUnsignedByte(r + p) << 16 | b.getUnsignedByte(r + p + 1);
            int ciphers = b.getUnsignedShort(r + p + 2);
            int session = b.getUnsignedShort(r + p + 4);
            int challenge = b.getUnsignedShort(r + p + 6);
            p += 8;
            if (ciphers % 3 != 0 || session != 0 && session != 16 || challenge < 16 || challenge > 32
                    || length != 9 + ciphers + session + challenge) {
                return NOT_HELLO;
            }
            left = n - p;
            needed = ciphers + session + challenge + padding;
        }
        if (left < Math.min(needed, receiveLimit)) {
            return TOO_SHORT;
        }
        return version;
    }

    /**
     * The first host name of the server_name extension ({@code req.ssl_sni}), packed; {@link #NOT_HELLO} when there is
     * none. As in HAProxy, only the first entry of a server_name extension is looked at.
     */
    public static long sni(ByteBuf b) {
        int n = b.readableBytes();
        int r = b.readerIndex();
        long at = extensions(b);
        while (true) {
            at = find(b, at, SERVER_NAME);
            if (at < 0) {
                return at == ABSENT ? NOT_HELLO : at;
            }
            int p = offset(at);
            int rem = length(at);
            int len = b.getUnsignedShort(r + p + 2);
            if (len < 2) {
                return NOT_HELLO;
            }
            if (p + 9 > n) {
                return TOO_SHORT;
            }
            int list = b.getUnsignedShort(r + p + 4);
            if (list < 4 || list > rem - 6) {
                return NOT_HELLO;
            }
            if (b.getUnsignedByte(r + p + 6) == 0) {
                int nameLength = b.getUnsignedShort(r + p + 7);
                return p + 9 + nameLength > n ? TOO_SHORT : pack(p + 9, nameLength);
            }
            at = pack(p + 4 + len, rem - 4 - len);
        }
    }

    /**
     * The protocol names of the ALPN extension ({@code req.ssl_alpn}): {@code first << 32 | end}, the offset of the
     * first name's length byte and the end of the extension, to walk with {@link #alpnName}; {@link #NOT_HELLO} when
     * there is no ALPN extension.
     */
    public static long alpn(ByteBuf b) {
        long at = find(b, extensions(b), ALPN);
        if (at < 0) {
            return at == ABSENT ? NOT_HELLO : at;
        }
        int p = offset(at);
        int len = b.getUnsignedShort(b.readerIndex() + p + 2);
        // one list length, at least one name length
        return len < 3 ? NOT_HELLO : pack(p + 6, p + 4 + len);
    }

    /**
     * The protocol name whose length byte is at {@code at} in an ALPN extension ending at {@code end} (both from
     * {@link #alpn}), packed: the next name, if {@code offset + length < end}, is at {@code offset + length}.
     * {@link #NOT_HELLO} when the name overflows the extension.
     */
    public static long alpnName(ByteBuf b, int at, int end) {
        int n = b.readableBytes();
        if (at >= n) {
            return TOO_SHORT;
        }
        int len = b.getUnsignedByte(b.readerIndex() + at);
        if (at + 1 + len > end) {
            return NOT_HELLO;
        }
        return at + 1 + len > n ? TOO_SHORT : pack(at + 1, len);
    }

    /** 1 when the hello has the supported_groups (elliptic curves) extension ({@code req.ssl_ec_ext}), else {@link #NOT_HELLO}. */
    public static int ecExtension(ByteBuf b) {
        long at = find(b, extensions(b), ELLIPTIC_CURVES);
        return at >= 0 ? 1 : at == ABSENT ? NOT_HELLO : (int) at;
    }

    /**
     * {@code req.ssl_st_ext}: 0 without a session_ticket extension, 1 with an empty one, 2 with a ticket in it.
     */
    public static int sessionTicketExtension(ByteBuf b) {
        long at = find(b, extensions(b), SESSION_TICKET);
        if (at < 0) {
            return at == ABSENT ? 0 : (int) at;
        }
        return b.getUnsignedShort(b.readerIndex() + offset(at) + 2) > 0 ? 2 : 1;
    }

    /**
     * The extension list of the ClientHello at the start of {@code b}, packed (its first byte, its length), or
     * {@link #TOO_SHORT} / {@link #NOT_HELLO}.
     */
    private static long extensions(ByteBuf b) {
        int n = b.readableBytes();
        int r = b.readerIndex();
        if (n < 1) {
            return TOO_SHORT;
        }
        if (b.getUnsignedByte(r) != 0x16) {
            return NOT_HELLO;
        }
        if (n < 3) {
            return TOO_SHORT;
        }
        if (b.getUnsignedByte(r + 1) < 3) {
            return NOT_HELLO;
        }
        if (n < 5) {
            return TOO_SHORT;
        }
        // a record with room for a hello holding an extension
        if (b.getUnsignedShort(r + 3) < 1 + 3 + 2 + 32 + 1 + 2 + 2 + 1 + 1 + 2 + 2) {
            return NOT_HELLO;
        }
        if (n < 6) {
            return TOO_SHORT;
        }
        if (b.getUnsignedByte(r + 5) != 1) {
            return NOT_HELLO;
        }
        if (n < 9) {
            return TOO_SHORT;
        }
        int rem = b.getUnsignedMedium(r + 6);
        if (rem < 2 + 32 + 1 + 2 + 2 + 1 + 1 + 2 + 2) {
            return NOT_HELLO;
        }
        if (n - 5 < rem) {
            return TOO_SHORT;
        }
        // the ClientHello at 9: version (TLS 1.0 at least), random, session id
        if (b.getUnsignedByte(r + 9) < 3 || b.getUnsignedByte(r + 10) < 1) {
            return NOT_HELLO;
        }
        int len = b.getUnsignedByte(r + 9 + 34);
        if (len > 32 || len > rem - 35) {
            return NOT_HELLO;
        }
        // from here on p + rem stays the end of the hello, which may be up to 4 bytes past n
        rem -= 35 + len;
        int p = 9 + 35 + len;
        if (rem < 4) {
            return NOT_HELLO;
        }
        if (p + 2 > n) {
            return TOO_SHORT;
        }
        len = b.getUnsignedShort(r + p);
        if (len < 2 || len > rem) {
            return NOT_HELLO;
        }
        rem -= 2 + len;
        p += 2 + len;
        // compression methods
        if (rem < 2) {
            return NOT_HELLO;
        }
        if (p + 1 > n) {
            return TOO_SHORT;
        }
        len = b.getUnsignedByte(r + p);
        if (len < 1 || len > rem) {
            return NOT_HELLO;
        }
        rem -= 1 + len;
        p += 1 + len;
        if (rem < 2) {
            return NOT_HELLO;
        }
        if (p + 2 > n) {
            return TOO_SHORT;
        }
        len = b.getUnsignedShort(r + p);
        if (len > rem - 2) {
            return NOT_HELLO;
        }
        return pack(p + 2, len);
    }

    /**
     * The first extension of type {@code wanted} in the extensions from {@code at} (packed: where they start, how many
     * bytes of them remain), packed as (its header's offset, the bytes remaining from there); {@code at} itself when it
     * is an error code, {@link #ABSENT} when there is none.
     */
    private static long find(ByteBuf b, long at, int wanted) {
        if (at < 0) {
            return at;
        }
        int n = b.readableBytes();
        int r = b.readerIndex();
        int p = offset(at);
        int rem = length(at);
        while (rem >= 4) {
            if (p + 4 > n) {
                return TOO_SHORT;
            }
            int type = b.getUnsignedShort(r + p);
            int len = b.getUnsignedShort(r + p + 2);
            if (len > rem - 4) {
                return NOT_HELLO;
            }
            if (type == wanted) {
                return pack(p, rem);
            }
            rem -= 4 + len;
            p += 4 + len;
        }
        return ABSENT;
    }
}
