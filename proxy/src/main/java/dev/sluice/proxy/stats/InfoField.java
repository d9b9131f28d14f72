package dev.sluice.proxy.stats;

/**
 * The fields of {@code show info}, in HAProxy 2.6's order. The one declaration of each field: its name, its
 * {@code show info typed} origin/nature/scope tags and value type ({@code "MGP:u32"}), its description
 * ({@code show info desc}) and, when HAProxy's exporter has one, its {@code haproxy_process_*} Prometheus family.
 * {@code show info} in every format ({@link InfoFields}) and the exporter's process families are derived from it, so
 * a value that has no field here cannot be shown; the values themselves are filled per field by the runtime
 * ({@code ProxyRuntime.info()}). Immutable.
 */
public enum InfoField {
    NAME("Name", "POS:str", "Product name"),
    VERSION("Version", "POS:str", "Product version"),
    RELEASE_DATE("Release_date", "POS:str", "Date of latest source code update"),
    NBTHREAD("Nbthread", "CGS:u32", "Number of started threads (global.nbthread)", gauge("nbthread")),
    NBPROC("Nbproc", "CGS:u32", "Number of started worker processes (historical, always 1)", gauge("nbproc")),
    PROCESS_NUM("Process_num", "KGP:u32", "Relative worker process number (1)", gauge("relative_process_id")),
    PID("Pid", "SGP:u32", "This worker process identifier for the system"),
    UPTIME("Uptime", "MDP:str", "How long ago this worker process was started (days+hours+minutes+seconds)"),
    UPTIME_SEC("Uptime_sec", "MDP:u32", "How long ago this worker process was started (seconds)", gauge("uptime_seconds")),
    MEMMAX_MB("Memmax_MB", "CLP:u32", "Worker process's hard limit on memory usage in MB (-m on command line)"),
    POOL_ALLOC_MB("PoolAlloc_MB", "MGP:u32", "Amount of memory allocated in pools (in MB)"),
    POOL_USED_MB("PoolUsed_MB", "MGP:u32", "Amount of pool memory currently used (in MB)"),
    POOL_FAILED("PoolFailed", "MCP:u32", "Number of failed pool allocations since this worker was started", counter("pool_failures_total")),
    ULIMIT_N("Ulimit-n", "CLP:u32", "Hard limit on the number of per-process file descriptors", gauge("max_fds")),
    MAXSOCK("Maxsock", "CLP:u32", "Hard limit on the number of per-process sockets", gauge("max_sockets")),
    MAXCONN("Maxconn", "CLP:u32", "Hard limit on the number of per-process connections (configured or imposed by Ulimit-n)", gauge("max_connections")),
    HARD_MAXCONN("Hard_maxconn", "CLP:u32", "Hard limit on the number of per-process connections (imposed by Memmax_MB or Ulimit-n)", gauge("hard_max_connections")),
    CURR_CONNS("CurrConns", "MGP:u32", "Current number of connections on this worker process", gauge("current_connections")),
    CUM_CONNS("CumConns", "MCP:u32", "Total number of connections on this worker process since started", counter("connections_total")),
    CUM_REQ("CumReq", "MCP:u32", "Total number of requests on this worker process since started", counter("requests_total")),
    MAX_SSL_CONNS("MaxSslConns", "MMP:u32", "Hard limit on the number of per-process SSL endpoints (front+back), 0=unlimited", gauge("max_ssl_connections")),
    CURR_SSL_CONNS("CurrSslConns", "MGP:u32", "Current number of SSL endpoints on this worker process (front+back)", gauge("current_ssl_connections")),
    CUM_SSL_CONNS("CumSslConns", "MCP:u32", "Total number of SSL endpoints on this worker process since started (front+back)", counter("ssl_connections_total")),
    MAXPIPES("Maxpipes", "CLP:u32", "Hard limit on the number of pipes for splicing, 0=unlimited", gauge("max_pipes")),
    PIPES_USED("PipesUsed", "MGP:u32", "Current number of pipes in use in this worker process", counter("pipes_used_total")),
    PIPES_FREE("PipesFree", "MGP:u32", "Current number of allocated and available pipes in this worker process", counter("pipes_free_total")),
    CONN_RATE("ConnRate", "MRP:u32", "Number of front connections created on this worker process over the last second", gauge("current_connection_rate")),
    CONN_RATE_LIMIT("ConnRateLimit", "CLP:u32", "Hard limit for ConnRate (global.maxconnrate)", gauge("limit_connection_rate")),
    MAX_CONN_RATE("MaxConnRate", "MMP:u32", "Highest ConnRate reached on this worker process since started (in connections per second)", gauge("max_connection_rate")),
    SESS_RATE("SessRate", "MRP:u32", "Number of sessions created on this worker process over the last second", gauge("current_session_rate")),
    SESS_RATE_LIMIT("SessRateLimit", "CLP:u32", "Hard limit for SessRate (global.maxsessrate)", gauge("limit_session_rate")),
    MAX_SESS_RATE("MaxSessRate", "MRP:u32", "Highest SessRate reached on this worker process since started (in sessions per second)", gauge("max_session_rate")),
    SSL_RATE("SslRate", "MRP:u32", "Number of SSL connections created on this worker process over the last second", gauge("current_ssl_rate")),
    SSL_RATE_LIMIT("SslRateLimit", "CLP:u32", "Hard limit for SslRate (global.maxsslrate)", gauge("limit_ssl_rate")),
    MAX_SSL_RATE("MaxSslRate", "MMP:u32", "Highest SslRate reached on this worker process since started (in connections per second)", gauge("max_ssl_rate")),
    SSL_FRONTEND_KEY_RATE("SslFrontendKeyRate", "MGP:u32", "Number of SSL keys created on frontends in this worker process over the last second", gauge("current_frontend_ssl_key_rate")),
    SSL_FRONTEND_MAX_KEY_RATE("SslFrontendMaxKeyRate", "MMP:u32", "Highest SslFrontendKeyRate reached on this worker process since started (in SSL keys per second)", gauge("max_frontend_ssl_key_rate")),
    SSL_FRONTEND_SESSION_REUSE_PCT("SslFrontendSessionReuse_pct", "MGP:u32", "Percent of frontend SSL connections which did not require a new key", gauge("frontend_ssl_reuse")),
    SSL_BACKEND_KEY_RATE("SslBackendKeyRate", "MRP:u32", "Number of SSL keys created on backends in this worker process over the last second", gauge("current_backend_ssl_key_rate")),
    SSL_BACKEND_MAX_KEY_RATE("SslBackendMaxKeyRate", "MMP:u32", "Highest SslBackendKeyRate reached on this worker process since started (in SSL keys per second)", gauge("max_backend_ssl_key_rate")),
    SSL_CACHE_LOOKUPS("SslCacheLookups", "MCP:u32", "Total number of SSL session ID lookups in the SSL session cache on this worker since started", counter("ssl_cache_lookups_total")),
    SSL_CACHE_MISSES("SslCacheMisses", "MCP:u32", "Total number of SSL session ID lookups that didn't find a session in the SSL session cache on this worker since started", counter("ssl_cache_misses_total")),
    COMPRESS_BPS_IN("CompressBpsIn", "MRP:u32", "Number of bytes submitted to the HTTP compressor in this worker process over the last second", counter("http_comp_bytes_in_total")),
    COMPRESS_BPS_OUT("CompressBpsOut", "MRP:u32", "Number of bytes emitted by the HTTP compressor in this worker process over the last second", counter("http_comp_bytes_out_total")),
    COMPRESS_BPS_RATE_LIM("CompressBpsRateLim", "CLP:u32", "Limit of CompressBpsOut beyond which HTTP compression is automatically disabled", gauge("limit_http_comp")),
    TASKS("Tasks", "MGP:u32", "Total number of tasks in the current worker process (active + sleeping)", gauge("current_tasks")),
    RUN_QUEUE("Run_queue", "MGP:u32", "Total number of active tasks+tasklets in the current worker process", gauge("current_run_queue")),
    IDLE_PCT("Idle_pct", "MaP:u32", "Percentage of last second spent waiting in the current worker thread", gauge("idle_time_percent")),
    NODE("node", "COS:str", "Node name (global.node)"),
    DESCRIPTION("description", "COS:str", "Node description (global.description)"),
    STOPPING("Stopping", "MGP:u32", "1 if the worker process is currently stopping, otherwise zero", gauge("stopping")),
    JOBS("Jobs", "MGP:u32", "Current number of active jobs on the current worker process (frontend connections, master connections, listeners)", gauge("jobs")),
    UNSTOPPABLE_JOBS("Unstoppable Jobs", "MGP:u32", "Current number of unstoppable jobs on the current worker process (master connections)", gauge("unstoppable_jobs")),
    LISTENERS("Listeners", "MGP:u32", "Current number of active listeners on the current worker process", gauge("listeners")),
    ACTIVE_PEERS("ActivePeers", "MGP:u32", "Current number of verified active peers connections on the current worker process", gauge("active_peers")),
    CONNECTED_PEERS("ConnectedPeers", "MGP:u32", "Current number of peers having passed the connection step on the current worker process", gauge("connected_peers")),
    DROPPED_LOGS("DroppedLogs", "MGP:u32", "Total number of dropped logs for current worker process since started", counter("dropped_logs_total")),
    BUSY_POLLING("BusyPolling", "MGP:u32", "1 if busy-polling is currently in use on the worker process, otherwise zero (config.busy-polling)", gauge("busy_polling_enabled")),
    // HAProxy's haproxy_process_failed_resolutions is a counter without the _total suffix, which promtool refuses;
    // Sluice resolves nothing at run time, so it has no family
    FAILED_RESOLUTIONS("FailedResolutions", "MGP:u32", "Total number of failed DNS resolutions in current worker process since started"),
    TOTAL_BYTES_OUT("TotalBytesOut", "MGP:u64", "Total number of bytes emitted by current worker process since started", counter("bytes_out_total")),
    TOTAL_SPLICED_BYTES_OUT("TotalSplicdedBytesOut", "MGP:u64", "Total number of bytes emitted by current worker process through a kernel pipe since started", counter("spliced_bytes_out_total")),
    BYTES_OUT_RATE("BytesOutRate", "MRP:u64", "Number of bytes emitted by current worker process over the last second", gauge("bytes_out_rate")),
    DEBUG_COMMANDS_ISSUED("DebugCommandsIssued", "MGP:u32", "Number of debug commands issued on this process (anything > 0 is unsafe)"),
    CUM_RECV_LOGS("CumRecvLogs", "MCP:u32", "Total number of log messages received by log-forwarding listeners on this worker process since started", counter("recv_logs_total")),
    BUILD_INFO("Build info", "POS:str", "Build info", labelled("build_info", "version")),
    MEMMAX_BYTES("Memmax_bytes", "CLP:u32", "Worker process's hard limit on memory usage in byes (-m on command line)", gauge("max_memory_bytes")),
    POOL_ALLOC_BYTES("PoolAlloc_bytes", "MGP:u64", "Amount of memory allocated in pools (in bytes)", gauge("pool_allocated_bytes")),
    POOL_USED_BYTES("PoolUsed_bytes", "MGP:u64", "Amount of pool memory currently used (in bytes)", gauge("pool_used_bytes")),
    START_TIME_SEC("Start_time_sec", "MDP:u32", "Start time in seconds", gauge("start_time_seconds")),
    TAINTED("Tainted", "SGP:str", "Experimental features used"),
    // Sluice's own, after HAProxy's, shown once the process reloaded its configuration in place (HAProxy's field list
    // stays whole and unchanged until then)
    RELOADS("Reloads", "MCP:u32", "Number of in-process configuration reloads since this process was started"),
    LAST_RELOAD_SEC("Last_reload_sec", "MDP:u32", "How long ago the last in-process reload was done (seconds)"),
    GENERATIONS("Generations", "MGP:u32", "Configurations alive: the current one and those still finishing their streams");
    /** HAProxy's positions 45 and 46 (the zlib memory fields) are left out by builds without zlib, 2.6.12's here too. */
    private static final int ZLIB_GAP = 2;

    /**
     * A Prometheus family {@code haproxy_process_<suffix>}, counter or gauge, whose help is the field's description
     * and whose value the field's, in the field's unit (HAProxy's exporter scales none of them); for an info family
     * ({@code haproxy_process_build_info}), {@code label} names the label that carries the field's value on a series
     * of value 1.
     */
    public record Prometheus(String name, boolean counter, String label) {
    }

    private static Prometheus gauge(String suffix) {
        return new Prometheus("haproxy_process_" + suffix, false, null);
    }

    private static Prometheus counter(String suffix) {
        return new Prometheus("haproxy_process_" + suffix, true, null);
    }

    /** A gauge of value 1 whose {@code label} holds the field's value. */
    private static Prometheus labelled(String suffix, String label) {
        return new Prometheus("haproxy_process_" + suffix, false, label);
    }

    private final String field;
    private final String typed;
    private final String description;
    private final Prometheus prometheus;

    InfoField(String field, String typed, String description) {
        this(field, typed, description, null);
    }

    InfoField(String field, String typed, String description, Prometheus prometheus) {
        this.field = field;
        this.typed = typed;
        this.description = description;
        this.prometheus = prometheus;
    }

    /** HAProxy's position of the field, as {@code typed} and {@code json} print it. */
    public int pos() {
        return ordinal() < TASKS.ordinal() ? ordinal() : ordinal() + ZLIB_GAP;
    }

    /** The field's name, as {@code show info} prints it. */
    public String field() {
        return field;
    }

    /** The origin, nature and scope tags, as {@code "MGP"}. */
    public String tags() {
        return typed.substring(0, 3);
    }

    /** The value type: {@code str}, {@code u32}, {@code u64}. */
    public String type() {
        return typed.substring(4);
    }

    /** HAProxy's description of the field ({@code show info desc}). */
    public String description() {
        return description;
    }

    /** Its Prometheus family; null when HAProxy's exporter has none. */
    public Prometheus prometheus() {
        return prometheus;
    }
}
