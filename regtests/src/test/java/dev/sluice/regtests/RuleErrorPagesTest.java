package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Error pages in rules: {@code deny|return|tarpit ... errorfile <file> | errorfiles <http-errors> |
 * default-errorfiles}, {@code tarpit} with its own content and {@code timeout tarpit}; the same answers as
 * HAProxy 2.6.
 */
class RuleErrorPagesTest {

    private static Path page(Path dir, String name, String status, String body) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, "HTTP/1.1 " + status + "\r\nContent-Type: text/plain\r\nX-Page: " + name + "\r\nContent-Length: " + body.length()
                + "\r\n\r\n" + body, StandardCharsets.ISO_8859_1);
        return f;
    }

    static String config() throws Exception {
        Path dir = Files.createTempDirectory("sluice-pages");
        Path e401 = page(dir, "401.http", "401 Unauthorized", "section 401\n");
        Path e403 = page(dir, "403.http", "403 Forbidden", "section 403\n");
        Path own = page(dir, "own.http", "429 Too Many Requests", "own page\n");
        Path fe503 = page(dir, "fe503.http", "503 Service Unavailable", "frontend 503\n");
        Path empty = dir.resolve("empty.http");
        Files.writeString(empty, "");
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s

                http-errors site
                    errorfile 401 %s
                    errorfile 403 %s

                frontend fe
                    bind 127.0.0.1:@FE@
                    timeout tarpit 100ms
                    errorfile 503 %s
                    http-request deny deny_status 401 errorfiles site if { path /auth }
                    http-request deny errorfiles site if { path /forbidden }
                    http-request deny deny_status 404 errorfiles site if { path /notinsection }
                    http-request deny deny_status 429 errorfile %s if { path /own }
                    http-request return status 503 default-errorfiles if { path /default }
                    http-request return status 403 errorfiles site if { path /ret }
                    http-request deny errorfile %s if { path /empty }
                    http-request tarpit deny_status 429 content-type text/plain string "slow down\\n" hdr x-why tarpit if { path /tar }
                    http-request tarpit if { path /tar2 }
                    default_backend be

                backend be
                    server s1 127.0.0.1:@O1@
                """.formatted(e401, e403, fe503, own, empty);
    }

    @Test
    void rulePagesAnswerAsHaproxy() throws Exception {
        HaproxyParityTest.assertSameAsHaproxyWith(config(), List.of(
                "GET /auth HTTP/1.1\r\n\r\n",
                "GET /forbidden HTTP/1.1\r\n\r\n",
                "GET /notinsection HTTP/1.1\r\n\r\n",
                "GET /own HTTP/1.1\r\n\r\n",
                "GET /default HTTP/1.1\r\n\r\n",
                "GET /ret HTTP/1.1\r\n\r\n",
                // an empty errorfile: both close without a reply
                HaproxyParityTest.NO_RESPONSE_EXPECTED + "GET /empty HTTP/1.1\r\n\r\n",
                "GET /tar HTTP/1.1\r\n\r\n",
                "GET /tar2 HTTP/1.1\r\n\r\n",
                "GET / HTTP/1.1\r\n\r\n"));
    }

    @Test
    void rulePagesAnswerWithTheirFiles() throws Exception {
        try (Origin o = EchoOrigin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(HaproxyParityTest.fill(config(), port, o, o), port)) {
                RawClient.Response r = new RawClient(port).send("GET /auth HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(401);
                assertThat(r.header("x-page")).isEqualTo("401.http");
                assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("section 401\n");
                r = new RawClient(port).send("GET /own HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(429);
                assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("own page\n");
                r = new RawClient(port).send("GET /default HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("frontend 503\n");
                try (RawClient c = new RawClient(port)) {
                    assertThat(c.send("GET /empty HTTP/1.1\r\nhost: x\r\n\r\n").readToEnd()).isEmpty();
                }
                r = new RawClient(port).send("GET /tar HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(429);
                assertThat(r.header("x-why")).isEqualTo("tarpit");
                assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("slow down\n");
            }
        }
    }
}
