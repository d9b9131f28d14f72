package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code option httplog} lines, checked field by field against HAProxy's format. */
class AccessLogTest {

    /** %ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}r */
    static final Pattern HTTPLOG = Pattern.compile("^(\\d+\\.\\d+\\.\\d+\\.\\d+):(\\d+) \\[(\\d{2}/\\w{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2}\\.\\d{3})\\] "
            + "(\\S+) (\\S+)/(\\S+) (-?\\d+)/(-?\\d+)/(-?\\d+)/(-?\\d+)/(-?\\d+) (\\d+) (\\d+) (\\S+) (\\S+) (\\S{4}) "
            + "(\\d+)/(\\d+)/(\\d+)/(\\d+)/(\\d+) (\\d+)/(\\d+) \"(.*)\"$");

    /** How a connection closed before its first byte is logged by option httplog. */
    static final Pattern PROBE = Pattern.compile(" -1/-1/-1/-1/\\d+ 400 0 - - CR-- .*\"<BADREQ>\"$");

    record Line(String ci, int cp, String date, String fe, String be, String srv, long tr, long tw, long tc, long tresp, long ta,
            int status, long bytes, String cc, String cs, String tsc, int ac, int fc, int bc, int sc, int rc, String request) {
    }

    static Line parse(String line) {
        Matcher m = HTTPLOG.matcher(line);
        assertThat(m.matches()).as("httplog line: %s", line).isTrue();
        return new Line(m.group(1), Integer.parseInt(m.group(2)), m.group(3), m.group(4), m.group(5), m.group(6), Long.parseLong(m.group(7)),
                Long.parseLong(m.group(8)), Long.parseLong(m.group(9)), Long.parseLong(m.group(10)), Long.parseLong(m.group(11)),
                Integer.parseInt(m.group(12)), Long.parseLong(m.group(13)), m.group(14), m.group(15), m.group(16),
                Integer.parseInt(m.group(17)), Integer.parseInt(m.group(18)), Integer.parseInt(m.group(19)), Integer.parseInt(m.group(20)),
                Integer.parseInt(m.group(21)), m.group(24));
    }

    /**
     * The request lines logged so far, waiting for {@code expected} of them; without the harness's own
     * readiness probes (a connection closed before its first byte, which HAProxy logs as a 400 CR--).
     */
    static List<String> lines(Sluice s, int expected) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            List<String> l = s.output().lines().filter(x -> x.contains(" [") && !PROBE.matcher(x).find()).toList();
            if (l.size() >= expected) {
                return l;
            }
            Thread.sleep(50);
        }
        return s.output().lines().toList();
    }

    @Test
    void successBadRequestNoServerAndTimeoutLines() throws Exception {
        Origin.Handler slowOnSlow = (r, out) -> {
            if (r.target().equals("/slow")) {
                try {
                    Thread.sleep(1500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return false;
            }
            Origin.respond(out, 200, "OK", Origin.headers(), "ok\n".getBytes(StandardCharsets.US_ASCII));
            return true;
        };
        try (Origin o = Origin.start("s1", slowOnSlow)) {
            int p1 = Ports.free();
            int p2 = Ports.free();
            int dead = Ports.free();
            String cfg = """
                    global
                        log stdout format raw local0
                    defaults
                        mode http
                        log global
                        option httplog
                        timeout connect 100ms
                        timeout client 10s
                        timeout server 300ms
                    frontend web
                        bind 127.0.0.1:%d
                        default_backend app
                    frontend web2
                        bind 127.0.0.1:%d
                        default_backend down
                    backend app
                        server a1 127.0.0.1:%d
                    backend down
                        server d1 127.0.0.1:%d
                    """.formatted(p1, p2, o.port(), dead);
            try (Sluice s = Sluice.start(cfg, p1, p2)) {
                int cp;
                try (RawClient c = new RawClient(p1)) {
                    assertThat(c.send("GET /ok?x=1 HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                    assertThat(c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(504);
                }
                try (RawClient c = new RawClient(p1)) {
                    assertThat(c.send("BAD\r\n\r\n").readToEndText()).startsWith("HTTP/1.1 400");
                }
                try (RawClient c = new RawClient(p2)) {
                    assertThat(c.send("GET /down HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(503);
                }
                List<String> out = lines(s, 4);
                assertThat(out).hasSize(4);
                // lines of different connections may come from different event loops: found by content, not position
                java.util.function.Function<String, Line> find = text -> parse(out.stream().filter(l -> l.contains(text)).findFirst()
                        .orElseThrow(() -> new AssertionError("no line with " + text + " in " + out)));
                Line ok = find.apply("\"GET /ok?x=1 HTTP/1.1\"");
                assertThat(ok.ci()).isEqualTo("127.0.0.1");
                assertThat(ok.fe()).isEqualTo("web");
                assertThat(ok.be()).isEqualTo("app");
                assertThat(ok.srv()).isEqualTo("a1");
                assertThat(ok.tr()).isBetween(0L, 1000L);
                assertThat(ok.tw()).isBetween(0L, 100L); // no queue: 0, or a loaded machine's millisecond
                assertThat(ok.tc()).isBetween(0L, 1000L);
                assertThat(ok.tresp()).isBetween(0L, 1000L);
                assertThat(ok.ta()).isGreaterThanOrEqualTo(ok.tresp());
                assertThat(ok.status()).isEqualTo(200);
                assertThat(ok.bytes()).isGreaterThan(3);
                assertThat(ok.cc()).isEqualTo("-");
                assertThat(ok.cs()).isEqualTo("-");
                assertThat(ok.tsc()).isEqualTo("----");
                assertThat(ok.ac()).isGreaterThanOrEqualTo(1);
                assertThat(ok.rc()).isZero();
                assertThat(ok.request()).isEqualTo("GET /ok?x=1 HTTP/1.1");
                cp = ok.cp();

                Line timeout = find.apply("\"GET /slow HTTP/1.1\"");
                assertThat(timeout.cp()).isEqualTo(cp);
                assertThat(timeout.status()).isEqualTo(504);
                assertThat(timeout.tsc()).isEqualTo("sH--");
                assertThat(timeout.tresp()).isEqualTo(-1);
                assertThat(timeout.ta()).isBetween(250L, 1500L);
                assertThat(timeout.srv()).isEqualTo("a1");
                assertThat(timeout.request()).isEqualTo("GET /slow HTTP/1.1");

                Line bad = find.apply("\"<BADREQ>\"");
                assertThat(bad.status()).isEqualTo(400);
                assertThat(bad.be()).isEqualTo("web");
                assertThat(bad.srv()).isEqualTo("<NOSRV>");
                assertThat(List.of(bad.tr(), bad.tw(), bad.tc(), bad.tresp())).containsOnly(-1L);
                assertThat(bad.tsc()).isEqualTo("PR--");
                assertThat(bad.request()).isEqualTo("<BADREQ>");

                Line down = find.apply("\"GET /down HTTP/1.1\"");
                assertThat(down.fe()).isEqualTo("web2");
                assertThat(down.be()).isEqualTo("down");
                assertThat(down.srv()).isEqualTo("d1");
                assertThat(down.status()).isEqualTo(503);
                assertThat(down.tsc()).isEqualTo("SC--");
                assertThat(down.tc()).isEqualTo(-1);
                assertThat(down.rc()).isEqualTo(3);
                // %B: the HTX size of HAProxy's 503 page (217, as HAProxy 2.6 logs it), not its 214 bytes on the wire
                assertThat(down.bytes()).isEqualTo(217);
            }
        }
    }

    @Test
    void syslogOverUdpWithRfc3164Header() throws Exception {
        try (DatagramSocket syslog = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            syslog.setSoTimeout(10_000);
            int port = Ports.free();
            String cfg = """
                    global
                        log 127.0.0.1:%d local2 info
                    defaults
                        mode http
                        log global
                        option httplog
                        timeout client 10s
                    frontend web
                        bind 127.0.0.1:%d
                        http-request return status 200 content-type text/plain string "hi"
                    """.formatted(syslog.getLocalPort(), port);
            try (Sluice s = Sluice.start(cfg, port); RawClient c = new RawClient(port)) {
                c.send("GET /r HTTP/1.1\r\nHost: x\r\n\r\n").read();
                String msg;
                do {
                    // the harness's readiness probe is logged first (a 400 CR--, as HAProxy logs it)
                    DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
                    syslog.receive(p);
                    msg = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                } while (PROBE.matcher(msg).find());
                // local2 (18) * 8 + info (6) = 150
                assertThat(msg).matches("<150>\\w{3} [ \\d]\\d \\d{2}:\\d{2}:\\d{2} haproxy\\[\\d+\\]: 127\\.0\\.0\\.1:\\d+ \\[.*\\] web "
                        + "web/<NOSRV> \\d+/-1/-1/-1/\\d+ 200 \\d+ - - LR-- .* \"GET /r HTTP/1\\.1\"\n");
            }
        }
    }

    /** HAProxy 2.6's RFC 5424 header: microseconds, a numeric offset, "-" for the host; a line feed ends the datagram. */
    @Test
    void syslogOverUdpWithRfc5424Header() throws Exception {
        try (DatagramSocket syslog = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            syslog.setSoTimeout(10_000);
            int port = Ports.free();
            String cfg = """
                    global
                        log 127.0.0.1:%d format rfc5424 local2 info
                    defaults
                        mode http
                        log global
                        option httplog
                        option dontlognull
                        timeout client 10s
                    frontend web
                        bind 127.0.0.1:%d
                        http-request return status 200 content-type text/plain string "hi"
                    """.formatted(syslog.getLocalPort(), port);
            try (Sluice s = Sluice.start(cfg, port); RawClient c = new RawClient(port)) {
                c.send("GET /r HTTP/1.1\r\nHost: x\r\n\r\n").read();
                DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
                syslog.receive(p);
                String msg = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                assertThat(msg).matches("<150>1 \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}[+-]\\d{2}:\\d{2} - haproxy \\d+ - - "
                        + "127\\.0\\.0\\.1:\\d+ \\[.*\\] web web/<NOSRV> .* \"GET /r HTTP/1\\.1\"\n");
            }
        }
    }

    @Test
    void connectionsWithoutACompleteRequestAreLoggedAsHaproxyDoes() throws Exception {
        for (boolean dontLogNull : new boolean[] {false, true}) {
            int port = Ports.free();
            int other = Ports.free();
            String cfg = """
                    global
                        log stdout format raw local0
                    defaults
                        mode http
                        log global
                        option httplog
                        %s
                        timeout client 10s
                        timeout server 1s
                        timeout connect 1s
                    frontend web
                        bind 127.0.0.1:%d
                        http-request return status 200
                    frontend other
                        bind 127.0.0.1:%d
                        http-request return status 200
                    """.formatted(dontLogNull ? "option dontlognull" : "", port, other);
            // the harness probes the second frontend only, so every line of 'web' is the test's
            try (Sluice s = Sluice.start(cfg, other)) {
                try (java.net.Socket empty = new java.net.Socket("127.0.0.1", port)) {
                    empty.getOutputStream().flush();
                }
                try (java.net.Socket partial = new java.net.Socket("127.0.0.1", port)) {
                    partial.getOutputStream().write("GET / HT".getBytes(StandardCharsets.US_ASCII));
                    Thread.sleep(150);
                    partial.shutdownOutput();
                    partial.getInputStream().readAllBytes();
                }
                List<String> web = null;
                for (int i = 0; i < 100; i++) {
                    web = s.output().lines().filter(l -> l.contains(" web web/<NOSRV> ")).toList();
                    if (web.size() >= (dontLogNull ? 1 : 2)) {
                        break;
                    }
                    Thread.sleep(50);
                }
                Thread.sleep(200);
                web = s.output().lines().filter(l -> l.contains(" web web/<NOSRV> ")).toList();
                assertThat(web).as("dontlognull=%s: %s", dontLogNull, web).hasSize(dontLogNull ? 1 : 2);
                for (String l : web) {
                    Line line = parse(l);
                    assertThat(line.status()).isEqualTo(400);
                    assertThat(line.tsc()).isEqualTo("CR--");
                    assertThat(line.request()).isEqualTo("<BADREQ>");
                    assertThat(line.tr()).isEqualTo(-1);
                    assertThat(line.ta()).isNotNegative();
                }
            }
        }
    }
}
