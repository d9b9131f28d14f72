package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Responses the proxy generates when something fails, byte-compatible with HAProxy's. */
class ErrorsTest {

    static final String HAPROXY_503 = "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n";
    static final String HAPROXY_504 = "<html><body><h1>504 Gateway Time-out</h1>\nThe server didn't respond in time.\n</body></html>\n";
    static final String HAPROXY_502 = "<html><body><h1>502 Bad Gateway</h1>\nThe server returned an invalid or incomplete response.\n</body></html>\n";
    static final String HAPROXY_400_RAW = "HTTP/1.1 400 Bad request\r\nContent-length: 90\r\nCache-Control: no-cache\r\nConnection: close\r\n"
            + "Content-Type: text/html\r\n\r\n<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n</body></html>\n";
    static final String HAPROXY_408_RAW = "HTTP/1.1 408 Request Time-out\r\nContent-length: 110\r\nCache-Control: no-cache\r\nConnection: close\r\n"
            + "Content-Type: text/html\r\n\r\n<html><body><h1>408 Request Time-out</h1>\nYour browser didn't send a complete request in time.\n"
            + "</body></html>\n";

    static String config(int port, int serverPort, String timeouts) {
        return """
                defaults
                    mode http
                    timeout client 10s
                    %s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(timeouts, port, serverPort);
    }

    @Test
    void originDownGives503AfterRetries() {
        int dead = Ports.free();
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, dead, "timeout connect 100ms\n    timeout server 5s"), port); RawClient c = new RawClient(port)) {
            long t0 = System.nanoTime();
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.head().startLine()).isEqualTo("HTTP/1.1 503 Service Unavailable");
            assertThat(r.bodyText()).isEqualTo(HAPROXY_503);
            assertThat(r.header("content-length")).isEqualTo("107");
            assertThat(r.header("cache-control")).isEqualTo("no-cache");
            assertThat(r.header("content-type")).isEqualTo("text/html");
            // three retries, each after MIN(1s, timeout connect) = 100 ms
            assertThat(ms).isGreaterThanOrEqualTo(250);
            // the client connection is kept
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(503);
        }
    }

    @Test
    void originTooSlowGives504() {
        Origin.Handler slow = (r, out) -> {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return false;
        };
        try (Origin o = Origin.start("slow", slow)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "timeout connect 1s\n    timeout server 300ms"), port);
                    RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(504);
                assertThat(r.head().startLine()).isEqualTo("HTTP/1.1 504 Gateway Time-out");
                assertThat(r.bodyText()).isEqualTo(HAPROXY_504);
            }
        }
    }

    @Test
    void originSendingGarbageGives502() {
        Origin.Handler garbage = (r, out) -> {
            out.write("GARBAGE NOT HTTP\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return false;
        };
        try (Origin o = Origin.start("bad", garbage)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "timeout connect 1s\n    timeout server 5s"), port);
                    RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(502);
                assertThat(r.bodyText()).isEqualTo(HAPROXY_502);
            }
        }
    }

    @Test
    void originClosingBeforeAnsweringGives502() {
        try (Origin o = Origin.start("closer", (r, out) -> false)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "timeout connect 1s\n    timeout server 5s"), port);
                    RawClient c = new RawClient(port)) {
                assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(502);
            }
        }
    }

    @Test
    void truncatedResponseBodyClosesTheClientConnection() {
        Origin.Handler truncated = (r, out) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return false;
        };
        try (Origin o = Origin.start("trunc", truncated)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "timeout connect 1s\n    timeout server 5s"), port);
                    RawClient c = new RawClient(port)) {
                String all = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").readToEndText();
                assertThat(all).startsWith("HTTP/1.1 200 OK\r\n").endsWith("only this");
            }
        }
    }

    @Test
    void unparseableRequestGetsHaproxysRaw400AndTheConnectionCloses() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "timeout connect 1s\n    timeout server 5s"), port)) {
                for (String bad : List.of("GARBAGE\r\n\r\n", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
                        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab", "GET /#frag HTTP/1.1\r\nHost: x\r\n\r\n",
                        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")) {
                    try (RawClient c = new RawClient(port)) {
                        assertThat(c.send(bad).readToEndText()).as(bad).isEqualTo(HAPROXY_400_RAW);
                    }
                }
                assertThat(o.requests()).isEmpty();
            }
        }
    }

    @Test
    void incompleteRequestAtHttpRequestTimeoutGets408() {
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, Ports.free(), "timeout connect 1s\n    timeout server 5s\n    timeout http-request 300ms"), port)) {
            try (RawClient c = new RawClient(port)) {
                c.send("GET / HTTP/1.1\r\nHo");
                assertThat(c.readToEndText()).isEqualTo(HAPROXY_408_RAW);
            }
            // a fresh connection that sends nothing also gets 408, as with HAProxy
            try (RawClient c = new RawClient(port)) {
                assertThat(c.readToEndText()).isEqualTo(HAPROXY_408_RAW);
            }
        }
    }

    @Test
    void idleKeepAliveConnectionClosesSilently() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            String t = "timeout connect 1s\n    timeout server 5s\n    timeout http-request 5s\n    timeout http-keep-alive 300ms";
            try (Sluice s = Sluice.start(config(port, o.port(), t), port); RawClient c = new RawClient(port)) {
                assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                long t0 = System.nanoTime();
                assertThat(c.readToEnd()).isEmpty();
                assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(200L, 4000L);
            }
        }
    }

    @Test
    void clientClosingMidRequestIsHarmless() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o.port(), "timeout connect 1s\n    timeout server 5s"), port)) {
                for (int i = 0; i < 20; i++) {
                    try (RawClient c = new RawClient(port)) {
                        c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\npartial");
                    }
                }
                try (RawClient c = new RawClient(port)) {
                    assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                }
            }
        }
    }

    @Test
    void errorfilesReplaceTheBuiltInPagesAndAnEmptyOneCloses() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("errorfiles");
        java.nio.file.Path p503 = dir.resolve("503.http");
        java.nio.file.Files.writeString(p503, "HTTP/1.1 503 Service Unavailable\r\nCache-Control: no-cache\r\nContent-Type: text/plain\r\n"
                + "X-Custom: yes\r\n\r\nsorry, come back later\n");
        java.nio.file.Path p400 = dir.resolve("400.http");
        java.nio.file.Files.writeString(p400, "");
        int dead = Ports.free();
        int port = Ports.free();
        String cfg = """
                http-errors site
                    errorfile 503 %s
                defaults
                    mode http
                    timeout client 10s
                    timeout connect 100ms
                    timeout server 1s
                frontend fe
                    bind 127.0.0.1:%d
                    errorfile 400 %s
                    default_backend be
                backend be
                    errorfiles site
                    server s1 127.0.0.1:%d
                """.formatted(p503, port, p400, dead);
        try (Sluice s = Sluice.start(cfg, port)) {
            try (RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("x-custom")).isEqualTo("yes");
                assertThat(r.header("content-length")).isEqualTo("23");
                assertThat(r.bodyText()).isEqualTo("sorry, come back later\n");
            }
            try (RawClient c = new RawClient(port)) {
                // the empty 400 page: the connection closes without a reply
                assertThat(c.send("BAD REQUEST\r\n\r\n").readToEnd()).isEmpty();
            }
        }
    }
}
