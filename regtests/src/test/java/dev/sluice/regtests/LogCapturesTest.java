package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What log lines keep of an exchange beyond timers: header and cookie captures ({@code %hr %hs %hrl %hsl
 * %CC %CS}), {@code http-request capture}, {@code %[...]} samples, {@code unique-id-format} and
 * {@code unique-id-header}, {@code option logasap}, {@code set-log-level}; the same line as HAProxy 2.6.
 */
class LogCapturesTest {

    private static final String CONFIG = """
            global
                log stdout format raw local0
            defaults
                mode http
                log global
                timeout client 5s
                timeout server 5s
                timeout connect 5s
            frontend fe
                bind 127.0.0.1:@FE@
                capture request header Host len 20
                capture request header User-Agent len 5
                capture response header Content-Type len 30
                capture cookie SID len 10
                declare capture request len 8
                http-request capture req.hdr(x-tag) len 6
                http-request capture path id 2
                unique-id-format %{+X}o\\ %ci:%cp_%fi:%fp_%Ts_%rt:%pid
                unique-id-header X-Unique-ID
                log-format "%ci %hr %hs %CC %CS [%[capture.req.hdr(0),lower]] %[capture.req.hdr(3)] %{+Q}[capture.req.uri] %[capture.res.hdr(0)] %[var(txn.none)] %ST %ID %hrl %hsl %{+Q}hr"
                default_backend be
            backend be
                server o 127.0.0.1:@O1@
            """;

    private static final String REQUEST = "GET /hello?q=1 HTTP/1.1\r\nHost: WWW.Example.COM\r\nUser-Agent: curl-test|{x}\r\n"
            + "Cookie: a=1; SIDX=abcdefghijklmnop; SID=2\r\nX-Tag: tag1234567\r\n\r\n";

    private static Origin origin(String name, List<String> ids) {
        return Origin.start(name, (r, out) -> {
            String id = r.head().get("x-unique-id");
            if (id != null) {
                ids.add(id);
            }
            Origin.respond(out, 200, "OK", Origin.headers("Content-Type", "text/plain; charset=\"utf-8\"", "Set-Cookie", "SIDS=xyz; Path=/"),
                    "ok\n".getBytes(StandardCharsets.US_ASCII));
            return true;
        });
    }

    /** The line with what differs between two runs (client port, unique id) masked. */
    private static String masked(String line) {
        return line.replaceAll("[0-9A-F]{8}:[0-9A-F]{4}_[0-9A-F]{8}:[0-9A-F]{4}_[0-9A-F]{8}_[0-9A-F]{4}:[0-9A-F]{4,}", "<ID>");
    }

    @Test
    void capturesSamplesAndUniqueIdsAsHaproxyLogsThem() throws Exception {
        List<String> ids = new ArrayList<>();
        try (Origin o = origin("o1", ids)) {
            int port = Ports.free();
            String cfg = HaproxyParityTest.fill(CONFIG, port, o, o);
            String line;
            try (Sluice s = Sluice.start(cfg, port)) {
                try (RawClient c = new RawClient(port)) {
                    assertThat(c.send(REQUEST).read().status()).isEqualTo(200);
                }
                List<String> lines = AccessLogTest.lines(s, 2).stream().filter(l -> l.startsWith("127.0.0.1 ") && l.contains(" 200 ")).toList();
                assertThat(lines).hasSize(1);
                line = lines.get(0);
            }
            assertThat(line).startsWith("127.0.0.1 {WWW.Example.COM|curl-|/hello|tag123} {text/plain; charset=#22utf-8#22} SIDX=abcde SIDS=xyz"
                    + " [www.example.com] tag123 \"/hello?q=1\" text/plain; charset=\"utf-8\" - 200 ");
            assertThat(line).endsWith(" WWW.Example.COM curl- /hello tag123 text/plain; charset=#22utf-8#22"
                    + " \"{WWW.Example.COM|curl-|/hello|tag123}\"");
            // the id logged is the one the server received; it starts with the client address in hex
            assertThat(ids).hasSize(1);
            assertThat(ids.get(0)).matches("7F000001:[0-9A-F]{4}_7F000001:[0-9A-F]{4}_[0-9A-F]{8}_[0-9A-F]{4}:[0-9A-F]{4,}");
            assertThat(line).contains(" 200 " + ids.get(0) + " ");

            String haproxy = Program.HAPROXY.require();
            int hport = Ports.free();
            Path hcfg = Sluice.writeConfig(HaproxyParityTest.fill(CONFIG, hport, o, o));
            Path out = hcfg.resolveSibling("haproxy.out");
            Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try {
                HaproxyParityTest.waitFor(hport);
                try (RawClient c = new RawClient(hport)) {
                    assertThat(c.send(REQUEST).read().status()).isEqualTo(200);
                }
                String theirs = null;
                for (int i = 0; i < 100 && theirs == null; i++) {
                    // (haproxy logs the readiness probe too: a 400 line)
                    theirs = Files.readAllLines(out).stream().filter(l -> l.startsWith("127.0.0.1 ") && l.contains(" 200 ")).findFirst()
                            .orElse(null);
                    Thread.sleep(20);
                }
                assertThat(masked(line)).isEqualTo(masked(theirs));
            } finally {
                h.destroy();
                h.waitFor();
            }
        }
    }

    @Test
    void logasapLogsWhenTheHeadLeavesWithPlusSigns() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Origin o = Origin.start("slow", (r, out) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            out.write("ok\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return true;
        })) {
            int port = Ports.free();
            String cfg = """
                    global
                        log stdout format raw local0
                    defaults
                        mode http
                        log global
                        option httplog
                        option logasap
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        server o 127.0.0.1:%d
                    """.formatted(port, o.port());
            try (Sluice s = Sluice.start(cfg, port); RawClient c = new RawClient(port)) {
                c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
                // the line is there while the body is still held by the server
                List<String> lines = AccessLogTest.lines(s, 1);
                release.countDown();
                assertThat(c.read().status()).isEqualTo(200);
                assertThat(lines).hasSize(1);
                AccessLogTest.Line l = AccessLogTest.parse(lines.get(0).replaceAll("/\\+(\\d+) ", "/$1 ").replaceAll(" 200 \\+(\\d+) ", " 200 $1 "));
                assertThat(l.status()).isEqualTo(200);
                assertThat(lines.get(0)).containsPattern("/\\+\\d+ 200 \\+\\d+ ");
            }
        }
    }

    @Test
    void setLogLevelChangesTheSyslogPriorityOrSilencesTheLine() throws Exception {
        try (DatagramSocket syslog = new DatagramSocket(0, InetAddress.getLoopbackAddress()); Origin o = Origin.start("o1")) {
            syslog.setSoTimeout(5000);
            int port = Ports.free();
            String cfg = """
                    global
                        log 127.0.0.1:%d local0
                    defaults
                        mode http
                        log global
                        option httplog
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        http-request set-log-level silent if { path /quiet }
                        http-request set-log-level err if { path /loud }
                        default_backend be
                    backend be
                        server o 127.0.0.1:%d
                    """.formatted(syslog.getLocalPort(), port, o.port());
            try (Sluice s = Sluice.start(cfg, port)) {
                for (String path : new String[] {"/quiet", "/loud", "/plain"}) {
                    try (RawClient c = new RawClient(port)) {
                        assertThat(c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                    }
                }
                List<String> got = new ArrayList<>();
                byte[] buf = new byte[4096];
                while (got.size() < 2) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    syslog.receive(p);
                    String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                    if (m.contains("\"GET ")) {
                        got.add(m);
                    }
                }
                // local0 (16): err is <131>, info <134>; the silenced request sent nothing
                assertThat(got.get(0)).startsWith("<131>").contains("\"GET /loud HTTP/1.1\"");
                assertThat(got.get(1)).startsWith("<134>").contains("\"GET /plain HTTP/1.1\"");
            }
        }
    }

    /**
     * Captures exist whether or not the frontend logs: rules read them with {@code capture.req.hdr(n)} and
     * {@code capture.res.hdr(n)}. Checked against HAProxy 2.6 on the same configuration when it is installed.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "haproxy={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void captureSamplesWorkInRulesOfAFrontendThatDoesNotLog(boolean haproxy) throws Exception {
        if (haproxy) {
            Program.HAPROXY.require();
        }
        try (Origin o = Origin.start("o", (r, out) -> {
            Origin.respond(out, 200, "OK", Origin.headers("X-Res", "from-origin"), "ok".getBytes(StandardCharsets.US_ASCII));
            return true;
        })) {
            int port = Ports.free();
            String cfg = """
                    defaults
                        mode http
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        capture request header Host len 20
                        declare capture request len 10
                        declare capture response len 12
                        http-request capture req.hdr(x-tag) id 1
                        http-request set-header X-Seen-Host %%[capture.req.hdr(0)]
                        http-request set-header X-Seen-Tag %%[capture.req.hdr(1)]
                        http-response capture res.hdr(x-res) id 0
                        http-after-response set-header X-Captured %%[capture.req.hdr(0)],%%[capture.req.hdr(1)],%%[capture.res.hdr(0)]
                        default_backend be
                    backend be
                        server o 127.0.0.1:%d
                    """.formatted(port, o.port());
            try (Daemon d = Daemon.start(haproxy, cfg, port); RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: www.example.com\r\nX-Tag: tag-1234567890\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                // slots keep their length: the host (20) whole, the tag cut at 10, the response field at 12
                assertThat(r.header("x-captured")).as(d.name()).isEqualTo("www.example.com,tag-123456,from-origin");
                Origin.Request got = o.requests().getLast();
                assertThat(got.header("x-seen-host")).as(d.name()).isEqualTo("www.example.com");
                assertThat(got.header("x-seen-tag")).as(d.name()).isEqualTo("tag-123456");
            }
        }
    }

    @Test
    void checkModeRejectsCaptureSlotsThatCannotExist() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    http-response capture res.hdr(x) len 4
                    default_backend be
                backend be
                    http-request capture path len 5
                    server s1 127.0.0.1:2
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output())
                .contains("test.cfg:8: error: 'http-response capture' : 'len' is only allowed in http-request rules")
                .contains("test.cfg:11: error: 'http-request capture' : proxy 'be' has no frontend capability");
    }

    @Test
    void checkModeRejectsWhatLogsCannotRead() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    declare capture response len 4
                    log-format "%ci %[req.hdr(host)]"
                    unique-id-format %[nosuchfetch]
                    http-request capture path id 0
                    http-response capture res.hdr(x) id 1
                    default_backend be
                backend be
                    server s1 127.0.0.1:2
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output())
                .contains("test.cfg:9: error: 'log-format' : failed to parse log-format : sample fetch 'req.hdr' may not be reliably used here"
                        + " because it needs 'HTTP request headers' which is not available here.")
                .contains("test.cfg:10: error: 'unique-id-format' : failed to parse unique-id-format : unknown fetch method 'nosuchfetch'")
                .contains("test.cfg:11: error: unable to find capture id '0' referenced by http-request capture rule.")
                .contains("test.cfg:12: error: unable to find capture id '1' referenced by http-response capture rule.");
    }
}
