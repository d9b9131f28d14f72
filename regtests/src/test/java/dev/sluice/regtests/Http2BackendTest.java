package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** HTTP/2 towards servers ({@code server ... proto h2}), from HTTP/1.1 and HTTP/2 clients. */
class Http2BackendTest {

    static String config(int h1Port, int h2Port, H2Origin o) {
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe1
                    bind 127.0.0.1:%d
                    default_backend be
                frontend fe2
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                backend be
                    http-reuse always
                    server s1 127.0.0.1:%d proto h2
                """.formatted(h1Port, h2Port, o.port());
    }

    @Test
    void http11ClientsAreMultiplexedOverFewServerConnections() throws Exception {
        try (H2Origin o = new H2Origin("from h2\n".getBytes(StandardCharsets.US_ASCII))) {
            int p1 = Ports.free();
            int p2 = Ports.free();
            try (Sluice s = Sluice.start(config(p1, p2, o), p1, p2)) {
                for (int c = 0; c < 10; c++) {
                    try (RawClient client = new RawClient(p1)) {
                        RawClient.Response r = client.send("GET /x" + c + " HTTP/1.1\r\nHost: example.test\r\nCookie: a=1\r\n\r\n").read();
                        assertThat(r.status()).isEqualTo(200);
                        assertThat(r.bodyText()).isEqualTo("from h2\n");
                        assertThat(r.header("x-origin")).isEqualTo("h2");
                    }
                }
                H2Origin.Request r = o.requests().get(0);
                assertThat(r.headers().method().toString()).isEqualTo("GET");
                assertThat(r.headers().path().toString()).isEqualTo("/x0");
                // an HTTP/1.1 client's origin-form request, as HAProxy 2.6 writes it: :scheme https whatever the connections,
                // no :authority, Host as a field (h2s_bck_make_req_headers)
                assertThat(r.headers().authority()).isNull();
                assertThat(r.headers().scheme().toString()).isEqualTo("https");
                assertThat(r.headers().get("host").toString()).isEqualTo("example.test");
                assertThat(r.headers().get("cookie").toString()).isEqualTo("a=1");
                // one connection per event loop at most: under http-reuse always each client's (first) request takes the
                // idle one (under the default, safe, each first request opens its own; see Http2ReuseTest)
                assertThat(o.connections()).isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors());
            }
        }
    }

    @Test
    void sixteenMebibytesUpAndDownThroughEveryClientProtocol() throws Exception {
        byte[] down = new byte[16 * 1024 * 1024];
        new Random(3).nextBytes(down);
        byte[] up = new byte[16 * 1024 * 1024];
        new Random(4).nextBytes(up);
        try (H2Origin o = new H2Origin(down)) {
            int p1 = Ports.free();
            int p2 = Ports.free();
            try (Sluice s = Sluice.start(config(p1, p2, o), p1, p2)) {
                // HTTP/1.1 client, chunked upload
                try (RawClient c = new RawClient(p1, 60_000)) {
                    c.send("POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
                    OutputStream out = c.out();
                    for (int off = 0; off < up.length; off += 65536) {
                        out.write((Integer.toHexString(65536) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(up, off, 65536);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    assertThat(c.read().bodyText()).isEqualTo(Origin.sha256(up));
                    RawClient.Response r = c.send("GET /down HTTP/1.1\r\nHost: x\r\n\r\n").read();
                    assertThat(Origin.sha256(r.body())).isEqualTo(Origin.sha256(down));
                }
                // HTTP/2 client (curl)
                Program.CURL.require();
                Path dir = Files.createTempDirectory("h2h2");
                Path upFile = dir.resolve("up.bin");
                Files.write(upFile, up);
                String sha = Http2Test.run(List.of("curl", "-sS", "--http2-prior-knowledge", "--data-binary", "@" + upFile,
                        "http://127.0.0.1:" + p2 + "/up"));
                assertThat(sha).isEqualTo(Origin.sha256(up));
                Path got = dir.resolve("down.bin");
                Http2Test.run(List.of("curl", "-sS", "--http2-prior-knowledge", "-o", got.toString(), "http://127.0.0.1:" + p2 + "/down"));
                assertThat(Origin.sha256(Files.readAllBytes(got))).isEqualTo(Origin.sha256(down));
            }
        }
    }
}
