package dev.sluice.proxy.runtime;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.metrics.MetricSink;
import dev.sluice.proxy.metrics.MetricSource;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import dev.sluice.proxy.stats.TimeStats;
import java.util.Map;

/**
 * The process, frontend, backend, server and stick-table families of the Prometheus exporter, with the
 * names and help strings of HAProxy's exporter ({@code haproxy_process_*}, {@code haproxy_frontend_*},
 * {@code haproxy_backend_*}, {@code haproxy_server_*}, {@code haproxy_sticktable_*}), so that dashboards
 * built for HAProxy work unchanged. Every value comes from what {@code show info} and {@code show stat} print:
 * {@link ProxyRuntime#info()} and the counter snapshots, one snapshot per object per scrape. Labels are
 * HAProxy's: {@code proxy}, {@code server}, {@code code} for response classes, {@code state} for server states.
 */
final class ProxyMetrics implements MetricSource {
    private static final String[] CODES = {"1xx", "2xx", "3xx", "4xx", "5xx", "other"};
    private static final Counter[] CODE_COUNTERS = {Counter.HRSP_1XX, Counter.HRSP_2XX, Counter.HRSP_3XX, Counter.HRSP_4XX, Counter.HRSP_5XX,
            Counter.HRSP_OTHER};
    /** HAProxy's server states as the {@code state} label of {@code haproxy_server_status}. */
    private static final String[] STATES = {"DOWN", "UP", "MAINT", "DRAIN", "NOLB"};

    private final ProxyRuntime rt;

    ProxyMetrics(ProxyRuntime rt) {
        this.rt = rt;
    }

    @Override
    public void collect(MetricSink m) {
        process(m);
        for (Frontend fe : rt.frontends().values()) {
            frontend(m, fe);
        }
        for (Backend be : rt.backends().values()) {
            backend(m, be);
        }
        for (Backend be : rt.backends().values()) {
            for (Server s : be.servers()) {
                server(m, s);
            }
        }
        for (dev.sluice.sticktable.StickTable t : rt.stickTables().all()) {
            m.gauge("haproxy_sticktable_size", "Stick table size.", t.size(), "name", t.name());
            m.gauge("haproxy_sticktable_used", "Number of entries used in this stick table.", t.used(), "name", t.name());
        }
    }

    private void process(MetricSink m) {
        Map<String, Object> info = rt.info();
        g(m, "haproxy_process_nbthread", "Number of started threads (global.nbthread)", info, "Nbthread");
        g(m, "haproxy_process_nbproc", "Number of started worker processes (historical, always 1)", info, "Nbproc");
        g(m, "haproxy_process_relative_process_id", "Relative worker process number (1)", info, "Process_num");
        g(m, "haproxy_process_uptime_seconds", "How long ago this worker process was started (seconds)", info, "Uptime_sec");
        g(m, "haproxy_process_start_time_seconds", "Start time in seconds", info, "Start_time_sec");
        g(m, "haproxy_process_max_memory_bytes", "Worker process's hard limit on memory usage in byes (-m on command line)", info, "Memmax_bytes");
        g(m, "haproxy_process_pool_allocated_bytes", "Amount of memory allocated in pools (in bytes)", info, "PoolAlloc_bytes");
        g(m, "haproxy_process_pool_used_bytes", "Amount of pool memory currently used (in bytes)", info, "PoolUsed_bytes");
        c(m, "haproxy_process_pool_failures_total", "Number of failed pool allocations since this worker was started", info, "PoolFailed");
        g(m, "haproxy_process_max_fds", "Hard limit on the number of per-process file descriptors", info, "Ulimit-n");
        g(m, "haproxy_process_max_sockets", "Hard limit on the number of per-process sockets", info, "Maxsock");
        g(m, "haproxy_process_max_connections", "Hard limit on the number of per-process connections (configured or imposed by Ulimit-n)",
                info, "Maxconn");
        g(m, "haproxy_process_hard_max_connections", "Hard limit on the number of per-process connections (imposed by Memmax_MB or Ulimit-n)",
                info, "Hard_maxconn");
        g(m, "haproxy_process_current_connections", "Current number of connections on this worker process", info, "CurrConns");
        c(m, "haproxy_process_connections_total", "Total number of connections on this worker process since started", info, "CumConns");
        c(m, "haproxy_process_requests_total", "Total number of requests on this worker process since started", info, "CumReq");
        g(m, "haproxy_process_current_connection_rate", "Number of front connections created on this worker process over the last second",
                info, "ConnRate");
        g(m, "haproxy_process_max_connection_rate", "Highest ConnRate reached on this worker process since started (in connections per second)",
                info, "MaxConnRate");
        g(m, "haproxy_process_current_session_rate", "Number of sessions created on this worker process over the last second", info,
                "SessRate");
        g(m, "haproxy_process_max_session_rate", "Highest SessRate reached on this worker process since started (in sessions per second)",
                info, "MaxSessRate");
        g(m, "haproxy_process_current_tasks", "Total number of tasks in the current worker process (active + sleeping)", info, "Tasks");
        g(m, "haproxy_process_current_run_queue", "Total number of active tasks+tasklets in the current worker process", info, "Run_queue");
        g(m, "haproxy_process_idle_time_percent", "Percentage of last second spent waiting in the current worker thread", info, "Idle_pct");
        g(m, "haproxy_process_stopping", "1 if the worker process is currently stopping, otherwise zero", info, "Stopping");
        g(m, "haproxy_process_jobs", "Current number of active jobs on the current worker process (frontend connections, master connections,"
                + " listeners)", info, "Jobs");
        g(m, "haproxy_process_listeners", "Current number of active listeners on the current worker process", info, "Listeners");
        c(m, "haproxy_process_dropped_logs_total", "Total number of dropped logs for current worker process since started", info, "DroppedLogs");
        c(m, "haproxy_process_bytes_out_total", "Total number of bytes emitted by current worker process since started", info, "TotalBytesOut");
        g(m, "haproxy_process_bytes_out_rate", "Number of bytes emitted by current worker process over the last second", info, "BytesOutRate");
        m.gauge("haproxy_process_build_info", "Build info", 1, "version", String.valueOf(info.get("Version")));
    }

    private static void g(MetricSink m, String name, String help, Map<String, Object> info, String field) {
        m.gauge(name, help + ".", number(info.get(field)));
    }

    private static void c(MetricSink m, String name, String help, Map<String, Object> info, String field) {
        m.counter(name, help + ".", number(info.get(field)));
    }

    private static double number(Object v) {
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        try {
            return v == null ? 0 : Double.parseDouble(v.toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void frontend(MetricSink m, Frontend fe) {
        Counters.Snapshot s = fe.snapshot();
        String[] l = {"proxy", fe.name()};
        m.gauge("haproxy_frontend_status", "Current status of the service.", fe.status().equals("OPEN") || fe.status().equals("FULL") ? 1 : 0, l);
        m.gauge("haproxy_frontend_current_sessions", "Current number of active sessions.", s.current(), l);
        m.gauge("haproxy_frontend_max_sessions", "Maximum observed number of active sessions.", s.currentMax(), l);
        m.gauge("haproxy_frontend_limit_sessions", "Configured session limit.", fe.limit().max(), l);
        m.counter("haproxy_frontend_sessions_total", "Total number of sessions.", s.get(Counter.SESSIONS), l);
        m.gauge("haproxy_frontend_current_session_rate", "Current number of sessions per second over last elapsed second.",
                s.rate(Counter.SESSIONS), l);
        m.gauge("haproxy_frontend_max_session_rate", "Maximum observed number of sessions per second.", s.rateMax(Counter.SESSIONS), l);
        m.counter("haproxy_frontend_connections_total", "Total number of connections.", s.get(Counter.CONNECTIONS), l);
        m.gauge("haproxy_frontend_connections_rate_max", "Maximum observed number of connections per second.", s.rateMax(Counter.CONNECTIONS), l);
        m.counter("haproxy_frontend_bytes_in_total", "Current total of incoming bytes.", s.get(Counter.BYTES_IN), l);
        m.counter("haproxy_frontend_bytes_out_total", "Current total of outgoing bytes.", s.get(Counter.BYTES_OUT), l);
        m.counter("haproxy_frontend_requests_denied_total", "Total number of denied requests.", s.get(Counter.DENIED_REQUESTS), l);
        m.counter("haproxy_frontend_responses_denied_total", "Total number of denied responses.", s.get(Counter.DENIED_RESPONSES), l);
        m.counter("haproxy_frontend_request_errors_total", "Total number of request errors.", s.get(Counter.REQUEST_ERRORS), l);
        m.gauge("haproxy_frontend_http_requests_rate_max", "Maximum observed number of HTTP requests per second.", s.rateMax(Counter.REQUESTS), l);
        m.counter("haproxy_frontend_http_requests_total", "Total number of HTTP requests received.", s.get(Counter.REQUESTS), l);
        responses(m, "haproxy_frontend_http_responses_total", s, fe.name(), null);
        m.counter("haproxy_frontend_intercepted_requests_total", "Total number of intercepted HTTP requests.", s.get(Counter.INTERCEPTED), l);
        dev.sluice.proxy.stats.H2Counters h2 = fe.h2();
        for (dev.sluice.proxy.stats.H2Counters.Flood f : dev.sluice.proxy.stats.H2Counters.Flood.values()) {
            m.counter("sluice_h2_flood_rejections_total", "HTTP/2 client connections closed by a flood protection (GOAWAY ENHANCE_YOUR_CALM).",
                    h2.get(f), "proxy", fe.name(), "kind", f.label());
        }
    }

    private static void backend(MetricSink m, Backend be) {
        String[] l = {"proxy", be.name()};
        m.gauge("haproxy_backend_status", "Current status of the service.", be.up() ? 1 : 0, l);
        m.gauge("haproxy_backend_limit_sessions", "Configured session limit.", be.fullconn(), l);
        Counters.Snapshot s = be.snapshot();
        shared(m, "haproxy_backend_", s, be.timeStats().snapshot(), be.lastChange(), l);
        m.counter("haproxy_backend_requests_denied_total", "Total number of denied requests.", s.get(Counter.DENIED_REQUESTS), l);
        m.gauge("haproxy_backend_weight", "Service weight.", be.usableWeight(), l);
        m.gauge("haproxy_backend_active_servers", "Current number of active servers.", be.usableActiveServers(), l);
        m.gauge("haproxy_backend_backup_servers", "Current number of backup servers.", be.usableServers() - be.usableActiveServers(), l);
        m.counter("haproxy_backend_check_up_down_total", "Total number of UP->DOWN transitions.", be.downTransitions(), l);
        m.counter("haproxy_backend_downtime_seconds_total", "Total downtime (in seconds) for the service.", be.downtime() / 1000, l);
        m.counter("haproxy_backend_http_requests_total", "Total number of HTTP requests received.", s.get(Counter.REQUESTS), l);
        responses(m, "haproxy_backend_http_responses_total", s, be.name(), null);
    }

    private static void server(MetricSink m, Server srv) {
        String[] l = {"proxy", srv.backend().name(), "server", srv.name()};
        String status = StatRows.status(srv);
        // "UP 1/3" and the like: the word before the check progress
        String state = status.equals("no check") ? "UP" : status.split(" ")[0];
        for (String st : STATES) {
            m.gauge("haproxy_server_status", "Current status of the service, per state label value.", st.equals(state) ? 1 : 0, "proxy",
                    srv.backend().name(), "server", srv.name(), "state", st);
        }
        m.gauge("haproxy_server_limit_sessions", "Configured session limit.", srv.maxconn(), l);
        Counters.Snapshot s = srv.snapshot();
        shared(m, "haproxy_server_", s, srv.timeStats().snapshot(), srv.lastChange(), l);
        m.gauge("haproxy_server_weight", "Service weight.", srv.weight(), l);
        dev.sluice.proxy.check.HealthCheck c = srv.checked() ? srv.check() : null;
        if (c != null) {
            m.counter("haproxy_server_check_failures_total", "Total number of failed check (Only counts checks failed when the server is up).",
                    c.failures(), l);
            m.counter("haproxy_server_check_up_down_total", "Total number of UP->DOWN transitions.", srv.downTransitions(), l);
            m.counter("haproxy_server_downtime_seconds_total", "Total downtime (in seconds) for the service.", srv.downtime() / 1000, l);
            if (!c.paused()) {
                for (dev.sluice.proxy.check.CheckStatus st : dev.sluice.proxy.check.CheckStatus.values()) {
                    if (st.result() != dev.sluice.proxy.check.CheckStatus.Result.UNKNOWN) {
                        m.gauge("haproxy_server_check_status", "Status of last health check, per state value", c.status() == st ? 1 : 0,
                                "proxy", srv.backend().name(), "server", srv.name(), "state", st.info());
                    }
                }
                if (c.status().hasCode()) {
                    m.gauge("haproxy_server_check_code", "layer5-7 code, if available of the last health check.", c.code(), l);
                }
                if (c.status().finished() && c.duration() >= 0) {
                    m.gauge("haproxy_server_check_duration_seconds", "Total duration of the latest server health check, in seconds.",
                            c.duration() / 1000.0, l);
                }
            }
        }
        responses(m, "haproxy_server_http_responses_total", s, srv.backend().name(), srv.name());
    }

    /** The families backends and servers both have, under their prefix. */
    private static void shared(MetricSink m, String p, Counters.Snapshot s, TimeStats.Snapshot t, long lastChange, String[] l) {
        long now = System.currentTimeMillis();
        m.gauge(p + "current_sessions", "Current number of active sessions.", s.current(), l);
        m.gauge(p + "max_sessions", "Maximum observed number of active sessions.", s.currentMax(), l);
        m.counter(p + "sessions_total", "Total number of sessions.", s.get(Counter.SESSIONS), l);
        m.gauge(p + "max_session_rate", "Maximum observed number of sessions per second.", s.rateMax(Counter.SESSIONS), l);
        m.gauge(p + "last_session_seconds", "Number of seconds since last session assigned to server/backend.",
                s.lastSession() < 0 ? -1 : (now - s.lastSession()) / 1000, l);
        m.gauge(p + "current_queue", "Current number of queued requests.", 0, l);
        m.gauge(p + "max_queue", "Maximum observed number of queued requests.", 0, l);
        m.counter(p + "connection_attempts_total", "Total number of connection establishment attempts.", s.get(Counter.CONNECTS), l);
        m.counter(p + "connection_reuses_total", "Total number of connection reuses.", s.get(Counter.REUSES), l);
        m.counter(p + "bytes_in_total", "Current total of incoming bytes.", s.get(Counter.BYTES_IN), l);
        m.counter(p + "bytes_out_total", "Current total of outgoing bytes.", s.get(Counter.BYTES_OUT), l);
        times(m, p, t, l);
        m.counter(p + "responses_denied_total", "Total number of denied responses.", s.get(Counter.DENIED_RESPONSES), l);
        m.counter(p + "connection_errors_total", "Total number of connection errors.", s.get(Counter.CONNECT_ERRORS), l);
        m.counter(p + "response_errors_total", "Total number of response errors.", s.get(Counter.RESPONSE_ERRORS), l);
        m.counter(p + "retry_warnings_total", "Total number of retry warnings.", s.get(Counter.RETRIES), l);
        m.counter(p + "redispatch_warnings_total", "Total number of redispatch warnings.", s.get(Counter.REDISPATCHES), l);
        m.gauge(p + "check_last_change_seconds", "Number of seconds since the last UP<->DOWN transition.", (now - lastChange) / 1000, l);
        m.counter(p + "loadbalanced_total", "Total number of times a service was selected, either for new sessions, or when redispatching.",
                s.get(Counter.SELECTED), l);
        m.counter(p + "client_aborts_total", "Total number of data transfers aborted by the client.", s.get(Counter.CLIENT_ABORTS), l);
        m.counter(p + "server_aborts_total", "Total number of data transfers aborted by the server.", s.get(Counter.SERVER_ABORTS), l);
    }

    private static void times(MetricSink m, String prefix, TimeStats.Snapshot t, String[] l) {
        m.gauge(prefix + "queue_time_average_seconds", "Avg. queue time for last 1024 successful connections.", t.queue() / 1000.0, l);
        m.gauge(prefix + "connect_time_average_seconds", "Avg. connect time for last 1024 successful connections.", t.connect() / 1000.0, l);
        m.gauge(prefix + "response_time_average_seconds", "Avg. response time for last 1024 successful connections.", t.response() / 1000.0, l);
        m.gauge(prefix + "total_time_average_seconds", "Avg. total time for last 1024 successful connections.", t.total() / 1000.0, l);
        m.gauge(prefix + "max_queue_time_seconds", "Maximum observed time spent in the queue", t.queueMax() / 1000.0, l);
        m.gauge(prefix + "max_connect_time_seconds", "Maximum observed time spent waiting for a connection to complete", t.connectMax() / 1000.0, l);
        m.gauge(prefix + "max_response_time_seconds", "Maximum observed time spent waiting for a server response", t.responseMax() / 1000.0, l);
        m.gauge(prefix + "max_total_time_seconds", "Maximum observed total request+response time (request+queue+connect+response+processing)",
                t.totalMax() / 1000.0, l);
    }

    private static void responses(MetricSink m, String name, Counters.Snapshot s, String proxy, String server) {
        for (int i = 0; i < CODES.length; i++) {
            if (server == null) {
                m.counter(name, "Total number of HTTP responses.", s.get(CODE_COUNTERS[i]), "proxy", proxy, "code", CODES[i]);
            } else {
                m.counter(name, "Total number of HTTP responses.", s.get(CODE_COUNTERS[i]), "proxy", proxy, "server", server, "code", CODES[i]);
            }
        }
    }
}
