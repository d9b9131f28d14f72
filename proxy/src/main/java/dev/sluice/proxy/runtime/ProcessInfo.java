package dev.sluice.proxy.runtime;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import dev.sluice.config.model.Config;
import dev.sluice.pools.PoolTotals;
import dev.sluice.proxy.admin.AdminSockets;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.log.LogWriter;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.InfoField;
import dev.sluice.proxy.stream.Frontend;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * What the runtime knows of its process for {@code show info}, the exporter's process families and the stats page:
 * the start time, the node name, the process-wide connection and byte rates the sampler updates once a second, the
 * file-descriptor limit and the default {@code maxconn} derived from it, the idle share of the event loops.
 */
final class ProcessInfo {
    /**
     * The {@code show info} fields Sluice has nothing to count for (SSL accounting, pipes, compression rates, peers,
     * busy polling, DNS resolutions, splicing, debug commands): 0, as HAProxy shows them when unused.
     */
    private static final Set<InfoField> UNMEASURED = EnumSet.of(InfoField.MAX_SSL_CONNS, InfoField.CURR_SSL_CONNS,
            InfoField.CUM_SSL_CONNS, InfoField.MAXPIPES, InfoField.PIPES_USED, InfoField.PIPES_FREE, InfoField.CONN_RATE_LIMIT,
            InfoField.SESS_RATE_LIMIT, InfoField.SSL_RATE, InfoField.SSL_RATE_LIMIT, InfoField.MAX_SSL_RATE,
            InfoField.SSL_FRONTEND_KEY_RATE, InfoField.SSL_FRONTEND_MAX_KEY_RATE, InfoField.SSL_FRONTEND_SESSION_REUSE_PCT,
            InfoField.SSL_BACKEND_KEY_RATE, InfoField.SSL_BACKEND_MAX_KEY_RATE, InfoField.SSL_CACHE_LOOKUPS, InfoField.SSL_CACHE_MISSES,
            InfoField.COMPRESS_BPS_IN, InfoField.COMPRESS_BPS_OUT, InfoField.COMPRESS_BPS_RATE_LIM, InfoField.UNSTOPPABLE_JOBS,
            InfoField.ACTIVE_PEERS, InfoField.CONNECTED_PEERS, InfoField.BUSY_POLLING, InfoField.FAILED_RESOLUTIONS,
            InfoField.TOTAL_SPLICED_BYTES_OUT, InfoField.DEBUG_COMMANDS_ISSUED);

    private final ProxyRuntime rt;
    /** The process's start (the first runtime's): in-process reloads do not restart the uptime. */
    private static final long START_MILLIS = System.currentTimeMillis();
    private final long startMillis = START_MILLIS;
    private final String node;
    /** Process-wide rates, updated by the sampler. */
    private long previousConnections;
    private long previousBytesOut;
    private volatile long connRate;
    private volatile long maxConnRate;
    private volatile long bytesOutRate;

    ProcessInfo(ProxyRuntime rt, Config config) {
        this.rt = rt;
        this.node = config.global().node() != null ? config.global().node() : hostname();
    }

    /** The node name ({@code node}, else the host name). */
    String node() {
        return node;
    }

    /** Once a second: the connections accepted and bytes sent so far, into the process-wide rates. */
    void sample(long connections, long bytesOut) {
        long rate = Math.max(0, connections - previousConnections);
        previousConnections = connections;
        connRate = rate;
        if (rate > maxConnRate) {
            maxConnRate = rate;
        }
        bytesOutRate = Math.max(0, bytesOut - previousBytesOut);
        previousBytesOut = bytesOut;
    }

    /** {@code clear counters}: the highest connection rate starts again. */
    void clearMaxConnRate() {
        maxConnRate = 0;
    }

    /** The values of {@code show info} (and of the exporter's process families and the stats page), by field. */
    Map<InfoField, Object> info() {
        AdminSockets admin = rt.adminSockets();
        ConnectionLimit globalLimit = rt.globalLimit();
        long now = System.currentTimeMillis();
        long up = (now - startMillis) / 1000;
        long connections = 0;
        long requests = 0;
        long bytesOut = admin.bytesOut();
        for (Frontend fe : rt.frontends().values()) {
            connections += fe.totalConnections();
            requests += fe.totalRequests();
            bytesOut += fe.counters().get(Counter.BYTES_OUT);
        }
        // the same figures as the Total line of show pools: the pools, budgets and Netty's arenas
        PoolTotals poolTotals = rt.pools().totals();
        long poolAlloc = poolTotals.allocatedBytes();
        long poolUsed = poolTotals.usedBytes();
        int pending = 0;
        for (EventExecutor e : rt.workers().group()) {
            if (e instanceof SingleThreadEventExecutor st) {
                pending += st.pendingTasks();
            }
        }
        long fds = maxFileDescriptors();
        int listening = rt.listeners().size() + rt.quicListeners().size() + admin.count();
        Map<InfoField, Object> m = new EnumMap<>(InfoField.class);
        m.put(InfoField.NAME, "Sluice");
        m.put(InfoField.VERSION, ProductInfo.VERSION);
        m.put(InfoField.RELEASE_DATE, ProductInfo.RELEASE_DATE);
        m.put(InfoField.NBTHREAD, rt.workers().count());
        m.put(InfoField.NBPROC, 1);
        m.put(InfoField.PROCESS_NUM, 1);
        m.put(InfoField.PID, ProcessHandle.current().pid());
        m.put(InfoField.UPTIME, String.format("%dd %dh%02dm%02ds", up / 86400, up / 3600 % 24, up / 60 % 60, up % 60));
        m.put(InfoField.UPTIME_SEC, up);
        m.put(InfoField.MEMMAX_MB, poolTotals.memmaxMb());
        m.put(InfoField.POOL_ALLOC_MB, poolTotals.poolAllocMb());
        m.put(InfoField.POOL_USED_MB, poolTotals.poolUsedMb());
        m.put(InfoField.POOL_FAILED, poolTotals.poolFailed());
        m.put(InfoField.ULIMIT_N, fds);
        m.put(InfoField.MAXSOCK, fds);
        m.put(InfoField.MAXCONN, globalLimit.max());
        m.put(InfoField.HARD_MAXCONN, rt.hardMaxconn());
        m.put(InfoField.CURR_CONNS, globalLimit.current());
        m.put(InfoField.CUM_CONNS, connections + admin.totalSessions());
        m.put(InfoField.CUM_REQ, requests + admin.totalSessions());
        for (InfoField zero : UNMEASURED) {
            m.put(zero, 0);
        }
        m.put(InfoField.CONN_RATE, connRate);
        m.put(InfoField.MAX_CONN_RATE, maxConnRate);
        m.put(InfoField.SESS_RATE, connRate);
        m.put(InfoField.MAX_SESS_RATE, maxConnRate);
        m.put(InfoField.TASKS, pending);
        m.put(InfoField.RUN_QUEUE, pending);
        m.put(InfoField.IDLE_PCT, idlePercent());
        m.put(InfoField.NODE, node);
        // left out of show info when unset, as HAProxy leaves it out
        m.put(InfoField.DESCRIPTION, rt.config().global().description());
        m.put(InfoField.STOPPING, rt.stopping() ? 1 : 0);
        m.put(InfoField.JOBS, listening + globalLimit.current() + admin.openSessions());
        m.put(InfoField.LISTENERS, listening);
        m.put(InfoField.DROPPED_LOGS, LogWriter.DROPPED.sum());
        m.put(InfoField.CUM_RECV_LOGS, dev.sluice.proxy.syslog.LogServices.received());
        m.put(InfoField.TOTAL_BYTES_OUT, bytesOut);
        m.put(InfoField.BYTES_OUT_RATE, bytesOutRate);
        m.put(InfoField.BUILD_INFO, ProductInfo.VERSION);
        m.put(InfoField.MEMMAX_BYTES, poolTotals.memoryLimitBytes());
        m.put(InfoField.POOL_ALLOC_BYTES, poolAlloc);
        m.put(InfoField.POOL_USED_BYTES, poolUsed);
        m.put(InfoField.START_TIME_SEC, startMillis / 1000);
        m.put(InfoField.TAINTED, "0");
        Generations g = rt.generations();
        if (g != null && g.reloads() > 0) {
            m.put(InfoField.RELOADS, g.reloads());
            m.put(InfoField.LAST_RELOAD_SEC, (System.currentTimeMillis() - g.lastReloadMillis()) / 1000);
            m.put(InfoField.GENERATIONS, g.alive());
        }
        return m;
    }

    private int idlePercent() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            double load = os.getProcessCpuLoad();
            if (load >= 0) {
                double perThread = load * Runtime.getRuntime().availableProcessors() / Math.max(1, rt.workers().count());
                return (int) Math.max(0, Math.min(100, Math.round(100 - perThread * 100)));
            }
        }
        return 100;
    }

    private static long maxFileDescriptors() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return 0;
    }

    /**
     * HAProxy's default node name and email-alert myhostname: the host name, read once (HAProxy reads it at start; a reload
     * read it twice, a file read in interpreted code).
     */
    static String hostname() {
        return Hostname.NAME;
    }

    private static final class Hostname {
        static final String NAME = read();
    }

    private static String read() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException | RuntimeException e) {
            String h = System.getenv("HOSTNAME");
            return h != null ? h : "localhost";
        }
    }

    /** HAProxy derives the default maxconn from the file-descriptor limit; so does Sluice. */
    static int globalMaxconn(Config config) {
        if (config.global().maxconn() > 0) {
            return config.global().maxconn();
        }
        return derivedMaxconn();
    }

    private static int derivedMaxconn() {
        long fds = 4096;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean u) {
            fds = u.getMaxFileDescriptorCount();
        }
        long max = (fds - 100) / 2;
        return (int) Math.max(100, Math.min(max, 1_000_000));
    }
}
