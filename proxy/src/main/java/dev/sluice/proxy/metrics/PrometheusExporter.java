package dev.sluice.proxy.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * HAProxy's Prometheus exporter on Micrometer. At each scrape the registered {@link MetricSource}s write the
 * current values (read from their snapshots); the exporter keeps one Micrometer meter per series, bound to a
 * holder of its last value, adds the meters of new series (a server added with {@code add server}), removes
 * those that are gone, and lets the registry write the text format. Label cardinality is bounded: a family
 * writes at most {@code maxSeries} series per scrape ({@code tune.prometheus.max-series}); the others are left
 * out, in the order the sources give them, and counted in {@code sluice_prometheus_omitted_series}.
 * Scrapes are serialised (one at a time); sources may be added at any time.
 */
public final class PrometheusExporter {
    /** The Content-Type of the text format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final List<MetricSource> sources = new CopyOnWriteArrayList<>();
    private final int maxSeries;
    /** Series by family name and label values, with the meter reading them. */
    private final Map<String, Holder> series = new HashMap<>();
    private long scrapes;

    /** The last value of one series, read by its meter during the scrape that wrote it. */
    private static final class Holder {
        volatile double value;
        Meter meter;
    }

    public PrometheusExporter(int maxSeries) {
        this.maxSeries = maxSeries;
    }

    /** Adds a source of metric families (the pools, stick tables and QUIC subsystems register theirs here). */
    public void register(MetricSource source) {
        sources.add(source);
    }

    /** How many scrapes were served. */
    public synchronized long scrapes() {
        return scrapes;
    }

    /** One scrape: every family of every source, in Prometheus' text format 0.0.4. */
    public synchronized String scrape() {
        scrapes++;
        Set<String> seen = new HashSet<>();
        Map<String, Integer> perFamily = new HashMap<>();
        long[] omitted = {0};
        MetricSink sink = new MetricSink() {
            @Override
            public void gauge(String name, String help, double value, String... labels) {
                put(name, help, value, false, labels);
            }

            @Override
            public void counter(String name, String help, double value, String... labels) {
                put(name, help, value, true, labels);
            }

            private void put(String name, String help, double value, boolean counter, String[] labels) {
                int n = perFamily.merge(name, 1, Integer::sum);
                if (n > maxSeries) {
                    omitted[0]++;
                    return;
                }
                String key = key(name, labels);
                seen.add(key);
                Holder h = series.get(key);
                if (h == null) {
                    h = new Holder();
                    h.meter = meter(name, help, counter, Tags.of(labels), h);
                    series.put(key, h);
                }
                h.value = value;
            }
        };
        for (MetricSource s : sources) {
            s.collect(sink);
        }
        sink.gauge("sluice_prometheus_omitted_series", "Series left out of this scrape by tune.prometheus.max-series.", omitted[0]);
        List<String> gone = new ArrayList<>();
        for (Map.Entry<String, Holder> e : series.entrySet()) {
            if (!seen.contains(e.getKey())) {
                gone.add(e.getKey());
            }
        }
        for (String k : gone) {
            registry.remove(series.remove(k).meter);
        }
        return registry.scrape();
    }

    private Meter meter(String name, String help, boolean counter, Tags tags, Holder h) {
        if (counter) {
            // Micrometer adds the _total suffix of counters itself
            String base = name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
            return FunctionCounter.builder(base, h, x -> x.value).description(help).tags(tags).register(registry);
        }
        return Gauge.builder(name, h, x -> x.value).description(help).tags(tags).register(registry);
    }

    private static String key(String name, String[] labels) {
        StringBuilder b = new StringBuilder(name);
        for (String l : labels) {
            b.append('\0').append(l);
        }
        return b.toString();
    }
}
