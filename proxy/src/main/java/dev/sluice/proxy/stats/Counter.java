package dev.sluice.proxy.stats;

/**
 * The cumulative traffic counters of a frontend, backend or server, named after the {@code show stat}
 * column that prints them and described with HAProxy's own field descriptions. Not every counter applies
 * to every kind of object (only frontends have {@code ereq}, only backends and servers {@code econ});
 * those that do not stay at zero. Rated counters also get a per-second rate and its maximum.
 */
public enum Counter {
    SESSIONS("stot", "Total number of sessions since process started", true),
    CONNECTIONS("conn_tot", "Total number of new connections accepted on this frontend since the worker process started", true),
    BYTES_IN("bin", "Total number of request bytes since process started", false),
    BYTES_OUT("bout", "Total number of response bytes since process started", false),
    DENIED_REQUESTS("dreq", "Total number of denied requests since process started", false),
    DENIED_RESPONSES("dresp", "Total number of denied responses since process started", false),
    REQUEST_ERRORS("ereq", "Total number of invalid requests since process started", false),
    CONNECT_ERRORS("econ", "Total number of failed connections to server since the worker process started", false),
    RESPONSE_ERRORS("eresp", "Total number of invalid responses since the worker process started", false),
    RETRIES("wretr", "Total number of server connection retries since the worker process started", false),
    REDISPATCHES("wredis", "Total number of server redispatches due to connection failures since the worker process started", false),
    SELECTED("lbtot", "Total number of requests routed by load balancing since the worker process started", false),
    REQUESTS("req_tot", "Total number of HTTP requests processed by this object since the worker process started", true),
    HRSP_1XX("hrsp_1xx", "Total number of HTTP responses with status 100-199 returned by this object since the worker process started", false),
    HRSP_2XX("hrsp_2xx", "Total number of HTTP responses with status 200-299 returned by this object since the worker process started", false),
    HRSP_3XX("hrsp_3xx", "Total number of HTTP responses with status 300-399 returned by this object since the worker process started", false),
    HRSP_4XX("hrsp_4xx", "Total number of HTTP responses with status 400-499 returned by this object since the worker process started", false),
    HRSP_5XX("hrsp_5xx", "Total number of HTTP responses with status 500-599 returned by this object since the worker process started", false),
    HRSP_OTHER("hrsp_other", "Total number of HTTP responses with status <100, >599 returned by this object since the worker process started",
            false),
    CLIENT_ABORTS("cli_abrt", "Total number of requests or connections aborted by the client since the worker process started", false),
    SERVER_ABORTS("srv_abrt", "Total number of requests or connections aborted by the server since the worker process started", false),
    INTERCEPTED("intercepted", "Total number of HTTP requests intercepted on the frontend (redirects/stats/services) since the worker process"
            + " started", false),
    CONNECTS("connect", "Total number of outgoing connection attempts on this backend/server since the worker process started", false),
    REUSES("reuse", "Total number of reused connection on this backend/server since the worker process started", false),
    COMP_IN("comp_in", "Total number of bytes submitted to the HTTP compressor for this object since the worker process started", false),
    COMP_OUT("comp_out", "Total number of bytes emitted by the HTTP compressor for this object since the worker process started", false),
    COMP_BYP("comp_byp", "Total number of bytes that bypassed HTTP compression for this object since the worker process started (CPU/memory/bandwidth limitation)",
            false),
    COMP_RSP("comp_rsp", "Total number of HTTP responses that were compressed for this object since the worker process started", false);

    private final String field;
    private final String description;
    private final boolean rated;

    Counter(String field, String description, boolean rated) {
        this.field = field;
        this.description = description;
        this.rated = rated;
    }

    /** The {@code show stat} column name. */
    public String field() {
        return field;
    }

    public String description() {
        return description;
    }

    /** Whether a per-second rate (and its maximum) is kept for this counter. */
    public boolean rated() {
        return rated;
    }

    /** The response-class counter of an HTTP status. */
    public static Counter responseClass(int status) {
        return switch (status / 100) {
            case 1 -> HRSP_1XX;
            case 2 -> HRSP_2XX;
            case 3 -> HRSP_3XX;
            case 4 -> HRSP_4XX;
            case 5 -> HRSP_5XX;
            default -> HRSP_OTHER;
        };
    }
}
