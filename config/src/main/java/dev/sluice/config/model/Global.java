package dev.sluice.config.model;

import java.util.List;

/**
 * The {@code global} section. A value of 0 (or null) means "not set": the runtime picks the default
 * (maxconn from the file-descriptor limit, nbthread from the available cores). {@code sslCacheSize}
 * and {@code sslLifetimeMs} size the TLS session cache ({@code tune.ssl.cachesize}, {@code tune.ssl.lifetime});
 * {@code logs} are the global {@code log} lines that proxies use with {@code log global}; {@code statsSockets}
 * the admin sockets and {@code statsTimeoutMs} how long an idle admin session stays open; {@code tune} the
 * buffer tuning; {@code quic} the QUIC transport settings; {@code process} the user, group, chroot and
 * file-descriptor limit of the process; {@code node} and {@code description} the process's name and description
 * ({@code node}, {@code description}: {@code show info}, the stats page; null when not set); {@code environment} what
 * {@code setenv} and its kin did to the inherited environment (the {@code env()} fetch reads through it); {@code tls} the
 * process-wide TLS settings of {@link TlsTune}; {@code vars} the {@code set-var} and {@code set-var-fmt} lines, in order;
 * {@code serverState} the server state files ({@code server-state-base}, {@code server-state-file}).
 */
public record Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
        List<LogTarget> logs, String logTag, List<StatsSocket> statsSockets, long statsTimeoutMs, Tune tune,
        QuicTune quic, ProcessSettings process, String node, String description, Environment environment, TlsTune tls,
        List<ProcVar> vars, ServerStateFiles serverState) {

    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            List<LogTarget> logs, String logTag, List<StatsSocket> statsSockets, long statsTimeoutMs, Tune tune,
            QuicTune quic, ProcessSettings process, String node, String description, Environment environment, TlsTune tls,
            List<ProcVar> vars) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, statsSockets, statsTimeoutMs, tune, quic, process,
                node, description, environment, tls, vars, ServerStateFiles.NONE);
    }

    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            List<LogTarget> logs, String logTag, List<StatsSocket> statsSockets, long statsTimeoutMs, Tune tune,
            QuicTune quic, ProcessSettings process, String node, String description) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, statsSockets, statsTimeoutMs, tune, quic, process,
                node, description, Environment.INHERITED, TlsTune.DEFAULT, List.of());
    }

    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            List<LogTarget> logs, String logTag, List<StatsSocket> statsSockets, long statsTimeoutMs, Tune tune,
            QuicTune quic, ProcessSettings process) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, statsSockets, statsTimeoutMs, tune, quic, process,
                null, null);
    }

    /** HAProxy's default {@code stats timeout}. */
    public static final long DEFAULT_STATS_TIMEOUT_MS = 10_000;

    public Global {
        logs = List.copyOf(logs);
        statsSockets = List.copyOf(statsSockets);
        vars = List.copyOf(vars);
        if (serverState == null) {
            serverState = ServerStateFiles.NONE;
        }
    }

    /** With the default QUIC settings. */
    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            List<LogTarget> logs, String logTag, List<StatsSocket> statsSockets, long statsTimeoutMs, Tune tune) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, statsSockets, statsTimeoutMs, tune,
                QuicTune.DEFAULT, ProcessSettings.DEFAULT);
    }

    /** A global section without admin sockets, with the default buffer tuning. */
    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            List<LogTarget> logs, String logTag) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, List.of(), DEFAULT_STATS_TIMEOUT_MS,
                Tune.DEFAULT);
    }

    /** With the process left as it was started. */
    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            List<LogTarget> logs, String logTag, List<StatsSocket> statsSockets, long statsTimeoutMs, Tune tune,
            QuicTune quic) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, statsSockets, statsTimeoutMs, tune, quic,
                ProcessSettings.DEFAULT);
    }

    /** With the default buffer tuning. */
    public Global(int maxconn, int nbthread, boolean daemon, String pidfile, int sslCacheSize, long sslLifetimeMs,
            List<LogTarget> logs, String logTag, List<StatsSocket> statsSockets, long statsTimeoutMs) {
        this(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetimeMs, logs, logTag, statsSockets, statsTimeoutMs, Tune.DEFAULT);
    }
}
