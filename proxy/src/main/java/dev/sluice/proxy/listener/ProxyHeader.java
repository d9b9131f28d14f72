package dev.sluice.proxy.listener;

import dev.sluice.config.model.Server;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The PROXY protocol (haproxy.org/download/2.6/doc/proxy-protocol.txt), versions 1 (a text line) and 2 (binary):
 * reading the header a load balancer in front puts at the start of a connection ({@code bind ... accept-proxy}) and
 * writing one at the start of a server connection ({@code server ... send-proxy}, {@code send-proxy-v2}).
 * <p>
 * Written here rather than taken from Netty's {@code codec-haproxy}: the errors are told apart as HAProxy's
 * conn_recv_proxy tells them, because its log lines name them and operators' tools match those lines (Netty's decoder
 * has one exception type for all and waits for 13 bytes before it can tell a plain HTTP request is no header); the
 * reader is a static method over the bytes already received, with no decoder handler, cumulation buffer or message
 * object per connection.
 */
public final class ProxyHeader {
    private ProxyHeader() {
    }

    /** Where a connection that started with a PROXY header keeps what it said. */
    public static final AttributeKey<Received> RECEIVED = AttributeKey.valueOf("sluice.proxy-header");

    /** The v2 signature. */
    static final byte[] V2_SIG = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    private static final byte[] V1_SIG = "PROXY ".getBytes(StandardCharsets.US_ASCII);
    /** HAProxy's limit: "PROXY TCP6 " + two full IPv6 addresses + two ports + CRLF. */
    static final int V1_MAX = 107;
    private static final int PP2_TYPE_ALPN = 0x01;
    private static final int PP2_TYPE_AUTHORITY = 0x02;
    private static final int PP2_TYPE_CRC32C = 0x03;
    private static final int PP2_TYPE_UNIQUE_ID = 0x05;
    private static final int PP2_TYPE_SSL = 0x20;
    private static final int PP2_SUBTYPE_SSL_VERSION = 0x21;
    private static final int PP2_SUBTYPE_SSL_CIPHER = 0x23;
    private static final int PP2_SUBTYPE_SSL_SIG_ALG = 0x24;
    private static final int PP2_SUBTYPE_SSL_KEY_ALG = 0x25;
    private static final int PP2_CLIENT_SSL = 0x01;

    /**
     * What a received header said. {@code source} and {@code destination} are null when it gave no addresses (v1
     * {@code UNKNOWN}, v2 {@code LOCAL} or a family other than TCP over IPv4/IPv6): the connection's own are used.
     * {@code authority} and {@code uniqueId} are v2's TLVs of those types, null when absent.
     */
    public record Received(int length, InetSocketAddress source, InetSocketAddress destination, String authority, byte[] uniqueId) {

        /** What the header of {@code ch} said, or null (one attribute look-up: done once per connection). */
        public static Received of(Channel ch) {
            return ch.hasAttr(RECEIVED) ? ch.attr(RECEIVED).get() : null;
        }

        /** The client's address for {@code ch} whose header is {@code r} (null: none): the header's when it gave one. */
        public static InetSocketAddress remote(Received r, Channel ch) {
            return r != null && r.source != null ? r.source : ClientAddresses.remote(ch);
        }

        /** The address the client connected to, for {@code ch} whose header is {@code r}: the header's when it gave one. */
        public static InetSocketAddress local(Received r, Channel ch) {
            return r != null && r.destination != null ? r.destination : ClientAddresses.local(ch);
        }
    }

    /** Why a header was refused: HAProxy's connection error codes, with its words. */
    public enum Failure {
        NOT_A_HEADER("Received something which does not look like a PROXY protocol header"),
        INVALID("Received an invalid PROXY protocol header"),
        UNHANDLED_PROTOCOL("Received an unhandled protocol in the PROXY protocol header"),
        TRUNCATED("Truncated PROXY protocol header received"),
        CLOSED("Connection closed while waiting for PROXY protocol header"),
        TIMEOUT("Timeout while waiting for PROXY protocol header"),
        ERROR("Connection error while waiting for PROXY protocol header");

        private final String message;

        Failure(String message) {
            this.message = message;
        }

        public String message() {
            return message;
        }

        /** Whether nothing at all was received: {@code option dontlognull} drops such lines, as HAProxy does. */
        public boolean empty() {
            return this == CLOSED || this == TIMEOUT || this == ERROR;
        }
    }

    /**
     * Reads the header at the start of {@code in} (not consumed): a {@link Received} when it is complete and valid, a
     * {@link Failure} when it cannot become one, null when more bytes are needed.
     */
    public static Object read(ByteBuf in) {
        int start = in.readerIndex();
        int n = in.readableBytes();
        if (n == 0) {
            return null;
        }
        boolean v1 = in.getByte(start) == 'P';
        int m = prefixMatch(in, v1 ? V1_SIG : V2_SIG);
        if (m < 0) {
            return Failure.NOT_A_HEADER;
        }
        if (m == 0) {
            return null;
        }
        if (v1) {
            return v1(in, start, n);
        }
        return n < 16 ? null : v2(in, start, n);
    }

    /**
     * 1: the readable bytes of {@code in} start with all of {@code sig}; 0: they are a part of it (more bytes will tell);
     * -1: they differ. Also what tells HTTP/2's preface on a connection that started as HTTP/1.
     */
    public static int prefixMatch(ByteBuf in, byte[] sig) {
        int n = Math.min(in.readableBytes(), sig.length);
        int at = in.readerIndex();
        for (int i = 0; i < n; i++) {
            if (in.getByte(at + i) != sig[i]) {
                return -1;
            }
        }
        return n == sig.length ? 1 : 0;
    }

    private static Object v1(ByteBuf in, int start, int n) {
        int limit = Math.min(n, V1_MAX);
        int cr = -1;
        for (int i = start + V1_SIG.length; i < start + limit; i++) {
            byte b = in.getByte(i);
            if (b == '\r') {
                cr = i;
                break;
            }
            if (b == '\n') {
                return Failure.INVALID;
            }
        }
        if (cr < 0) {
            return n >= V1_MAX ? Failure.INVALID : null;
        }
        if (cr + 1 >= start + n) {
            return null;
        }
        if (in.getByte(cr + 1) != '\n') {
            return Failure.INVALID;
        }
        int length = cr + 2 - start;
        String line = in.toString(start + V1_SIG.length, cr - start - V1_SIG.length, StandardCharsets.US_ASCII);
        if (line.startsWith("UNKNOWN")) {
            // whatever follows UNKNOWN up to the end of the line is ignored, as the specification says
            return new Received(length, null, null, null, null);
        }
        boolean v4 = line.startsWith("TCP4 ");
        if (!v4 && !line.startsWith("TCP6 ")) {
            return Failure.UNHANDLED_PROTOCOL;
        }
        String[] f = line.substring(5).split(" ", -1);
        if (f.length != 4) {
            return Failure.INVALID;
        }
        InetAddress src = ip(f[0], v4);
        InetAddress dst = ip(f[1], v4);
        int sp = port(f[2]);
        int dp = port(f[3]);
        if (src == null || dst == null || sp < 0 || dp < 0) {
            return Failure.INVALID;
        }
        return new Received(length, new InetSocketAddress(src, sp), new InetSocketAddress(dst, dp), null, null);
    }

    /** A literal address of the family asked for, or null (never a name lookup). */
    static InetAddress ip(String s, boolean v4) {
        if (s.isEmpty() || s.length() > 45) {
            return null;
        }
        if (v4) {
            String[] parts = s.split("\\.", -1);
            if (parts.length != 4) {
                return null;
            }
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) {
                int v = decimal(parts[i], 255);
                if (v < 0) {
                    return null;
                }
                b[i] = (byte) v;
            }
            return byAddress(b);
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c == ':' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return null;
            }
        }
        if (s.indexOf(':') < 0) {
            return null;
        }
        byte[] b = NetUtil.createByteArrayFromIpAddressString(s);
        if (b == null) {
            return null;
        }
        if (b.length == 4) {
            // an IPv4-mapped address (NetUtil gives its IPv4 bytes): kept as IPv6, as the header said
            return mapped(byAddress(b));
        }
        return v6(b);
    }

    /** Sixteen bytes as an IPv6 address, also when IPv4-mapped ({@link InetAddress#getByAddress} would make that IPv4). */
    private static InetAddress v6(byte[] b) {
        try {
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static InetAddress byAddress(byte[] b) {
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static int port(String s) {
        return decimal(s, 65535);
    }

    /** A decimal number of at most {@code max}, digits only, or -1. */
    private static int decimal(String s, int max) {
        if (s.isEmpty() || s.length() > 5) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v <= max ? v : -1;
    }

    private static Object v2(ByteBuf in, int start, int n) {
        int verCmd = in.getUnsignedByte(start + 12);
        if ((verCmd & 0xF0) != 0x20) {
            return Failure.NOT_A_HEADER;
        }
        int fam = in.getUnsignedByte(start + 13);
        int len = in.getUnsignedShort(start + 14);
        int length = 16 + len;
        if (n < length) {
            return null;
        }
        int cmd = verCmd & 0x0F;
        if (cmd == 0x00) {
            // LOCAL: the balancer's own connection (a health check); the connection's addresses stand
            return new Received(length, null, null, null, null);
        }
        if (cmd != 0x01) {
            return Failure.INVALID;
        }
        InetSocketAddress src = null;
        InetSocketAddress dst = null;
        int tlv;
        int p = start + 16;
        switch (fam) {
            case 0x11 -> {
                if (len < 12) {
                    return Failure.INVALID;
                }
                src = new InetSocketAddress(byAddress(bytes(in, p, 4)), in.getUnsignedShort(p + 8));
                dst = new InetSocketAddress(byAddress(bytes(in, p + 4, 4)), in.getUnsignedShort(p + 10));
                tlv = p + 12;
            }
            case 0x21 -> {
                if (len < 36) {
                    return Failure.INVALID;
                }
                src = new InetSocketAddress(v6(bytes(in, p, 16)), in.getUnsignedShort(p + 32));
                dst = new InetSocketAddress(v6(bytes(in, p + 16, 16)), in.getUnsignedShort(p + 34));
                tlv = p + 36;
            }
            default -> {
                // UDP, UNIX or unspecified: as HAProxy, accepted, the connection's own addresses stand
                return new Received(length, null, null, null, null);
            }
        }
        String authority = null;
        byte[] uniqueId = null;
        int end = start + length;
        while (tlv < end) {
            if (end - tlv < 3) {
                return Failure.INVALID;
            }
            int type = in.getUnsignedByte(tlv);
            int vlen = in.getUnsignedShort(tlv + 1);
            int v = tlv + 3;
            if (v + vlen > end) {
                return Failure.INVALID;
            }
            switch (type) {
                case PP2_TYPE_AUTHORITY -> authority = in.toString(v, vlen, StandardCharsets.UTF_8);
                case PP2_TYPE_UNIQUE_ID -> {
                    if (vlen > 128) {
                        return Failure.INVALID;
                    }
                    uniqueId = bytes(in, v, vlen);
                }
                case PP2_TYPE_CRC32C -> {
                    if (vlen != 4 || !crcMatches(in, start, length, v)) {
                        return Failure.INVALID;
                    }
                }
                default -> {
                    // other types (NOOP, ALPN, SSL, ...) are skipped
                }
            }
            tlv = v + vlen;
        }
        return new Received(length, src, dst, authority, uniqueId);
    }

    private static boolean crcMatches(ByteBuf in, int start, int length, int at) {
        byte[] all = bytes(in, start, length);
        long sent = in.getUnsignedInt(at);
        for (int i = 0; i < 4; i++) {
            all[at - start + i] = 0;
        }
        CRC32C crc = new CRC32C();
        crc.update(all);
        return crc.getValue() == sent;
    }

    private static byte[] bytes(ByteBuf in, int at, int n) {
        byte[] b = new byte[n];
        in.getBytes(at, b);
        return b;
    }

    // ------------------------------------------------------------------ writing

    /**
     * The header a new server connection starts with, saying that the client {@code src} connected to {@code dst}:
     * v1's line or v2's PROXY command, both families as one (an IPv4 one mapped into IPv6 when they differ). Null
     * addresses (not known): v1's {@code UNKNOWN} line, v2's LOCAL command.
     */
    public static ByteBuf write(ByteBufAllocator alloc, int version, InetSocketAddress src, InetSocketAddress dst) {
        return write(alloc, version, src, dst, 0, null);
    }

    /**
     * What a v2 header may say of the client's connection besides its addresses: the ALPN protocol it agreed (null:
     * none), the authority (the one a PROXY header in front gave, else the TLS SNI; null: none), the stream's unique id
     * (null: no stream), and for a TLS connection its protocol and cipher (OpenSSL's names; {@code tlsVersion} null:
     * not TLS), the key and signature algorithms of the certificate Sluice presented (HAProxy's {@code cert-key} and
     * {@code cert-sig} describe the local certificate, not the client's).
     */
    public record Client(String alpn, String authority, String uniqueId, String tlsVersion, String tlsCipher, String keyAlgorithm,
            String signatureAlgorithm) {
    }

    /**
     * As {@link #write(ByteBufAllocator, int, InetSocketAddress, InetSocketAddress)}, and for v2 the extra fields of
     * {@code options} ({@code Server.PP_V2_*}: {@code proxy-v2-options}) about {@code client} (null: a health check's
     * connection, which has none), in HAProxy 2.6's order (make_proxy_line_v2): CRC32C, ALPN (whenever the client
     * agreed one), AUTHORITY, UNIQUE_ID, SSL with its version, key and signature algorithms, and cipher. The SSL
     * field's {@code cert-cn} part and its certificate flags never appear: Sluice does not ask clients for
     * certificates, and HAProxy leaves them out for a client that sent none.
     */
    public static ByteBuf write(ByteBufAllocator alloc, int version, InetSocketAddress src, InetSocketAddress dst, int options, Client client) {
        InetAddress s = src == null ? null : src.getAddress();
        InetAddress d = dst == null ? null : dst.getAddress();
        if (s != null && d != null && (s instanceof Inet4Address) != (d instanceof Inet4Address)) {
            s = mapped(s);
            d = mapped(d);
        }
        if (version == 1) {
            String line = s == null || d == null ? "PROXY UNKNOWN\r\n"
                    : "PROXY " + (s instanceof Inet4Address ? "TCP4 " : "TCP6 ") + text(s) + " " + text(d) + " " + src.getPort() + " "
                            + dst.getPort() + "\r\n";
            ByteBuf b = alloc.buffer(line.length());
            b.writeCharSequence(line, StandardCharsets.US_ASCII);
            return b;
        }
        boolean local = s == null || d == null;
        boolean v4 = !local && s instanceof Inet4Address;
        int len = local ? 0 : v4 ? 12 : 36;
        ByteBuf b = alloc.buffer(16 + len + (options == 0 && (client == null || client.alpn() == null) ? 0 : 128));
        int start = b.writerIndex();
        b.writeBytes(V2_SIG);
        b.writeByte(local ? 0x20 : 0x21);
        b.writeByte(local ? 0x00 : v4 ? 0x11 : 0x21);
        b.writeShort(len);
        if (!local) {
            b.writeBytes(s.getAddress());
            b.writeBytes(d.getAddress());
            b.writeShort(src.getPort());
            b.writeShort(dst.getPort());
        }
        int crcAt = -1;
        if ((options & Server.PP_V2_CRC32C) != 0) {
            b.writeByte(PP2_TYPE_CRC32C).writeShort(4);
            crcAt = b.writerIndex();
            b.writeInt(0);
        }
        if (client != null) {
            tlv(b, PP2_TYPE_ALPN, client.alpn());
            if ((options & Server.PP_V2_AUTHORITY) != 0) {
                tlv(b, PP2_TYPE_AUTHORITY, client.authority());
            }
            if ((options & Server.PP_V2_UNIQUE_ID) != 0) {
                tlv(b, PP2_TYPE_UNIQUE_ID, client.uniqueId());
            }
        }
        if ((options & Server.PP_V2_SSL) != 0) {
            int at = b.writerIndex();
            boolean tls = client != null && client.tlsVersion() != null;
            // type, length (set below), client flags, verify result (0: no certificate to verify)
            b.writeByte(PP2_TYPE_SSL).writeShort(0).writeByte(tls ? PP2_CLIENT_SSL : 0).writeInt(0);
            if (tls) {
                tlv(b, PP2_SUBTYPE_SSL_VERSION, client.tlsVersion());
                if ((options & Server.PP_V2_SSL_KEY_ALG) != 0) {
                    tlv(b, PP2_SUBTYPE_SSL_KEY_ALG, client.keyAlgorithm());
                }
                if ((options & Server.PP_V2_SSL_SIG_ALG) != 0) {
                    tlv(b, PP2_SUBTYPE_SSL_SIG_ALG, client.signatureAlgorithm());
                }
                if ((options & Server.PP_V2_SSL_CIPHER) != 0) {
                    tlv(b, PP2_SUBTYPE_SSL_CIPHER, client.tlsCipher());
                }
            }
            b.setShort(at + 1, b.writerIndex() - at - 3);
        }
        b.setShort(start + 14, b.writerIndex() - start - 16);
        if (crcAt >= 0) {
            CRC32C crc = new CRC32C();
            crc.update(b.nioBuffer(start, b.writerIndex() - start));
            b.setInt(crcAt, (int) crc.getValue());
        }
        return b;
    }

    /** A TLV of {@code type} holding {@code value} (ISO-8859-1, as the reader takes them); nothing for null. */
    private static void tlv(ByteBuf b, int type, String value) {
        if (value == null) {
            return;
        }
        b.writeByte(type).writeShort(value.length());
        b.writeCharSequence(value, StandardCharsets.ISO_8859_1);
    }

    private static InetAddress mapped(InetAddress a) {
        if (a instanceof Inet6Address) {
            return a;
        }
        byte[] m = new byte[16];
        m[10] = (byte) 0xff;
        m[11] = (byte) 0xff;
        System.arraycopy(a.getAddress(), 0, m, 12, 4);
        return v6(m);
    }

    /** An address as HAProxy writes it: dotted IPv4, compressed lower-case IPv6 (no zone). */
    static String text(InetAddress a) {
        if (a instanceof Inet6Address a6) {
            byte[] b = a6.getAddress();
            if (isMapped(b)) {
                // inet_ntop writes IPv4-mapped addresses as ::ffff:a.b.c.d
                return "::ffff:" + (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff);
            }
            return NetUtil.toAddressString(a6, true);
        }
        return a.getHostAddress();
    }

    private static boolean isMapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }
}
