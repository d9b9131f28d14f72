package dev.sluice.config.model;

/**
 * Buffer tuning from {@code global}: {@code tune.bufsize} (a message head must fit in it minus
 * {@code tune.maxrewrite}, room kept for rules that add fields) and {@code tune.http.maxhdr} (fields per
 * head). HAProxy's defaults: 16384, 1024, 101. {@code tune.prometheus.max-series} (Sluice's) bounds the series of each
 * metric family the Prometheus exporter writes. {@code spreadChecks} is
 * {@code spread-checks}: the percentage of random noise added to health-check intervals. {@code noSplice} is {@code nosplice}
 * (no kernel splicing whatever the proxies' options) and {@code pipesize} is {@code tune.pipesize} (the size of the pipes
 * splicing uses; 0: the system's default). {@code sockets} and {@code h2} are the socket and HTTP/2 tuning
 * ({@link SocketTune}, {@link H2Tune}), {@code compMaxLevel} the zlib level of compression ({@code tune.comp.maxlevel}),
 * {@code logUriLen} and {@code cookieLen} HAProxy's {@code tune.http.logurilen} and {@code tune.http.cookielen} plus one
 * (the room HAProxy keeps for a final NUL: a request line is logged up to {@code logUriLen - 1} bytes).
 */
public record Tune(int bufsize, int maxrewrite, int maxhdr, int prometheusMaxSeries, int spreadChecks, boolean noSplice, int pipesize,
        SocketTune sockets, H2Tune h2, int compMaxLevel, int logUriLen, int cookieLen) {
    /** The default of {@code tune.prometheus.max-series}: label sets one metric family may export. */
    public static final int DEFAULT_PROMETHEUS_MAX_SERIES = 10_000;
    /** HAProxy's defaults: {@code tune.comp.maxlevel}, {@code tune.http.logurilen} and {@code tune.http.cookielen} plus one. */
    public static final int DEFAULT_COMP_LEVEL = 1;
    public static final int DEFAULT_LOG_URI_LEN = 1024;
    public static final int DEFAULT_COOKIE_LEN = 64;
    public static final Tune DEFAULT = new Tune(16384, 1024, 101, DEFAULT_PROMETHEUS_MAX_SERIES, 0);

    public Tune(int bufsize, int maxrewrite, int maxhdr, int prometheusMaxSeries, int spreadChecks, boolean noSplice, int pipesize) {
        this(bufsize, maxrewrite, maxhdr, prometheusMaxSeries, spreadChecks, noSplice, pipesize, SocketTune.DEFAULT, H2Tune.DEFAULT,
                DEFAULT_COMP_LEVEL, DEFAULT_LOG_URI_LEN, DEFAULT_COOKIE_LEN);
    }

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
