package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP checks in HTTP/2 through the real daemon and through HAProxy 2.6 against the same h2c origins (Netty's HTTP/2,
 * not Sluice's): {@code http-check connect proto h2}, a {@code proto h2} server checked through its default
 * connection, and {@code http-check connect ssl alpn h2,http/1.1} to a TLS origin that chooses h2. The request each origin decoded (pseudo-header and other fields, body), the health log line of each
 * server's first check and its {@code show stat} check columns are HAProxy's.
 */
class HttpCheckH2Test {
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    private static final String HEADER = """
            global
                log stdout format raw local0
                stats socket @DIR@/admin.sock level admin
            defaults
                mode http
                log global
                timeout connect 1s
                timeout client 5s
                timeout server 5s
                timeout check 2s
                option log-health-checks
            frontend fe
                bind 127.0.0.1:%d
                default_backend rule
            """;

    /** Per backend: its rules, the server line's options, and the status its origin answers. */
    private record Case(String rules, String server, String status) {
    }

    private static final Map<String, Case> CASES = new LinkedHashMap<>();

    static {
        CASES.put("rule", new Case("""
                option httpchk GET /h2 HTTP/1.1
                http-check connect proto h2
                http-check send hdr host h2.test hdr X-Check yes
                http-check expect status 200 on-success "origin=%[res.hdr(x-origin)] len=%[res.hdr(content-length)] ver=%[res.ver]"
                """, "", "200"));
        CASES.put("post", new Case("""
                option httpchk
                http-check connect proto h2
                http-check send meth POST uri /p ver HTTP/1.1 body hello
                http-check expect status 200
                """, "", "200"));
        CASES.put("server", new Case("""
                option httpchk HEAD /srv
                """, " proto h2", "200"));
        // check-proto h2: the checks of a server that is not proto h2 speak HTTP/2
        CASES.put("checkproto", new Case("""
                option httpchk GET /cp
                """, " check-proto h2", "200"));
        CASES.put("down", new Case("""
                option httpchk GET /down
                http-check connect proto h2
                http-check send
                http-check expect status 200 comment h2-down
                """, "", "503"));
    }

    /** Per backend: the first check's log line and check columns, then the first request its origin decoded. */
    private Map<String, String> run(boolean haproxy) throws Exception {
        int port = Ports.free();
        StringBuilder cfg = new StringBuilder(HEADER.formatted(port));
        Map<String, H2Origin> origins = new LinkedHashMap<>();
        TlsOrigin tls = new TlsOrigin(new TestPki("check-ca").leaf("origin.test"), "ok".getBytes(StandardCharsets.US_ASCII), "h2", "http/1.1");
        closing.add(tls);
        cfg.append("""
                backend alpn
                    option httpchk GET /alpn
                    http-check connect ssl alpn h2,http/1.1
                    http-check send
                    http-check expect status 200
                    server s 127.0.0.1:%d ssl verify none check inter 2500
                """.formatted(tls.port()));
        // check-alpn: a TLS check offers these protocols (the server's traffic offers none), and speaks what the origin chose
        TlsOrigin tls2 = new TlsOrigin(new TestPki("check-ca2").leaf("origin.test"), "ok".getBytes(StandardCharsets.US_ASCII), "h2", "http/1.1");
        closing.add(tls2);
        cfg.append("""
                backend checkalpn
                    option httpchk GET /ca
                    server s 127.0.0.1:%d ssl verify none check inter 2500 check-alpn h2
                """.formatted(tls2.port()));
        for (var e : CASES.entrySet()) {
            H2Origin o = new H2Origin("ok".getBytes(StandardCharsets.US_ASCII), e.getValue().status());
            closing.add(o);
            origins.put(e.getKey(), o);
            cfg.append("backend ").append(e.getKey()).append('\n').append(e.getValue().rules().indent(4))
                    .append("    server s 127.0.0.1:").append(o.port()).append(" check inter 2500").append(e.getValue().server()).append('\n');
        }
        Map<String, String> out = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, cfg.toString(), port)) {
            List<String> lines = d.awaitLines(l -> l.startsWith("Health check for server "), CASES.size() + 2);
            out.put("checkalpn", lines.stream().filter(l -> l.startsWith("Health check for server checkalpn/s ")).findFirst().orElse("<none>")
                    .replaceAll("check duration: \\d+ms", "check duration: Nms") + " | " + checkColumns(d, "checkalpn"));
            out.put("alpn", lines.stream().filter(l -> l.startsWith("Health check for server alpn/s ")).findFirst().orElse("<none>")
                    .replaceAll("check duration: \\d+ms", "check duration: Nms") + " | " + checkColumns(d, "alpn"));
            for (String be : CASES.keySet()) {
                String prefix = "Health check for server " + be + "/s ";
                String line = lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse("<none> " + d.output())
                        .replaceAll("check duration: \\d+ms", "check duration: Nms");
                out.put(be, line.substring(Math.min(line.length(), prefix.length())) + " | " + checkColumns(d, be));
            }
        }
        for (var e : origins.entrySet()) {
            if (e.getValue() == null) {
                continue;
            }
            List<H2Origin.Request> got = e.getValue().requests();
            out.put(e.getKey() + " request", got.isEmpty() ? "<nothing>"
                    : got.getFirst().headers() + " " + new String(got.getFirst().body(), StandardCharsets.ISO_8859_1));
        }
        out.put("checkalpn request", tls2.requests().isEmpty() ? "<nothing>" : tls2.requests().getFirst().protocol() + " "
                + tls2.requests().getFirst().target());
        out.put("alpn request", tls.requests().isEmpty() ? "<nothing>" : tls.requests().getFirst().protocol() + " "
                + tls.requests().getFirst().target());
        return out;
    }

    /** {@code check_status check_code check_desc last_chk} once no check of the server is running. */
    private static String checkColumns(Daemon d, String backend) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            String stat = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
            List<String> header = List.of(stat.lines().findFirst().orElseThrow().substring(2).split(",", -1));
            String[] f = stat.lines().filter(l -> l.startsWith(backend + ",s,")).findFirst().orElseThrow().split(",", -1);
            String status = f[header.indexOf("check_status")];
            if (!status.startsWith("* ") || System.nanoTime() > deadline) {
                return status.replace("* ", "") + " " + f[header.indexOf("check_code")] + " " + f[header.indexOf("check_desc")] + " "
                        + f[header.indexOf("last_chk")];
            }
            Daemon.sleep(10);
        }
    }

    private static final Map<String, String> BASE = Map.of(
            "rule", "succeeded, reason: Layer7 check passed, code: 200, info: \"origin=h2 len=2 ver=2.0\", check duration: Nms, status: 3/3 UP."
                    + " | L7OK 200 Layer7 check passed origin=h2 len=2 ver=2.0",
            // :scheme https for an origin-form URI, no :authority (host stays a field), no connection field
            "rule request", "DefaultHttp2Headers[:method: GET, :scheme: https, :path: /h2, host: h2.test, x-check: yes] ",
            "post", "succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 3/3 UP. | L7OK 200 Layer7 check passed ",
            "post request", "DefaultHttp2Headers[:method: POST, :scheme: https, :path: /p, content-length: 5] hello",
            "server", "succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 3/3 UP. | L7OK 200 Layer7 check passed ",
            "server request", "DefaultHttp2Headers[:method: HEAD, :scheme: https, :path: /srv] ",
            // an HTTP/2 response has no reason phrase: the comment alone
            "down", "failed, reason: Layer7 wrong status, code: 503, info: \" comment: h2-down\", check duration: Nms, status: 0/2 DOWN."
                    + " | L7STS 503 Layer7 wrong status  comment: h2-down",
            "down request", "DefaultHttp2Headers[:method: GET, :scheme: https, :path: /down] ",
            // TLS with the connect's alpn: the origin (Netty, JDK TLS) chose h2, the check spoke it
            "alpn", "Health check for server alpn/s succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 3/3 UP."
                    + " | L7OK 200 Layer7 check passed ",
            "alpn request", "h2 /alpn");

    /** {@link #BASE} and the server options check-proto and check-alpn. */
    private static final Map<String, String> SEEN = new java.util.HashMap<>(BASE);

    static {
        SEEN.put("checkproto", "succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 3/3 UP. | L7OK 200 Layer7 check passed ");
        SEEN.put("checkproto request", "DefaultHttp2Headers[:method: GET, :scheme: https, :path: /cp] ");
        SEEN.put("checkalpn", "Health check for server checkalpn/s succeeded, reason: Layer7 check passed, code: 200, check duration: Nms,"
                + " status: 3/3 UP. | L7OK 200 Layer7 check passed ");
        SEEN.put("checkalpn request", "h2 /ca");
    }

    @Test
    void http2ChecksAsHaproxy() throws Exception {
        assertThat(run(false)).containsExactlyInAnyOrderEntriesOf(SEEN);
    }

    @Test
    void http2ChecksInHaproxy() throws Exception {
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").containsExactlyInAnyOrderEntriesOf(SEEN);
    }
}
