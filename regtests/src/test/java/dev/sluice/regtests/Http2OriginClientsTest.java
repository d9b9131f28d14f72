package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real HTTP/2 clients (h2load, nghttp, curl with {@code -k}) over TLS (ALPN h2) and h2c (prior knowledge),
 * with an HTTP/2 origin behind: h2c ({@link H2Origin}) and h2 over TLS ({@link TlsOrigin}). Each tool's test
 * is skipped only when that tool is missing.
 */
class Http2OriginClientsTest {
    static final byte[] BODY = "from an h2 origin\n".getBytes(StandardCharsets.US_ASCII);

    static H2Origin h2c;
    static TlsOrigin h2Tls;
    static Sluice sluice;
    static int tlsPort;
    static int h2cPort;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = new TestPki("h2-clients-ca");
        TestPki.Issued origin = pki.leaf("origin.test");
        TestPki.Issued front = pki.leaf("front.test");
        h2c = new H2Origin(BODY);
        h2Tls = new TlsOrigin(origin, BODY, "h2");
        tlsPort = Ports.free();
        h2cPort = Ports.free();
        String cfg = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 30s
                    timeout server 30s
                frontend tls
                    bind 127.0.0.1:%d ssl crt %s
                    use_backend h2tls if { path_beg /tls/ }
                    default_backend h2c
                frontend clear
                    bind 127.0.0.1:%d proto h2
                    use_backend h2tls if { path_beg /tls/ }
                    default_backend h2c
                backend h2c
                    server s 127.0.0.1:%d proto h2
                backend h2tls
                    server s 127.0.0.1:%d ssl verify required ca-file %s sni str(origin.test) alpn h2
                """.formatted(tlsPort, front.pem(), h2cPort, h2c.port(), h2Tls.port(), pki.caFile());
        sluice = Sluice.start(cfg, tlsPort, h2cPort);
    }

    @AfterAll
    static void stop() throws Exception {
        try (AutoCloseable a = sluice; AutoCloseable b = h2c; AutoCloseable c = h2Tls) {
            // the daemon's close fails the class on a leak report
        }
    }

    /** The four ways in: TLS and h2c fronts, each to the h2c origin ({@code /c/...}) and the TLS one ({@code /tls/...}). */
    static List<String> urls(String name) {
        return List.of("https://127.0.0.1:" + tlsPort + "/c/" + name, "https://127.0.0.1:" + tlsPort + "/tls/" + name,
                "http://127.0.0.1:" + h2cPort + "/c/" + name, "http://127.0.0.1:" + h2cPort + "/tls/" + name);
    }

    static int requests() {
        return h2c.requests().size() + h2Tls.requests().size();
    }

    @Test
    void h2loadOverTlsAndH2c() throws Exception {
        Program.H2LOAD.require();
        int before = requests();
        for (String url : urls("load")) {
            String out = Http2Test.run(List.of("h2load", "-n", "200", "-c", "4", "-m", "10", url));
            assertThat(out).as(url).contains("200 succeeded, 0 failed, 0 errored, 0 timeout").contains("status codes: 200 2xx");
            if (url.startsWith("https")) {
                assertThat(out).as(url).contains("Application protocol: h2");
            } else {
                assertThat(out).as(url).contains("Application protocol: h2c");
            }
        }
        assertThat(requests() - before).isEqualTo(800);
        assertThat(h2Tls.requests()).extracting(TlsOrigin.Request::protocol).containsOnly("h2");
    }

    @Test
    void nghttpGetsAndPostsOverTlsAndH2c() throws Exception {
        Program.NGHTTP.require();
        byte[] up = new byte[1024 * 1024];
        new Random(21).nextBytes(up);
        Path upFile = Files.createTempFile("nghttp", ".bin");
        Files.write(upFile, up);
        int before = requests();
        for (String url : urls("ng")) {
            String v = Http2Test.run(List.of("nghttp", "-v", url));
            assertThat(v).as(url).contains(":status: 200").contains("x-origin: ").contains("from an h2 origin");
            if (url.startsWith("https")) {
                assertThat(v).as(url).contains("The negotiated protocol: h2");
            }
            // the body is the last line (nghttp warns first that it did not verify the certificate)
            String out = Http2Test.run(List.of("nghttp", "-d", upFile.toString(), url));
            assertThat(out.lines().toList().getLast()).as(url).isEqualTo(Origin.sha256(up));
        }
        assertThat(requests() - before).isEqualTo(8);
        assertThat(h2Tls.requests().getLast().authority()).isEqualTo("127.0.0.1:" + h2cPort);
        Files.delete(upFile);
    }

    @Test
    void curlWithInsecureOverHttp11Http2AndH2c() throws Exception {
        Program.CURL.require();
        int before = requests();
        for (String url : urls("curl")) {
            List<List<String>> flags = url.startsWith("https") ? List.of(List.of("--http2"), List.of("--http1.1"))
                    : List.of(List.of("--http2-prior-knowledge"));
            for (List<String> f : flags) {
                List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-k", "--max-time", "20", "-w", " %{http_version}"));
                cmd.addAll(f);
                cmd.add(url);
                String expected = f.contains("--http1.1") ? "1.1" : "2";
                assertThat(Http2Test.run(cmd)).as(url + " " + f).isEqualTo("from an h2 origin\n " + expected);
            }
        }
        assertThat(requests() - before).isEqualTo(6);
        assertThat(h2Tls.requests()).extracting(TlsOrigin.Request::protocol).containsOnly("h2");
    }
}
