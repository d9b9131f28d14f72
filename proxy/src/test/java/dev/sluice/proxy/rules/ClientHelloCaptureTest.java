package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The client hello capture on hand-made hellos, against HAProxy 2.6's ssl_sock_parse_clienthello read line by line: GREASE
 * values (what the parity test's clients never send), the room running out, a last extension without data (HAProxy stops
 * before it), and hellos it refuses.
 */
class ClientHelloCaptureTest {

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    /** A ClientHello handshake message: version 0x0303, a zero random, a 2-byte session id, the given lists. */
    private static byte[] hello(String ciphers, String extensions) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(hex("0303"));
        body.writeBytes(new byte[32]);
        body.writeBytes(hex("02 abcd"));
        byte[] c = hex(ciphers);
        body.write(c.length >> 8);
        body.write(c.length);
        body.writeBytes(c);
        body.writeBytes(hex("01 00"));
        if (extensions != null) {
            byte[] e = hex(extensions);
            body.write(e.length >> 8);
            body.write(e.length);
            body.writeBytes(e);
        }
        byte[] b = body.toByteArray();
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        m.write(1);
        m.write(b.length >> 16);
        m.write(b.length >> 8);
        m.write(b.length);
        m.writeBytes(b);
        return m.toByteArray();
    }

    // extensions: GREASE 0x3a3a (empty data, 4 more bytes follow), supported groups [0x2a2a, x25519, P-256],
    // point formats [0], and a last empty extension 0x0017 that HAProxy's loop never reads
    private static final String EXTENSIONS = "3a3a 0000" + " 000a 0008 0006 2a2a 001d 0017" + " 000b 0002 01 00" + " 0017 0000";

    @Test
    void listsAsHaproxyKeepsThem() {
        ClientHelloCapture c = ClientHelloCapture.parse(hello("0a0a 1301 c02f 00ff", EXTENSIONS), 4096);
        assertThat(c.protocolVersion()).isEqualTo(0x0303);
        assertThat(c.ciphers(false)).isEqualTo(hex("0a0a 1301 c02f 00ff"));
        assertThat(c.ciphers(true)).isEqualTo(hex("1301 c02f 00ff"));
        assertThat(c.extensions(false)).isEqualTo(hex("3a3a 000a 000b"));
        assertThat(c.extensions(true)).isEqualTo(hex("000a 000b"));
        assertThat(c.groups(false)).isEqualTo(hex("2a2a 001d 0017"));
        assertThat(c.groups(true)).isEqualTo(hex("001d 0017"));
        assertThat(c.pointFormats()).isEqualTo(hex("00"));
        assertThat(c.cipherListHash()).isEqualTo(XxHash.xxh64(hex("0a0a 1301 c02f 00ff"), 0));
        assertThat(ClientHelloCapture.cipherNames(c.ciphers(false)))
                .isEqualTo("UNKNOWN(0a0a),TLS_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256,TLS_EMPTY_RENEGOTIATION_INFO_SCSV");
    }

    @Test
    void theRoomEndsTheLists() {
        // 8 bytes: 6 of ciphers, one extension id, then no room for the groups (cut to nothing) nor the formats
        ClientHelloCapture c = ClientHelloCapture.parse(hello("1301 1302 1303", EXTENSIONS), 8);
        assertThat(c.ciphers(false)).isEqualTo(hex("1301 1302 1303"));
        assertThat(c.extensions(false)).isEqualTo(hex("3a3a"));
        assertThat(c.groups(false)).isEmpty();
        assertThat(c.pointFormats()).isEmpty();
        // a cipher list longer than the room is cut, its hash is of the whole
        ClientHelloCapture cut = ClientHelloCapture.parse(hello("1301 1302 1303", EXTENSIONS), 3);
        assertThat(cut.ciphers(false)).isEqualTo(hex("1301 13"));
        assertThat(cut.ciphers(true)).isEqualTo(hex("1301 13"));
        assertThat(cut.cipherListHash()).isEqualTo(c.cipherListHash());
        assertThat(ClientHelloCapture.cipherNames(cut.ciphers(false))).isEqualTo("TLS_AES_128_GCM_SHA256");
    }

    @Test
    void refusedOrPartialHellos() {
        byte[] h = hello("1301", null);
        // no extensions: the cipher list only
        assertThat(ClientHelloCapture.parse(h, 64).extensions(false)).isEmpty();
        // not a ClientHello, or shorter than its length says: nothing
        byte[] server = h.clone();
        server[0] = 2;
        assertThat(ClientHelloCapture.parse(server, 64)).isNull();
        assertThat(ClientHelloCapture.parse(java.util.Arrays.copyOf(h, h.length - 1), 64)).isNull();
        assertThat(ClientHelloCapture.parse(hex("01 000001 03"), 64)).isNull();
        // an extension whose length runs past the list: its id was kept before its length was read, nothing after
        byte[] bad = hello("1301", "000a 0008 0006 001d");
        ClientHelloCapture c = ClientHelloCapture.parse(bad, 64);
        assertThat(c.ciphers(false)).isEqualTo(hex("1301"));
        assertThat(c.extensions(false)).isEqualTo(hex("000a"));
        assertThat(c.groups(false)).isEmpty();
    }
}
