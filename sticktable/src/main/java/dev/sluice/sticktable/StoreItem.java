package dev.sluice.sticktable;

/**
 * One data type a table stores, as written in a {@code store} list: {@code count} is the number of
 * elements (1 except for {@code gpt(n)}, {@code gpc(n)} and {@code gpc_rate(n,p)}), {@code periodMs} the
 * rate period in milliseconds (0 for non-rate types). Immutable.
 */
public record StoreItem(DataType type, int count, long periodMs) {

    public StoreItem {
        if (type == null) {
            throw new IllegalArgumentException("type is required");
        }
        if (type.isArray() ? count < 1 || count > DataType.MAX_ARRAY_SIZE : count != 1) {
            throw new IllegalArgumentException("bad element count " + count + " for " + type.haproxyName());
        }
        if (type.isRate() ? periodMs <= 0 || periodMs > HaproxyUnits.MAX_TIME_MS : periodMs != 0) {
            throw new IllegalArgumentException("bad period " + periodMs + " for " + type.haproxyName());
        }
    }

    /** A scalar, non-rate type such as {@code conn_cur}. */
    public static StoreItem of(DataType type) {
        return new StoreItem(type, 1, 0);
    }

    /** A scalar rate such as {@code http_req_rate(10s)}. */
    public static StoreItem rate(DataType type, long periodMs) {
        return new StoreItem(type, 1, periodMs);
    }

    /** The item as written in a {@code store} list, with the period in milliseconds. */
    public String toConfigString() {
        String n = type.haproxyName();
        if (type.isArray()) {
            return type.isRate() ? n + "(" + count + "," + periodMs + ")" : n + "(" + count + ")";
        }
        return type.isRate() ? n + "(" + periodMs + ")" : n;
    }
}
