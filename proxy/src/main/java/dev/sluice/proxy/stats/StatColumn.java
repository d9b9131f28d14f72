package dev.sluice.proxy.stats;

/**
 * The columns of {@code show stat}, in HAProxy 2.6's order: the static proxy columns (positions 0 to 102), then the
 * module columns it prints after a {@code -} column (ssl, h2, h1). The one declaration of each column: its name, its
 * {@code show stat typed} tags and type (per object type where they differ: {@code "B=MGP:u32,S=SGP:u32"}) and
 * description (null: the column is left out of {@code typed} and {@code json}), and its Prometheus family if HAProxy's
 * exporter has one. {@code show stat} in every format, the stats page and the exporter are all derived from it, so a
 * value that has no column here cannot be shown. Immutable.
 */
public enum StatColumn {
    PXNAME("pxname", "KNS:str", "Proxy name"),
    SVNAME("svname", "KNS:str", "Server name"),
    QCUR("qcur", "MGP:u32", "Number of current queued connections", gauge("current_queue", K.BE | K.SRV, null)),
    QMAX("qmax", "MMP:u32", "Highest value of queued connections encountered since process started", gauge("max_queue", K.BE | K.SRV, null)),
    SCUR("scur", "MGP:u32", "Number of current sessions on the frontend, backend or server", gauge("current_sessions", K.FE | K.BE | K.SRV, null)),
    SMAX("smax", "MMP:u32", "Highest value of current sessions encountered since process started", gauge("max_sessions", K.FE | K.BE | K.SRV, null)),
    SLIM("slim", "CLP:u32", "Frontend/listener/server's maxconn, backend's fullconn", gauge("limit_sessions", K.FE | K.BE | K.SRV, null)),
    STOT("stot", "MCP:u64", "Total number of sessions since process started", counter("sessions_total", K.FE | K.BE | K.SRV, null)),
    BIN("bin", "MCP:u64", "Total number of request bytes since process started", counter("bytes_in_total", K.FE | K.BE | K.SRV, null)),
    BOUT("bout", "MCP:u64", "Total number of response bytes since process started", counter("bytes_out_total", K.FE | K.BE | K.SRV, null)),
    DREQ("dreq", "MCP:u64", "Total number of denied requests since process started", counter("requests_denied_total", K.FE | K.BE, null)),
    DRESP("dresp", "MCP:u64", "Total number of denied responses since process started", counter("responses_denied_total", K.FE | K.BE | K.SRV, null)),
    EREQ("ereq", "MCP:u64", "Total number of invalid requests since process started", counter("request_errors_total", K.FE, null)),
    ECON("econ", "MCP:u64", "Total number of failed connections to server since the worker process started", counter("connection_errors_total", K.BE | K.SRV, null)),
    ERESP("eresp", "MCP:u64", "Total number of invalid responses since the worker process started", counter("response_errors_total", K.BE | K.SRV, null)),
    WRETR("wretr", "MCP:u64", "Total number of server connection retries since the worker process started", counter("retry_warnings_total", K.BE | K.SRV, null)),
    WREDIS("wredis", "MCP:u64", "Total number of server redispatches due to connection failures since the worker process started", counter("redispatch_warnings_total", K.BE | K.SRV, null)),
    STATUS("status", "SGP:str", "Frontend/listen status: OPEN/WAITING/FULL/STOP; backend: UP/DOWN; server: last check status"),
    WEIGHT("weight", "MaP:u32", "Server's effective weight, or sum of active servers' effective weights for a backend", gauge("weight", K.BE | K.SRV, null)),
    ACT("act", "B=MGP:u32,S=SGP:u32", "Total number of active UP servers with a non-zero weight", gauge("active_servers", K.BE, null)),
    BCK("bck", "B=MGP:u32,S=SGP:u32", "Total number of backup UP servers with a non-zero weight", gauge("backup_servers", K.BE, null)),
    CHKFAIL("chkfail", null, null, counter("check_failures_total", K.SRV, "Total number of failed individual health checks per server/backend, since the worker process started")),
    CHKDOWN("chkdown", "MCP:u64", "Total number of failed checks causing UP to DOWN server transitions, per server/backend, since the worker process started", counter("check_up_down_total", K.BE | K.SRV, null)),
    LASTCHG("lastchg", "MAP:u32", "How long ago the last server state changed, in seconds", gauge("check_last_change_seconds", K.BE | K.SRV, null)),
    DOWNTIME("downtime", "MCP:u32", "Total time spent in DOWN state, for server or backend", counter("downtime_seconds_total", K.BE | K.SRV, null)),
    QLIMIT("qlimit", null, null, gauge("queue_limit", K.SRV, "Limit on the number of connections in queue, for servers only (maxqueue argument)")),
    PID("pid", "KGP:u32", "Relative worker process number (1)"),
    IID("iid", "KGS:u32", "Frontend or Backend numeric identifier ('id' setting)"),
    SID("sid", "KGS:u32", "Server numeric identifier ('id' setting)"),
    THROTTLE("throttle", null, null, gauge("current_throttle", K.SRV, "Throttling ratio applied to a server's maxconn and weight during the slowstart period (0 to 100%)")),
    LBTOT("lbtot", "MCP:u64", "Total number of requests routed by load balancing since the worker process started (ignores queue pop and stickiness)", counter("loadbalanced_total", K.BE | K.SRV, null)),
    TRACKED("tracked", null, null),
    TYPE("type", "CGS:u32", "Type of the object (Listener, Frontend, Backend, Server)"),
    RATE("rate", "F=MRP:u32,B=MGP:u32,S=MRP:u32", "Total number of sessions processed by this object over the last second (sessions for listeners/frontends, requests for backends/servers)"),
    RATE_LIM("rate_lim", "CLP:u32", "Limit on the number of sessions accepted in a second (frontend only, 'rate-limit sessions' setting)", gauge("limit_session_rate", K.FE, null)),
    RATE_MAX("rate_max", "F=MMP:u32,B=MGP:u32,S=MMP:u32", "Highest value of sessions per second observed since the worker process started", gauge("max_session_rate", K.FE | K.BE | K.SRV, null)),
    CHECK_STATUS("check_status", null, null),
    CHECK_CODE("check_code", null, null),
    CHECK_DURATION("check_duration", null, null),
    HRSP_1XX("hrsp_1xx", "MCP:u64", "Total number of HTTP responses with status 100-199 returned by this object since the worker process started"),
    HRSP_2XX("hrsp_2xx", "MCP:u64", "Total number of HTTP responses with status 200-299 returned by this object since the worker process started"),
    HRSP_3XX("hrsp_3xx", "MCP:u64", "Total number of HTTP responses with status 300-399 returned by this object since the worker process started"),
    HRSP_4XX("hrsp_4xx", "MCP:u64", "Total number of HTTP responses with status 400-499 returned by this object since the worker process started"),
    HRSP_5XX("hrsp_5xx", "MCP:u64", "Total number of HTTP responses with status 500-599 returned by this object since the worker process started"),
    HRSP_OTHER("hrsp_other", "MCP:u64", "Total number of HTTP responses with status <100, >599 returned by this object since the worker process started (error -1 included)"),
    HANAFAIL("hanafail", "MCP:u64", "Total number of failed checks caused by an 'on-error' directive after an 'observe' condition matched"),
    REQ_RATE("req_rate", "MRP:u32", "Number of HTTP requests processed over the last second on this object"),
    REQ_RATE_MAX("req_rate_max", "MMP:u32", "Highest value of http requests observed since the worker process started", gauge("http_requests_rate_max", K.FE, null)),
    REQ_TOT("req_tot", "MCP:u64", "Total number of HTTP requests processed by this object since the worker process started", counter("http_requests_total", K.FE | K.BE, null)),
    CLI_ABRT("cli_abrt", "MCP:u64", "Total number of requests or connections aborted by the client since the worker process started", counter("client_aborts_total", K.BE | K.SRV, null)),
    SRV_ABRT("srv_abrt", "MCP:u64", "Total number of requests or connections aborted by the server since the worker process started", counter("server_aborts_total", K.BE | K.SRV, null)),
    COMP_IN("comp_in", "MCP:u64", "Total number of bytes submitted to the HTTP compressor for this object since the worker process started", counter("http_comp_bytes_in_total", K.FE | K.BE, null)),
    COMP_OUT("comp_out", "MCP:u64", "Total number of bytes emitted by the HTTP compressor for this object since the worker process started", counter("http_comp_bytes_out_total", K.FE | K.BE, null)),
    COMP_BYP("comp_byp", "MCP:u64", "Total number of bytes that bypassed HTTP compression for this object since the worker process started (CPU/memory/bandwidth limitation)", counter("http_comp_bytes_bypassed_total", K.FE | K.BE, null)),
    COMP_RSP("comp_rsp", "MCP:u64", "Total number of HTTP responses that were compressed for this object since the worker process started", counter("http_comp_responses_total", K.FE | K.BE, null)),
    LASTSESS("lastsess", "MAP:s32", "How long ago some traffic was seen on this object on this worker process, in seconds", gauge("last_session_seconds", K.BE | K.SRV, null)),
    LAST_CHK("last_chk", null, null),
    LAST_AGT("last_agt", null, null),
    QTIME("qtime", "MaP:u32", "Time spent in the queue, in milliseconds, averaged over the 1024 last requests (backend/server)", millis("queue_time_average_seconds", "Avg. queue time for last 1024 successful connections.")),
    CTIME("ctime", "MaP:u32", "Time spent waiting for a connection to complete, in milliseconds, averaged over the 1024 last requests (backend/server)", millis("connect_time_average_seconds", "Avg. connect time for last 1024 successful connections.")),
    RTIME("rtime", "MaP:u32", "Time spent waiting for a server response, in milliseconds, averaged over the 1024 last requests (backend/server)", millis("response_time_average_seconds", "Avg. response time for last 1024 successful connections.")),
    TTIME("ttime", "MaP:u32", "Total request+response time (request+queue+connect+response+processing), in milliseconds, averaged over the 1024 last requests (backend/server)", millis("total_time_average_seconds", "Avg. total time for last 1024 successful connections.")),
    AGENT_STATUS("agent_status", null, null),
    AGENT_CODE("agent_code", null, null),
    AGENT_DURATION("agent_duration", null, null),
    CHECK_DESC("check_desc", null, null),
    AGENT_DESC("agent_desc", null, null),
    CHECK_RISE("check_rise", null, null),
    CHECK_FALL("check_fall", null, null),
    CHECK_HEALTH("check_health", null, null),
    AGENT_RISE("agent_rise", null, null),
    AGENT_FALL("agent_fall", null, null),
    AGENT_HEALTH("agent_health", null, null),
    ADDR("addr", "CGS:str", "Server's address:port, shown only if show-legends is set, or at levels oper/admin for the CLI"),
    COOKIE("cookie", "CNS:str", "Backend's cookie name or Server's cookie value, shown only if show-legends is set, or at levels oper/admin for the CLI"),
    MODE("mode", "CGS:str", "'mode' setting (tcp/http/health/cli)"),
    ALGO("algo", "CGS:str", "Backend's load balancing algorithm, shown only if show-legends is set, or at levels oper/admin for the CLI"),
    CONN_RATE("conn_rate", "MRP:u32", "Number of new connections accepted over the last second on the frontend for this worker process"),
    CONN_RATE_MAX("conn_rate_max", "MMP:u32", "Highest value of connections per second observed since the worker process started", gauge("connections_rate_max", K.FE, null)),
    CONN_TOT("conn_tot", "MCP:u64", "Total number of new connections accepted on this frontend since the worker process started", counter("connections_total", K.FE, null)),
    INTERCEPTED("intercepted", "MCP:u64", "Total number of HTTP requests intercepted on the frontend (redirects/stats/services) since the worker process started", counter("intercepted_requests_total", K.FE, null)),
    DCON("dcon", "MCP:u64", "Total number of incoming connections blocked on a listener/frontend by a tcp-request connection rule since the worker process started", counter("denied_connections_total", K.FE, null)),
    DSES("dses", "MCP:u64", "Total number of incoming sessions blocked on a listener/frontend by a tcp-request connection rule since the worker process started", counter("denied_sessions_total", K.FE, null)),
    WREW("wrew", "MCP:u64", "Total number of failed HTTP header rewrites since the worker process started", counter("failed_header_rewriting_total", K.FE | K.BE | K.SRV, null)),
    CONNECT("connect", "MCP:u64", "Total number of outgoing connection attempts on this backend/server since the worker process started", counter("connection_attempts_total", K.BE | K.SRV, null)),
    REUSE("reuse", "MCP:u64", "Total number of reused connection on this backend/server since the worker process started", counter("connection_reuses_total", K.BE | K.SRV, null)),
    CACHE_LOOKUPS("cache_lookups", "MCP:u64", "Total number of HTTP requests looked up in the cache on this frontend/backend since the worker process started", counter("http_cache_lookups_total", K.FE | K.BE, null)),
    CACHE_HITS("cache_hits", "MCP:u64", "Total number of HTTP requests not found in the cache on this frontend/backend since the worker process started", counter("http_cache_hits_total", K.FE | K.BE, null)),
    SRV_ICUR("srv_icur", "MGP:u32", "Current number of idle connections available for reuse on this server"),
    SRC_ILIM("src_ilim", null, null),
    QTIME_MAX("qtime_max", "MMP:u32", "Maximum observed time spent in the queue, in milliseconds (backend/server)", millis("max_queue_time_seconds", "Maximum observed time spent in the queue")),
    CTIME_MAX("ctime_max", "MMP:u32", "Maximum observed time spent waiting for a connection to complete, in milliseconds (backend/server)", millis("max_connect_time_seconds", "Maximum observed time spent waiting for a connection to complete")),
    RTIME_MAX("rtime_max", "MMP:u32", "Maximum observed time spent waiting for a server response, in milliseconds (backend/server)", millis("max_response_time_seconds", "Maximum observed time spent waiting for a server response")),
    TTIME_MAX("ttime_max", "MMP:u32", "Maximum observed total request+response time (request+queue+connect+response+processing), in milliseconds (backend/server)", millis("max_total_time_seconds", "Maximum observed total request+response time (request+queue+connect+response+processing)")),
    EINT("eint", "MCP:u64", "Total number of internal errors since process started"),
    IDLE_CONN_CUR("idle_conn_cur", "MGP:u32", "Current number of unsafe idle connections"),
    SAFE_CONN_CUR("safe_conn_cur", "MGP:u32", "Current number of safe idle connections"),
    USED_CONN_CUR("used_conn_cur", "MGP:u32", "Current number of connections in use"),
    NEED_CONN_EST("need_conn_est", "MGP:u32", "Estimated needed number of connections"),
    UWEIGHT("uweight", "MaP:u32", "Server's user weight, or sum of active servers' user weights for a backend", gauge("uweight", K.BE | K.SRV, null)),
    AGG_SERVER_STATUS("agg_server_status", "MGP:u32", "Backend's aggregated gauge of servers' status"),
    AGG_SERVER_CHECK_STATUS("agg_server_check_status", "MGP:u32", "Backend's aggregated gauge of servers' state check status"),
    AGG_CHECK_STATUS("agg_check_status", "MGP:u32", "Backend's aggregated gauge of servers' state check status"),
    // the module columns HAProxy 2.6 prints after "-" (ssl, h2, h1): no typed tags, no Prometheus family
    SSL_SESS("ssl_sess", null, null),
    SSL_REUSED_SESS("ssl_reused_sess", null, null),
    SSL_FAILED_HANDSHAKE("ssl_failed_handshake", null, null),
    H2_HEADERS_RCVD("h2_headers_rcvd", null, null),
    H2_DATA_RCVD("h2_data_rcvd", null, null),
    H2_SETTINGS_RCVD("h2_settings_rcvd", null, null),
    H2_RST_STREAM_RCVD("h2_rst_stream_rcvd", null, null),
    H2_GOAWAY_RCVD("h2_goaway_rcvd", null, null),
    H2_DETECTED_CONN_PROTOCOL_ERRORS("h2_detected_conn_protocol_errors", null, null),
    H2_DETECTED_STRM_PROTOCOL_ERRORS("h2_detected_strm_protocol_errors", null, null),
    H2_RST_STREAM_RESP("h2_rst_stream_resp", null, null),
    H2_GOAWAY_RESP("h2_goaway_resp", null, null),
    H2_OPEN_CONNECTIONS("h2_open_connections", null, null),
    H2_BACKEND_OPEN_STREAMS("h2_backend_open_streams", null, null),
    H2_TOTAL_CONNECTIONS("h2_total_connections", null, null),
    H2_BACKEND_TOTAL_STREAMS("h2_backend_total_streams", null, null),
    H1_OPEN_CONNECTIONS("h1_open_connections", null, null),
    H1_OPEN_STREAMS("h1_open_streams", null, null),
    H1_TOTAL_CONNECTIONS("h1_total_connections", null, null),
    H1_TOTAL_STREAMS("h1_total_streams", null, null),
    H1_BYTES_IN("h1_bytes_in", null, null),
    H1_BYTES_OUT("h1_bytes_out", null, null),
    H1_SPLICED_BYTES_IN("h1_spliced_bytes_in", null, null),
    H1_SPLICED_BYTES_OUT("h1_spliced_bytes_out", null, null);

    /** The object kinds of a Prometheus family, as bits. */
    private static final class K {
        static final int FE = 1;
        static final int BE = 2;
        static final int SRV = 4;
    }

    /**
     * A Prometheus family {@code haproxy_<frontend|backend|server>_<suffix>}: counter or gauge, the object kinds
     * HAProxy's exporter writes it for ({@link StatRow.Type#mask()} bits), the factor from the column's unit to the
     * family's (milliseconds to seconds), and the help text when it is not the column's description.
     */
    public record Prometheus(String suffix, boolean counter, int kinds, double scale, String help) {
        /** Whether the family exists for objects of {@code type}. */
        public boolean exportedFor(StatRow.Type type) {
            return (kinds & type.mask()) != 0;
        }
    }

    private static Prometheus gauge(String suffix, int kinds, String help) {
        return new Prometheus(suffix, false, kinds, 1, help);
    }

    private static Prometheus counter(String suffix, int kinds, String help) {
        return new Prometheus(suffix, true, kinds, 1, help);
    }

    /** A backend and server time in milliseconds, exported in seconds. */
    private static Prometheus millis(String suffix, String help) {
        return new Prometheus(suffix, false, K.BE | K.SRV, 0.001, help);
    }

    private final String field;
    private final String tags;
    private final String description;
    private final Prometheus prometheus;

    StatColumn(String field, String tags, String description) {
        this(field, tags, description, null);
    }

    StatColumn(String field, String tags, String description, Prometheus prometheus) {
        this.field = field;
        this.tags = tags;
        this.description = description;
        this.prometheus = prometheus;
    }

    /** The column's name in {@code show stat}'s header. */
    public String field() {
        return field;
    }

    /** Whether it is one of the module columns, printed after the {@code -} column. */
    public boolean module() {
        return ordinal() >= SSL_SESS.ordinal();
    }

    /** The {@code typed} origin/nature/scope tags and value type for objects of {@code type}, as {@code "MCP:u64"}; null when not typed. */
    public String tagsAndType(StatRow.Type type) {
        if (tags == null || tags.indexOf('=') < 0) {
            return tags;
        }
        char t = type.letter();
        for (String part : tags.split(",")) {
            if (part.charAt(0) == t) {
                return part.substring(2);
            }
        }
        int comma = tags.indexOf(',');
        return tags.substring(tags.indexOf('=') + 1, comma < 0 ? tags.length() : comma);
    }

    /** HAProxy's description of the column; null for the columns {@code typed} leaves out. */
    public String description() {
        return description;
    }

    /** Its Prometheus family; null when HAProxy's exporter has none. */
    public Prometheus prometheus() {
        return prometheus;
    }

    /** The help text of its Prometheus family. */
    public String prometheusHelp() {
        return prometheus.help() != null ? prometheus.help() : description;
    }
}
