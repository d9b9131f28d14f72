package dev.sluice.proxy.stats;

import java.util.List;

/**
 * HAProxy 2.6's statistics modules of proxies, in its order (ssl, h2, h1): their names, the objects they count for (HAProxy's
 * STATS_PX_CAP_* as {@link StatRow.Type#mask()} bits, listeners as {@link #LISTENER}) and their columns with HAProxy's
 * descriptions. The stats page's {@code stats show-modules} cells are made of them. Immutable.
 */
public enum StatModule {
    SSL("ssl", StatRow.Type.FRONTEND.mask() | StatRow.Type.BACKEND.mask() | StatRow.Type.SERVER.mask() | StatModule.LISTENER, List.of(
            col(StatColumn.SSL_SESS, "Total number of ssl sessions established"),
            col(StatColumn.SSL_REUSED_SESS, "Total number of ssl sessions reused"),
            col(StatColumn.SSL_FAILED_HANDSHAKE, "Total number of failed handshake"))),
    H2("h2", StatRow.Type.FRONTEND.mask() | StatRow.Type.BACKEND.mask(), List.of(
            col(StatColumn.H2_HEADERS_RCVD, "Total number of received HEADERS frames"),
            col(StatColumn.H2_DATA_RCVD, "Total number of received DATA frames"),
            col(StatColumn.H2_SETTINGS_RCVD, "Total number of received SETTINGS frames"),
            col(StatColumn.H2_RST_STREAM_RCVD, "Total number of received RST_STREAM frames"),
            col(StatColumn.H2_GOAWAY_RCVD, "Total number of received GOAWAY frames"),
            col(StatColumn.H2_DETECTED_CONN_PROTOCOL_ERRORS, "Total number of connection protocol errors"),
            col(StatColumn.H2_DETECTED_STRM_PROTOCOL_ERRORS, "Total number of stream protocol errors"),
            col(StatColumn.H2_RST_STREAM_RESP, "Total number of RST_STREAM sent on detected error"),
            col(StatColumn.H2_GOAWAY_RESP, "Total number of GOAWAY sent on detected error"),
            col(StatColumn.H2_OPEN_CONNECTIONS, "Count of currently open connections"),
            col(StatColumn.H2_BACKEND_OPEN_STREAMS, "Count of currently open streams"),
            col(StatColumn.H2_TOTAL_CONNECTIONS, "Total number of connections"),
            col(StatColumn.H2_BACKEND_TOTAL_STREAMS, "Total number of streams"))),
    H1("h1", StatRow.Type.FRONTEND.mask() | StatRow.Type.BACKEND.mask(), List.of(
            col(StatColumn.H1_OPEN_CONNECTIONS, "Count of currently open connections"),
            col(StatColumn.H1_OPEN_STREAMS, "Count of currently open streams"),
            col(StatColumn.H1_TOTAL_CONNECTIONS, "Total number of connections"),
            col(StatColumn.H1_TOTAL_STREAMS, "Total number of streams"),
            col(StatColumn.H1_BYTES_IN, "Total number of bytes received"),
            col(StatColumn.H1_BYTES_OUT, "Total number of bytes send"),
            col(StatColumn.H1_SPLICED_BYTES_IN, "Total number of bytes received using kernel splicing"),
            col(StatColumn.H1_SPLICED_BYTES_OUT, "Total number of bytes sendusing kernel splicing")));

    /** The capability bit of listeners (HAProxy's STATS_PX_CAP_LI), beside the {@link StatRow.Type} masks. */
    public static final int LISTENER = 8;

    /** One column of a module with HAProxy's description of it. */
    public record Column(StatColumn column, String description) {
    }

    private final String moduleName;
    private final int caps;
    private final List<Column> columns;

    StatModule(String moduleName, int caps, List<Column> columns) {
        this.moduleName = moduleName;
        this.caps = caps;
        this.columns = columns;
    }

    private static Column col(StatColumn c, String description) {
        return new Column(c, description);
    }

    /** The module's name ({@code ssl}, {@code h2}, {@code h1}). */
    public String moduleName() {
        return moduleName;
    }

    /** Whether it counts for objects of this capability bit ({@link StatRow.Type#mask()} or {@link #LISTENER}). */
    public boolean counts(int capability) {
        return (caps & capability) != 0;
    }

    public List<Column> columns() {
        return columns;
    }
}
