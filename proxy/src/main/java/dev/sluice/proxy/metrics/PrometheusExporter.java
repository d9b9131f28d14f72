package dev.sluice.proxy.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * HAProxy's Prometheus exporter on Micrometer. At each scrape the registered {@link MetricSource}s write the
 * current values (read from their snapshots) of the scopes the scrape asked for ({@link ScrapeQuery}); the
 * exporter keeps one Micrometer meter per series, bound to a holder of its last value, adds the meters of new
 * series (a server added with {@code add server}), removes those not written this time (gone, or out of this
 * scrape's scopes), and lets the registry write the text format.
 *
 * <p>Label cardinality is bounded by whole objects: a family writes at most {@code maxSeries} series per scrape
 * ({@code tune.prometheus.max-series}), never part of one object's series (see {@link MetricSink}); from the first
 * object that does not fit, the family's objects are left out, in the order the sources give them, and their
 * series counted in {@code sluice_prometheus_omitted_series}.
 *
 * <p>Scrapes share no lock. The registry and its meters form a scrape state; a scrape takes an idle state from a
 * lock-free stack, or makes a new one when every state is busy, and gives it back when done. Scrapes on different
 * event loops therefore run side by side and never wait for each other; there are as many states as scrapes ever
 * ran at once (at most one per event loop), and a reused state only updates its holders. Sources may be added at
 * any time.
 */
public final class PrometheusExporter {
    /** The Content-Type of the text format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    static final String OMITTED = "sluice_prometheus_omitted_series";

    private final List<MetricSource> sources = new CopyOnWriteArrayList<>();
    private final int maxSeries;
    private final LongAdder scrapes = new LongAdder();
    /** Idle scrape states, the last used on top. */
    private final ConcurrentLinkedDeque<State> idle = new ConcurrentLinkedDeque<>();

    public PrometheusExporter(int maxSeries) {
        this.maxSeries = maxSeries;
    }

    /** Adds a source of metric families (the pools, stick tables and QUIC subsystems register theirs here). */
    public void register(MetricSource source) {
        sources.add(source);
    }

    /** How many scrapes were served. */
    public long scrapes() {
        return scrapes.sum();
    }

    /** How many scrape states are idle: all of them (the most scrapes that ran at once) when no scrape runs. */
    int idleStates() {
        return idle.size();
    }

    /** One scrape of everything, in Prometheus' text format 0.0.4. */
    public String scrape() {
        return scrape(ScrapeQuery.ALL);
    }

    /** One scrape of what {@code query} asks for, in Prometheus' text format 0.0.4. */
    public String scrape(ScrapeQuery query) {
        scrapes.increment();
        State s = idle.pollFirst();
        if (s == null) {
            s = new State();
        }
        try {
            return s.scrape(query);
        } finally {
            idle.offerFirst(s);
        }
    }

    /** The last value of one series, read by its meter during the scrape that wrote it. */
    private static final class Holder {
        volatile double value;
        Meter meter;
        /** For the series of an info family instead of a meter: the family and the label values. */
        InfoFamily info;
        String[] infoValues;
        long written;
    }

    /**
     * A gauge family whose name ends with {@code _info} ({@code haproxy_process_build_info}): Prometheus' client
     * library strips that suffix from a meter's name, so it is written by an {@link Info} collector of that name
     * (a gauge of value 1 per label set in the text format 0.0.4), registered while it has series.
     */
    private static final class InfoFamily {
        final Info info;
        int series;

        InfoFamily(Info info) {
            this.info = info;
        }
    }

    /** One family during one scrape: whether the scrape wants it, how many series it wrote, whether it is full. */
    private static final class Family {
        final boolean wanted;
        int series;
        boolean full;

        Family(boolean wanted) {
            this.wanted = wanted;
        }
    }

    /** A registry with its series, used by one scrape at a time. */
    private final class State implements MetricSink {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        /** Series by family name and label values. */
        final Map<String, Holder> series = new HashMap<>();
        final Map<String, Family> families = new HashMap<>();
        final Map<String, InfoFamily> infos = new HashMap<>();
        final StringBuilder key = new StringBuilder();
        long generation;
        long omitted;
        ScrapeQuery query;

        String scrape(ScrapeQuery q) {
            query = q;
            generation++;
            omitted = 0;
            families.clear();
            try {
                for (MetricSource src : sources) {
                    src.collect(this);
                }
                gauge(OMITTED, "Series left out of this scrape by tune.prometheus.max-series.", omitted);
            } finally {
                for (Iterator<Holder> it = series.values().iterator(); it.hasNext();) {
                    Holder h = it.next();
                    if (h.written != generation) {
                        remove(h);
                        it.remove();
                    }
                }
            }
            return registry.scrape();
        }

        @Override
        public ScrapeQuery query() {
            return query;
        }

        @Override
        public void gauge(String name, String help, double value, String... labels) {
            if (admit(name, 1)) {
                put(name, help, false, value, labels);
            }
        }

        @Override
        public void counter(String name, String help, double value, String... labels) {
            if (admit(name, 1)) {
                put(name, help, true, value, labels);
            }
        }

        @Override
        public void gauges(String name, String help, String k, String[] keyValues, double[] values, String... labels) {
            group(name, help, false, k, keyValues, values, labels);
        }

        @Override
        public void counters(String name, String help, String k, String[] keyValues, double[] values, String... labels) {
            group(name, help, true, k, keyValues, values, labels);
        }

        private void group(String name, String help, boolean counter, String k, String[] keyValues, double[] values, String[] labels) {
            if (keyValues.length != values.length) {
                throw new IllegalArgumentException(name + ": " + keyValues.length + " label values for " + values.length + " values");
            }
            if (!admit(name, values.length)) {
                return;
            }
            String[] l = Arrays.copyOf(labels, labels.length + 2);
            l[labels.length] = k;
            for (int i = 0; i < values.length; i++) {
                l[labels.length + 1] = keyValues[i];
                put(name, help, counter, values[i], l);
            }
        }

        /** Whether {@code n} more series of one object fit in the family; counts them as omitted when they do not. */
        private boolean admit(String name, int n) {
            Family f = families.get(name);
            if (f == null) {
                f = new Family(query.wants(Scope.of(name)));
                families.put(name, f);
            }
            if (!f.wanted) {
                return false;
            }
            if (f.full || f.series + n > maxSeries) {
                f.full = true;
                omitted += n;
                return false;
            }
            f.series += n;
            return true;
        }

        private void put(String name, String help, boolean counter, double value, String[] labels) {
            key.setLength(0);
            key.append(name);
            for (String l : labels) {
                key.append('\0').append(l);
            }
            String k = key.toString();
            Holder h = series.get(k);
            if (h == null) {
                h = new Holder();
                if (!counter && name.endsWith("_info")) {
                    info(h, name, help, labels);
                } else {
                    h.meter = meter(name, help, counter, Tags.of(labels), h);
                }
                series.put(k, h);
            }
            h.value = value;
            h.written = generation;
        }

        private void info(Holder h, String name, String help, String[] labels) {
            String[] names = new String[labels.length / 2];
            String[] values = new String[labels.length / 2];
            for (int i = 0; i < names.length; i++) {
                names[i] = labels[2 * i];
                values[i] = labels[2 * i + 1];
            }
            InfoFamily f = infos.get(name);
            if (f == null) {
                f = new InfoFamily(Info.builder().name(name).help(help).labelNames(names).register(registry.getPrometheusRegistry()));
                infos.put(name, f);
            }
            f.info.addLabelValues(values);
            f.series++;
            h.info = f;
            h.infoValues = values;
        }

        private void remove(Holder h) {
            if (h.meter != null) {
                registry.remove(h.meter);
                return;
            }
            h.info.info.remove(h.infoValues);
            if (--h.info.series == 0) {
                registry.getPrometheusRegistry().unregister(h.info.info);
                infos.values().remove(h.info);
            }
        }

        private Meter meter(String name, String help, boolean counter, Tags tags, Holder h) {
            if (counter) {
                // Micrometer adds the _total suffix of counters itself
                String base = name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
                return FunctionCounter.builder(base, h, x -> x.value).description(help).tags(tags).register(registry);
            }
            return Gauge.builder(name, h, x -> x.value).description(help).tags(tags).register(registry);
        }
    }
}
