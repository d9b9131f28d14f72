package dev.sluice.proxy.rules;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * What {@code tune.ssl.capture-buffer-size} keeps of a client's TLS hello, as HAProxy 2.6's
 * {@code ssl_sock_parse_clienthello} keeps it (its {@code struct ssl_capture}): the legacy version, the XXH64 of the whole
 * cipher list, and in {@code size} bytes the cipher list, then the extension ids, the supported groups and the point
 * formats, each cut where the room ends. Read by the {@code ssl_fc_cipherlist_*}, {@code ssl_fc_extlist_bin},
 * {@code ssl_fc_eclist_bin}, {@code ssl_fc_ecformats_bin} and {@code ssl_fc_protocol_hello_id} fetches. Immutable.
 */
public final class ClientHelloCapture {
    /** On a client connection's channel once its hello was read (by the TLS set-up when the capture is on). */
    public static final AttributeKey<ClientHelloCapture> ATTRIBUTE = AttributeKey.valueOf("sluice.clientHello");

    private final byte[] data;
    private final int protocolVersion;
    private final long xxh64;
    private final int ciphersLen;
    private int extensionsOffset;
    private int extensionsLen;
    private int ecOffset;
    private int ecLen;
    private int ecFormatsOffset;
    private int ecFormatsLen;

    private ClientHelloCapture(int size, int protocolVersion, long xxh64, byte[] hello, int ciphers, int ciphersLen) {
        this.data = new byte[size];
        this.protocolVersion = protocolVersion;
        this.xxh64 = xxh64;
        this.ciphersLen = Math.min(size, ciphersLen);
        System.arraycopy(hello, ciphers, data, 0, this.ciphersLen);
    }

    /** The capture of the client connection a stream's channel belongs to (an HTTP/2 stream's parent), or null. */
    public static ClientHelloCapture of(Channel ch) {
        Channel c = Network.socketOf(ch);
        return c == null ? null : c.attr(ATTRIBUTE).get();
    }

    /** {@code ssl_fc_protocol_hello_id}: the hello's legacy version (0x0303 for TLS 1.2 and 1.3). */
    public int protocolVersion() {
        return protocolVersion;
    }

    /** {@code ssl_fc_cipherlist_xxh}: XXH64 (seed 0) of the whole cipher list, as a signed 64-bit integer. */
    public long cipherListHash() {
        return xxh64;
    }

    /** {@code ssl_fc_cipherlist_bin}: the cipher list as kept; {@code noGrease}: without the GREASE values. */
    public byte[] ciphers(boolean noGrease) {
        return slice(0, ciphersLen, noGrease);
    }

    /** {@code ssl_fc_extlist_bin}: the extension ids as kept. */
    public byte[] extensions(boolean noGrease) {
        return slice(extensionsOffset, extensionsLen, noGrease);
    }

    /** {@code ssl_fc_eclist_bin}: the supported groups as kept. */
    public byte[] groups(boolean noGrease) {
        return slice(ecOffset, ecLen, noGrease);
    }

    /** {@code ssl_fc_ecformats_bin}: the EC point formats as kept. */
    public byte[] pointFormats() {
        return slice(ecFormatsOffset, ecFormatsLen, false);
    }

    /**
     * HAProxy's exclude_tls_grease: the two-byte values whose bytes are equal and end in 0xA (RFC 8701's 0x?A?A) left
     * out; an odd last byte kept.
     */
    private byte[] slice(int offset, int len, boolean noGrease) {
        if (!noGrease) {
            return java.util.Arrays.copyOfRange(data, offset, offset + len);
        }
        byte[] out = new byte[len];
        int n = 0;
        int i = 0;
        for (; i < len - 1; i += 2) {
            byte a = data[offset + i];
            if (a != data[offset + i + 1] || (a & 0x0f) != 0x0a) {
                out[n++] = a;
                out[n++] = data[offset + i + 1];
            }
        }
        if (len - i > 0) {
            out[n++] = data[offset + i];
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /**
     * ssl_sock_parse_clienthello on one handshake message ({@code hello}, its type and 3-byte length first): null when it
     * is not a ClientHello, is short, or malformed before its cipher list (HAProxy then keeps nothing); a capture of what
     * was read when it is malformed after.
     */
    public static ClientHelloCapture parse(byte[] hello, int size) {
        int len = hello.length;
        if (len < 4 || (hello[0] & 0xff) != 1) {
            return null;
        }
        int recLen = u24(hello, 1);
        if (len < recLen + 4) {
            return null;
        }
        int p = 4;
        int end = p + recLen;
        if (p + 2 > end) {
            return null;
        }
        int version = u16(hello, p);
        p += 2 + 4 + 28;
        if (p > end) {
            return null;
        }
        // the session id (HAProxy reads its length byte even at the end: a hello that ends here is refused below)
        p += at(hello, p, end) + 1;
        if (p > end || p + 2 > end) {
            return null;
        }
        int ciphers = u16(hello, p);
        p += 2;
        if (p + ciphers > end) {
            return null;
        }
        ClientHelloCapture c = new ClientHelloCapture(size, version, XxHash.xxh64(java.util.Arrays.copyOfRange(hello, p, p + ciphers), 0), hello, p, ciphers);
        int offset = c.ciphersLen;
        p += ciphers;
        p += at(hello, p, end) + 1;
        if (p > end || p + 2 > end) {
            return c;
        }
        int extLen = u16(hello, p);
        p += 2;
        if (p + extLen > end) {
            return c;
        }
        int extEnd = p + extLen;
        c.extensionsOffset = offset;
        int ecStart = -1;
        int ecLen = 0;
        int ecfStart = -1;
        int ecfLen = 0;
        // as HAProxy: an extension is read while more than its 4-byte header is left (a last empty one is not)
        while (p + 4 < extEnd) {
            if (size < offset + 2) {
                break;
            }
            c.data[offset++] = hello[p];
            c.data[offset++] = hello[p + 1];
            c.extensionsLen += 2;
            int id = u16(hello, p);
            int n = u16(hello, p + 2);
            p += 4;
            if (p + n > extEnd) {
                return c;
            }
            if (id == 0x000a) {
                int listEnd = p + n;
                if (p + 2 > listEnd) {
                    return c;
                }
                int l = u16(hello, p);
                p += 2;
                if (p + l > listEnd) {
                    return c;
                }
                ecStart = p;
                ecLen = l;
                n = l;
            } else if (id == 0x000b) {
                int listEnd = p + n;
                if (p + 1 > listEnd) {
                    return c;
                }
                int l = hello[p] & 0xff;
                p += 1;
                if (p + l > listEnd) {
                    return c;
                }
                ecfStart = p;
                ecfLen = l;
                n = l;
            }
            p += n;
        }
        if (ecStart >= 0) {
            int l = Math.min(ecLen, size - offset);
            System.arraycopy(hello, ecStart, c.data, offset, l);
            c.ecOffset = offset;
            c.ecLen = l;
            offset += l;
        }
        if (ecfStart >= 0) {
            int l = Math.min(ecfLen, size - offset);
            System.arraycopy(hello, ecfStart, c.data, offset, l);
            c.ecFormatsOffset = offset;
            c.ecFormatsLen = l;
        }
        return c;
    }

    /** OpenSSL's cipher names by value (the resource openssl-ciphers.txt), read at the first use. */
    private static final class Names {
        static final java.util.Map<Integer, String> BY_VALUE = load();

        private static java.util.Map<Integer, String> load() {
            java.util.Map<Integer, String> m = new java.util.HashMap<>();
            try (var in = ClientHelloCapture.class.getResourceAsStream("openssl-ciphers.txt")) {
                for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).split("\n")) {
                    if (!line.isBlank() && !line.startsWith("#")) {
                        m.put(Integer.parseInt(line.substring(0, 4), 16), line.substring(5).strip());
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return m;
        }
    }

    /**
     * {@code ssl_fc_cipherlist_str} of a list: each two-byte value by its OpenSSL name, {@code UNKNOWN(xxxx)} for one
     * OpenSSL does not know, joined by commas; an odd last byte left out.
     */
    public static String cipherNames(byte[] list) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i + 1 < list.length; i += 2) {
            int id = (list[i] & 0xff) << 8 | list[i + 1] & 0xff;
            String name = Names.BY_VALUE.get(id);
            sb.append(i == 0 ? "" : ",").append(name != null ? name : "UNKNOWN(%04x)".formatted(id));
        }
        return sb.toString();
    }

    /** The byte at {@code p}, 0 past {@code end} (HAProxy reads one byte there; its checks then refuse the hello). */
    private static int at(byte[] b, int p, int end) {
        return p < end && p < b.length ? b[p] & 0xff : 0;
    }

    private static int u16(byte[] b, int p) {
        return (b[p] & 0xff) << 8 | b[p + 1] & 0xff;
    }

    private static int u24(byte[] b, int p) {
        return (b[p] & 0xff) << 16 | (b[p + 1] & 0xff) << 8 | b[p + 2] & 0xff;
    }
}
