package dev.sluice.sticktable;

/**
 * The text of {@code show table}, byte for byte as HAProxy 2.6 prints it (checked against it by a regtest):
 * the header line {@code # table: <name>, type: <type>, size:<n>, used:<n>} and one line per entry,
 * {@code 0x<ptr>: key=<key> use=<trackers> exp=<ms left>} followed by the
 * stored data in data-type id order: {@code name=value}, rates as {@code name(<period ms>)=<rate>}, array
 * elements as {@code gpc0=... gpc1=...} and {@code gpc0_rate(<p>)=...}, {@code server_key} as the string
 * or {@code -}. HAProxy 3.x inserts {@code shard=<n>} (the peers shard) after {@code exp=}; Sluice has no
 * peers sharding and prints 2.6's line. Lines carry no trailing newline. Stateless; reads entries without
 * locks.
 */
public final class TableDump {
    private TableDump() {
    }

    /** {@code # table: fe_main, type: ip, size:1048576, used:1}. */
    public static String header(StickTable t) {
        return "# table: " + t.name() + ", type: " + t.keyType().haproxyName() + ", size:" + t.size() + ", used:" + t.used();
    }

    /** The entry's line at the table clock's current time. */
    public static String entry(StickEntry e) {
        StringBuilder sb = new StringBuilder(128);
        appendEntry(sb, e, e.table.now());
        return sb.toString();
    }

    /**
     * Appends the entry's line as seen at {@code now}. {@code use=} is the number of trackers (HAProxy
     * prints its refcount minus the dumper's own reference, i.e. the same number); {@code exp=} is the
     * time left before expiry, 0 once past or when the table has no {@code expire}.
     */
    public static void appendEntry(StringBuilder sb, StickEntry e, long now) {
        StickTable t = e.table;
        sb.append("0x").append(Long.toHexString(e.ptr())).append(": key=");
        KeyText.append(sb, t.keyType(), e.key());
        long left = t.expireMs() > 0 ? Math.max(0, e.expireAt() - now) : 0;
        sb.append(" use=").append(e.trackers()).append(" exp=").append(left);
        DataLayout l = t.layout();
        for (DataType type : DataType.values()) {
            if (!l.stores(type)) {
                continue;
            }
            if (type == DataType.SERVER_KEY) {
                String k = e.serverKey();
                sb.append(" server_key=").append(k == null ? "-" : k);
                continue;
            }
            int n = l.count(type);
            for (int i = 0; i < n; i++) {
                sb.append(' ');
                appendName(sb, type, i, type.isArray());
                if (type.isRate()) {
                    sb.append('(').append(l.periodMs(type)).append(')');
                }
                sb.append('=');
                appendValue(sb, e, type, i, now);
            }
        }
    }

    /** {@code gpc_rate} element 1 prints as {@code gpc1_rate}: the index goes before the first underscore. */
    private static void appendName(StringBuilder sb, DataType type, int idx, boolean array) {
        String name = type.haproxyName();
        if (!array) {
            sb.append(name);
            return;
        }
        int us = name.indexOf('_');
        if (us < 0) {
            sb.append(name).append(idx);
        } else {
            sb.append(name, 0, us).append(idx).append(name, us, name.length());
        }
    }

    private static void appendValue(StringBuilder sb, StickEntry e, DataType type, int idx, long now) {
        int s = e.layout.slot(type, idx);
        switch (type.kind()) {
            case SINT -> sb.append((int) e.slotValue(s));
            case UINT -> sb.append(e.slotValue(s) & 0xFFFF_FFFFL);
            case ULL -> sb.append(Long.toUnsignedString(e.slotValue(s)));
            case RATE -> sb.append(RateCounter.read(e.data, s, e.layout.period(type), now));
            case DICT -> throw new IllegalStateException("server_key has no slot");
        }
    }
}
