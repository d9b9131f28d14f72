package dev.sluice.config;

import dev.sluice.config.model.Global;

/** The mutable {@code global} section while parsing; {@link #build} freezes it. Parse-time only. */
public final class GlobalBuilder {
    public int maxconn;
    public int nbthread;
    public boolean daemon;
    public String pidfile;
    /** {@code ssl-default-bind-*} values, layered under every bind's own options. */
    public final TlsOptions bindDefaults = new TlsOptions();
    /** {@code ssl-default-server-*} values, layered under every server's own options. */
    public final TlsOptions serverDefaults = new TlsOptions();
    public String crtBase;
    public String caBase;
    public dev.sluice.config.model.Verify serverVerify = dev.sluice.config.model.Verify.REQUIRED;
    public final java.util.List<dev.sluice.config.model.LogTarget> logs = new java.util.ArrayList<>();
    public String logTag = "haproxy";
    public int sslCacheSize = 20000;
    public long sslLifetime = 300_000;
    public int bufsize = dev.sluice.config.model.Tune.DEFAULT.bufsize();
    public int maxrewrite = dev.sluice.config.model.Tune.DEFAULT.maxrewrite();
    public int maxhdr = dev.sluice.config.model.Tune.DEFAULT.maxhdr();
    public int prometheusMaxSeries = dev.sluice.config.model.Tune.DEFAULT_PROMETHEUS_MAX_SERIES;
    public final java.util.List<dev.sluice.config.model.StatsSocket> statsSockets = new java.util.ArrayList<>();
    public long statsTimeout = Global.DEFAULT_STATS_TIMEOUT_MS;
    public String user;
    public SourceRef userAt;
    public String group;
    public SourceRef groupAt;
    public int uid = -1;
    public int gid = -1;
    public String chroot;
    public int ulimitN;
    public long hardStopAfter;
    public boolean noReusePort;
    public boolean zeroWarning;
    public boolean masterWorker;
    public boolean exitOnFailure = true;
    public int maxReloads = -1;
    public long quicIdleTimeout = dev.sluice.config.model.QuicTune.DEFAULT.maxIdleTimeoutMs();
    public int quicMaxStreams = dev.sluice.config.model.QuicTune.DEFAULT.maxStreamsBidi();
    public long quicMaxData = dev.sluice.config.model.QuicTune.DEFAULT.maxData();
    public long quicStreamData = dev.sluice.config.model.QuicTune.DEFAULT.streamData();
    public boolean quicHystart = dev.sluice.config.model.QuicTune.DEFAULT.hystart();
    public int quicRetryThreshold = dev.sluice.config.model.QuicTune.DEFAULT.retryThreshold();
    public String clusterSecret;
    /** {@code spread-checks}: percent of random noise on check intervals. */
    public int spreadChecks;
    /** {@code node} and {@code description} (null: not set). */
    public String node;
    public String description;

    public Global build() {
        return new Global(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetime, logs, logTag, statsSockets, statsTimeout,
                new dev.sluice.config.model.Tune(bufsize, maxrewrite, maxhdr, prometheusMaxSeries, spreadChecks),
                new dev.sluice.config.model.QuicTune(quicIdleTimeout, quicMaxStreams, quicMaxData, quicStreamData, quicHystart,
                        quicRetryThreshold, clusterSecret),
                new dev.sluice.config.model.ProcessSettings(user, userAt, group, groupAt, uid, gid, chroot, ulimitN,
                        hardStopAfter, noReusePort, zeroWarning, masterWorker, exitOnFailure, maxReloads), node, description);
    }
}
