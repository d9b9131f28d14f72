package dev.sluice.proxy.stats;

/**
 * The cumulative traffic counters of a frontend, backend or server, each printed in one {@code show stat} column
 * ({@link StatColumn}, which holds its name and description). Not every counter applies to every kind of object (only
 * frontends have {@code ereq}, only backends and servers {@code econ}); those that do not stay at zero. Rated counters
 * also get a per-second rate and its maximum.
 */
public enum Counter {
    SESSIONS(StatColumn.STOT, true),
    CONNECTIONS(StatColumn.CONN_TOT, true),
    BYTES_IN(StatColumn.BIN, false),
    BYTES_OUT(StatColumn.BOUT, false),
    DENIED_REQUESTS(StatColumn.DREQ, false),
    DENIED_RESPONSES(StatColumn.DRESP, false),
    /** Connections a {@code tcp-request connection} rule rejected. */
    DENIED_CONNECTIONS(StatColumn.DCON, false),
    /** Sessions a {@code tcp-request session} rule rejected. */
    DENIED_SESSIONS(StatColumn.DSES, false),
    REQUEST_ERRORS(StatColumn.EREQ, false),
    CONNECT_ERRORS(StatColumn.ECON, false),
    RESPONSE_ERRORS(StatColumn.ERESP, false),
    RETRIES(StatColumn.WRETR, false),
    REDISPATCHES(StatColumn.WREDIS, false),
    SELECTED(StatColumn.LBTOT, false),
    REQUESTS(StatColumn.REQ_TOT, true),
    HRSP_1XX(StatColumn.HRSP_1XX, false),
    HRSP_2XX(StatColumn.HRSP_2XX, false),
    HRSP_3XX(StatColumn.HRSP_3XX, false),
    HRSP_4XX(StatColumn.HRSP_4XX, false),
    HRSP_5XX(StatColumn.HRSP_5XX, false),
    HRSP_OTHER(StatColumn.HRSP_OTHER, false),
    CLIENT_ABORTS(StatColumn.CLI_ABRT, false),
    SERVER_ABORTS(StatColumn.SRV_ABRT, false),
    INTERCEPTED(StatColumn.INTERCEPTED, false),
    CONNECTS(StatColumn.CONNECT, false),
    REUSES(StatColumn.REUSE, false),
    COMP_IN(StatColumn.COMP_IN, false),
    COMP_OUT(StatColumn.COMP_OUT, false),
    COMP_BYP(StatColumn.COMP_BYP, false),
    COMP_RSP(StatColumn.COMP_RSP, false),
    /** Requests a {@code cache-use} rule of this proxy looked up. */
    CACHE_LOOKUPS(StatColumn.CACHE_LOOKUPS, false),
    /** Requests a {@code cache-use} rule of this proxy answered from the cache. */
    CACHE_HITS(StatColumn.CACHE_HITS, false);

    private final StatColumn column;
    private final boolean rated;

    Counter(StatColumn column, boolean rated) {
        this.column = column;
        this.rated = rated;
    }

    /** The {@code show stat} column that prints it. */
    public StatColumn column() {
        return column;
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
