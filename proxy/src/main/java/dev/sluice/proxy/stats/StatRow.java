package dev.sluice.proxy.stats;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of {@code show stat}: HAProxy 2.6's columns in its order (the static proxy columns, the
 * {@code -} separator, then the 2.6 module columns: ssl, h2, h1), filled by name; a column left unset
 * prints empty, as HAProxy prints what does not apply. Values holding a comma or a quote are quoted.
 */
public final class StatRow {
    /** The static columns, positions 0 to 102. */
    public static final List<String> STATIC = List.of(
            "pxname", "svname", "qcur", "qmax", "scur", "smax", "slim", "stot", "bin", "bout", "dreq", "dresp", "ereq", "econ",
            "eresp", "wretr", "wredis", "status", "weight", "act", "bck", "chkfail", "chkdown", "lastchg", "downtime", "qlimit",
            "pid", "iid", "sid", "throttle", "lbtot", "tracked", "type", "rate", "rate_lim", "rate_max", "check_status",
            "check_code", "check_duration", "hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx", "hrsp_other", "hanafail",
            "req_rate", "req_rate_max", "req_tot", "cli_abrt", "srv_abrt", "comp_in", "comp_out", "comp_byp", "comp_rsp",
            "lastsess", "last_chk", "last_agt", "qtime", "ctime", "rtime", "ttime", "agent_status", "agent_code",
            "agent_duration", "check_desc", "agent_desc", "check_rise", "check_fall", "check_health", "agent_rise", "agent_fall",
            "agent_health", "addr", "cookie", "mode", "algo", "conn_rate", "conn_rate_max", "conn_tot", "intercepted", "dcon",
            "dses", "wrew", "connect", "reuse", "cache_lookups", "cache_hits", "srv_icur", "src_ilim", "qtime_max", "ctime_max",
            "rtime_max", "ttime_max", "eint", "idle_conn_cur", "safe_conn_cur", "used_conn_cur", "need_conn_est", "uweight",
            "agg_server_status", "agg_server_check_status", "agg_check_status");

    /** The per-module columns HAProxy 2.6 prints after the "-" column. */
    public static final List<String> MODULES = List.of(
            "ssl_sess", "ssl_reused_sess", "ssl_failed_handshake", "h2_headers_rcvd", "h2_data_rcvd", "h2_settings_rcvd",
            "h2_rst_stream_rcvd", "h2_goaway_rcvd", "h2_detected_conn_protocol_errors", "h2_detected_strm_protocol_errors",
            "h2_rst_stream_resp", "h2_goaway_resp", "h2_open_connections", "h2_backend_open_streams", "h2_total_connections",
            "h2_backend_total_streams", "h1_open_connections", "h1_open_streams", "h1_total_connections", "h1_total_streams",
            "h1_bytes_in", "h1_bytes_out", "h1_spliced_bytes_in", "h1_spliced_bytes_out");

    /** Every column, in order. */
    public static final List<String> COLUMNS;
    private static final Map<String, Integer> INDEX = new HashMap<>();

    static {
        List<String> all = new ArrayList<>(STATIC);
        all.add("-");
        all.addAll(MODULES);
        COLUMNS = List.copyOf(all);
        for (int i = 0; i < COLUMNS.size(); i++) {
            INDEX.put(COLUMNS.get(i), i);
        }
    }

    /** Object types as HAProxy numbers them in the {@code type} column and the {@code show stat} filter. */
    public enum Type {
        FRONTEND(0, 1), BACKEND(1, 2), SERVER(2, 4);

        private final int code;
        private final int mask;

        Type(int code, int mask) {
            this.code = code;
            this.mask = mask;
        }

        public int code() {
            return code;
        }

        /** The bit of this type in {@code show stat <proxy> <type> <sid>} (1 frontends, 2 backends, 4 servers). */
        public int mask() {
            return mask;
        }
    }

    private final String[] values = new String[COLUMNS.size()];

    public StatRow() {
        values[INDEX.get("-")] = "-";
    }

    /** Sets a column; throws when HAProxy has no column of that name. */
    public StatRow set(String column, Object value) {
        Integer i = INDEX.get(column);
        if (i == null) {
            throw new IllegalArgumentException("no show stat column " + column);
        }
        values[i] = value == null ? null : value.toString();
        return this;
    }

    public String get(String column) {
        return values[INDEX.get(column)];
    }

    /** The header line: "# " and every column followed by a comma. */
    public static String header() {
        StringBuilder b = new StringBuilder("# ");
        for (String c : COLUMNS) {
            b.append(c).append(',');
        }
        return b.append('\n').toString();
    }

    /** The CSV line: every value followed by a comma. */
    public String csv() {
        StringBuilder b = new StringBuilder();
        for (String v : values) {
            if (v != null) {
                if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0) {
                    b.append('"').append(v.replace("\"", "\"\"")).append('"');
                } else {
                    b.append(v);
                }
            }
            b.append(',');
        }
        return b.append('\n').toString();
    }
}
