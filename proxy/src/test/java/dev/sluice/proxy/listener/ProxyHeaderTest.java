package dev.sluice.proxy.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class ProxyHeaderTest {

    private static Object read(byte[] b) {
        ByteBuf in = Unpooled.wrappedBuffer(b);
        try {
            return ProxyHeader.read(in);
        } finally {
            in.release();
        }
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            byte[] r = new byte[b.readableBytes()];
            b.readBytes(r);
            return r;
        } finally {
            b.release();
        }
    }

    private static InetSocketAddress at(String ip, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    /** Every prefix of a valid header asks for more; the whole gives the header; bytes after it are not consumed. */
    private static ProxyHeader.Received complete(byte[] header) {
        for (int i = 0; i < header.length; i++) {
            assertThat(read(java.util.Arrays.copyOf(header, i))).as("prefix of %d bytes", i).isNull();
        }
        byte[] more = java.util.Arrays.copyOf(header, header.length + 5);
        Object r = read(more);
        assertThat(r).isInstanceOf(ProxyHeader.Received.class);
        assertThat(((ProxyHeader.Received) r).length()).isEqualTo(header.length);
        return (ProxyHeader.Received) r;
    }

    @Test
    void v1LinesAreReadWhateverTheyArriveIn() throws Exception {
        ProxyHeader.Received r = complete("PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(r.source()).isEqualTo(at("192.0.2.1", 56324));
        assertThat(r.destination()).isEqualTo(at("198.51.100.2", 443));
        r = complete("PROXY TCP6 2001:db8::1 ::ffff:10.0.0.1 1 65535\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(r.source()).isEqualTo(at("2001:db8::1", 1));
        assertThat(r.destination().getAddress()).isInstanceOf(java.net.Inet6Address.class);
        assertThat(r.destination().getPort()).isEqualTo(65535);
        r = complete("PROXY UNKNOWN whatever\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(r.source()).isNull();
    }

    @Test
    void v1ErrorsAreToldApartAsHaproxyTellsThem() {
        assertThat(read("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII))).isEqualTo(ProxyHeader.Failure.NOT_A_HEADER);
        assertThat(read("POST".getBytes(StandardCharsets.US_ASCII))).isEqualTo(ProxyHeader.Failure.NOT_A_HEADER);
        assertThat(read("PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n".getBytes(StandardCharsets.US_ASCII))).isEqualTo(ProxyHeader.Failure.UNHANDLED_PROTOCOL);
        for (String bad : new String[] {"TCP4 1.2.3.4 5.6.7.8 1", "TCP4 1.2.3.4 5.6.7.8 1 65536", "TCP4 ::1 5.6.7.8 1 2",
                "TCP6 1.2.3.4 ::1 1 2", "TCP4 1.2.3.4  5.6.7.8 1 2", "TCP4 1.2.3.4 5.6.7.8 1 2 ", "TCP4 1.2.3.4 5.6.7.8 -1 2",
                "TCP4 256.2.3.4 5.6.7.8 1 2", "TCP6 fe80::1%eth0 ::1 1 2"}) {
            assertThat(read(("PROXY " + bad + "\r\n").getBytes(StandardCharsets.US_ASCII))).as(bad).isEqualTo(ProxyHeader.Failure.INVALID);
        }
        assertThat(read("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n".getBytes(StandardCharsets.US_ASCII))).isEqualTo(ProxyHeader.Failure.INVALID);
        assertThat(read("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX".getBytes(StandardCharsets.US_ASCII))).isEqualTo(ProxyHeader.Failure.INVALID);
        // no end of line within HAProxy's 107 bytes
        assertThat(read(("PROXY UNKNOWN " + "x".repeat(100)).getBytes(StandardCharsets.US_ASCII))).isEqualTo(ProxyHeader.Failure.INVALID);
    }

    private static byte[] v2(int verCmd, int fam, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(16 + body.length);
        b.put(ProxyHeader.V2_SIG).put((byte) verCmd).put((byte) fam).putShort((short) body.length).put(body);
        return b.array();
    }

    @Test
    void v2HeadersWithTheirTlvs() throws Exception {
        byte[] addrs = HexFormat.of().parseHex("c0000201" + "c6336402" + "dc04" + "01bb");
        byte[] tlvs = HexFormat.of().parseHex("02000b" + HexFormat.of().formatHex("example.com".getBytes(StandardCharsets.US_ASCII))
                + "050003" + "616263" + "040002" + "0000");
        byte[] body = new byte[addrs.length + tlvs.length];
        System.arraycopy(addrs, 0, body, 0, addrs.length);
        System.arraycopy(tlvs, 0, body, addrs.length, tlvs.length);
        ProxyHeader.Received r = complete(v2(0x21, 0x11, body));
        assertThat(r.source()).isEqualTo(at("192.0.2.1", 56324));
        assertThat(r.destination()).isEqualTo(at("198.51.100.2", 443));
        assertThat(r.authority()).isEqualTo("example.com");
        assertThat(r.uniqueId()).isEqualTo("abc".getBytes(StandardCharsets.US_ASCII));
        // LOCAL, and families without addresses Sluice uses (UDP, UNIX): accepted, the connection's own addresses stand
        assertThat(complete(v2(0x20, 0x00, new byte[0])).source()).isNull();
        assertThat(complete(v2(0x21, 0x12, new byte[12])).source()).isNull();
        assertThat(complete(v2(0x21, 0x31, new byte[216])).source()).isNull();
    }

    @Test
    void v2Errors() {
        assertThat(read(v2(0x11, 0x11, new byte[12]))).isEqualTo(ProxyHeader.Failure.NOT_A_HEADER);
        assertThat(read(v2(0x22, 0x11, new byte[12]))).isEqualTo(ProxyHeader.Failure.INVALID);
        assertThat(read(v2(0x21, 0x11, new byte[11]))).isEqualTo(ProxyHeader.Failure.INVALID);
        assertThat(read(v2(0x21, 0x21, new byte[35]))).isEqualTo(ProxyHeader.Failure.INVALID);
        // a TLV running past the header's end
        assertThat(read(v2(0x21, 0x11, HexFormat.of().parseHex("000000000000000000000000" + "020005" + "6162")))).isEqualTo(ProxyHeader.Failure.INVALID);
        byte[] sig = ProxyHeader.V2_SIG.clone();
        sig[11] = 0x0B;
        assertThat(read(sig)).isEqualTo(ProxyHeader.Failure.NOT_A_HEADER);
    }

    @Test
    void aCrc32cTlvIsChecked() {
        byte[] body = HexFormat.of().parseHex("7f000001" + "7f000001" + "0001" + "0002" + "030004" + "00000000");
        byte[] h = v2(0x21, 0x11, body);
        CRC32C crc = new CRC32C();
        crc.update(h);
        int v = (int) crc.getValue();
        byte[] good = h.clone();
        ByteBuffer.wrap(good).putInt(good.length - 4, v);
        assertThat(read(good)).isInstanceOf(ProxyHeader.Received.class);
        byte[] bad = h.clone();
        ByteBuffer.wrap(bad).putInt(bad.length - 4, v + 1);
        assertThat(read(bad)).isEqualTo(ProxyHeader.Failure.INVALID);
    }

    @Test
    void writtenHeadersAreHaproxys() throws Exception {
        ByteBufAllocator a = ByteBufAllocator.DEFAULT;
        assertThat(new String(bytes(ProxyHeader.write(a, 1, at("192.0.2.1", 56324), at("198.51.100.2", 443))), StandardCharsets.US_ASCII))
                .isEqualTo("PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\n");
        assertThat(new String(bytes(ProxyHeader.write(a, 1, at("2001:db8:0:0::1", 1), at("::1", 2))), StandardCharsets.US_ASCII))
                .isEqualTo("PROXY TCP6 2001:db8::1 ::1 1 2\r\n");
        // mixed families: the IPv4 one mapped into IPv6
        assertThat(new String(bytes(ProxyHeader.write(a, 1, at("192.0.2.1", 1), at("::1", 2))), StandardCharsets.US_ASCII))
                .isEqualTo("PROXY TCP6 ::ffff:192.0.2.1 ::1 1 2\r\n");
        assertThat(new String(bytes(ProxyHeader.write(a, 1, null, null)), StandardCharsets.US_ASCII)).isEqualTo("PROXY UNKNOWN\r\n");
        assertThat(HexFormat.of().formatHex(bytes(ProxyHeader.write(a, 2, at("127.0.0.1", 46020), at("127.0.0.1", 19081)))))
                .isEqualTo("0d0a0d0a000d0a515549540a" + "2111000c" + "7f000001" + "7f000001" + "b3c4" + "4a89");
        assertThat(HexFormat.of().formatHex(bytes(ProxyHeader.write(a, 2, null, null)))).isEqualTo("0d0a0d0a000d0a515549540a" + "20000000");
        // what is written reads back
        for (int v : new int[] {1, 2}) {
            ByteBuf b = ProxyHeader.write(a, v, at("2001:db8::7", 7), at("192.0.2.9", 9));
            try {
                ProxyHeader.Received r = (ProxyHeader.Received) ProxyHeader.read(b);
                assertThat(r.length()).isEqualTo(b.readableBytes());
                assertThat(r.source()).isEqualTo(at("2001:db8::7", 7));
                assertThat(r.destination().getPort()).isEqualTo(9);
                assertThat(ProxyHeader.text(r.destination().getAddress())).isEqualTo("::ffff:192.0.2.9");
            } finally {
                b.release();
            }
        }
    }

    /**
     * The extra fields a server connection's v2 header carries read back by the reader (which checks the CRC32C), and
     * the bytes of the SSL field: what Sluice writes, Sluice (as HAProxy) reads.
     */
    @Test
    void v2ExtraFieldsAreReadBack() throws Exception {
        int all = dev.sluice.config.model.Server.PP_V2_CRC32C | dev.sluice.config.model.Server.PP_V2_AUTHORITY
                | dev.sluice.config.model.Server.PP_V2_UNIQUE_ID | dev.sluice.config.model.Server.PP_V2_SSL
                | dev.sluice.config.model.Server.PP_V2_SSL_CIPHER;
        ProxyHeader.Client client = new ProxyHeader.Client("h2", "example.com", "id-1", "TLSv1.3", "TLS_AES_128_GCM_SHA256", null, null);
        byte[] header = bytes(ProxyHeader.write(ByteBufAllocator.DEFAULT, 2, at("192.0.2.1", 1000), at("198.51.100.2", 443), all, client));
        ProxyHeader.Received r = complete(header);
        assertThat(r.source()).isEqualTo(at("192.0.2.1", 1000));
        assertThat(r.authority()).isEqualTo("example.com");
        assertThat(new String(r.uniqueId(), StandardCharsets.ISO_8859_1)).isEqualTo("id-1");
        String hex = HexFormat.of().formatHex(header);
        assertThat(hex).endsWith("20" + "0028" + "01" + "00000000" + "210007" + HexFormat.of().formatHex("TLSv1.3".getBytes(StandardCharsets.US_ASCII))
                + "230016" + HexFormat.of().formatHex("TLS_AES_128_GCM_SHA256".getBytes(StandardCharsets.US_ASCII)));
        // a header whose CRC does not match is refused
        header[header.length - 1] ^= 1;
        assertThat(read(header)).isNotInstanceOf(ProxyHeader.Received.class);
        // without options the header is the plain one, whatever the client
        assertThat(bytes(ProxyHeader.write(ByteBufAllocator.DEFAULT, 2, at("192.0.2.1", 1000), at("198.51.100.2", 443), 0,
                new ProxyHeader.Client(null, "example.com", "id", "TLSv1.3", "x", null, null)))).hasSize(28);
    }
}
