package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS towards servers ({@code server ... ssl}): certificate verification ({@code verify none}, and
 * {@code verify required} with a good and a wrong {@code ca-file}), the server name sent ({@code sni}), and
 * HTTP/2 or HTTP/1.1 chosen by ALPN. The origin is {@link TlsOrigin} (Netty on the JDK's TLS).
 */
class TlsBackendTest {
    static TestPki pki;
    static TestPki other;
    static TestPki.Issued origin;
    static TestPki.Issued selfSigned;

    @BeforeAll
    static void certificates() {
        pki = new TestPki("origin-ca");
        other = new TestPki("other-ca");
        origin = pki.leaf("origin.test", "www.origin.test");
        selfSigned = pki.selfSigned("self.test");
    }

    static String config(int port, String serverOptions, int originPort) {
        return """
                defaults
                    mode http
                    timeout connect 500ms
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d ssl %s
                """.formatted(port, originPort, serverOptions);
    }

    static RawClient.Response get(int port, String path, String host) {
        try (RawClient c = new RawClient(port)) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
        }
    }

    @Test
    void verifyNoneAcceptsASelfSignedCertificate() throws Exception {
        try (TlsOrigin o = new TlsOrigin(selfSigned, "secret\n".getBytes(StandardCharsets.US_ASCII))) {
            int port = Ports.free();
            // http-reuse always: each request below comes on a new client connection (a first request, which
            // the default policy, safe, sends on a new server connection)
            String cfg = config(port, "verify none", o.port()).replace("\nbackend be\n", "\nbackend be\n    http-reuse always\n");
            try (Sluice s = Sluice.start(cfg, port)) {
                for (int i = 0; i < 3; i++) {
                    RawClient.Response r = get(port, "/x" + i, "example.test");
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.bodyText()).isEqualTo("secret\n");
                    assertThat(r.header("x-origin")).isEqualTo("tls-h1");
                }
                assertThat(o.requests()).extracting(TlsOrigin.Request::protocol).containsOnly("http/1.1");
                // an IP address names no server: no SNI; the idle TLS connection is reused
                assertThat(o.serverNames()).containsOnly("");
                assertThat(o.handshakes()).isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors());
            }
        }
    }

    @Test
    void verifyRequiredChecksTheChainAndAWrongCaGivesA503AfterRetries() throws Exception {
        try (TlsOrigin o = new TlsOrigin(origin, "verified\n".getBytes(StandardCharsets.US_ASCII))) {
            int good = Ports.free();
            int bad = Ports.free();
            String cfg = config(good, "verify required ca-file " + pki.caFile(), o.port())
                    + """
                    frontend fe2
                        bind 127.0.0.1:%d
                        default_backend be2
                    backend be2
                        server s1 127.0.0.1:%d ssl verify required ca-file %s
                    """.formatted(bad, o.port(), other.caFile());
            try (Sluice s = Sluice.start(cfg, good, bad)) {
                RawClient.Response ok = get(good, "/ok", "example.test");
                assertThat(ok.status()).isEqualTo(200);
                assertThat(ok.bodyText()).isEqualTo("verified\n");
                int before = o.connections();
                RawClient.Response refused = get(bad, "/no", "example.test");
                assertThat(refused.status()).isEqualTo(503);
                // the first attempt and retries 3 times, as HAProxy does; nothing reaches the origin
                assertThat(o.connections() - before).isEqualTo(4);
                assertThat(o.requests()).extracting(TlsOrigin.Request::target).containsExactly("/ok");
            }
        }
    }

    @Test
    void sniIsAConstantOrTheHostHeaderAndIsVerified() throws Exception {
        try (TlsOrigin o = new TlsOrigin(origin, "named\n".getBytes(StandardCharsets.US_ASCII))) {
            int constant = Ports.free();
            int fromHost = Ports.free();
            int wrong = Ports.free();
            String cfg = config(constant, "verify required ca-file " + pki.caFile() + " sni str(origin.test)", o.port())
                    + """
                    frontend fe2
                        bind 127.0.0.1:%d
                        default_backend be2
                    backend be2
                        server s1 127.0.0.1:%d ssl verify required ca-file %s sni req.hdr(host)
                    frontend fe3
                        bind 127.0.0.1:%d
                        default_backend be3
                    backend be3
                        server s1 127.0.0.1:%d ssl verify required ca-file %s sni str(elsewhere.test)
                    """.formatted(fromHost, o.port(), pki.caFile(), wrong, o.port(), pki.caFile());
            try (Sluice s = Sluice.start(cfg, constant, fromHost, wrong)) {
                assertThat(get(constant, "/c", "whatever.example").status()).isEqualTo(200);
                assertThat(o.serverNames()).containsExactly("origin.test");
                // the Host header (its port dropped) names the server, and the certificate must cover it
                assertThat(get(fromHost, "/h", "www.origin.test:8443").status()).isEqualTo(200);
                assertThat(o.serverNames()).last().isEqualTo("www.origin.test");
                // a connection is only reused for the same name
                assertThat(get(fromHost, "/h2", "origin.test").status()).isEqualTo(200);
                assertThat(o.serverNames()).last().isEqualTo("origin.test");
                assertThat(get(fromHost, "/h3", "nomatch.test").status()).isEqualTo(503);
                // a name the certificate does not cover fails verification
                assertThat(get(wrong, "/w", "origin.test").status()).isEqualTo(503);
                assertThat(o.requests()).extracting(TlsOrigin.Request::target).containsExactly("/c", "/h", "/h2");
            }
        }
    }

    @Test
    void alpnChoosesHttp2WhenTheServerOffersItAndHttp11Otherwise() throws Exception {
        Program.H2LOAD.require();
        byte[] body = "alpn\n".getBytes(StandardCharsets.US_ASCII);
        try (TlsOrigin h2 = new TlsOrigin(origin, body, "h2", "http/1.1"); TlsOrigin h1 = new TlsOrigin(origin, body, "http/1.1")) {
            int p2 = Ports.free();
            int p1 = Ports.free();
            String cfg = """
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 10s
                        timeout server 10s
                    frontend fe
                        bind 127.0.0.1:%d proto h2
                        default_backend be
                    backend be
                        http-reuse always
                        server s1 127.0.0.1:%d ssl verify required ca-file %s alpn h2,http/1.1
                    frontend fe1
                        bind 127.0.0.1:%d proto h2
                        default_backend be1
                    backend be1
                        server s1 127.0.0.1:%d ssl verify required ca-file %s alpn h2,http/1.1
                    """.formatted(p2, h2.port(), pki.caFile(), p1, h1.port(), pki.caFile());
            try (Sluice s = Sluice.start(cfg, p2, p1)) {
                String out = Http2Test.run(List.of("h2load", "-n", "400", "-c", "4", "-m", "10", "http://127.0.0.1:" + p2 + "/m"));
                assertThat(out).contains("400 succeeded, 0 failed, 0 errored, 0 timeout").contains("status codes: 400 2xx");
                assertThat(h2.requests()).hasSize(400).extracting(TlsOrigin.Request::protocol).containsOnly("h2");
                assertThat(h2.requests().get(0).authority()).isEqualTo("127.0.0.1:" + p2);
                // multiplexed: one connection per event loop at most (http-reuse always: under safe, a connection carrying
                // streams of one client connection is not shared with the others, see Http2ReuseTest)
                assertThat(h2.handshakes()).isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors());

                String out1 = Http2Test.run(List.of("h2load", "-n", "400", "-c", "4", "-m", "10", "http://127.0.0.1:" + p1 + "/s"));
                assertThat(out1).contains("400 succeeded, 0 failed, 0 errored, 0 timeout").contains("status codes: 400 2xx");
                assertThat(h1.requests()).hasSize(400).extracting(TlsOrigin.Request::protocol).containsOnly("http/1.1");
            }
        }
    }

    @Test
    void sixteenMebibytesEachWayThroughTlsOnBothSides() throws Exception {
        Program.CURL.require();
        byte[] down = new byte[16 * 1024 * 1024];
        new Random(8).nextBytes(down);
        byte[] up = new byte[16 * 1024 * 1024];
        new Random(9).nextBytes(up);
        TestPki.Issued front = pki.leaf("front.test");
        try (TlsOrigin o = new TlsOrigin(origin, down, "h2", "http/1.1")) {
            int port = Ports.free();
            String cfg = """
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 30s
                        timeout server 30s
                    frontend fe
                        bind 127.0.0.1:%d ssl crt %s
                        default_backend be
                    backend be
                        server s1 127.0.0.1:%d ssl verify required ca-file %s sni str(origin.test) alpn h2,http/1.1
                    """.formatted(port, front.pem(), o.port(), pki.caFile());
            Path dir = Files.createTempDirectory("tls2tls");
            Path upFile = dir.resolve("up.bin");
            Files.write(upFile, up);
            try (Sluice s = Sluice.start(cfg, port)) {
                for (String proto : List.of("--http2", "--http1.1")) {
                    List<String> curl = List.of("curl", "-sS", proto, "--cacert", pki.caFile().toString(), "--resolve",
                            "front.test:" + port + ":127.0.0.1");
                    String sha = Http2Test.run(concat(curl, "--data-binary", "@" + upFile, "https://front.test:" + port + "/up"));
                    assertThat(sha).as(proto).isEqualTo(Origin.sha256(up));
                    Path got = dir.resolve("down" + proto);
                    Http2Test.run(concat(curl, "-o", got.toString(), "https://front.test:" + port + "/down"));
                    assertThat(Origin.sha256(Files.readAllBytes(got))).as(proto).isEqualTo(Origin.sha256(down));
                }
                assertThat(o.requests()).extracting(TlsOrigin.Request::protocol).containsOnly("h2");
            }
        }
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> l = new java.util.ArrayList<>(a);
        l.addAll(List.of(b));
        return l;
    }
}
