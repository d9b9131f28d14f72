package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code http-request use-service prometheus-exporter}: HAProxy's metric names and help strings, values that
 * are the admin socket's own (one source of truth), series that follow dynamic servers, the cardinality
 * bound ({@code tune.prometheus.max-series}), and an output that {@code promtool check metrics} accepts
 * (skipped when promtool is not installed).
 */
class PrometheusTest {
    static Origin web1;
    static Origin web2;
    static Sluice sluice;
    static Path admin;
    static int feMain;
    static int feMetrics;

    @BeforeAll
    static void start() throws IOException {
        web1 = Origin.start("web1");
        web2 = Origin.start("web2");
        Path dir = Files.createTempDirectory("sluice-prom");
        admin = dir.resolve("admin.sock");
        feMain = Ports.free();
        feMetrics = Ports.free();
        sluice = Sluice.start("""
                global
                    stats socket %1$s level admin
                    tune.prometheus.max-series 3
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 1s
                frontend fe_main
                    bind 127.0.0.1:%2$d
                    stick-table type ip size 100 expire 30s store http_req_cnt
                    http-request track-sc0 src
                    default_backend be_web
                frontend fe_metrics
                    bind 127.0.0.1:%3$d
                    http-request use-service prometheus-exporter if { path /metrics }
                    http-request return status 404
                backend be_web
                    server web1 127.0.0.1:%4$d
                    server web2 127.0.0.1:%5$d weight 3
                """.formatted(admin, feMain, feMetrics, web1.port(), web2.port()), feMain, feMetrics);
        AdminClient.await(admin);
    }

    @AfterAll
    static void stop() {
        if (sluice != null) {
            sluice.close();
        }
        web1.close();
        web2.close();
    }

    static String scrape() {
        try (RawClient c = new RawClient(feMetrics)) {
            RawClient.Response r = c.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("content-type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
            return new String(r.body(), StandardCharsets.UTF_8);
        }
    }

    /** The value of one series, by its exact name and labels as written. */
    static double value(String text, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        assertThat(m.find()).as(series + " in\n" + text).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    void haproxyNamesAndHelpWithTheSocketsValues() {
        for (int i = 0; i < 5; i++) {
            assertThat(AdminSocketTest.get(feMain, "/")).startsWith("200 web");
        }
        String text = scrape();
        assertThat(text).contains("# HELP haproxy_frontend_http_requests_total Total number of HTTP requests received.\n")
                .contains("# TYPE haproxy_frontend_http_requests_total counter\n")
                .contains("# TYPE haproxy_server_current_sessions gauge\n")
                .contains("# HELP haproxy_process_current_connections Current number of connections on this worker process.\n");
        Map<String, Map<String, String>> stat = AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n"));
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
        assertThat(value(text, "haproxy_backend_status{proxy=\"be_web\"}")).isEqualTo(1);
        assertThat(value(text, "haproxy_sticktable_size{name=\"fe_main\"}")).isEqualTo(100);
        assertThat(value(text, "haproxy_sticktable_used{name=\"fe_main\"}")).isEqualTo(1);
        assertThat(value(text, "haproxy_process_nbthread")).isPositive();
        assertThat(text).contains("haproxy_backend_response_time_average_seconds{proxy=\"be_web\"} ");
        // the exporter's own requests are intercepted ones
        assertThat(value(scrape(), "haproxy_frontend_intercepted_requests_total{proxy=\"fe_metrics\"}")).isGreaterThanOrEqualTo(2);
        assertThat(AdminSocketTest.get(feMetrics, "/other")).isEqualTo("404");
    }

    @Test
    void serverStateChangesAndDynamicServersFollow() {
        try {
            assertThat(AdminClient.run(admin, "set server be_web/web1 state maint\n")).isEqualTo("\n");
            String text = scrape();
            assertThat(value(text, "haproxy_server_status{proxy=\"be_web\",server=\"web1\",state=\"MAINT\"}")).isEqualTo(1);
            assertThat(value(text, "haproxy_server_status{proxy=\"be_web\",server=\"web1\",state=\"UP\"}")).isEqualTo(0);
            assertThat(AdminClient.run(admin, "add server be_web/web9 127.0.0.1:1\n")).isEqualTo("New server registered.\n\n");
            assertThat(scrape()).contains("haproxy_server_weight{proxy=\"be_web\",server=\"web9\"} 1");
            assertThat(AdminClient.run(admin, "del server be_web/web9\n")).isEqualTo("Server deleted.\n");
            assertThat(scrape()).doesNotContain("server=\"web9\"");
        } finally {
            AdminClient.run(admin, "set server be_web/web1 state ready\n");
        }
    }

    @Test
    void familiesAreBoundedByMaxSeries() {
        String text = scrape();
        // haproxy_server_status has 5 series per server: with max-series 3, the first 3 of web1 only
        assertThat(Pattern.compile("(?m)^haproxy_server_status\\{").matcher(text).results().count()).isEqualTo(3);
        assertThat(Pattern.compile("(?m)^haproxy_frontend_http_responses_total\\{").matcher(text).results().count()).isEqualTo(3);
        assertThat(value(text, "sluice_prometheus_omitted_series")).isPositive();
    }

    @Test
    void promtoolAcceptsTheOutput() throws Exception {
        assertPromtoolAccepts(scrape());
    }

    /** {@code promtool check metrics} finds nothing to say about {@code text} (skipped when promtool is not installed). */
    static void assertPromtoolAccepts(String text) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/promtool")), "promtool is not installed");
        Path f = Files.createTempFile("sluice-metrics", ".txt");
        Files.writeString(f, text);
        Process p = new ProcessBuilder("/usr/bin/promtool", "check", "metrics").redirectInput(f.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).isEmpty();
        assertThat(p.exitValue()).as(out).isZero();
        Files.delete(f);
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
        assertThat(List.of(r.output())).isNotEmpty();
    }
}
