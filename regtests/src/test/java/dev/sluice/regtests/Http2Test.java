package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** HTTP/2 in front (h2c with prior knowledge), translated to HTTP/1.1 towards the origin. */
class Http2Test {

    static String config(int port, Origin o) {
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(port, o.port());
    }

    static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(Program.command(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void curlWithPriorKnowledgeGetsAnHttp2ResponseFromAnHttp1Origin() throws Exception {
        Program.CURL.require();
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o), port)) {
                String out = run(List.of("curl", "-sS", "--http2-prior-knowledge", "-w", "%{http_version}", "-H", "Cookie: a=1",
                        "-H", "Cookie: b=2", "http://127.0.0.1:" + port + "/h2?q=1"));
                assertThat(out).isEqualTo("origin s1\n2");
                Origin.Request r = o.requests().get(0);
                assertThat(r.method()).isEqualTo("GET");
                assertThat(r.target()).isEqualTo("/h2?q=1");
                assertThat(r.version()).isEqualTo("HTTP/1.1");
                assertThat(r.header("host")).isEqualTo("127.0.0.1:" + port);
                // cookie fields joined with "; " for HTTP/1
                assertThat(r.head().all("cookie")).containsExactly("a=1; b=2");
            }
        }
    }

    /**
     * A bind without {@code proto h2} speaks HTTP/1 and also HTTP/2 to a client that starts with HTTP/2's preface (prior
     * knowledge), as HAProxy's HTTP/1 multiplexer upgrades; HTTP/1 clients are unaffected, and a preface cut short is an
     * HTTP/1 request like any other (400).
     */
    @Test
    void anHttp1BindAlsoTakesHttp2WithPriorKnowledge() throws Exception {
        Program.CURL.require();
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o).replace(" proto h2", ""), port)) {
                assertThat(run(List.of("curl", "-sS", "--http2-prior-knowledge", "-w", "%{http_version}", "http://127.0.0.1:" + port + "/two")))
                        .isEqualTo("origin s1\n2");
                assertThat(run(List.of("curl", "-sS", "-w", "%{http_version}", "http://127.0.0.1:" + port + "/one"))).isEqualTo("origin s1\n1.1");
                String h2load = run(List.of("h2load", "-n", "200", "-c", "4", "-m", "10", "http://127.0.0.1:" + port + "/many"));
                assertThat(h2load).contains("200 succeeded, 0 failed, 0 errored");
                try (RawClient c = new RawClient(port, 5_000)) {
                    // the preface arrives in two pieces
                    c.send("PRI * HTTP/2.0\r\n");
                    Thread.sleep(50);
                    c.send("\r\nSM\r\n\r\n");
                    byte[] settings = c.in().readNBytes(9);
                    assertThat(settings[3]).as("the server's first frame is SETTINGS").isEqualTo((byte) 4);
                }
                try (RawClient c = new RawClient(port, 5_000)) {
                    c.send("PRI * HT");
                    c.shutdownOutput();
                    assertThat(c.read().status()).isEqualTo(400);
                }
            }
        }
    }

    @Test
    void sixteenMebibytesEachWayOverH2c() throws Exception {
        Program.CURL.require();
        byte[] down = new byte[16 * 1024 * 1024];
        new Random(1).nextBytes(down);
        Origin.Handler h = (r, out) -> {
            if (r.method().equals("POST")) {
                Origin.respond(out, 200, "OK", Origin.headers(), r.sha256().getBytes(StandardCharsets.US_ASCII));
            } else {
                Origin.respond(out, 200, "OK", Origin.headers(), down);
            }
            return true;
        };
        try (Origin o = Origin.start("s1", h)) {
            int port = Ports.free();
            Path dir = Files.createTempDirectory("h2body");
            Path up = dir.resolve("up.bin");
            byte[] upData = new byte[16 * 1024 * 1024];
            new Random(2).nextBytes(upData);
            Files.write(up, upData);
            try (Sluice s = Sluice.start(config(port, o), port)) {
                String sha = run(List.of("curl", "-sS", "--http2-prior-knowledge", "--data-binary", "@" + up, "http://127.0.0.1:" + port + "/up"));
                assertThat(sha).isEqualTo(Origin.sha256(upData));
                Path got = dir.resolve("down.bin");
                run(List.of("curl", "-sS", "--http2-prior-knowledge", "-o", got.toString(), "http://127.0.0.1:" + port + "/down"));
                assertThat(Origin.sha256(Files.readAllBytes(got))).isEqualTo(Origin.sha256(down));
                // the upload went chunked to the HTTP/1.1 origin (curl sends a content-length: kept)
                assertThat(o.requests().get(0).header("content-length")).isEqualTo(Integer.toString(upData.length));
            }
        }
    }

    @Test
    void h2loadMultiplexesManyStreams() throws Exception {
        Program.H2LOAD.require();
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o), port)) {
                String out = run(List.of("h2load", "-n", "2000", "-c", "4", "-m", "20", "http://127.0.0.1:" + port + "/load"));
                assertThat(out).contains("2000 succeeded, 0 failed, 0 errored, 0 timeout").contains("status codes: 2000 2xx");
                assertThat(o.requests()).hasSize(2000);
            }
        }
    }

    @Test
    void nghttpSeesProperFramesAndGeneratedErrors() throws Exception {
        Program.NGHTTP.require();
        int port = Ports.free();
        int dead = Ports.free();
        String cfg = """
                defaults
                    mode http
                    timeout connect 100ms
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(port, dead);
        try (Sluice s = Sluice.start(cfg, port)) {
            String out = run(new ArrayList<>(List.of("nghttp", "-v", "http://127.0.0.1:" + port + "/")));
            assertThat(out).contains(":status: 503").contains("content-length: 107").contains("No server is available to handle this request.");
        }
    }
}
