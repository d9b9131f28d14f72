package dev.sluice.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PrometheusExporterTest {
    static final String[] STATES = {"DOWN", "UP", "MAINT", "DRAIN", "NOLB"};

    /** Three servers, each with five status series and one weight series, plus a process gauge and a table gauge. */
    static void servers(MetricSink m) {
        m.gauge("haproxy_process_nbthread", "threads", 2);
        for (String s : List.of("a", "b", "c")) {
            m.gauges("haproxy_server_status", "status", "state", STATES, new double[] {0, 1, 0, 0, 0}, "proxy", "be", "server", s);
            m.gauge("haproxy_server_weight", "weight", 1, "proxy", "be", "server", s);
        }
        m.gauge("haproxy_sticktable_size", "size", 100, "name", "t", "type", "ip");
    }

    static long count(String text, String family) {
        return Pattern.compile("(?m)^" + family + "\\{").matcher(text).results().count();
    }

    static double value(String text, String series) {
        var m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        assertThat(m.find()).as(series + " in\n" + text).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    void theBoundKeepsWholeObjects() {
        PrometheusExporter e = new PrometheusExporter(12);
        e.register(PrometheusExporterTest::servers);
        String text = e.scrape();
        // two servers' five states fit in 12 series, the third's do not: none of them is written
        assertThat(count(text, "haproxy_server_status")).isEqualTo(10);
        assertThat(text).doesNotContain("server=\"c\",state=");
        assertThat(count(text, "haproxy_server_weight")).isEqualTo(3);
        assertThat(value(text, "sluice_prometheus_omitted_series")).isEqualTo(5);

        PrometheusExporter tiny = new PrometheusExporter(3);
        tiny.register(PrometheusExporterTest::servers);
        text = tiny.scrape();
        assertThat(count(text, "haproxy_server_status")).isZero();
        assertThat(count(text, "haproxy_server_weight")).isEqualTo(3);
        assertThat(value(text, "sluice_prometheus_omitted_series")).isEqualTo(15);
    }

    @Test
    void aFamilyStopsAtTheFirstObjectThatDoesNotFit() {
        PrometheusExporter e = new PrometheusExporter(4);
        e.register(m -> {
            m.gauges("haproxy_backend_agg_check_status", "h", "state", new String[] {"L4OK", "L4CON"}, new double[] {1, 0}, "proxy", "a");
            m.gauges("haproxy_backend_agg_check_status", "h", "state", new String[] {"L4OK", "L4CON", "L7OK"}, new double[] {1, 0, 0}, "proxy", "b");
            // would fit in what is left, but comes after an object that did not
            m.gauge("haproxy_backend_agg_check_status", "h", 1, "proxy", "c", "state", "L4OK");
        });
        String text = e.scrape();
        assertThat(count(text, "haproxy_backend_agg_check_status")).isEqualTo(2);
        assertThat(value(text, "sluice_prometheus_omitted_series")).isEqualTo(4);
    }

    @Test
    void scopesSelectFamiliesAndSeriesOutOfScopeGoAway() {
        PrometheusExporter e = new PrometheusExporter(100);
        e.register(PrometheusExporterTest::servers);
        String all = e.scrape();
        assertThat(all).contains("haproxy_process_nbthread 2.0").contains("haproxy_sticktable_size{").contains("haproxy_server_weight{");
        String servers = e.scrape(ScrapeQuery.parse("/metrics?scope=server"));
        assertThat(servers).contains("haproxy_server_weight{").contains("haproxy_server_status{").doesNotContain("haproxy_process_")
                .doesNotContain("haproxy_sticktable_").doesNotContain("sluice_prometheus_omitted_series");
        assertThat(e.scrape(ScrapeQuery.parse("/metrics?scope="))).isEmpty();
        assertThat(e.scrape(ScrapeQuery.parse("/metrics?scope=global&scope=sticktable"))).contains("haproxy_process_nbthread 2.0")
                .contains("haproxy_sticktable_size{").contains("sluice_prometheus_omitted_series 0.0").doesNotContain("haproxy_server_");
        assertThat(e.scrape()).isEqualTo(all);
    }

    @Test
    void theSourceSeesTheQuery() {
        PrometheusExporter e = new PrometheusExporter(100);
        AtomicBoolean noMaint = new AtomicBoolean();
        e.register(m -> noMaint.set(m.query().noMaint()));
        e.scrape(ScrapeQuery.parse("/metrics?no-maint"));
        assertThat(noMaint).isTrue();
        e.scrape();
        assertThat(noMaint).isFalse();
    }

    @Test
    void seriesNoLongerWrittenAreRemoved() {
        PrometheusExporter e = new PrometheusExporter(100);
        AtomicBoolean withB = new AtomicBoolean(true);
        e.register(m -> {
            m.gauge("haproxy_server_weight", "weight", 1, "proxy", "be", "server", "a");
            if (withB.get()) {
                m.gauge("haproxy_server_weight", "weight", 7, "proxy", "be", "server", "b");
            }
        });
        assertThat(e.scrape()).contains("server=\"b\"} 7.0");
        withB.set(false);
        assertThat(e.scrape()).doesNotContain("server=\"b\"").contains("server=\"a\"} 1.0");
        withB.set(true);
        assertThat(e.scrape()).contains("server=\"b\"} 7.0");
    }

    @Test
    void infoFamiliesKeepTheirName() {
        PrometheusExporter e = new PrometheusExporter(100);
        e.register(m -> m.gauge("haproxy_process_build_info", "Build info", 1, "version", "1.2.3"));
        String text = e.scrape();
        assertThat(text).contains("# HELP haproxy_process_build_info Build info\n# TYPE haproxy_process_build_info gauge\n"
                + "haproxy_process_build_info{version=\"1.2.3\"} 1\n");
        // out of scope: gone, header included; back in scope: there again
        assertThat(e.scrape(ScrapeQuery.parse("/?scope=server"))).doesNotContain("build_info");
        assertThat(e.scrape()).isEqualTo(text);
    }

    @Test
    void countersKeepTheirTotalSuffixAndEmptyValuesAreNaN() {
        PrometheusExporter e = new PrometheusExporter(100);
        e.register(m -> {
            m.counters("haproxy_frontend_http_responses_total", "r", "code", new String[] {"1xx", "2xx"}, new double[] {0, 5}, "proxy", "fe");
            m.gauge("haproxy_server_queue_limit", "q", Double.NaN, "proxy", "be", "server", "a");
        });
        String text = e.scrape();
        assertThat(text).contains("# TYPE haproxy_frontend_http_responses_total counter\n")
                .contains("haproxy_frontend_http_responses_total{code=\"2xx\",proxy=\"fe\"} 5.0")
                .contains("haproxy_server_queue_limit{proxy=\"be\",server=\"a\"} NaN");
    }

    /**
     * A scrape held inside a source does not hold up a scrape on another thread (event loop): each takes its own
     * state, without a lock; the held one then completes too, and both states are kept for later scrapes.
     */
    @Test
    void concurrentScrapesDoNotWaitForEachOther() throws Exception {
        PrometheusExporter e = new PrometheusExporter(100);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean holdNext = new AtomicBoolean(true);
        e.register(m -> {
            m.gauge("haproxy_process_nbthread", "threads", 2);
            if (holdNext.getAndSet(false)) {
                inside.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        CompletableFuture<String> slow = CompletableFuture.supplyAsync(e::scrape, r -> new Thread(r, "loop-1").start());
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<String> fast = CompletableFuture.supplyAsync(e::scrape, r -> new Thread(r, "loop-2").start());
        try {
            assertThat(fast.get(10, TimeUnit.SECONDS)).contains("haproxy_process_nbthread 2.0");
            assertThat(slow).isNotDone();
        } finally {
            release.countDown();
        }
        assertThat(slow.get(10, TimeUnit.SECONDS)).contains("haproxy_process_nbthread 2.0");
        assertThat(e.idleStates()).isEqualTo(2);
        assertThat(e.scrapes()).isEqualTo(2);
        e.scrape();
        assertThat(e.idleStates()).isEqualTo(2);
    }

    @Test
    void queriesAsHaproxy26ReadsThem() {
        EnumSet<Scope> all = EnumSet.allOf(Scope.class);
        assertThat(ScrapeQuery.parse("/metrics")).isEqualTo(ScrapeQuery.ALL);
        assertThat(ScrapeQuery.parse("/metrics?").scopes()).isEqualTo(all);
        assertThat(ScrapeQuery.parse("/metrics?scope=server").scopes()).containsExactly(Scope.SERVER);
        assertThat(ScrapeQuery.parse("/metrics?scope=frontend&scope=backend").scopes()).containsExactly(Scope.FRONTEND, Scope.BACKEND);
        assertThat(ScrapeQuery.parse("/metrics?scope=").scopes()).isEmpty();
        assertThat(ScrapeQuery.parse("/metrics?scope=*&scope=").scopes()).isEmpty();
        assertThat(ScrapeQuery.parse("/metrics?scope=&scope=global").scopes()).containsExactly(Scope.GLOBAL);
        assertThat(ScrapeQuery.parse("/metrics?scope=%2A").scopes()).isEqualTo(all);
        assertThat(ScrapeQuery.parse("/metrics?scope=*foo").scopes()).isEqualTo(all);
        assertThat(ScrapeQuery.parse("/metrics?scope=listener").scopes()).containsExactly(Scope.LISTENER);
        assertThat(ScrapeQuery.parse("/metrics?scope=sticktable&other=x").scopes()).containsExactly(Scope.STICKTABLE);
        assertThat(ScrapeQuery.parse("/metrics?scope=serv%65r").scopes()).containsExactly(Scope.SERVER);
        // a fragment ends the query
        assertThat(ScrapeQuery.parse("/metrics?scope=server#scope=global").scopes()).containsExactly(Scope.SERVER);
        ScrapeQuery q = ScrapeQuery.parse("/metrics?no-maint&scope=server");
        assertThat(q.noMaint()).isTrue();
        assertThat(q.scopes()).containsExactly(Scope.SERVER);
        assertThat(ScrapeQuery.parse("/metrics?no-maint=1").noMaint()).isTrue();
        assertThat(ScrapeQuery.parse("/metrics?no-maint").scopes()).isEqualTo(all);
        for (String bad : List.of("/metrics?scope", "/metrics?scope=foo", "/metrics?scope=a=b", "/metrics?scope=server&scope",
                "/metrics?scope=%zz", "/metrics?scope=serve%2", "/metrics?scope=server+")) {
            assertThatThrownBy(() -> ScrapeQuery.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void familiesBelongToTheScopeTheirSecondWordNames() {
        assertThat(Scope.of("haproxy_process_nbthread")).isEqualTo(Scope.GLOBAL);
        assertThat(Scope.of("haproxy_frontend_status")).isEqualTo(Scope.FRONTEND);
        assertThat(Scope.of("sluice_frontend_quic_closing_records_alive")).isEqualTo(Scope.FRONTEND);
        assertThat(Scope.of("haproxy_backend_status")).isEqualTo(Scope.BACKEND);
        assertThat(Scope.of("haproxy_server_status")).isEqualTo(Scope.SERVER);
        assertThat(Scope.of("haproxy_sticktable_used")).isEqualTo(Scope.STICKTABLE);
        assertThat(Scope.of("sluice_pool_used")).isEqualTo(Scope.GLOBAL);
        assertThat(Scope.of("sluice_prometheus_omitted_series")).isEqualTo(Scope.GLOBAL);
        assertThat(Scope.of("up")).isEqualTo(Scope.GLOBAL);
    }
}
