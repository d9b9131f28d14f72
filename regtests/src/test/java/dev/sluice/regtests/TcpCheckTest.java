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
 * tcp-check rules and the protocol check options through the real daemon, against scripted servers: the health log
 * line of each server's first check and its {@code show stat} check columns ({@code check_status}, {@code check_code},
 * {@code last_chk}) are those HAProxy 2.6 gives for the same configuration (the *InHaproxy tests run it and expect the
 * same words), and what the checks send, byte for byte, is what HAProxy sends (the ssl-hello time masked). The
 * backends are HTTP ones: checks do not depend on the mode.
 */
class TcpCheckTest {
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
                timeout check 1s
                option log-health-checks
            frontend fe
                bind 127.0.0.1:%d
                default_backend %s
            """;

    /** One backend: its check lines and the script its server plays (null: a port {@link #fixedPorts} gives, else a closed one). */
    private record Case(String name, String lines, ScriptedOrigin.Script script) {
    }

    /** Backends whose server is not a scripted one: its port and server options. */
    private final Map<String, String> fixedPorts = new LinkedHashMap<>();

    // ------------------------------------------------------------------ scripts

    private static final ScriptedOrigin.Script BANNER = c -> {
        c.send("220 hello there\r\n");
        c.pause(500);
    };
    private static final ScriptedOrigin.Script ECHO = c -> {
        c.send(c.read());
        c.pause(500);
    };
    private static final ScriptedOrigin.Script SILENT = c -> c.pause(3000);
    private static final ScriptedOrigin.Script CLOSE = c -> {
    };
    private static final ScriptedOrigin.Script GARBAGE = c -> {
        c.send("garbage\r\nmore");
        c.read();
        c.pause(300);
    };

    /** Reads the request, then answers {@code hex}. */
    private static ScriptedOrigin.Script answer(String hex) {
        return c -> {
            c.read();
            c.sendHex(hex);
            c.pause(300);
        };
    }

    private static String hex(String text) {
        return HexFormat.of().formatHex(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static final ScriptedOrigin.Script SMTP_OK = c -> {
        c.send("220 mx.test ESMTP ready\r\n");
        c.read();
        c.send("250 mx.test hello\r\n");
        c.read();
        c.send("221 bye\r\n");
        c.pause(300);
    };
    private static final ScriptedOrigin.Script SMTP_5XX = c -> {
        c.send("554 go away\r\n");
        c.read();
    };

    /** A MySQL greeting (protocol 10, version 5.7.0-test); after a login packet, an OK packet. */
    private static final ScriptedOrigin.Script MYSQL_OK = c -> {
        String g = "0a" + hex("5.7.0-test") + "00" + "01000000" + hex("abcdefgh") + "00" + "fff7210200ff8115" + "00".repeat(10) + hex("ijklmnopqrst")
                + "00" + hex("mysql_native_password") + "00";
        int n = g.length() / 2;
        c.sendHex("%02x%02x%02x00".formatted(n & 0xff, (n >> 8) & 0xff, n >> 16) + g);
        if (c.read().length > 0) {
            c.sendHex("0700000200000002000000");
        }
        c.pause(300);
    };
    private static final ScriptedOrigin.Script MYSQL_ERR = c -> {
        String e = "ff1504" + hex("#28000Access denied for user");
        c.sendHex("%02x000000".formatted(e.length() / 2) + e);
        c.read();
    };

    // ------------------------------------------------------------------ runs

    /** Per backend: the log line of its server's first check (duration masked) and its check columns. */
    private Map<String, String> run(boolean haproxy, List<Case> cases, Map<String, ScriptedOrigin> origins) {
        int port = Ports.free();
        StringBuilder cfg = new StringBuilder(HEADER.formatted(port, cases.getFirst().name()));
        for (Case k : cases) {
            String target = k.script() != null ? Integer.toString(origins.get(k.name()).port())
                    : fixedPorts.getOrDefault(k.name(), Integer.toString(Ports.free()));
            cfg.append("backend ").append(k.name()).append('\n').append(k.lines().strip().indent(4))
                    .append("    server s 127.0.0.1:").append(target).append(" check inter 1500\n");
        }
        try (Daemon d = Daemon.start(haproxy, cfg.toString(), port)) {
            List<String> lines = d.awaitLines(l -> l.startsWith("Health check for server "), cases.size());
            assertThat(lines).as("%s:\n%s", d.name(), d.output()).hasSizeGreaterThanOrEqualTo(cases.size());
            Map<String, String> out = new LinkedHashMap<>();
            for (Case k : cases) {
                String line = lines.stream().filter(l -> l.startsWith("Health check for server " + k.name() + "/s ")).findFirst().orElse("<none>")
                        .replaceAll("check duration: \\d+ms", "check duration: Nms");
                out.put(k.name(), line.substring(Math.min(line.length(), ("Health check for server " + k.name() + "/s ").length())) + " | "
                        + checkColumns(d, k.name()));
            }
            return out;
        }
    }

    /**
     * {@code check_status check_code last_chk} of a backend's server once no check of it is running (a running check
     * has no description yet).
     */
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

    private Map<String, ScriptedOrigin> origins(List<Case> cases) {
        Map<String, ScriptedOrigin> m = new LinkedHashMap<>();
        for (Case k : cases) {
            if (k.script() != null) {
                ScriptedOrigin o = ScriptedOrigin.start(k.script());
                closing.add(o);
                m.put(k.name(), o);
            }
        }
        return m;
    }

    private static final String OK = "succeeded, reason: ";
    private static final String KO = "failed, reason: ";
    private static final String UP = ", check duration: Nms, status: 3/3 UP. | ";
    private static final String DOWN = ", check duration: Nms, status: 0/2 DOWN. | ";

    // ------------------------------------------------------------------ tcp-check rules

    private static final List<Case> RULES = List.of(
            new Case("banner", "option tcp-check\ntcp-check expect string 220", BANNER),
            new Case("pair", "option tcp-check\ntcp-check send \"hello\\r\\n\"\ntcp-check expect string hello", ECHO),
            new Case("closes", "option tcp-check\ntcp-check expect string nope", BANNER),
            new Case("timeout", "option tcp-check\ntcp-check expect string x comment silent", SILENT),
            new Case("regex", "option tcp-check\ntcp-check expect rstring ^5", BANNER),
            new Case("negation", "option tcp-check\ntcp-check expect ! string 220", BANNER),
            new Case("bare", "option tcp-check", BANNER),
            new Case("onlysend", "option tcp-check\ntcp-check send \"x\\r\\n\"", ECHO),
            new Case("connect", "option tcp-check\ntcp-check connect", BANNER),
            new Case("refused", "option tcp-check\ntcp-check send \"x\\r\\n\"\ntcp-check expect string x", null),
            new Case("empty", "option tcp-check\ntcp-check expect string nope", CLOSE),
            new Case("minrecv", "option tcp-check\ntcp-check expect min-recv 3 string nope", BANNER),
            new Case("formats", "option tcp-check\ntcp-check expect string 220 on-success \"ok %[res.payload(4,5)]\" status-code int(250)", BANNER),
            new Case("onerror", "option tcp-check\ntcp-check expect string nope on-error \"bad %[res.payload(0,3)]\" status-code int(599) min-recv 1",
                    BANNER),
            new Case("chain", "option tcp-check\ntcp-check comment greeting\ntcp-check expect binary 323230\ntcp-check expect rbinary ^323230\n"
                    + "tcp-check expect binary 4142", BANNER),
            new Case("toutstatus", "option tcp-check\ntcp-check expect string x tout-status L4TOUT", SILENT),
            new Case("setvar", "option tcp-check\ntcp-check set-var(check.w) str(hello)\ntcp-check send-lf \"%[var(check.w)] there\\r\\n\"\n"
                    + "tcp-check expect string-lf \"%[var(check.w)] th\"", ECHO));

    private static final Map<String, String> RULES_SEEN = ordered(
            "banner", OK + "Layer7 check passed, code: 0, info: \"(tcp-check)\"" + UP + "L7OK 0 (tcp-check)",
            "pair", OK + "Layer7 check passed, code: 0, info: \"(tcp-check)\"" + UP + "L7OK 0 (tcp-check)",
            "closes", KO + "Layer7 invalid response, info: \"TCPCHK did not match content 'nope' at step 1\"" + DOWN
                    + "L7RSP  TCPCHK did not match content 'nope' at step 1",
            "timeout", KO + "Layer7 timeout, info: \" at step 1 of tcp-check (expect string 'x') comment: 'silent'\"" + DOWN
                    + "L7TOUT   at step 1 of tcp-check (expect string 'x') comment: 'silent'",
            "regex", KO + "Layer7 invalid response, info: \"TCPCHK did not match content (regex) at step 1\"" + DOWN
                    + "L7RSP  TCPCHK did not match content (regex) at step 1",
            "negation", KO + "Layer7 invalid response, info: \"TCPCHK matched unwanted content '220' at step 1\"" + DOWN
                    + "L7RSP  TCPCHK matched unwanted content '220' at step 1",
            "bare", OK + "Layer4 check passed" + UP + "L4OK  ",
            "onlysend", OK + "Layer7 check passed, code: 0, info: \"(tcp-check)\"" + UP + "L7OK 0 (tcp-check)",
            "connect", OK + "Layer4 check passed, info: \"(tcp-check)\"" + UP + "L4OK  (tcp-check)",
            "refused", KO + "Layer4 connection problem, info: \"Connection refused at initial connection step of tcp-check\"" + DOWN
                    + "L4CON  Connection refused at initial connection step of tcp-check",
            "empty", KO + "Layer7 invalid response, info: \"TCPCHK got an empty response at step 1\"" + DOWN
                    + "L7RSP  TCPCHK got an empty response at step 1",
            "minrecv", KO + "Layer7 invalid response, info: \"TCPCHK did not match content 'nope' at step 1\"" + DOWN
                    + "L7RSP  TCPCHK did not match content 'nope' at step 1",
            "formats", OK + "Layer7 check passed, code: 250, info: \"ok hello\"" + UP + "L7OK 250 ok hello",
            "onerror", KO + "Layer7 invalid response, info: \"bad 220\"" + DOWN + "L7RSP  bad 220",
            "chain", KO + "Layer7 invalid response, info: \"TCPCHK did not match content (binary) at step 4 comment: greeting\"" + DOWN
                    + "L7RSP  TCPCHK did not match content (binary) at step 4 comment: greeting",
            "toutstatus", KO + "Layer4 timeout, info: \" at step 1 of tcp-check (expect string 'x')\"" + DOWN
                    + "L4TOUT   at step 1 of tcp-check (expect string 'x')",
            "setvar", OK + "Layer7 check passed, code: 0, info: \"(tcp-check)\"" + UP + "L7OK 0 (tcp-check)");

    private static Map<String, String> ordered(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void tcpCheckRulesGiveHaproxysStatusesAndWords() {
        assertThat(run(false, RULES, origins(RULES))).containsExactlyEntriesOf(RULES_SEEN);
    }

    /** HAProxy 2.6 gives {@link #tcpCheckRulesGiveHaproxysStatusesAndWords} its expectations. */
    @Test
    void tcpCheckRulesInHaproxy() {
        Program.HAPROXY.require();
        assertThat(run(true, RULES, origins(RULES))).as("HAProxy 2.6").containsExactlyEntriesOf(RULES_SEEN);
    }

    // ------------------------------------------------------------------ http-check connect and comment

    /**
     * {@code http-check connect} sends the HTTP check elsewhere than the server's own port (where nothing listens): to
     * a port, to an address with its port; {@code http-check comment} names the expects that follow it in the failure
     * message. The same words as HAProxy 2.6.
     */
    private Map<String, String> httpConnect(boolean haproxy) {
        ScriptedOrigin ok = ScriptedOrigin.start(answer(hex("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")));
        ScriptedOrigin ko = ScriptedOrigin.start(answer(hex("HTTP/1.1 500 Boom\r\ncontent-length: 0\r\n\r\n")));
        closing.add(ok);
        closing.add(ko);
        List<Case> cases = List.of(
                new Case("hc_port", "option httpchk\nhttp-check connect port " + ok.port() + "\nhttp-check send meth GET uri /s\n"
                        + "http-check expect status 200", null),
                new Case("hc_addr", "option httpchk GET /s\nhttp-check comment reach\nhttp-check connect addr 127.0.0.1:" + ok.port(), null),
                new Case("hc_comment", "option httpchk GET /s\nhttp-check connect port " + ko.port() + "\nhttp-check send\n"
                        + "http-check comment status-page\nhttp-check expect status 200", null));
        for (Case k : cases) {
            fixedPorts.put(k.name(), Integer.toString(Ports.free()));
        }
        return run(haproxy, cases, Map.of());
    }

    private static final Map<String, String> HTTP_CONNECT_SEEN = ordered(
            "hc_port", OK + "Layer7 check passed, code: 200" + UP + "L7OK 200 ",
            "hc_addr", OK + "Layer7 check passed, code: 200" + UP + "L7OK 200 ",
            "hc_comment", KO + "Layer7 wrong status, code: 500, info: \"Boom comment: status-page\"" + DOWN + "L7STS 500 Boom comment: status-page");

    @Test
    void httpCheckConnectAndCommentAsHaproxy() {
        assertThat(httpConnect(false)).containsExactlyEntriesOf(HTTP_CONNECT_SEEN);
    }

    @Test
    void httpCheckConnectAndCommentInHaproxy() {
        Program.HAPROXY.require();
        assertThat(httpConnect(true)).as("HAProxy 2.6").containsExactlyEntriesOf(HTTP_CONNECT_SEEN);
    }

    // ------------------------------------------------------------------ protocol options

    private static final List<Case> PROTOCOLS = List.of(
            new Case("redis_ok", "option redis-check", answer(hex("+PONG\r\n"))),
            new Case("redis_err", "option redis-check", answer(hex("-NOAUTH Authentication required.\r\n"))),
            new Case("redis_garbage", "option redis-check", GARBAGE),
            new Case("redis_silent", "option redis-check", SILENT),
            new Case("smtp_ok", "option smtpchk EHLO me.test", SMTP_OK),
            new Case("smtp_5xx", "option smtpchk", SMTP_5XX),
            new Case("smtp_garbage", "option smtpchk", GARBAGE),
            new Case("smtp_silent", "option smtpchk", SILENT),
            new Case("pgsql_ok", "option pgsql-check user bob", answer("5200000008000000005300000016")),
            new Case("pgsql_err", "option pgsql-check user bob", answer(hex("E\0\0\0\u0020SFATAL\0C28000\0Mno user\0\0"))),
            new Case("pgsql_garbage", "option pgsql-check user bob", GARBAGE),
            new Case("pgsql_silent", "option pgsql-check user bob", SILENT),
            new Case("mysql_ok", "option mysql-check", MYSQL_OK),
            new Case("mysql_user", "option mysql-check user bob", MYSQL_OK),
            new Case("mysql_err", "option mysql-check user bob", MYSQL_ERR),
            new Case("mysql_garbage", "option mysql-check", GARBAGE),
            new Case("mysql_silent", "option mysql-check", SILENT),
            new Case("ldap_ok", "option ldap-check", answer("300c02010161070a010004000400")),
            new Case("ldap_err", "option ldap-check", answer("300c02010161070a013104000400")),
            new Case("ldap_garbage", "option ldap-check", GARBAGE),
            new Case("ldap_silent", "option ldap-check", SILENT),
            new Case("ssl_ok", "option ssl-hello-chk", answer("160300002a02000026030000000000")),
            new Case("ssl_garbage", "option ssl-hello-chk", GARBAGE),
            new Case("ssl_silent", "option ssl-hello-chk", SILENT));

    private static final Map<String, String> PROTOCOLS_SEEN = ordered(
            "redis_ok", OK + "Layer7 check passed, code: 0, info: \"Redis server is ok\"" + UP + "L7OK 0 Redis server is ok",
            "redis_err", KO + "Layer7 wrong status, code: 0, info: \"-NOAUTH Authentication required.\"" + DOWN
                    + "L7STS 0 -NOAUTH Authentication required.",
            "redis_garbage", KO + "Layer7 wrong status, code: 0, info: \"garbage\"" + DOWN + "L7STS 0 garbage",
            "redis_silent", KO + "Layer7 timeout" + DOWN + "L7TOUT  ",
            "smtp_ok", OK + "Layer7 check passed, code: 221, info: \"bye\"" + UP + "L7OK 221 bye",
            "smtp_5xx", KO + "Layer7 wrong status, code: 554, info: \"go away\"" + DOWN + "L7STS 554 go away",
            "smtp_garbage", KO + "Layer7 invalid response, info: \"garbage\"" + DOWN + "L7RSP  garbage",
            "smtp_silent", KO + "Layer7 timeout" + DOWN + "L7TOUT  ",
            "pgsql_ok", OK + "Layer7 check passed, code: 0, info: \"PostgreSQL server is ok\"" + UP + "L7OK 0 PostgreSQL server is ok",
            "pgsql_err", KO + "Layer7 invalid response, info: \"FATAL\"" + DOWN + "L7RSP  FATAL",
            "pgsql_garbage", KO + "Layer7 wrong status, code: 0, info: \"PostgreSQL unknown error\"" + DOWN + "L7STS 0 PostgreSQL unknown error",
            "pgsql_silent", KO + "Layer7 timeout" + DOWN + "L7TOUT  ",
            "mysql_ok", OK + "Layer7 check passed, code: 0, info: \"5.7.0-test\"" + UP + "L7OK 0 ",
            "mysql_user", OK + "Layer7 check passed, code: 0, info: \"5.7.0-test\"" + UP + "L7OK 0 ",
            "mysql_err", KO + "Layer7 wrong status, code: 1045, info: \"#28000Access denied for user\"" + DOWN
                    + "L7STS 1045 #28000Access denied for user",
            "mysql_garbage", KO + "Layer7 timeout" + DOWN + "L7TOUT  ",
            "mysql_silent", KO + "Layer7 timeout" + DOWN + "L7TOUT  ",
            "ldap_ok", OK + "Layer7 check passed, code: 0, info: \"Success\"" + UP + "L7OK 0 ",
            "ldap_err", KO + "Layer7 wrong status, code: 49, info: \"See RFC: http://tools.ietf.org/html/rfc4511#section-4.1.9\"" + DOWN
                    + "L7STS 49 See RFC: http://tools.ietf.org/html/rfc4511#section-4.1.9",
            "ldap_garbage", KO + "Layer7 invalid response, info: \"Not LDAPv3 protocol\"" + DOWN + "L7RSP  Not LDAPv3 protocol",
            "ldap_silent", KO + "Layer7 timeout" + DOWN + "L7TOUT  ",
            "ssl_ok", OK + "Layer6 check passed" + UP + "L6OK  ",
            "ssl_garbage", KO + "Layer6 invalid response" + DOWN + "L6RSP  ",
            "ssl_silent", KO + "Layer6 timeout" + DOWN + "L6TOUT  ");

    @Test
    void protocolChecksGiveHaproxysStatusesAndWords() {
        assertThat(run(false, PROTOCOLS, origins(PROTOCOLS))).containsExactlyEntriesOf(PROTOCOLS_SEEN);
    }

    /** HAProxy 2.6 gives {@link #protocolChecksGiveHaproxysStatusesAndWords} its expectations. */
    @Test
    void protocolChecksInHaproxy() {
        Program.HAPROXY.require();
        assertThat(run(true, PROTOCOLS, origins(PROTOCOLS))).as("HAProxy 2.6").containsExactlyEntriesOf(PROTOCOLS_SEEN);
    }

    // ------------------------------------------------------------------ what the checks send

    private static final ScriptedOrigin.Script RECORD = ScriptedOrigin.Conn::readToEnd;

    private static final List<Case> SENT = List.of(
            new Case("redis", "option redis-check", RECORD),
            new Case("smtp", "option smtpchk EHLO me.test", SMTP_OK),
            new Case("pgsql", "option pgsql-check user bob", RECORD),
            new Case("mysql41", "option mysql-check user bob", RECORD),
            new Case("mysql40", "option mysql-check user bob pre-41", RECORD),
            new Case("ldap", "option ldap-check", RECORD),
            new Case("ssl", "option ssl-hello-chk", RECORD),
            new Case("plain", "option tcp-check\ntcp-check send \"a\\r\\n\"", RECORD),
            new Case("linger", "option tcp-check\ntcp-check connect linger\ntcp-check send-binary 0001ff", RECORD),
            new Case("proxy", "option tcp-check\ntcp-check connect send-proxy\ntcp-check send-lf \"%[var(check.v)]x\"", RECORD),
            new Case("vars", "option tcp-check\ntcp-check set-var(check.v) str(hello)\ntcp-check connect\ntcp-check send-lf \"%[var(check.v)]y\"",
                    RECORD));

    /** What each origin received from its first check, made comparable: the hello's time and PROXY ports masked. */
    private Map<String, String> sent(boolean haproxy) {
        Map<String, ScriptedOrigin> origins = origins(SENT);
        run(haproxy, SENT, origins);
        Map<String, String> out = new LinkedHashMap<>();
        for (Case k : SENT) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (origins.get(k.name()).received().isEmpty() && System.nanoTime() < deadline) {
                Daemon.sleep(20);
            }
            // the first check's connection (a later one may be cut short when the daemon stops)
            List<ScriptedOrigin.Received> got = origins.get(k.name()).received();
            String h = got.isEmpty() ? "<nothing>" : got.getFirst().hex();
            if (k.name().equals("ssl") && h.length() > 30) {
                h = h.substring(0, 22) + "TTTTTTTT" + h.substring(30);
            }
            // PROXY TCP4 127.0.0.1 127.0.0.1 <source port> <origin port>
            h = h.replaceAll("^(50524f5859205443503420(?:3[0-9]|2e)+20(?:3[0-9]|2e)+20)(?:3[0-9])+20(?:3[0-9])+0d0a", "$1PORT20PORT0d0a");
            out.put(k.name(), h + " " + (got.isEmpty() ? "" : got.getFirst().end()));
        }
        return out;
    }

    @Test
    void whatTheChecksSendIsWhatHaproxySends() {
        Program.HAPROXY.require();
        Map<String, String> sluice = sent(false);
        assertThat(sluice.get("redis")).isEqualTo("2a310d0a24340d0a50494e470d0a RST");
        assertThat(sluice.get("linger")).isEqualTo("0001ff FIN");
        Map<String, String> haproxy = sent(true);
        assertThat(sluice).as("what Sluice sent, against HAProxy 2.6").containsExactlyEntriesOf(haproxy);
    }

    // ------------------------------------------------------------------ TLS

    private static final List<Case> TLS = List.of(
            new Case("tls_request", "option tcp-check\ntcp-check connect ssl sni health.test\n"
                    + "tcp-check send \"GET / HTTP/1.1\\r\\nhost: t\\r\\nconnection: close\\r\\n\\r\\n\"\ntcp-check expect string \"tls ok\"", null),
            new Case("tls_connect", "option tcp-check\ntcp-check connect ssl", null),
            new Case("tls_plain", "option tcp-check\ntcp-check connect\ntcp-check expect string x", null));

    private Map<String, String> tls(boolean haproxy, TlsOrigin origin) {
        for (Case k : TLS) {
            fixedPorts.put(k.name(), origin.port() + " ssl verify none");
        }
        return run(haproxy, TLS, Map.of());
    }

    /**
     * {@code connect ssl} speaks TLS with the server's settings and the rule's SNI; a connect without it speaks clear
     * text even to a TLS server (which then says nothing the rule expects): as HAProxy 2.6.
     */
    @Test
    void tlsConnectsAsHaproxy() throws Exception {
        TestPki pki = new TestPki("tcp-check-ca");
        TlsOrigin origin = new TlsOrigin(pki.leaf("health.test"), "tls ok".getBytes(StandardCharsets.US_ASCII));
        closing.add(origin);
        Map<String, String> sluice = tls(false, origin);
        assertThat(sluice.get("tls_request")).isEqualTo(OK + "Layer7 check passed, code: 0, info: \"(tcp-check)\"" + UP + "L7OK 0 (tcp-check)");
        assertThat(sluice.get("tls_connect")).isEqualTo(OK + "Layer6 check passed, info: \"(tcp-check)\"" + UP + "L6OK  (tcp-check)");
        assertThat(origin.serverNames()).contains("health.test");
        Program.HAPROXY.require();
        assertThat(tls(true, origin)).as("HAProxy 2.6").containsExactlyEntriesOf(sluice);
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
                option tcp-check
                tcp-check connect port 70000
                tcp-check connect nope
                tcp-check send-binary zz
                tcp-check expect string a string b
                tcp-check expect status 200
                tcp-check expect ok-status L7STS string a
                tcp-check set-var(x.y) int(1)
                tcp-check foo
                option pgsql-check usr x
                option mysql-check user x post-42
                no option redis-check
                server s1 127.0.0.1:2 check
            """;

    /** Expressions and log-format strings: Sluice compiles them once the file parses (HAProxy reports all at once). */
    private static final String BAD_EXPRESSIONS = BAD.substring(0, BAD.indexOf("    tcp-check connect port")) + """
                tcp-check expect string x status-code path
                tcp-check send-lf "%[nope]"
                tcp-check set-var(check.x) nope(1)
                server s1 127.0.0.1:2 check
            """;

    /** {@code line message} of each error {@code sluice -c} prints. */
    private static List<String> sluiceErrors(String config) {
        Sluice.Result r = Sluice.check(config);
        assertThat(r.exitCode()).isEqualTo(1);
        return r.output().lines().filter(l -> l.contains(": error: ")).map(l -> l.replaceFirst("^.*?:(\\d+): error: ", "$1 ")).toList();
    }

    /** {@code line message} of each error {@code haproxy -c} prints. */
    private static List<String> haproxyErrors(String config) throws Exception {
        Process h = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", Sluice.writeConfig(config).toString()).redirectErrorStream(true).start();
        String out = new String(h.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        h.waitFor();
        // a few messages end with a stray newline and dot (a line of its own); the negation one has no space before its colon
        return out.lines().filter(l -> l.contains("parsing [")).map(l -> l.replaceFirst("^.*parsing \\[[^:]*:(\\d+)\\] ?: ", "$1 ")).toList();
    }

    /** Each bad line is reported on its line with HAProxy 2.6's words ({@code haproxy -c} on the same file). */
    @Test
    void configurationErrorsAreHaproxys() throws Exception {
        List<String> parse = sluiceErrors(BAD);
        assertThat(parse).hasSize(11).contains("13 'tcp-check send-binary' : 'zz' invalid binary string (an hex digit is expected (found 'z')).");
        List<String> expressions = sluiceErrors(BAD_EXPRESSIONS);
        assertThat(expressions).containsExactly(
                "11 'tcp-check expect' : error detected while parsing status-code expression :  fetch method 'path' extracts information from"
                        + " 'HTTP request headers', none of which is available here.",
                "12 'tcp-check send-lf' : '%[nope]' invalid log-format string (failed to parse sample expression <nope]> : unknown fetch method"
                        + " 'nope').",
                "13 'tcp-check set-var(check.x)' : 'set-var' : unknown fetch method 'nope'.");
        Program.HAPROXY.require();
        assertThat(parse).as("HAProxy 2.6").containsExactlyInAnyOrderElementsOf(haproxyErrors(BAD));
        assertThat(expressions).as("HAProxy 2.6").containsExactlyInAnyOrderElementsOf(haproxyErrors(BAD_EXPRESSIONS));
    }
}
