package dev.sluice.sticktable;

import java.util.HashMap;
import java.util.Map;

/**
 * A stick-table data type, with HAProxy's id ({@code STKTABLE_DT_*}): the id fixes the order of the
 * fields in {@code show table} lines and the bit in the peers table definition, so the constants are
 * declared in id order and {@code ordinal() == id()}. Immutable.
 */
public enum DataType {
    SERVER_ID("server_id", Kind.SINT, false),
    GPT0("gpt0", Kind.UINT, false),
    GPC0("gpc0", Kind.UINT, false),
    GPC0_RATE("gpc0_rate", Kind.RATE, false),
    CONN_CNT("conn_cnt", Kind.UINT, false),
    CONN_RATE("conn_rate", Kind.RATE, false),
    CONN_CUR("conn_cur", Kind.UINT, false),
    SESS_CNT("sess_cnt", Kind.UINT, false),
    SESS_RATE("sess_rate", Kind.RATE, false),
    HTTP_REQ_CNT("http_req_cnt", Kind.UINT, false),
    HTTP_REQ_RATE("http_req_rate", Kind.RATE, false),
    HTTP_ERR_CNT("http_err_cnt", Kind.UINT, false),
    HTTP_ERR_RATE("http_err_rate", Kind.RATE, false),
    BYTES_IN_CNT("bytes_in_cnt", Kind.ULL, false),
    BYTES_IN_RATE("bytes_in_rate", Kind.RATE, false),
    BYTES_OUT_CNT("bytes_out_cnt", Kind.ULL, false),
    BYTES_OUT_RATE("bytes_out_rate", Kind.RATE, false),
    GPC1("gpc1", Kind.UINT, false),
    GPC1_RATE("gpc1_rate", Kind.RATE, false),
    SERVER_KEY("server_key", Kind.DICT, false),
    HTTP_FAIL_CNT("http_fail_cnt", Kind.UINT, false),
    HTTP_FAIL_RATE("http_fail_rate", Kind.RATE, false),
    GPT("gpt", Kind.UINT, true),
    GPC("gpc", Kind.UINT, true),
    GPC_RATE("gpc_rate", Kind.RATE, true),
    GLITCH_CNT("glitch_cnt", Kind.UINT, false),
    GLITCH_RATE("glitch_rate", Kind.RATE, false);

    /** How a value is stored and printed (HAProxy's {@code STD_T_*}). */
    public enum Kind {
        /** Signed 32-bit integer, printed with %d. */
        SINT,
        /** Unsigned 32-bit integer that wraps, printed with %u. */
        UINT,
        /** Unsigned 64-bit integer, printed with %llu. */
        ULL,
        /** Two-bucket frequency counter over a period, printed as {@code name(<period>)=<rate>}. */
        RATE,
        /** A string kept beside the numeric data ({@code server_key}), printed as is or {@code -}. */
        DICT
    }

    /** Largest element count of an array type ({@code gpc(n)} etc.), HAProxy's STKTABLE_MAX_DT_ARRAY_SIZE. */
    public static final int MAX_ARRAY_SIZE = 100;

    private static final DataType[] BY_ID = values();
    private static final Map<String, DataType> BY_NAME = new HashMap<>();

    static {
        for (DataType t : BY_ID) {
            BY_NAME.put(t.name, t);
        }
    }

    private final String name;
    private final Kind kind;
    private final boolean array;

    DataType(String name, Kind kind, boolean array) {
        this.name = name;
        this.kind = kind;
        this.array = array;
    }

    /** HAProxy's data type id (the position in {@code show table} lines and peers bitfields). */
    public int id() {
        return ordinal();
    }

    /** The config and CLI name ({@code http_req_rate}, {@code gpc}, ...). */
    public String haproxyName() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** True for {@code gpt(n)}, {@code gpc(n)} and {@code gpc_rate(n,p)}, which hold n elements. */
    public boolean isArray() {
        return array;
    }

    public boolean isRate() {
        return kind == Kind.RATE;
    }

    /** The type with this id, or null. */
    public static DataType byId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /**
     * The type with this config/CLI name, or null. {@code server_name} is accepted for {@code server_key}
     * (its name before HAProxy 2.8), as HAProxy still does.
     */
    public static DataType byName(String name) {
        DataType t = BY_NAME.get(name);
        if (t == null && "server_name".equals(name)) {
            return SERVER_KEY;
        }
        return t;
    }

    /** All names, for "did you mean" suggestions. */
    static Iterable<String> names() {
        return BY_NAME.keySet();
    }
}
