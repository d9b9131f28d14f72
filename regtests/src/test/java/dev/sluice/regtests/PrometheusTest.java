package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code http-request use-service prometheus-exporter}: HAProxy 2.6's metric names, types, labels and help strings
 * (compared with a live HAProxy when it is installed), values that are the admin socket's own (one source of truth:
 * the queues, queue limit and throttle included), series that follow dynamic servers, the cardinality bound by whole
 * objects ({@code tune.prometheus.max-series}), HAProxy's {@code scope} and {@code no-maint} query parameters, the
 * QUIC families of a QUIC bind, and an output that {@code promtool check metrics} accepts (skipped when promtool is
 * not installed).
 */
class PrometheusTest {
    static Origin web1;
    static Origin web2;
    static Origin queued;
    static volatile CountDownLatch gate = new CountDownLatch(0);
    static Sluice sluice;
    static Path admin;
    static int feMain;
    static int feMetrics;

    @BeforeAll
    static void start() throws IOException {
        web1 = Origin.start("web1");
        web2 = Origin.start("web2");
        // /hold waits for the gate
        queued = Origin.start("q1", PrometheusTest::gated);
        Path dir = Files.createTempDirectory("sluice-prom");
        admin = dir.resolve("admin.sock");
        feMain = Ports.free();
        feMetrics = Ports.free();
        TestPki.Issued cert = new TestPki("prom-ca").leaf("localhost", "127.0.0.1");
        sluice = Sluice.start("""
                global
                    stats socket %1$s level admin
                    tune.prometheus.max-series 12
                defaults
                    mode http
                    timeout client 5s
                    timeout server 30s
                    timeout connect 1s
                frontend fe_main
                    bind 127.0.0.1:%2$d
                    bind quic4@127.0.0.1:%2$d ssl crt %7$s alpn h3
                    stick-table type ip size 100 expire 30s store http_req_cnt
                    http-request track-sc0 src
                    use_backend be_queue if { path_beg /q/ }
                    default_backend be_web
                frontend fe_metrics
                    bind 127.0.0.1:%3$d
                    http-request use-service prometheus-exporter if { path /metrics }
                    http-request return status 404
                backend be_web
                    server web1 127.0.0.1:%4$d
                    server web2 127.0.0.1:%5$d weight 3
                backend be_queue
                    balance hdr(x-key)
                    timeout queue 30s
                    server q1 127.0.0.1:%6$d maxconn 1 maxqueue 5 slowstart 60s
                """.formatted(admin, feMain, feMetrics, web1.port(), web2.port(), queued.port(), cert.pem()), feMain, feMetrics);
        AdminClient.await(admin);
    }

    static boolean gated(Origin.Request r, OutputStream out) throws IOException {
        try {
            if (r.target().startsWith("/q/hold")) {
                gate.await(20, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Origin.respond(out, 200, "OK", Origin.headers("X-Origin", "q1"), "q1\n".getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    @AfterAll
    static void stop() {
        gate.countDown();
        if (sluice != null) {
            sluice.close();
        }
        web1.close();
        web2.close();
        queued.close();
    }

    static RawClient.Response fetch(int port, String target) {
        try (RawClient c = new RawClient(port)) {
            return c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
        }
    }

    static String scrape() {
        return scrape("/metrics");
    }

    static String scrape(String target) {
        RawClient.Response r = fetch(feMetrics, target);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
        assertThat(r.header("cache-control")).isEqualTo("no-cache");
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    /** The value of one series, by its exact name and labels as written. */
    static double value(String text, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        assertThat(m.find()).as(series + " in\n" + text).isTrue();
        return Double.parseDouble(m.group(1));
    }

    static long count(String text, String family) {
        return Pattern.compile("(?m)^" + family + "\\{").matcher(text).results().count();
    }

    static Map<String, Map<String, String>> stat() {
        return AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n"));
    }

    @Test
    void haproxyNamesAndHelpWithTheSocketsValues() {
        for (int i = 0; i < 5; i++) {
            assertThat(AdminSocketTest.get(feMain, "/")).startsWith("200 web");
        }
        String text = scrape();
        assertThat(text).contains("# HELP haproxy_frontend_http_requests_total Total number of HTTP requests processed by this object since the worker"
                        + " process started\n")
                .contains("# TYPE haproxy_frontend_http_requests_total counter\n")
                .contains("# TYPE haproxy_server_current_sessions gauge\n")
                .contains("# HELP haproxy_process_current_connections Current number of connections on this worker process\n")
                .contains("# HELP haproxy_process_build_info Build info\n# TYPE haproxy_process_build_info gauge\n");
        Map<String, Map<String, String>> stat = stat();
        // the counters did not move between the two reads: the frontend's requests are the socket's
        assertThat(value(text, "haproxy_frontend_http_requests_total{proxy=\"fe_main\"}"))
                .isEqualTo(Double.parseDouble(stat.get("fe_main/FRONTEND").get("req_tot")));
        assertThat(value(text, "haproxy_frontend_http_responses_total{code=\"2xx\",proxy=\"fe_main\"}"))
                .isEqualTo(Double.parseDouble(stat.get("fe_main/FRONTEND").get("hrsp_2xx")));
        assertThat(value(text, "haproxy_backend_loadbalanced_total{proxy=\"be_web\"}")).isEqualTo(5);
        assertThat(value(text, "haproxy_server_loadbalanced_total{proxy=\"be_web\",server=\"web1\"}")
                + value(text, "haproxy_server_loadbalanced_total{proxy=\"be_web\",server=\"web2\"}")).isEqualTo(5);
        assertThat(value(text, "haproxy_server_weight{proxy=\"be_web\",server=\"web2\"}")).isEqualTo(3);
        assertThat(value(text, "haproxy_server_status{proxy=\"be_web\",server=\"web1\",state=\"UP\"}")).isEqualTo(1);
        assertThat(value(text, "haproxy_server_status{proxy=\"be_web\",server=\"web1\",state=\"MAINT\"}")).isEqualTo(0);
        assertThat(value(text, "haproxy_backend_status{proxy=\"be_web\",state=\"UP\"}")).isEqualTo(1);
        assertThat(value(text, "haproxy_backend_status{proxy=\"be_web\",state=\"DOWN\"}")).isEqualTo(0);
        assertThat(value(text, "haproxy_frontend_status{proxy=\"fe_main\",state=\"UP\"}")).isEqualTo(1);
        assertThat(value(text, "haproxy_backend_agg_server_status{proxy=\"be_web\",state=\"UP\"}")).isEqualTo(2);
        assertThat(value(text, "haproxy_sticktable_size{name=\"fe_main\",type=\"ip\"}")).isEqualTo(100);
        assertThat(value(text, "haproxy_sticktable_used{name=\"fe_main\",type=\"ip\"}")).isEqualTo(1);
        assertThat(value(text, "haproxy_process_nbthread")).isPositive();
        // a server without maxconn has no session limit: NaN, as HAProxy writes an empty field
        assertThat(text).contains("haproxy_server_limit_sessions{proxy=\"be_web\",server=\"web1\"} NaN")
                .contains("haproxy_backend_response_time_average_seconds{proxy=\"be_web\"} ");
        // the exporter's own requests are intercepted ones
        assertThat(value(scrape(), "haproxy_frontend_intercepted_requests_total{proxy=\"fe_metrics\"}")).isGreaterThanOrEqualTo(2);
        assertThat(AdminSocketTest.get(feMetrics, "/other")).isEqualTo("404");
    }

    @Test
    void queuesQueueLimitAndThrottleAreShowStats() throws Exception {
        gate = new CountDownLatch(1);
        List<RawClient> held = new ArrayList<>();
        try {
            // q1 takes one request at a time: the next two wait in its queue (the hash sends them to it)
            for (int i = 0; i < 3; i++) {
                held.add(new RawClient(feMain, 30_000).send("GET /q/hold/" + i + " HTTP/1.1\r\nHost: x\r\nx-key: a\r\n\r\n"));
                if (i == 0) {
                    ServerQueueTest.awaitRequest(queued, 0, "/q/hold/0");
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!"2".equals(stat().get("be_queue/q1").get("qcur"))) {
                assertThat(System.nanoTime()).as("q1's queue").isLessThan(deadline);
                Thread.sleep(10);
            }
            String text = scrape();
            Map<String, String> srv = stat().get("be_queue/q1");
            Map<String, String> be = stat().get("be_queue/BACKEND");
            assertThat(value(text, "haproxy_server_current_queue{proxy=\"be_queue\",server=\"q1\"}")).isEqualTo(2)
                    .isEqualTo(Double.parseDouble(srv.get("qcur")));
            assertThat(value(text, "haproxy_server_max_queue{proxy=\"be_queue\",server=\"q1\"}")).isEqualTo(Double.parseDouble(srv.get("qmax")))
                    .isGreaterThanOrEqualTo(2);
            assertThat(value(text, "haproxy_backend_current_queue{proxy=\"be_queue\"}")).isEqualTo(Double.parseDouble(be.get("qcur")));
            assertThat(value(text, "haproxy_backend_max_queue{proxy=\"be_queue\"}")).isEqualTo(Double.parseDouble(be.get("qmax")));
            assertThat(value(text, "haproxy_server_queue_limit{proxy=\"be_queue\",server=\"q1\"}")).isEqualTo(5);
            assertThat(value(text, "haproxy_server_limit_sessions{proxy=\"be_queue\",server=\"q1\"}")).isEqualTo(1);
            assertThat(text).contains("# HELP haproxy_server_queue_limit Limit on the number of connections in queue, for servers only"
                    + " (maxqueue argument)\n")
                    .contains("# HELP haproxy_server_current_queue Number of current queued connections\n");
        } finally {
            gate.countDown();
            for (RawClient c : held) {
                assertThat(c.read().status()).isEqualTo(200);
                c.close();
            }
        }
        // not in slow start: no throttle (NaN, show stat's empty field); leaving maintenance starts one
        assertThat(scrape()).contains("haproxy_server_current_throttle{proxy=\"be_queue\",server=\"q1\"} NaN")
                .contains("haproxy_server_queue_limit{proxy=\"be_web\",server=\"web1\"} NaN");
        try {
            assertThat(AdminClient.run(admin, "set server be_queue/q1 state maint;set server be_queue/q1 state ready\n")).isEqualTo("\n\n");
            String before = stat().get("be_queue/q1").get("throttle");
            double throttle = value(scrape(), "haproxy_server_current_throttle{proxy=\"be_queue\",server=\"q1\"}");
            String after = stat().get("be_queue/q1").get("throttle");
            assertThat(throttle).isBetween(Double.parseDouble(before), Double.parseDouble(after)).isBetween(1.0, 99.0);
        } finally {
            AdminClient.run(admin, "set server be_queue/q1 state ready\n");
        }
    }

    @Test
    void serverStateChangesAndDynamicServersFollow() {
        try {
            assertThat(AdminClient.run(admin, "set server be_web/web1 state maint\n")).isEqualTo("\n");
            String text = scrape();
            assertThat(value(text, "haproxy_server_status{proxy=\"be_web\",server=\"web1\",state=\"MAINT\"}")).isEqualTo(1);
            assertThat(value(text, "haproxy_server_status{proxy=\"be_web\",server=\"web1\",state=\"UP\"}")).isEqualTo(0);
            assertThat(value(text, "haproxy_backend_agg_server_status{proxy=\"be_web\",state=\"MAINT\"}")).isEqualTo(1);
            assertThat(AdminClient.run(admin, "add server be_web/web9 127.0.0.1:1\n")).isEqualTo("New server registered.\n\n");
            assertThat(scrape()).contains("haproxy_server_weight{proxy=\"be_web\",server=\"web9\"} 1");
            assertThat(AdminClient.run(admin, "del server be_web/web9\n")).isEqualTo("Server deleted.\n");
            assertThat(scrape()).doesNotContain("server=\"web9\"");
        } finally {
            AdminClient.run(admin, "set server be_web/web1 state ready\n");
        }
    }

    @Test
    void familiesAreBoundedByWholeObjects() {
        String text = scrape();
        // haproxy_server_status has 5 series per server: with max-series 12, web1's and web2's, none of q1's
        assertThat(count(text, "haproxy_server_status")).isEqualTo(10);
        assertThat(text).doesNotContain("haproxy_server_status{proxy=\"be_queue\"");
        assertThat(Pattern.compile("(?m)^haproxy_server_status\\{proxy=\"be_web\",server=\"web2\"").matcher(text).results().count()).isEqualTo(5);
        // six response classes per frontend: fe_main's and fe_metrics' fit
        assertThat(count(text, "haproxy_frontend_http_responses_total")).isEqualTo(12);
        // the three servers' weights fit
        assertThat(count(text, "haproxy_server_weight")).isEqualTo(3);
        assertThat(value(text, "sluice_prometheus_omitted_series")).isPositive();
    }

    @Test
    void scopeAndNoMaintAsHaproxy() {
        String servers = scrape("/metrics?scope=server");
        assertThat(servers).contains("haproxy_server_weight{").doesNotContain("haproxy_backend_").doesNotContain("haproxy_frontend_")
                .doesNotContain("haproxy_process_").doesNotContain("haproxy_sticktable_");
        String two = scrape("/metrics?scope=frontend&scope=sticktable");
        assertThat(two).contains("haproxy_frontend_status{").contains("haproxy_sticktable_size{")
                .contains("haproxy_frontend_quic_connections_total{proxy=\"fe_main\"}").doesNotContain("haproxy_server_");
        assertThat(scrape("/metrics?scope=")).isEmpty();
        assertThat(scrape("/metrics?scope=*&scope=")).isEmpty();
        assertThat(scrape("/metrics?scope=&scope=global")).contains("haproxy_process_nbthread ").doesNotContain("haproxy_frontend_");
        assertThat(scrape("/metrics?scope=listener")).isEmpty();
        for (String bad : List.of("/metrics?scope", "/metrics?scope=foo", "/metrics?scope=a=b", "/metrics?scope=%zz")) {
            RawClient.Response r = fetch(feMetrics, bad);
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo(
                    "<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n</body></html>\n");
        }
        try {
            assertThat(AdminClient.run(admin, "set server be_web/web2 state maint\n")).isEqualTo("\n");
            String all = scrape("/metrics?scope=server&scope=backend");
            assertThat(all).contains("server=\"web2\"");
            String noMaint = scrape("/metrics?scope=server&scope=backend&no-maint");
            assertThat(noMaint).doesNotContain("server=\"web2\"").contains("haproxy_server_weight{proxy=\"be_web\",server=\"web1\"}")
                    // the backend still counts it
                    .contains("haproxy_backend_agg_server_status{proxy=\"be_web\",state=\"MAINT\"} 1");
        } finally {
            AdminClient.run(admin, "set server be_web/web2 state ready\n");
        }
        // the scopes a scrape left out are written again by the next one
        assertThat(scrape()).contains("haproxy_process_nbthread ").contains("haproxy_backend_status{").contains("haproxy_server_status{");
    }

    @Test
    void promtoolAcceptsTheOutputQuicFamiliesIncluded() throws Exception {
        Program.PROMTOOL.require();
        // one HTTP/3 exchange, so that the QUIC families count something
        try (H3Client c = new H3Client(feMain)) {
            assertThat(c.get("/").status()).isEqualTo(200);
        }
        String text = scrape();
        assertThat(text).contains("# TYPE haproxy_frontend_quic_connections_total counter\n")
                .contains("haproxy_frontend_quic_half_open_conn{proxy=\"fe_main\"}")
                .contains("sluice_frontend_quic_closing_records_alive{proxy=\"fe_main\"}");
        assertThat(value(text, "haproxy_frontend_quic_connections_total{proxy=\"fe_main\"}")).isGreaterThanOrEqualTo(1);
        assertPromtoolAccepts(text);
    }

    /** {@code promtool check metrics} finds nothing to say about {@code text} (skipped when promtool is not installed). */
    static void assertPromtoolAccepts(String text) throws Exception {
        String promtool = Program.PROMTOOL.require();
        Path f = Files.createTempFile("sluice-metrics", ".txt");
        Files.writeString(f, text);
        Process p = new ProcessBuilder(promtool, "check", "metrics").redirectInput(f.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).isEmpty();
        assertThat(p.exitValue()).as(out).isZero();
        Files.delete(f);
    }

    /** Each family's HELP, TYPE and label names, from a scrape ({@code name -> [help, type, labels...]}). */
    static Map<String, Set<String>> families(String text) {
        Map<String, Set<String>> out = new TreeMap<>();
        Pattern series = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? \\S+$");
        for (String l : text.lines().toList()) {
            if (l.startsWith("# HELP ") || l.startsWith("# TYPE ")) {
                String[] w = l.substring(7).split(" ", 2);
                out.computeIfAbsent(w[0], k -> new TreeSet<>()).add(l.substring(2, 6) + " " + w[1]);
            } else if (!l.isEmpty() && !l.startsWith("#")) {
                Matcher m = series.matcher(l);
                assertThat(m.matches()).as(l).isTrue();
                List<String> names = new ArrayList<>();
                for (Matcher lm = Pattern.compile("([a-zA-Z_]+)=\"").matcher(m.group(2) == null ? "" : m.group(2)); lm.find();) {
                    names.add(lm.group(1));
                }
                names.sort(null);
                out.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add("LABELS " + names);
            }
        }
        return out;
    }

    /**
     * Against HAProxy 2.6 on the same configuration (no QUIC: Debian's HAProxy has none): every {@code haproxy_*}
     * family Sluice writes is one HAProxy writes, with the same HELP, TYPE and label names; the families of
     * HAProxy's that Sluice leaves out are those of what it does not measure; and the query parameters get the same
     * answers. Skipped when HAProxy is not installed.
     */
    @Test
    void familiesAndQueriesAreHaproxy26s() throws Exception {
        Program.HAPROXY.require();
        int port = Ports.free();
        String cfg = """
                global
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:%1$d
                    stick-table type ip size 100 expire 30s store http_req_cnt
                    http-request track-sc0 src
                    http-request use-service prometheus-exporter if { path /metrics }
                    default_backend be
                backend be
                    server s1 127.0.0.1:%2$d maxconn 10 maxqueue 5 slowstart 10s check inter 1h
                    server s2 127.0.0.1:%3$d weight 3
                    server s3 127.0.0.1:1 disabled
                """.formatted(port, web1.port(), web2.port());
        Map<String, Set<String>> theirs;
        Map<String, Set<String>> ours;
        List<String> queries = List.of("", "?scope=server", "?scope=", "?scope=foo", "?scope", "?no-maint", "?scope=*&scope=", "?scope=&scope=global",
                "?scope=%2A", "?scope=a=b", "?scope=*foo", "?scope=listener", "?scope=sticktable", "?scope=backend&no-maint=x", "?scope=%zz");
        List<String> theirAnswers = new ArrayList<>();
        List<String> ourAnswers = new ArrayList<>();
        try (Daemon h = Daemon.start(true, cfg, port)) {
            // the check's own families appear once it ran
            ServerQueueTest.awaitStat(h, "be,s1", "check_status", "L4OK");
            theirs = families(metrics(port, "", null));
            for (String q : queries) {
                metrics(port, q, theirAnswers);
            }
        }
        try (Daemon s = Daemon.start(false, cfg, port)) {
            ServerQueueTest.awaitStat(s, "be,s1", "check_status", "L4OK");
            ours = families(metrics(port, "", null));
            for (String q : queries) {
                metrics(port, q, ourAnswers);
            }
        }
        assertThat(ourAnswers).isEqualTo(theirAnswers);
        for (Map.Entry<String, Set<String>> e : ours.entrySet()) {
            if (e.getKey().startsWith("haproxy_")) {
                assertThat(theirs).as("HAProxy has " + e.getKey()).containsKey(e.getKey());
                assertThat(e.getValue()).as(e.getKey()).isEqualTo(theirs.get(e.getKey()));
            }
        }
        Set<String> missing = new TreeSet<>(theirs.keySet());
        missing.removeAll(ours.keySet());
        // what Sluice does not measure: internal errors, idle connections, DNS resolutions, compression memory
        assertThat(missing).allMatch(n -> n.endsWith("internal_errors_total") || n.contains("idle_connections") || n.contains("_connections_current")
                || n.equals("haproxy_process_failed_resolutions") || n.contains("zlib_memory"), "left out: " + missing);
    }

    /**
     * Scrapes {@code /metrics<query>}; with {@code answers}, adds the status and the families' prefixes
     * ({@code haproxy_server_...}) that the answer held.
     */
    static String metrics(int port, String query, List<String> answers) {
        RawClient.Response r = fetch(port, "/metrics" + query);
        String body = new String(r.body(), StandardCharsets.UTF_8);
        if (answers != null) {
            Set<String> kinds = new TreeSet<>();
            for (String l : body.lines().toList()) {
                if (l.startsWith("haproxy_")) {
                    kinds.add(l.substring(0, l.indexOf('_', "haproxy_".length())));
                }
            }
            boolean s3 = body.contains("server=\"s3\"");
            answers.add(query + " -> " + r.status() + " " + kinds + (s3 ? " with s3" : ""));
        }
        if (query.isEmpty()) {
            assertThat(r.status()).isEqualTo(200);
        }
        return body;
    }

    @Test
    void unknownServiceIsAConfigError() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request use-service lua.hello
                """.formatted(Ports.free()));
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("'use-service' : unknown service 'lua.hello'");
    }
}
