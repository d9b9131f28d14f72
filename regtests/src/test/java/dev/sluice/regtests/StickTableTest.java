package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stick tables through the daemon: tracking, the sc_/src_/table_ samples, gpc/gpt actions, rate limiting. */
class StickTableTest {

    @Test
    void theRateLimiterLetsExactlyTheLimitThroughInTheWindow() {
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start("""
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        stick-table type ip size 1m expire 30s store http_req_rate(10s)
                        http-request track-sc0 src
                        http-request deny deny_status 429 if { sc_http_req_rate(0) gt 7 }
                        default_backend be
                    backend be
                        server s1 127.0.0.1:%d
                    """.formatted(port, o.port()), port)) {
                List<Integer> statuses = new ArrayList<>();
                try (RawClient c = new RawClient(port)) {
                    for (int i = 0; i < 12; i++) {
                        statuses.add(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status());
                    }
                }
                assertThat(statuses.subList(0, 7)).containsOnly(200);
                assertThat(statuses.subList(7, 12)).containsOnly(429);
                assertThat(o.requests()).hasSize(7);
            }
        }
    }

    @Test
    void aSourceConnectionRateLimitRefusesTheConnectionsPastIt() {
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            int probe = Ports.free();
            try (Sluice s = Sluice.start("""
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        stick-table type ip size 1m expire 30s store conn_rate(10s)
                        tcp-request connection track-sc0 src
                        tcp-request connection reject if { src_conn_rate gt 5 }
                        default_backend be
                    # bound after fe (listeners start in order): readiness is probed here, not counted in fe's table
                    frontend probe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        server s1 127.0.0.1:%d
                    """.formatted(port, probe, o.port()), probe)) {
                List<Boolean> served = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    try (RawClient c = new RawClient(port)) {
                        served.add(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status() == 200);
                    } catch (RuntimeException e) {
                        served.add(false);
                    }
                }
                assertThat(served).containsExactly(true, true, true, true, true, false, false, false);
                assertThat(o.requests()).hasSize(5);
            }
        }
    }

    @Test
    void countersAndActionsMatchHaproxy() throws Exception {
        String get = "GET / HTTP/1.1\r\n\r\n";
        List<String> requests = new ArrayList<>(List.of(get, "GET /inc HTTP/1.1\r\n\r\n", "GET /nf HTTP/1.1\r\n\r\n",
                "GET / HTTP/1.1\r\nx-user: bob\r\n\r\n", "GET /gpt HTTP/1.1\r\n\r\n", "GET /deny HTTP/1.1\r\n\r\n",
                "GET /inc HTTP/1.1\r\nx-user: bob\r\n\r\n"));
        for (int i = 0; i < 9; i++) {
            requests.add(get);
        }
        requests.add("2:GET / HTTP/1.1\r\n\r\n");
        HaproxyParityTest.assertSameAsHaproxy("sticktable-parity.cfg", requests);
    }

    @Test
    void arrayFetchesAndConvertersMatchHaproxy() throws Exception {
        List<String> requests = new ArrayList<>();
        for (String path : List.of("/", "/inc1", "/inc1", "/gpt", "/fetchinc", "/clr", "/inc1", "/srcinc", "/srcinc", "/srcclr", "/leg",
                "/leg", "/")) {
            requests.add("GET " + path + " HTTP/1.1\r\n\r\n");
        }
        requests.add("2:GET / HTTP/1.1\r\n\r\n");
        HaproxyParityTest.assertSameAsHaproxy("sticktable-arrays-parity.cfg", requests);
    }

    static String sessionsOverTlsAndH2(String pem, int probe, int tls, int h2) {
        String table = "stick-table type ip size 10 expire 1m store conn_cnt,sess_cnt,sess_rate(10s),http_req_cnt";
        String seen = "http-request return status 200 hdr x-s \"%[sc_sess_cnt(0)]|%[sc_conn_cnt(0)]|%[sc_http_req_cnt(0)]|%[sc_sess_rate(0)]\"";
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend tls
                    bind 127.0.0.1:%d ssl crt %s
                    %s
                    tcp-request connection track-sc0 src
                    %s
                frontend h2
                    bind 127.0.0.1:%d proto h2
                    %s
                    tcp-request connection track-sc0 src
                    %s
                # last: listeners start in order, so once the probe's port answers the others do (probing them would count)
                frontend probe
                    bind 127.0.0.1:%d
                    http-request return status 200
                """.formatted(tls, pem, table, seen, h2, table, seen, probe);
    }

    /** A failed TLS handshake, then two requests on one TLS connection, then two streams on one HTTP/2 connection. */
    private static List<String> sessionsExchange(int tls, int h2) throws Exception {
        List<String> out = new ArrayList<>();
        try (java.net.Socket plain = new java.net.Socket("127.0.0.1", tls)) {
            plain.getOutputStream().write("GET / HTTP/1.1\r\nhost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            plain.setSoTimeout(5000);
            out.add("plain on tls: " + plain.getInputStream().read());
        }
        String url = "https://127.0.0.1:" + tls + "/";
        out.addAll(CurlTest.curl("-k", "-o", "/dev/null", "-o", "/dev/null", "-w", "%header{x-s}\n", url, url).lines().toList());
        try (H2RawClient c = new H2RawClient(h2)) {
            for (int stream = 1; stream <= 3; stream += 2) {
                c.headers(stream, true, MalformedHttp2Test.fields());
                H2RawClient.Frame f = c.awaitStream(stream);
                out.add("h2: " + c.decode(f).get("x-s"));
            }
        }
        return out;
    }

    @Test
    void sessionsOverTlsAndHttp2MatchHaproxy() throws Exception {
        String haproxy = Program.HAPROXY.require();
        Program.CURL.require();
        TestPki.Issued cert = new TestPki("sessions-ca").leaf("a.test");
        int[] hp = {Ports.free(), Ports.free(), Ports.free()};
        int[] sp = {Ports.free(), Ports.free(), Ports.free()};
        List<String> theirs;
        java.nio.file.Path hcfg = Sluice.writeConfig(sessionsOverTlsAndH2(cert.pem().toString(), hp[0], hp[1], hp[2]));
        Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                .redirectOutput(hcfg.resolveSibling("haproxy.log").toFile()).start();
        try {
            HaproxyParityTest.waitFor(hp[0]);
            theirs = sessionsExchange(hp[1], hp[2]);
        } finally {
            h.destroy();
            h.waitFor();
        }
        try (Sluice s = Sluice.start(sessionsOverTlsAndH2(cert.pem().toString(), sp[0], sp[1], sp[2]), sp[0])) {
            List<String> ours = sessionsExchange(sp[1], sp[2]);
            assertThat(ours).isEqualTo(theirs);
            // the failed handshake counted a connection and no session
            assertThat(ours).containsExactly("plain on tls: -1", "1|2|1|1", "1|2|2|1", "h2: 1|1|1|1", "h2: 1|1|2|1");
        }
    }

    @Test
    void tcpRequestConnectionAndContentRulesMatchHaproxy() throws Exception {
        List<String> requests = new ArrayList<>();
        requests.add("GET / HTTP/1.1\r\n\r\n");
        // rejected by tcp-request content: no answer from either
        requests.add(HaproxyParityTest.NO_RESPONSE_EXPECTED + "GET /tcpreject HTTP/1.1\r\n\r\n");
        requests.add("2:GET / HTTP/1.1\r\n\r\n");
        for (int i = 0; i < 6; i++) {
            // the 7th and 8th connections of the source pass sc_conn_rate(0) gt 6: rejected by tcp-request connection
            requests.add((i >= 4 ? HaproxyParityTest.NO_RESPONSE_EXPECTED : "") + "GET / HTTP/1.1\r\n\r\n");
        }
        requests.add("2:GET / HTTP/1.1\r\n\r\n");
        HaproxyParityTest.assertSameAsHaproxy("tcp-request-parity.cfg", requests);
    }

    @Test
    void badTablesAreConfigErrors() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                frontend fe
                    bind 127.0.0.1:1
                    stick-table type ip size 0
                    http-request track-sc0 src table nope
                    http-request set-header x %[sc_http_req_rate(5)]
                    default_backend be
                backend be
                    server s1 127.0.0.1:2
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output())
                .containsPattern("test\\.cfg:5: error: 'stick-table' : .*size")
                .contains("test.cfg:6: error: error detected while parsing a 'http-request track-sc0' rule : unable to find table 'nope'.")
                .contains("test.cfg:7: error: error detected while parsing a 'http-request set-header' rule : invalid stick counter number '5'");
        Sluice.Result action = Sluice.check("""
                defaults
                    mode http
                frontend fe
                    bind 127.0.0.1:1
                    http-request sc-inc-gpc0(7)
                """);
        assertThat(action.exitCode()).isEqualTo(1);
        assertThat(action.output()).containsPattern("test\\.cfg:5: error: .*expects 'sc-inc-gpc0\\(<sc>\\)' with a stick counter number between 0 and 2");
    }
}
