package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Multi-step HTTP checks (HAProxy 2.2+'s {@code http-check connect|send|expect|set-var|set-var-fmt|unset-var|comment})
 * through the real daemon and through HAProxy 2.6 against the same scripted origins: a check of two connections (the
 * server's, then a {@code connect port} to another origin), variables set before and between them used in a
 * {@code uri-lf}, header values, a {@code body-lf} and a {@code string-lf} expect, a comment on the failing step. What
 * each origin received, the health log line of each server's first check (its state transition) and its
 * {@code show stat} check columns are HAProxy's.
 */
class HttpCheckStepsTest {
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
                timeout check 3s
                option log-health-checks
            frontend fe
                bind 127.0.0.1:%d
                default_backend ok
            """;

    /** The check: its first connection to the server, the second to {@code @PORT@}. */
    private static final String STEPS = """
            option httpchk GET /unused HTTP/1.1
            http-check set-var(check.x) str(abc)
            http-check set-var(check.b) str(ok)
            http-check connect
            http-check send meth GET uri-lf /first/%[var(check.x)] hdr host h1.test hdr x-v %[var(check.x)] hdr x-empty %[var(check.none)]
            http-check expect status 200
            http-check expect string ok
            http-check expect string-lf %[var(check.b)]
            http-check set-var-fmt(check.y) id-%[var(check.x)]
            http-check unset-var(check.x)
            http-check connect port @PORT@
            http-check send meth POST uri /second ver HTTP/1.0 hdr x-y %[var(check.y)] hdr x-x %[var(check.x)] body-lf b=%[var(check.y)]
            http-check comment second-step
            http-check expect status 200
            """;

    private static ScriptedOrigin.Script answer(String response) {
        return c -> {
            c.read();
            c.send(response);
            c.pause(300);
        };
    }

    private static final String OK_RESPONSE = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
    private static final String BOOM_RESPONSE = "HTTP/1.1 500 Boom\r\ncontent-length: 0\r\n\r\n";

    /** The second connection answers 200 (ok) or 500 (ko); the first one answers 500 (early: the second is not made). */
    private static final List<String> BACKENDS = List.of("ok", "ko", "early");

    /** Per backend: the first check's log line and check columns, then what each origin received first. */
    private Map<String, String> run(boolean haproxy) {
        Map<String, ScriptedOrigin> origins = new LinkedHashMap<>();
        for (String name : List.of("ok1", "ok2", "ko1", "ko2", "early1", "early2")) {
            ScriptedOrigin o = ScriptedOrigin.start(answer(name.equals("ko2") || name.equals("early1") ? BOOM_RESPONSE : OK_RESPONSE));
            closing.add(o);
            origins.put(name, o);
        }
        int port = Ports.free();
        StringBuilder cfg = new StringBuilder(HEADER.formatted(port));
        for (String be : BACKENDS) {
            cfg.append("backend ").append(be).append('\n')
                    .append(STEPS.replace("@PORT@", Integer.toString(origins.get(be + "2").port())).indent(4))
                    .append("    server s 127.0.0.1:").append(origins.get(be + "1").port()).append(" check inter 1500\n");
        }
        Map<String, String> out = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, cfg.toString(), port)) {
            List<String> lines = d.awaitLines(l -> l.startsWith("Health check for server "), BACKENDS.size());
            for (String be : BACKENDS) {
                String prefix = "Health check for server " + be + "/s ";
                String line = lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse("<none> " + d.output())
                        .replaceAll("check duration: \\d+ms", "check duration: Nms");
                out.put(be, line.substring(Math.min(line.length(), prefix.length())) + " | " + checkColumns(d, be));
            }
        }
        for (var e : origins.entrySet()) {
            // an origin records a connection when its script ends
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (e.getValue().received().isEmpty() && System.nanoTime() < deadline) {
                Daemon.sleep(20);
            }
            List<ScriptedOrigin.Received> got = e.getValue().received();
            out.put(e.getKey(), got.isEmpty() ? "<nothing>"
                    : new String(HexFormat.of().parseHex(got.getFirst().hex()), StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    /** {@code check_status check_code last_chk} once no check of the server is running. */
    private static String checkColumns(Daemon d, String backend) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            String stat = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
            List<String> header = List.of(stat.lines().findFirst().orElseThrow().substring(2).split(",", -1));
            String[] f = stat.lines().filter(l -> l.startsWith(backend + ",s,")).findFirst().orElseThrow().split(",", -1);
            String status = f[header.indexOf("check_status")];
            if (!status.startsWith("* ") || System.nanoTime() > deadline) {
                return status.replace("* ", "") + " " + f[header.indexOf("check_code")] + " " + f[header.indexOf("last_chk")];
            }
            Daemon.sleep(10);
        }
    }

    private static final Map<String, String> SEEN = Map.of(
            "ok", "succeeded, reason: Layer7 check passed, code: 200, check duration: Nms, status: 3/3 UP. | L7OK 200 ",
            "ko", "failed, reason: Layer7 wrong status, code: 500, info: \"Boom comment: second-step\", check duration: Nms, status: 0/2 DOWN."
                    + " | L7STS 500 Boom comment: second-step",
            "ok1", "GET /first/abc HTTP/1.1\r\nhost: h1.test\r\nx-v: abc\r\nconnection: close\r\n\r\n",
            "ok2", "POST /second HTTP/1.0\r\nx-y: id-abc\r\ncontent-length: 8\r\n\r\nb=id-abc",
            "ko1", "GET /first/abc HTTP/1.1\r\nhost: h1.test\r\nx-v: abc\r\nconnection: close\r\n\r\n",
            "ko2", "POST /second HTTP/1.0\r\nx-y: id-abc\r\ncontent-length: 8\r\n\r\nb=id-abc",
            "early", "failed, reason: Layer7 wrong status, code: 500, info: \"Boom\", check duration: Nms, status: 0/2 DOWN. | L7STS 500 Boom",
            "early1", "GET /first/abc HTTP/1.1\r\nhost: h1.test\r\nx-v: abc\r\nconnection: close\r\n\r\n",
            "early2", "<nothing>");

    @Test
    void multiStepHttpChecksAsHaproxy() {
        assertThat(run(false)).containsExactlyInAnyOrderEntriesOf(SEEN);
    }

    @Test
    void multiStepHttpChecksInHaproxy() {
        Program.HAPROXY.require();
        assertThat(run(true)).as("HAProxy 2.6").containsExactlyInAnyOrderEntriesOf(SEEN);
    }

    // ------------------------------------------------------------------ configuration errors

    private static final String BAD = """
            defaults
                mode http
                timeout connect 1s
                timeout client 1s
                timeout server 1s
            frontend fe
                bind 127.0.0.1:1
                default_backend be
            backend be
                option httpchk
                http-check send uri /a
                http-check connect
                http-check set-var(check.x)
                http-check set-var(foo) str(a)
                http-check send uri-lf /%[var(check.x)
                server s1 127.0.0.1:2 check
            backend be2
                option httpchk
                http-check connect
                http-check connect port 81
                server s1 127.0.0.1:2 check
            backend be3
                option httpchk
                http-check connect
                http-check expect status 200
                server s1 127.0.0.1:2 check
            backend be4
                option httpchk
                http-check send uri /a
                http-check expect status 200
                http-check send uri /b
                server s1 127.0.0.1:2 check
            """;

    /** Sample expressions: Sluice compiles them once the file parses (HAProxy reports all at once). */
    private static final String BAD_EXPRESSIONS = BAD.substring(0, BAD.indexOf("    http-check send uri /a")) + """
                http-check set-var(check.x) nope(1)
                http-check send hdr x-a %[nope()]
                server s1 127.0.0.1:2 check
            """;

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
        List<String> parse = sluiceErrors(BAD);
        // one order error a backend: after a rule refused for its place, HAProxy 2.6 does not check the next one's
        assertThat(parse).contains(
                "12 'http-check connect' : first step MUST also be a 'connect', optionally preceded by a 'set-var', an 'unset-var' or a 'comment',"
                        + " when there is a 'connect' step in the tcp-check ruleset.",
                "15 'http-check send' : '/%[var(check.x)' invalid log-format string (missing ']' after 'var(check.x)').",
                "20 'http-check connect' : unable to add http-check connect rule at step 2 (missing expect rule)..",
                "25 'http-check expect' : unable to add http-check expect rule at step 2 (missing send rule)..",
                "31 'http-check send' : unable to add http-check send rule at step 3 (missing connect rule)..");
        List<String> expressions = sluiceErrors(BAD_EXPRESSIONS);
        assertThat(expressions).containsExactly("11 'http-check set-var(check.x)' : 'set-var' : unknown fetch method 'nope'.",
                "12 'http-check send' : failed to parse sample expression <nope()]> : unknown fetch method 'nope'.");
        Program.HAPROXY.require();
        assertThat(parse).as("HAProxy 2.6").containsExactlyInAnyOrderElementsOf(haproxyErrors(BAD));
        assertThat(expressions).as("HAProxy 2.6").containsExactlyInAnyOrderElementsOf(haproxyErrors(BAD_EXPRESSIONS));
    }
}
