package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The extra fields (TLVs) of the PROXY protocol v2 header a server connection starts with: {@code proxy-v2-options}
 * ({@code ssl}, {@code ssl-cipher}, {@code cert-*}, {@code authority}, {@code unique-id}, {@code crc32c}),
 * {@code send-proxy-v2-ssl} and {@code send-proxy-v2-ssl-cn}, and the ALPN field HAProxy adds whenever the client agreed
 * one. The same configuration runs in HAProxy 2.6 and in Sluice, clients over TLS 1.3, TLS 1.2 and clear text, and a
 * health check; the fields after the addresses must be the same bytes (the CRC, which covers the client's port, is
 * checked and then masked).
 */
class ProxyV2FieldsTest {

    @Test
    void extraFieldsAreHaproxys() throws Exception {
        List<String> sluice = run(false);
        assertThat(sluice).containsExactly(
                // TLS 1.3, HTTP/1.1: crc32c, alpn, authority, unique id "id-a", ssl (client ssl, verify 0, version, the key
                // and signature algorithms of the frontend's own certificate, cipher; no CN: the client sent no certificate)
                "0300" + "04crc" + "010008" + hex("http/1.1") + "020007" + hex("pp.test") + "050004" + hex("id-a")
                        + "20" + len(5 + 3 + 7 + 3 + 5 + 3 + 17 + 3 + 22) + "01" + "00000000" + "210007" + hex("TLSv1.3") + "250005" + hex("EC256")
                        + "240011" + hex("ecdsa-with-SHA256") + "230016" + hex("TLS_AES_128_GCM_SHA256"),
                // TLS 1.2, HTTP/2: the cipher by OpenSSL's name
                "0300" + "04crc" + "010002" + hex("h2") + "020007" + hex("pp.test") + "050004" + hex("id-b")
                        + "20" + len(5 + 3 + 7 + 3 + 5 + 3 + 17 + 3 + 29) + "01" + "00000000" + "210007" + hex("TLSv1.2") + "250005" + hex("EC256")
                        + "240011" + hex("ecdsa-with-SHA256") + "23001d" + hex("ECDHE-ECDSA-AES128-GCM-SHA256"),
                // clear text: no alpn, no authority; the ssl field says "not TLS"; no unique-id-format match: "id-"
                "0300" + "04crc" + "050003" + hex("id-") + "200005" + "00" + "00000000",
                // send-proxy-v2-ssl-cn over TLS 1.3 without a client certificate: the ssl field, no CN
                "010002" + hex("h2") + "20" + len(5 + 3 + 7) + "01" + "00000000" + "210007" + hex("TLSv1.3"),
                // a health check: LOCAL, then crc32c and the ssl field of a connection without TLS
                "local 0300" + "04crc" + "200005" + "00" + "00000000");
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").isEqualTo(sluice);
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    private static String len(int n) {
        return String.format("%04x", n);
    }

    private static List<String> run(boolean haproxy) throws Exception {
        TestPki pki = new TestPki("ppv2-ca");
        TestPki.Issued cert = pki.leaf("pp.test");
        try (ProxyProtocolTest.HeaderOrigin all = new ProxyProtocolTest.HeaderOrigin(); ProxyProtocolTest.HeaderOrigin cn = new ProxyProtocolTest.HeaderOrigin();
                ProxyProtocolTest.HeaderOrigin chk = new ProxyProtocolTest.HeaderOrigin()) {
            int tls = Ports.free();
            int plain = Ports.free();
            String cfg = """
                    defaults
                        mode http
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind 127.0.0.1:%d ssl crt %s alpn h2,http/1.1
                        bind 127.0.0.1:%d
                        unique-id-format id-%%[req.hdr(x-id)]
                        use_backend cn if { path_beg /cn }
                        default_backend all
                    backend all
                        server s 127.0.0.1:%d send-proxy-v2 proxy-v2-options ssl,ssl-cipher,cert-cn,cert-key,cert-sig,authority,unique-id,crc32c
                    backend cn
                        server s 127.0.0.1:%d send-proxy-v2-ssl-cn
                    backend chk
                        option httpchk GET /health
                        server c 127.0.0.1:%d send-proxy-v2 proxy-v2-options ssl,crc32c,authority,unique-id check inter 200ms
                    """.formatted(tls, cert.pem(), plain, all.port(), cn.port(), chk.port());
            try (Daemon d = Daemon.start(haproxy, cfg, tls)) {
                String url = "https://pp.test:" + tls;
                String resolve = "pp.test:" + tls + ":127.0.0.1";
                List<String> out = new ArrayList<>();
                out.add(fields(Http2Test.run(List.of("curl", "-sS", "-k", "--resolve", resolve, "--http1.1", "--tlsv1.3", "--tls13-ciphers",
                        "TLS_AES_128_GCM_SHA256", "-H", "x-id: a", url + "/"))));
                out.add(fields(Http2Test.run(List.of("curl", "-sS", "-k", "--resolve", resolve, "--http2", "--tlsv1.2", "--tls-max", "1.2",
                        "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256", "-H", "x-id: b", url + "/"))));
                out.add(fields(Http2Test.run(List.of("curl", "-sS", "http://127.0.0.1:" + plain + "/"))));
                out.add(fields(Http2Test.run(List.of("curl", "-sS", "-k", "--resolve", resolve, "--http2", "--tlsv1.3", url + "/cn"))));
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (chk.headers.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(chk.headers).isNotEmpty();
                out.add(fields(chk.headers.get(0) + " conn=1"));
                return out;
            }
        }
    }

    /**
     * The fields of a header as {@link ProxyProtocolTest.HeaderOrigin} answers it ("v2 " + hex of bytes 12-15, " ",
     * hex of the rest, " conn=N"): what follows the addresses, the CRC checked and masked ("local " first for LOCAL).
     */
    private static String fields(String answer) {
        assertThat(answer).startsWith("v2 ");
        String[] parts = answer.split(" ");
        String head = parts[1];
        String body = parts[2];
        boolean local = head.startsWith("20");
        String tlvs = local ? body : body.substring(24);
        if (tlvs.startsWith("030004")) {
            byte[] all = HexFormat.of().parseHex("0d0a0d0a000d0a515549540a" + head + body);
            int at = 16 + (local ? 0 : 12) + 3;
            long sent = ((all[at] & 0xffL) << 24) | ((all[at + 1] & 0xff) << 16) | ((all[at + 2] & 0xff) << 8) | (all[at + 3] & 0xff);
            for (int i = 0; i < 4; i++) {
                all[at + i] = 0;
            }
            CRC32C crc = new CRC32C();
            crc.update(all);
            assertThat(sent).as("crc32c of " + answer).isEqualTo(crc.getValue());
            tlvs = "0300" + "04crc" + tlvs.substring(14);
        }
        return (local ? "local " : "") + tlvs;
    }
}
