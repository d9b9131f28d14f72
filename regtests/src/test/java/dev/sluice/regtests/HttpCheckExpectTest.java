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
 * HAProxy 2.6's {@code http-check expect} options through the real daemon and through HAProxy 2.6 against the same
 * scripted origins: {@code on-success}/{@code on-error} (log-format strings reading the response and the check's
 * variables) become the check's message, {@code status-code} its code, {@code error-status}/{@code tout-status} its
 * status, {@code hdr}/{@code fhdr} with {@code -m} methods and {@code name-lf}/{@code value-lf} patterns. The health log
 * line of each server's first check and its {@code show stat} check columns are HAProxy's; so are the {@code -c}
 * messages of wrong arguments.
 */
class HttpCheckExpectTest {
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
                default_backend succ
            """;

    /** A backend: its check rules and what its origin answers (null: it never answers). */
    private record Case(String rules, String response) {
    }

    private static final Map<String, Case> CASES = new LinkedHashMap<>();

    static {
        CASES.put("succ", new Case("""
                option httpchk GET /health HTTP/1.1
                http-check set-var(check.app) str(shop)
                http-check expect status 200 on-success "%[var(check.app)] up v%[res.hdr(x-ver)]" status-code res.hdr(x-code)
                """, "HTTP/1.1 200 OK\r\nx-ver: 1.2\r\nx-code: 299\r\ncontent-length: 0\r\n\r\n"));
        CASES.put("err", new Case("""
                option httpchk
                http-check expect status 200 on-error "down:%[status] why=%[res.hdr(x-why)]" status-code int(555) comment c1
                """, "HTTP/1.1 500 Boom\r\nx-why: db\r\ncontent-length: 0\r\n\r\n"));
        CASES.put("hdr", new Case("""
                option httpchk
                http-check set-var(check.n) str(x-state)
                http-check expect hdr name-lf %[var(check.n)] value -m sub ready error-status L7RSP
                """, "HTTP/1.1 200 Fine\r\nx-state: starting\r\ncontent-length: 0\r\n\r\n"));
        CASES.put("fhdr", new Case("""
                option httpchk
                http-check set-var(check.v) str(2026)
                http-check expect fhdr name -m beg x-bu value-lf -m end %[var(check.v)] on-success build-ok
                http-check expect ! hdr name -m reg ^x-err on-success ignored
                """, "HTTP/1.1 200 OK\r\nX-Build: a, b-2026\r\ncontent-length: 0\r\n\r\n"));
        CASES.put("nobody", new Case("""
                option httpchk
                http-check expect string ok on-error "empty (length %[res.hdr(content-length)])"
                """, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"));
        CASES.put("tout", new Case("""
                option httpchk
                http-check expect status 200 tout-status L4TOUT
                """, null));
    }

    /** Per backend: the first check's log line and check columns. */
    private Map<String, String> run(boolean haproxy) {
        int port = Ports.free();
        StringBuilder cfg = new StringBuilder(HEADER.formatted(port));
        for (var e : CASES.entrySet()) {
            String response = e.getValue().response();
            ScriptedOrigin o = ScriptedOrigin.start(c -> {
                c.read();
                if (response != null) {
                    c.send(response);
                    c.pause(300);
                } else {
                    c.pause(3000);
                }
            });
            closing.add(o);
            cfg.append("backend ").append(e.getKey()).append('\n').append(e.getValue().rules().indent(4))
                    .append("    server s 127.0.0.1:").append(o.port()).append(" check inter 2500\n");
        }
        Map<String, String> out = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, cfg.toString(), port)) {
            List<String> lines = d.awaitLines(l -> l.startsWith("Health check for server "), CASES.size());
            for (String be : CASES.keySet()) {
                String prefix = "Health check for server " + be + "/s ";
                String line = lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse("<none> " + d.output())
                        .replaceAll("check duration: \\d+ms", "check duration: Nms");
                out.put(be, line.substring(Math.min(line.length(), prefix.length())) + " | " + checkColumns(d, be));
            }
        }
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

    private static final Map<String, String> SEEN = Map.of(
            "succ", "succeeded, reason: Layer7 check passed, code: 299, info: \"shop up v1.2\", check duration: Nms, status: 3/3 UP."
                    + " | L7OK 299 Layer7 check passed shop up v1.2",
            "err", "failed, reason: Layer7 wrong status, code: 555, info: \"down:500 why=db comment: c1\", check duration: Nms, status: 0/2 DOWN."
                    + " | L7STS 555 Layer7 wrong status down:500 why=db comment: c1",
            // an L7RSP reports no code
            "hdr", "failed, reason: Layer7 invalid response, info: \"Fine\", check duration: Nms, status: 0/2 DOWN."
                    + " | L7RSP  Layer7 invalid response Fine",
            "fhdr", "succeeded, reason: Layer7 check passed, code: 200, info: \"ignored\", check duration: Nms, status: 3/3 UP."
                    + " | L7OK 200 Layer7 check passed ignored",
            "nobody", "failed, reason: Layer7 invalid response, info: \"empty (length 0)\", check duration: Nms, status: 0/2 DOWN."
                    + " | L7RSP  Layer7 invalid response empty (length 0)",
            "tout", "failed, reason: Layer4 timeout, check duration: Nms, status: 0/2 DOWN. | L4TOUT  Layer4 timeout ");

    @Test
    void expectOptionsAsHaproxy() {
        assertThat(run(false)).containsExactlyInAnyOrderEntriesOf(SEEN);
    }

    @Test
    void expectOptionsInHaproxy() {
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").containsExactlyInAnyOrderEntriesOf(SEEN);
    }

    // ------------------------------------------------------------------ configuration errors

    private static final List<String> BAD_LINES = List.of(
            "status-code",
            "on-success",
            "on-error %[var(check.x) status 200",
            "ok-status L7STS status 200",
            "error-status L7OK status 200",
            "tout-status L7RSP status 200",
            "hdr",
            "hdr value x",
            "hdr name x -m",
            "hdr name -m",
            "fhdr name -m foo x",
            "hdr name-lf -m reg x",
            "hdr name x value",
            "hdr name x value -m zz y",
            "hdr name x value-lf -m reg y",
            "hdr name x value-lf %[var(check.x)",
            "! on-success x status 200",
            "status 200 string x",
            "min-recv -2 status 200",
            "comment x",
            "status 300-200",
            "!",
            "binary 00",
            "hdr name -m reg (",
            "rstring [a",
            "! rstatus *5",
            "fhdr name x value -m reg a{2,1}");

    /** Sample expressions and fetch names: Sluice compiles them once the file parses (HAProxy reports all at once). */
    private static final List<String> BAD_SAMPLES = List.of(
            "status 200 status-code nope",
            "status 200 status-code req.hdr(host)",
            "status 200 on-success %[nope]",
            "status 200 on-error x%[var(check.x),nope]",
            "hdr name-lf %[nope]");

    /** Each line in a backend of its own: HAProxy reports every one. */
    private static String badConfig(List<String> lines) {
        StringBuilder b = new StringBuilder("""
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 1s
                    timeout server 1s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend b0
                """);
        for (int i = 0; i < lines.size(); i++) {
            b.append("backend b").append(i).append("\n    option httpchk\n    http-check expect ").append(lines.get(i))
                    .append("\n    server s1 127.0.0.1:2 check\n");
        }
        return b.toString();
    }

    private static List<String> sluiceErrors(String config) {
        Sluice.Result r = Sluice.check(config);
        assertThat(r.exitCode()).isEqualTo(1);
        return r.output().lines().filter(l -> l.contains(": error: ")).map(l -> l.replaceFirst("^.*?:(\\d+): error: ", "$1 ")).toList();
    }

    private static List<String> haproxyErrors(String config) throws Exception {
        Process h = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", Sluice.writeConfig(config).toString()).redirectErrorStream(true).start();
        String out = new String(h.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        h.waitFor();
        return out.lines().filter(l -> l.contains("parsing [")).map(l -> l.replaceFirst("^.*parsing \\[[^:]*:(\\d+)\\] ?: ", "$1 ")).toList();
    }

    /** Each bad line is reported on its line with HAProxy 2.6's words ({@code haproxy -c} on the same file). */
    @Test
    void configurationErrorsAreHaproxys() throws Exception {
        List<String> errors = sluiceErrors(badConfig(BAD_LINES));
        assertThat(errors).hasSize(BAD_LINES.size()).contains(
                "11 'http-check expect' : 'status-code' expects an expression as argument.",
                "55 'http-check expect' : 'hdr': log-format string is not supported with a regex matching method.");
        List<String> samples = sluiceErrors(badConfig(BAD_SAMPLES));
        assertThat(samples).hasSize(BAD_SAMPLES.size()).contains(
                "15 'http-check expect' : error detected while parsing status-code expression :  fetch method 'req.hdr(host)' extracts information"
                        + " from 'HTTP request headers', none of which is available here.");
        Program.HAPROXY.require();
        assertThat(errors).as("HAProxy 2.6").containsExactlyInAnyOrderElementsOf(haproxyErrors(badConfig(BAD_LINES)));
        assertThat(samples).as("HAProxy 2.6").containsExactlyInAnyOrderElementsOf(haproxyErrors(badConfig(BAD_SAMPLES)));
    }
}
