package dev.sluice.config.model;

/**
 * The {@code global} section. A value of 0 (or null) means "not set": the runtime picks the default
 * (maxconn from the file-descriptor limit, nbthread from the available cores). {@code sslCacheSize}
 * and {@code sslLifetimeMs} size the TLS session cache ({@code tune.ssl.cachesize}, {@code tune.ssl.lifetime});
 * {@code logs} are the global {@code log} lines that proxies use with {@code log global}.
 */
public record Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
        java.util.List<LogTarget> logs, String logTag, Tune tune) {
    public Global {
        logs = java.util.List.copyOf(logs);
    }

    /** With the default buffer tuning. */
    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            java.util.List<LogTarget> logs, String logTag) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, Tune.DEFAULT);
    }
}
