package dev.sluice.config;

import dev.sluice.config.model.CpuMap;
import dev.sluice.config.model.Environment;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.H2Tune;
import dev.sluice.config.model.SocketTune;
import dev.sluice.config.model.TlsTune;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.ProcVar;
import dev.sluice.config.model.ProcessSettings;
import dev.sluice.config.model.QuicTune;
import dev.sluice.config.model.ServerStateFiles;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.config.model.Tune;
import dev.sluice.config.model.Verify;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The mutable {@code global} section while parsing; {@link #build} freezes it. Parse-time only. */
public final class GlobalBuilder {
    public int maxconn;
    public int nbthread;
    public boolean daemon;
    public String pidfile;
    /** The global {@code localpeer} (null when not set); whether a peers section was read yet (it then comes too late). */
    public String localPeer;
    public boolean peersSeen;
    /** {@code tune.peers.max-updates-at-once}. */
    public int peersMaxUpdates = 200;
    /** {@code ssl-default-bind-*} values, layered under every bind's own options. */
    public final TlsOptions bindDefaults = new TlsOptions();
    /** {@code ssl-default-server-*} values, layered under every server's own options. */
    public final TlsOptions serverDefaults = new TlsOptions();
    public String crtBase;
    public String caBase;
    public Verify serverVerify = Verify.REQUIRED;
    public final List<LogTarget> logs = new ArrayList<>();
    public String logTag = "haproxy";
    public int sslCacheSize = 20000;
    public long sslLifetime = 300_000;
    public int bufsize = Tune.DEFAULT.bufsize();
    public int maxrewrite = Tune.DEFAULT.maxrewrite();
    public int maxhdr = Tune.DEFAULT.maxhdr();
    public int prometheusMaxSeries = Tune.DEFAULT_PROMETHEUS_MAX_SERIES;
    public final List<StatsSocket> statsSockets = new ArrayList<>();
    /** {@code unix-bind}: put in front of the path of each UNIX socket bind after it (null: none), and their default mode and owner. */
    public String unixBindPrefix;
    public dev.sluice.config.model.UnixPerms unixBind = dev.sluice.config.model.UnixPerms.NONE;
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
    public long quicIdleTimeout = QuicTune.DEFAULT.maxIdleTimeoutMs();
    public int quicMaxStreams = QuicTune.DEFAULT.maxStreamsBidi();
    public long quicMaxData = QuicTune.DEFAULT.maxData();
    public long quicStreamData = QuicTune.DEFAULT.streamData();
    public boolean quicHystart = QuicTune.DEFAULT.hystart();
    public int quicRetryThreshold = QuicTune.DEFAULT.retryThreshold();
    public String clusterSecret;
    /** {@code spread-checks}: percent of random noise on check intervals. */
    public int spreadChecks;
    /** {@code nosplice} and {@code tune.pipesize} (0: the system's pipe size). */
    public boolean noSplice;
    public int pipesize;
    /** {@code node} and {@code description} (null: not set). */
    public String node;
    public String description;
    /** What setenv, presetenv, unsetenv and resetenv did to the inherited environment so far. */
    public Environment environment = Environment.INHERITED;
    /** {@link TuneKeywords}: socket buffers, accept batches, epoll events (0: not set). */
    int clientRcvbuf;
    int clientSndbuf;
    int serverRcvbuf;
    int serverSndbuf;
    int maxAccept;
    int maxPollEvents;
    int h2HeaderTableSize = H2Tune.DEFAULT.headerTableSize();
    int h2InitialWindowSize = H2Tune.DEFAULT.initialWindowSize();
    int h2MaxConcurrentStreams = H2Tune.DEFAULT.maxConcurrentStreams();
    int h2MaxFrameSize = H2Tune.DEFAULT.maxFrameSize();
    int compMaxLevel = Tune.DEFAULT_COMP_LEVEL;
    int logUriLen = Tune.DEFAULT_LOG_URI_LEN;
    int cookieLen = Tune.DEFAULT_COOKIE_LEN;
    int sslHardMaxRecord;
    int sslCaptureSize;
    String issuersChainPath;
    Set<String> sslExtraFiles = TlsTune.ALL_EXTRA_FILES;
    boolean sslExtraDelExt;
    /** {@code set-dumpable}, {@code insecure-fork-wanted}, {@code cpu-map}. */
    boolean dumpable;
    boolean insecureForkWanted;
    /** The global {@code external-check}: external checks allowed. */
    boolean externalCheck;
    final List<CpuMap> cpuMaps = new ArrayList<>();
    /** The global {@code set-var} and {@code set-var-fmt} lines, in order. */
    final List<ProcVar> vars = new ArrayList<>();
    /** {@code expose-experimental-directives}. */
    boolean experimental;
    /** {@code server-state-base}, {@code server-state-file} (null: not set). */
    public String serverStateBase;
    public String serverStateFile;
    public SourceRef serverStateFileAt;
    /** The keywords HAProxy takes once ("already specified. Continuing."). */
    final Set<String> seenOnce = new HashSet<>();

    public Global build() {
        return new Global(maxconn, nbthread, daemon, pidfile, sslCacheSize, sslLifetime, logs, logTag, statsSockets, statsTimeout,
                new Tune(bufsize, maxrewrite, maxhdr, prometheusMaxSeries, spreadChecks, noSplice, pipesize,
                        new SocketTune(clientRcvbuf, clientSndbuf, serverRcvbuf, serverSndbuf, maxAccept, maxPollEvents),
                        new H2Tune(h2HeaderTableSize, h2InitialWindowSize, h2MaxConcurrentStreams, h2MaxFrameSize), compMaxLevel, logUriLen,
                        cookieLen),
                new QuicTune(quicIdleTimeout, quicMaxStreams, quicMaxData, quicStreamData, quicHystart,
                        quicRetryThreshold, clusterSecret),
                new ProcessSettings(user, userAt, group, groupAt, uid, gid, chroot, ulimitN,
                        hardStopAfter, noReusePort, zeroWarning, masterWorker, exitOnFailure, maxReloads, dumpable, insecureForkWanted,
                        cpuMaps, unixBind), node, description, environment,
                new TlsTune(sslHardMaxRecord, issuersChainPath, sslExtraFiles, sslExtraDelExt, sslCaptureSize), vars,
                new ServerStateFiles(serverStateBase, serverStateFile, serverStateFileAt));
    }
}
