package dev.sluice.config.model;

/**
 * Buffer tuning from {@code global}: {@code tune.bufsize} (a message head must fit in it minus
 * {@code tune.maxrewrite}, room kept for rules that add fields) and {@code tune.http.maxhdr} (fields per
 * head). HAProxy's defaults: 16384, 1024, 101. {@code tune.prometheus.max-series} (Sluice's) bounds the series of each
 * metric family the Prometheus exporter writes. {@code spreadChecks} is
 * {@code spread-checks}: the percentage of random noise added to health-check intervals. {@code noSplice} is {@code nosplice}
 * (no kernel splicing whatever the proxies' options) and {@code pipesize} is {@code tune.pipesize} (the size of the pipes
 * splicing uses; 0: the system's default).
 */
public record Tune(int bufsize, int maxrewrite, int maxhdr, int prometheusMaxSeries, int spreadChecks, boolean noSplice, int pipesize) {
    /** The default of {@code tune.prometheus.max-series}: label sets one metric family may export. */
    public static final int DEFAULT_PROMETHEUS_MAX_SERIES = 10_000;
    public static final Tune DEFAULT = new Tune(16384, 1024, 101, DEFAULT_PROMETHEUS_MAX_SERIES, 0);

    public Tune(int bufsize, int maxrewrite, int maxhdr, int prometheusMaxSeries, int spreadChecks) {
        this(bufsize, maxrewrite, maxhdr, prometheusMaxSeries, spreadChecks, false, 0);
    }

    public Tune(int bufsize, int maxrewrite, int maxhdr) {
        this(bufsize, maxrewrite, maxhdr, DEFAULT_PROMETHEUS_MAX_SERIES, 0);
    }

    public Tune(int bufsize, int maxrewrite, int maxhdr, int prometheusMaxSeries) {
        this(bufsize, maxrewrite, maxhdr, prometheusMaxSeries, 0);
    }

    /** The largest head the HTTP/1 parser accepts. */
    public int maxHeadBytes() {
        return bufsize - maxrewrite;
    }
}
