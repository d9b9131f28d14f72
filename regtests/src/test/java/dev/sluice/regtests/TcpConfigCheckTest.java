package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The configuration side of {@code mode tcp}: each configuration here goes through {@code sluice -c} and HAProxy
 * 2.6's {@code haproxy -c}, and both must report the same errors and warnings (same text, same line where HAProxy gives
 * one) and exit alike. The differences are tagged: {@link #NOT_YET} (what Sluice refuses until the layer-4 runtime
 * has it, issue 16) and the case's own {@link Departure}s ({@code grep 'departure(' TcpConfigCheckTest.java}
 * lists them).
 */
class TcpConfigCheckTest {

    /** A message only Sluice prints, and why. */
    record Departure(String reason, Pattern sluiceOnly) {
    }

    static Departure departure(String reason, String regex) {
        return new Departure(reason, Pattern.compile(regex));
    }

    /**
     * The departure of many cases: until the layer-4 runtime has them (issue 16), {@code -c} and start-up refuse TLS ends
     * and the HTTP upgrade in TCP proxies, and session and response rules anywhere, with one error
     * per proxy; HAProxy takes them.
     */
    static final Departure NOT_YET = departure("issue 16: the layer-4 runtime does not run it yet",
            "(frontend|backend|listen) '[^']*' : .* (is|are) not supported yet.*");

    /** One message: its line (null when HAProxy gives none), severity and text. */
    record Message(Integer line, String severity, String text) {
        @Override
        public String toString() {
            return (line == null ? "-" : line) + " " + severity + " " + text;
        }
    }

    private static final Pattern HAPROXY_LINE = Pattern.compile("^\\[(ALERT|WARNING)\\] +\\(\\d+\\) : config : (.*)$");
    private static final Pattern HAPROXY_AT = Pattern.compile("^[Pp]arsing \\[[^\\]]*:(\\d+)\\] ?: (.*)$");
    private static final Pattern SLUICE_LINE = Pattern.compile("^[^:]*:(\\d+): (error|warning): (.*)$");

    static List<Message> haproxyMessages(String output) {
        List<Message> out = new ArrayList<>();
        for (String l : output.split("\n")) {
            Matcher m = HAPROXY_LINE.matcher(l);
            if (!m.matches()) {
                continue;
            }
            String text = m.group(2).strip();
            if (text.startsWith("Error(s) found in configuration file") || text.equals("Fatal errors found in configuration.")) {
                continue;
            }
            Matcher at = HAPROXY_AT.matcher(text);
            Integer line = null;
            if (at.matches()) {
                line = Integer.parseInt(at.group(1));
                text = at.group(2);
            }
            out.add(new Message(line, m.group(1).equals("ALERT") ? "error" : "warning", text));
        }
        return out;
    }

    static List<Message> sluiceMessages(String output) {
        List<Message> out = new ArrayList<>();
        for (String l : output.split("\n")) {
            Matcher m = SLUICE_LINE.matcher(l);
            if (m.matches()) {
                out.add(new Message(Integer.parseInt(m.group(1)), m.group(2), m.group(3).strip()));
            } else if (!l.isBlank() && !l.equals("Fatal errors found in configuration.") && !l.equals("Warnings were found.")
                    && !l.startsWith("Configuration file ") && !l.startsWith("sluice: rebuilding")) {
                out.add(new Message(null, "other", l));
            }
        }
        return out;
    }

    /** Lines 1-7: logs to stdout (no warning about formats without a log address), every timeout, no mode. */
    private static final String HEAD = """
            global
                log stdout format raw local0
            defaults
                log global
                timeout client 5s
                timeout server 5s
                timeout connect 5s
            """;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("mode pairing (plan 2.E)", HEAD + """
                        frontend fe_http
                            mode http
                            bind 127.0.0.1:1
                            use_backend be_tcp if { path /x }
                            default_backend be_tcp
                        frontend fe_tcp
                            mode tcp
                            bind 127.0.0.1:2
                            default_backend be_http
                        frontend fe_nomode
                            bind 127.0.0.1:3
                            use_backend be_http if { src 10.0.0.1 }
                            default_backend be_nomode
                        listen l_http
                            mode http
                            bind 127.0.0.1:4
                            use_backend be_nomode if { path /y }
                            server s1 127.0.0.1:9
                        backend be_tcp
                            mode tcp
                            server s1 127.0.0.1:9
                        backend be_http
                            mode http
                            server s1 127.0.0.1:9
                        backend be_nomode
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("HTTP settings of a TCP proxy (plan 2.E)", HEAD + """
                        listen l1
                            mode tcp
                            bind 127.0.0.1:1
                            http-request deny if { path /x }
                            http-response set-header a b
                            http-after-response set-header a b
                            redirect prefix /x
                            option forwardfor
                            option http-ignore-probes
                            option prefer-last-server
                            option accept-invalid-http-request
                            option http-use-proxy-header
                            option http-server-close
                            option httpchk GET /
                            timeout http-request 5s
                            compression algo gzip
                            option httplog
                            cookie SRV insert
                            stats enable
                            capture cookie A len 10
                            monitor-uri /m
                            balance uri
                            server s1 127.0.0.1:9 cookie a check
                        listen l2
                            mode tcp
                            bind 127.0.0.1:2
                            tcp-request content switch-mode http
                            http-request deny if { path /x }
                            option forwardfor
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("option httplog of defaults in TCP frontends", """
                        global
                            log stdout format raw local0
                        defaults
                            mode tcp
                            log global
                            option httplog
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                        frontend ft
                            bind 127.0.0.1:1
                            default_backend bt
                        frontend ft2
                            bind 127.0.0.1:2
                            option tcplog
                            default_backend bt
                        backend bt
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("L6 fetches through predefined ACLs in HTTP proxies (plan 2.D)", HEAD + """
                        frontend fh
                            mode http
                            bind 127.0.0.1:1
                            tcp-request content reject if REQ_CONTENT
                            http-request deny if RDP_COOKIE
                            use_backend bh if { src 10.0.0.1 } || REQ_CONTENT
                            default_backend bh
                        backend bh
                            mode http
                            stick-table type ip size 1k
                            stick on src if REQ_CONTENT
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("L6 fetches in HTTP proxies (plan 2.D)", HEAD + """
                        frontend fh
                            mode http
                            bind 127.0.0.1:1
                            tcp-request content reject if { req.len gt 0 }
                            use_backend bh if { req.ssl_sni foo }
                            default_backend bh
                        backend bh
                            mode http
                            server s1 127.0.0.1:9
                        """, List.of(departure("the daemon compiles no layer-6 fetch yet (content inspection comes with the TCP runtime)",
                        "error detected while parsing (a 'tcp-request content reject' rule|switching rule) : fetch method '(req.len|req.ssl_sni)'"
                                + " is not supported by Sluice yet: tcp-request content inspection.*"))),
                Arguments.of("SNI and ALPN routing, inspect-delay (corpus 21 and 31 shapes)", HEAD + """
                        frontend fe_tls
                            mode tcp
                            option tcplog
                            bind 127.0.0.1:1
                            tcp-request inspect-delay 5s
                            tcp-request content accept if { req_ssl_hello_type 1 }
                            use_backend be_acme if { req.ssl_alpn acme-tls/1 }
                            use_backend be_one if { req_ssl_sni -i one.example.com }
                            default_backend be_https
                        frontend fe_nobackend
                            mode tcp
                            bind 127.0.0.1:2
                            tcp-request inspect-delay 2s
                            tcp-request content reject if { req.payload(0,3) -m bin 474554 }
                            tcp-request content accept if WAIT_END
                        backend be_acme
                            server acme 127.0.0.1:10443
                        backend be_one
                            mode tcp
                            server one 127.0.0.1:11443
                        backend be_https
                            server https 127.0.0.1:8443 send-proxy-v2
                        frontend fe_https
                            mode http
                            option forwardfor
                            option httplog
                            bind 127.0.0.1:8443 accept-proxy
                            http-request add-header X-Forwarded-Proto https
                            http-request return status 200
                        """, List.of()),
                Arguments.of("balancing, checks and stickiness in TCP (corpus 34, 39, 40 shapes)", HEAD + """
                            option dontlognull
                            retries 3
                            timeout queue 1m
                            timeout check 5s
                        frontend fe_api
                            bind 127.0.0.1:1
                            mode tcp
                            option tcplog
                            default_backend be_api
                        backend be_api
                            mode tcp
                            balance leastconn
                            default-server inter 15s downinter 15s rise 2 fall 2 slowstart 60s maxconn 1000 maxqueue 256 weight 100
                            option httpchk GET /healthz
                            http-check expect status 200
                            server n1 127.0.0.1:6443 check
                            server n2 127.0.0.1:6444 check
                        listen l_src
                            bind 127.0.0.1:2
                            mode tcp
                            balance source
                            option allbackups
                            stick-table type ip size 200k expire 30m
                            stick on src
                            server a 127.0.0.1:7001 check inter 1s
                            server b 127.0.0.1:7002 check inter 1s backup
                        """, List.of()),
                Arguments.of("tcp rule errors of a frontend (plan 2.D)", HEAD + """
                        frontend f1
                            mode tcp
                            bind 127.0.0.1:1
                            tcp-request content bogus
                            tcp-request connection bogus
                            tcp-request session bogus
                            tcp-request content rejet
                            tcp-request bogus
                            tcp-request
                            tcp-response content accept
                            tcp-response inspect-delay 1s
                            tcp-request inspect-delay 1s
                            tcp-request inspect-delay 2s
                            tcp-request inspect-delay x
                            tcp-request content expect-proxy layer4
                            tcp-request connection expect-proxy layer5
                            tcp-request content capture req.len len 10
                            tcp-request connection capture req.len len 10
                            tcp-request content capture src
                            tcp-request content capture src len 0
                            tcp-request content capture res.len len 4
                            tcp-request connection track-sc0 req.len
                            tcp-request content use-service prometheus-exporter
                            tcp-request content set-log-level foo
                            tcp-request content accept if { req.len gt 0 } foo
                            tcp-request content accept foo
                            tcp-request content track-sc3 src
                            tcp-request content track-scx src
                            tcp-request content track-sc0
                            tcp-request content switch-mode tcp
                            tcp-request content switch-mode http proto h3
                            tcp-request content switch-mode
                            tcp-request content set-nice
                            tcp-request content set-mark
                            tcp-request content set-src
                            tcp-request content set-var(txn.x)
                            tcp-request content set-var(x.x) src
                            tcp-request content sc-inc-gpc0(5)
                            default_backend b1
                        backend b1
                            mode tcp
                            tcp-request content switch-mode http
                            tcp-request content capture src len 4
                            tcp-request connection accept
                            tcp-request session accept
                            tcp-response content bogus
                            tcp-response bogus
                            tcp-response
                            tcp-response content close foo
                            tcp-response inspect-delay 2x
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("tcp rules in anonymous defaults", """
                        defaults
                            mode tcp
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            tcp-request inspect-delay 1s
                            tcp-request connection accept
                            tcp-request session accept
                            tcp-request content accept
                            tcp-response inspect-delay 1s
                            tcp-response content accept
                            tcp-request
                            tcp-response
                            tcp-request foo
                            tcp-response foo
                        """, List.of()),
                Arguments.of("rules of a named defaults section, ordering and L6 warnings (plan 2.D)", """
                        global
                            log stdout format raw local0
                        defaults d1
                            mode tcp
                            log global
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            tcp-request inspect-delay 3s
                            tcp-request content accept if { req.len gt 0 }
                            tcp-request connection accept
                            tcp-request session accept if { src 10.0.0.1 }
                        frontend ft from d1
                            bind 127.0.0.1:1
                            tcp-request inspect-delay 1s
                            acl big req.len gt 10
                            acl resp res.len gt 10
                            acl mixed res.len gt 10
                            acl mixed src 10.0.0.1
                            tcp-request connection reject if { req.len gt 0 }
                            tcp-request connection reject if big
                            tcp-request session reject if REQ_CONTENT
                            tcp-request content reject if { res.len gt 0 }
                            tcp-request content reject if resp
                            tcp-request content reject if big resp
                            tcp-request content reject if { req_ssl_sni -m end .x }
                            tcp-request content reject if mixed
                            tcp-request session accept
                            tcp-request connection accept
                            use_backend bt if { src 10.0.0.2 }
                            tcp-request content accept
                            default_backend bt
                        defaults d2
                            mode tcp
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            tcp-response inspect-delay 1s
                            tcp-response content close if { res.len gt 0 }
                            tcp-request content accept
                        backend bt from d2
                            tcp-response content reject if { req.len gt 0 }
                            tcp-response content reject if { res.payload(0,2) -m bin 0102 }
                            tcp-response inspect-delay 2s
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("a frontend cannot take response rules of a defaults section", """
                        defaults d1
                            mode tcp
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            tcp-response content accept
                        frontend f1 from d1
                            bind 127.0.0.1:1
                        """, List.of()),
                Arguments.of("a backend cannot take connection rules of a defaults section", """
                        defaults d1
                            mode tcp
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            tcp-request connection accept
                        backend b1 from d1
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("a listen section cannot take rules of a defaults section", """
                        defaults d1
                            mode tcp
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            tcp-request content accept
                        listen l1 from d1
                            bind 127.0.0.1:1
                        """, List.of()),
                Arguments.of("frontends and backends cannot share the rules of a defaults section", """
                        defaults d1
                            mode tcp
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            tcp-request content accept
                        frontend f1 from d1
                            bind 127.0.0.1:1
                            default_backend b1
                        backend b1 from d1
                            server s1 127.0.0.1:9
                        """, List.of()),
                Arguments.of("half-close timeouts, tunnel, splice (plan 2.C, 2.H)", """
                        global
                            nosplice
                            tune.pipesize 65536
                        defaults
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                            timeout client-fin 1s
                            timeout server-fin 2s
                            timeout tunnel 1h
                            option splice-auto
                        listen l
                            bind 127.0.0.1:1
                            option splice-request
                            option splice-response
                            no option splice-auto
                            server s1 127.0.0.1:9
                        backend b1
                            timeout client-fin 3s
                            timeout server-fin 4s
                            timeout tunnel 1h
                            server s1 127.0.0.1:9
                        frontend f1
                            bind 127.0.0.1:2
                            timeout server-fin 5s
                            timeout client-fin 6s
                            default_backend b1
                        """, List.of()),
                Arguments.of("session and response rules of HTTP proxies", HEAD + """
                        frontend fh
                            mode http
                            bind 127.0.0.1:1
                            tcp-request session accept if { src 10.0.0.1 }
                            tcp-request content accept
                            default_backend bh
                        backend bh
                            mode http
                            tcp-response content accept
                            server s1 127.0.0.1:9
                        """, List.of()));
    }

    /**
     * Start-up refuses what -c refuses ({@link #NOT_YET}), before listening: now only the {@code tcp-response content}
     * rules of an HTTP proxy (a configuration the daemon runs would keep this test waiting for its exit).
     */
    @Test
    void startingRefusesWhatTheLayer4RuntimeDoesNotRunYet() {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(HEAD + """
                listen l
                    mode http
                    bind 127.0.0.1:%d
                    tcp-response content accept
                    server s1 127.0.0.1:9
                """.formatted(port));
        Sluice.Result r = Sluice.run(List.of("-f", cfg.toString()), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("test.cfg:8: error: listen 'l' : 'tcp-response content' rules in mode http are not supported yet"
                + " (they are checked but would not run).").contains("Fatal errors found in configuration.");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void sluiceReportsWhatHaproxyReports(String name, String config, List<Departure> departures) throws IOException, InterruptedException {
        Path cfg = Sluice.writeConfig(config);
        Process h = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", cfg.toString()).redirectErrorStream(true).start();
        String hout = new String(h.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int hrc = h.waitFor();
        Sluice.Result s = Sluice.run(List.of("-c", "-f", cfg.toString()), Map.of());

        List<Message> sluice = new ArrayList<>(sluiceMessages(s.output()));
        List<Message> missing = new ArrayList<>();
        for (Message m : haproxyMessages(hout)) {
            Message match = sluice.stream().filter(x -> x.severity().equals(m.severity()) && x.text().equals(m.text())
                    && (m.line() == null || m.line().equals(x.line()))).findFirst().orElse(null);
            if (match == null) {
                missing.add(m);
            } else {
                sluice.remove(match);
            }
        }
        boolean notYet = sluice.removeIf(m -> m.severity().equals("error") && NOT_YET.sluiceOnly().matcher(m.text()).matches());
        boolean departed = false;
        for (Departure d : departures) {
            departed |= sluice.removeIf(m -> d.sluiceOnly().matcher(m.text()).matches());
        }
        assertThat(missing).as("HAProxy's messages Sluice does not give\nhaproxy:\n%s\nsluice:\n%s", hout, s.output()).isEmpty();
        assertThat(sluice).as("Sluice's messages HAProxy does not give\nhaproxy:\n%s\nsluice:\n%s", hout, s.output()).isEmpty();
        // haproxy -c: 0 valid, 2 valid but nothing to listen on, 1 errors
        int expected = (notYet || departed) && hrc != 1 ? 1 : hrc;
        assertThat(s.exitCode()).as("exit status (haproxy: %d)\n%s", hrc, s.output()).isEqualTo(expected);
    }
}
