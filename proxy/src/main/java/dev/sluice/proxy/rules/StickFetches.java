package dev.sluice.proxy.rules;

import dev.sluice.sticktable.DataLayout;
import dev.sluice.sticktable.DataType;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The stick-counter samples, under the names HAProxy 2.6 registers (and only those): the fetches
 * {@code sc_<metric>(<sc>[,<table>])}, {@code sc0_..sc2_<metric>([<table>])}, {@code src_<metric>([<table>])},
 * the array forms {@code sc_get_gpc(<idx>,<sc>[,<table>])} and {@code src_get_gpc(<idx>,<table>)} (and
 * {@code get_gpt}, {@code gpc_rate}, {@code inc_gpc}, {@code clr_gpc}), {@code table_cnt}, {@code table_avl},
 * {@code src_updt_conn_cnt}, and the converters {@code table_<metric>(<table>)}, {@code table_gpc(<idx>,<table>)}
 * (and {@code table_gpt}, {@code table_gpc_rate}), {@code table_expire}, {@code table_idle} and {@code in_table}.
 * Tables are resolved when the rules are compiled.
 *
 * <p>Values follow HAProxy: a stick counter that tracks nothing gives no sample; a key that is not in the
 * table gives 0; an entry whose table does not keep the data (or not at that array index) gives no sample.
 * Lookups never create nor refresh entries, except {@code src_inc_gpc*}, {@code src_clr_gpc*} and
 * {@code src_updt_conn_cnt}, which create the source's entry as HAProxy does; the {@code inc}/{@code clr}
 * forms touch the entry when they changed it.
 */
final class StickFetches {
    private StickFetches() {
    }

    /** Reads one value from an entry; null when the entry's table does not keep it (no sample). */
    @FunctionalInterface
    interface Reader {
        Long read(StickEntry e);
    }

    /** Changes an entry ({@code inc}/{@code clr}); returns the value to give, null for no sample. Touches when it changed something. */
    @FunctionalInterface
    interface Change {
        Long apply(StickEntry e);
    }

    private static Reader stored(DataType t) {
        return e -> e.table().layout().stores(t) ? e.get(t) : null;
    }

    /** Element {@code idx} of an array type; no sample past the table's count (or for a negative index). */
    private static Reader element(DataType t, int idx) {
        return e -> idx >= 0 && idx < e.table().layout().count(t) ? e.get(t, idx) : null;
    }

    /** Whether a table keeps a legacy type ({@code gpc0}...) or, in its place, element {@code idx} of the array. */
    private static boolean legacy(DataLayout l, DataType type, DataType array, int idx) {
        return l.stores(type) || l.count(array) > idx;
    }

    private static final Map<String, Reader> READ = Map.ofEntries(
            Map.entry("conn_cnt", stored(DataType.CONN_CNT)), Map.entry("conn_cur", stored(DataType.CONN_CUR)),
            Map.entry("conn_rate", stored(DataType.CONN_RATE)), Map.entry("sess_cnt", stored(DataType.SESS_CNT)),
            Map.entry("sess_rate", stored(DataType.SESS_RATE)), Map.entry("http_req_cnt", stored(DataType.HTTP_REQ_CNT)),
            Map.entry("http_req_rate", stored(DataType.HTTP_REQ_RATE)), Map.entry("http_err_cnt", stored(DataType.HTTP_ERR_CNT)),
            Map.entry("http_err_rate", stored(DataType.HTTP_ERR_RATE)), Map.entry("http_fail_cnt", stored(DataType.HTTP_FAIL_CNT)),
            Map.entry("http_fail_rate", stored(DataType.HTTP_FAIL_RATE)), Map.entry("bytes_in_rate", stored(DataType.BYTES_IN_RATE)),
            Map.entry("bytes_out_rate", stored(DataType.BYTES_OUT_RATE)),
            // HAProxy 3.x names, kept with the glitch_* data types Sluice accepts
            Map.entry("glitch_cnt", stored(DataType.GLITCH_CNT)), Map.entry("glitch_rate", stored(DataType.GLITCH_RATE)),
            Map.entry("kbytes_in", e -> e.table().layout().stores(DataType.BYTES_IN_CNT) ? e.get(DataType.BYTES_IN_CNT) >> 10 : null),
            Map.entry("kbytes_out", e -> e.table().layout().stores(DataType.BYTES_OUT_CNT) ? e.get(DataType.BYTES_OUT_CNT) >> 10 : null),
            // the legacy types fall back on the arrays (gpc0 on gpc[0], gpc1 on gpc[1], gpt0 on gpt[0]), as in HAProxy
            Map.entry("gpc0_rate", e -> legacy(e.table().layout(), DataType.GPC0_RATE, DataType.GPC_RATE, 0) ? e.gpc0Rate() : null),
            Map.entry("gpc1_rate", e -> legacy(e.table().layout(), DataType.GPC1_RATE, DataType.GPC_RATE, 1) ? e.gpc1Rate() : null),
            Map.entry("get_gpc0", e -> legacy(e.table().layout(), DataType.GPC0, DataType.GPC, 0) ? e.gpc0() : null),
            Map.entry("get_gpc1", e -> legacy(e.table().layout(), DataType.GPC1, DataType.GPC, 1) ? e.gpc1() : null),
            Map.entry("get_gpt0", e -> legacy(e.table().layout(), DataType.GPT0, DataType.GPT, 0) ? e.gpt0() : null));

    /** The converter name of a fetch metric when it differs ({@code sc_get_gpc0} but {@code table_gpc0}). */
    private static final Map<String, String> CONVERTER = Map.of("get_gpc0", "gpc0", "get_gpc1", "gpc1", "get_gpt0", "gpt0");

    private static final Map<String, Change> CHANGE = Map.of(
            "inc_gpc0", e -> incLegacy(e, DataType.GPC0, DataType.GPC0_RATE, 0),
            "inc_gpc1", e -> incLegacy(e, DataType.GPC1, DataType.GPC1_RATE, 1),
            "clr_gpc0", e -> legacy(e.table().layout(), DataType.GPC0, DataType.GPC, 0) ? touched(e, e.clearGpc0()) : null,
            "clr_gpc1", e -> legacy(e.table().layout(), DataType.GPC1, DataType.GPC, 1) ? touched(e, e.clearGpc1()) : null);

    /** Array metrics: read ({@code get_gpc}, ...) or changed ({@code inc_gpc}, {@code clr_gpc}) at an index. */
    private static final Map<String, IntFunction<Reader>> READ_AT = Map.of(
            "get_gpc", i -> element(DataType.GPC, i), "get_gpt", i -> element(DataType.GPT, i),
            "gpc_rate", i -> element(DataType.GPC_RATE, i));
    private static final Map<String, String> CONVERTER_AT = Map.of("get_gpc", "gpc", "get_gpt", "gpt", "gpc_rate", "gpc_rate");
    private static final Map<String, IntFunction<Change>> CHANGE_AT = Map.of("inc_gpc", StickFetches::incAt, "clr_gpc", StickFetches::clearAt);

    private static Long touched(StickEntry e, long v) {
        e.table().touch(e);
        return v;
    }

    /**
     * {@code inc_gpc0}/{@code inc_gpc1}: counts one on the rate and the counter the table keeps (with the
     * array fallbacks); gives the counter, else the rate's count in its current period, else 0 untouched.
     */
    private static Long incLegacy(StickEntry e, DataType counter, DataType rate, int idx) {
        DataLayout l = e.table().layout();
        boolean hasCounter = legacy(l, counter, DataType.GPC, idx);
        boolean hasRate = legacy(l, rate, DataType.GPC_RATE, idx);
        if (!hasCounter && !hasRate) {
            return 0L;
        }
        long v = idx == 0 ? e.incGpc0() : e.incGpc1();
        if (!hasCounter) {
            v = l.stores(rate) ? e.rateState(rate, 0).current() : e.rateState(DataType.GPC_RATE, idx).current();
        }
        return touched(e, v);
    }

    private static Change incAt(int idx) {
        return e -> {
            DataLayout l = e.table().layout();
            boolean hasCounter = idx >= 0 && idx < l.count(DataType.GPC);
            boolean hasRate = idx >= 0 && idx < l.count(DataType.GPC_RATE);
            if (!hasCounter && !hasRate) {
                return 0L;
            }
            long v = e.incGpc(idx);
            return touched(e, hasCounter ? v : e.rateState(DataType.GPC_RATE, idx).current());
        };
    }

    private static Change clearAt(int idx) {
        return e -> idx >= 0 && idx < e.table().layout().count(DataType.GPC) ? touched(e, e.clearGpc(idx)) : null;
    }

    /** Whether a fetch name is one of the stick-counter samples (readable in every phase). */
    static boolean isStickSample(String name) {
        return name.startsWith("sc_") || name.startsWith("sc0_") || name.startsWith("sc1_") || name.startsWith("sc2_")
                || name.startsWith("src_") || name.equals("table_cnt") || name.equals("table_avl");
    }

    static void register() {
        for (Map.Entry<String, Reader> m : READ.entrySet()) {
            String metric = m.getKey();
            Reader r = m.getValue();
            countersAndSource(metric, (slot, table) -> reading(slot, table, r), table -> bySource(table, r));
            Converters.def("table_" + CONVERTER.getOrDefault(metric, metric), 1, 1, a -> byKey(a.get(0), r));
        }
        for (Map.Entry<String, Change> m : CHANGE.entrySet()) {
            Change c = m.getValue();
            countersAndSource(m.getKey(), (slot, table) -> changing(slot, table, c), table -> creatingBySource(table, c));
        }
        Reader trackers = e -> (long) e.trackers();
        countersOnly("trackers", (slot, table) -> reading(slot, table, trackers));
        // HAProxy reads the count while its own lookup holds a reference: one more than the trackers
        Converters.def("table_trackers", 1, 1, a -> byKey(a.get(0), e -> e.trackers() + 1L));
        Converters.def("table_server_id", 1, 1, a -> byKey(a.get(0), stored(DataType.SERVER_ID)));
        for (Map.Entry<String, IntFunction<Reader>> m : READ_AT.entrySet()) {
            String metric = m.getKey();
            IntFunction<Reader> at = m.getValue();
            arrayForms(metric, (idx, slot, table) -> reading(slot, table, at.apply(idx)), (idx, table) -> bySource(table, at.apply(idx)));
            String conv = "table_" + CONVERTER_AT.get(metric);
            Converters.def(conv, 2, 2, a -> byKey(a.get(1), at.apply(index(a.get(0), "invalid arg 1 in converter '" + conv + "'", 1))));
        }
        for (Map.Entry<String, IntFunction<Change>> m : CHANGE_AT.entrySet()) {
            IntFunction<Change> at = m.getValue();
            arrayForms(m.getKey(), (idx, slot, table) -> changing(slot, table, at.apply(idx)), (idx, table) -> creatingBySource(table, at.apply(idx)));
        }
        // HAProxy 2.6 also registers this one sc1_ form of an array fetch: sc1_clr_gpc(<idx>[,<table>])
        Fetches.def("sc1_clr_gpc", 1, 2, Match.INT, false,
                a -> changing(1, a.size() > 1 ? a.get(1) : null, clearAt(index(a.get(0), "fetch method 'sc1_clr_gpc'", 1))));
        Fetches.def("sc_tracked", 1, 2, Match.BOOL, false, a -> {
            int s = slot(a.get(0));
            return t -> t.trackers() != null && t.trackers().get(s) != null;
        });
        for (int slot = 0; slot < Trackers.SLOTS; slot++) {
            int s = slot;
            Fetches.def("sc" + slot + "_tracked", 0, 1, Match.BOOL, false, a -> t -> t.trackers() != null && t.trackers().get(s) != null);
        }
        Fetches.def("table_cnt", 0, 1, Match.INT, false, a -> {
            StickTable table = StickTables.resolve(a.isEmpty() ? null : a.get(0));
            return t -> (long) table.used();
        });
        Fetches.def("table_avl", 0, 1, Match.INT, false, a -> {
            StickTable table = StickTables.resolve(a.isEmpty() ? null : a.get(0));
            return t -> (long) Math.max(0, table.size() - table.used());
        });
        Fetches.def("src_updt_conn_cnt", 0, 1, Match.INT, false, a -> {
            StickTable table = StickTables.resolve(a.isEmpty() ? null : a.get(0));
            return t -> updateConnCount(table, t);
        });
        Converters.def("in_table", 1, 1, a -> {
            StickTable table = StickTables.resolve(a.get(0));
            return (t, v) -> {
                StickKey k = StickTables.keyOf(table, v);
                return k != null && table.lookup(k) != null;
            };
        });
        Converters.def("table_expire", 1, 2, a -> dated(a, "table_expire", false));
        Converters.def("table_idle", 1, 2, a -> dated(a, "table_idle", true));
    }

    @FunctionalInterface
    private interface CounterFetch {
        Fetch build(int slot, String table);
    }

    @FunctionalInterface
    private interface ArrayCounterFetch {
        Fetch build(int idx, int slot, String table);
    }

    @FunctionalInterface
    private interface ArraySourceFetch {
        Fetch build(int idx, String table);
    }

    /** {@code sc_<m>(<sc>[,<table>])}, {@code sc0_<m>..sc2_<m>([<table>])} and {@code src_<m>([<table>])}. */
    private static void countersAndSource(String metric, CounterFetch counter, java.util.function.Function<String, Fetch> source) {
        countersOnly(metric, counter);
        Fetches.def("src_" + metric, 0, 1, Match.INT, false, a -> source.apply(a.isEmpty() ? null : a.get(0)));
    }

    private static void countersOnly(String metric, CounterFetch counter) {
        Fetches.def("sc_" + metric, 1, 2, Match.INT, false, a -> counter.build(slot(a.get(0)), a.size() > 1 ? a.get(1) : null));
        for (int slot = 0; slot < Trackers.SLOTS; slot++) {
            int s = slot;
            Fetches.def("sc" + slot + "_" + metric, 0, 1, Match.INT, false, a -> counter.build(s, a.isEmpty() ? null : a.get(0)));
        }
    }

    /** {@code sc_<m>(<idx>,<sc>[,<table>])} and {@code src_<m>(<idx>,<table>)} (HAProxy 2.6 wants the table argument, which may be empty). */
    private static void arrayForms(String metric, ArrayCounterFetch counter, ArraySourceFetch source) {
        String sc = "sc_" + metric;
        String src = "src_" + metric;
        Fetches.def(sc, 2, 3, Match.INT, false,
                a -> counter.build(index(a.get(0), "fetch method '" + sc + "'", 1), slot(a.get(1)), a.size() > 2 ? a.get(2) : null));
        Fetches.def(src, 2, 2, Match.INT, false, a -> source.build(index(a.get(0), "fetch method '" + src + "'", 1), a.get(1)));
    }

    /**
     * An array index: any integer, as HAProxy takes it (one outside the table's array, negative or past 99
     * included, reads as "not stored"); anything else is HAProxy's parse error.
     */
    static int index(String s, String where, int position) {
        String v = s.strip();
        if (!v.matches("[-+]?\\d{1,9}")) {
            throw new IllegalArgumentException(v.isEmpty() ? where + " : expected type 'integer' at position " + position + ", but got nothing"
                    : where + " : failed to parse '" + v + "' as type 'integer' at position " + position);
        }
        return Integer.parseInt(v.startsWith("+") ? v.substring(1) : v);
    }

    private static int slot(String s) {
        try {
            int n = Integer.parseInt(s.strip());
            if (n >= 0 && n < Trackers.SLOTS) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("invalid stick counter number '" + s + "' (0 to " + (Trackers.SLOTS - 1) + ")");
    }

    /** A value for {@code e}: 0 for a key that is not in the table, else what {@code r} reads. */
    private static Object value(Reader r, StickEntry e) {
        if (e == null) {
            return 0L;
        }
        return r.read(e);
    }

    private static Fetch reading(int slot, String tableName, Reader r) {
        StickTable other = tableName == null || tableName.isEmpty() ? null : StickTables.resolve(tableName);
        return t -> {
            Trackers tr = t.trackers();
            StickEntry e = tr == null ? null : tr.get(slot);
            if (e == null) {
                return null;
            }
            if (other != null && other != e.table()) {
                return value(r, other.lookup(e.key()));
            }
            return r.read(e);
        };
    }

    private static Fetch changing(int slot, String tableName, Change c) {
        StickTable other = tableName == null || tableName.isEmpty() ? null : StickTables.resolve(tableName);
        return t -> {
            Trackers tr = t.trackers();
            StickEntry e = tr == null ? null : tr.get(slot);
            if (e == null) {
                return null;
            }
            if (other != null && other != e.table()) {
                e = other.lookup(e.key());
                if (e == null) {
                    return 0L;
                }
            }
            return c.apply(e);
        };
    }

    private static Fetch bySource(String tableName, Reader r) {
        StickTable table = StickTables.resolve(tableName);
        return t -> {
            StickKey k = StickTables.keyOf(table, t.clientAddress().getAddress());
            return k == null ? null : value(r, table.lookup(k));
        };
    }

    /**
     * {@code src_inc_gpc*}, {@code src_clr_gpc*}: the source's entry, created when absent (a full table
     * creates nothing and gives 0), changed; a created entry that keeps nothing to change stays, untouched.
     */
    private static Fetch creatingBySource(String tableName, Change c) {
        StickTable table = StickTables.resolve(tableName);
        return t -> {
            StickKey k = StickTables.keyOf(table, t.clientAddress().getAddress());
            if (k == null) {
                return null;
            }
            StickEntry e = table.track(k);
            if (e == null) {
                return 0L;
            }
            try {
                return c.apply(e);
            } finally {
                table.untrack(e);
            }
        };
    }

    /** {@code src_updt_conn_cnt}: creates the source's entry, counts a connection on it, touches it; gives the new count. */
    private static Object updateConnCount(StickTable table, Txn t) {
        StickKey k = StickTables.keyOf(table, t.clientAddress().getAddress());
        if (k == null) {
            return null;
        }
        StickEntry e = table.track(k);
        if (e == null) {
            return null;
        }
        try {
            if (!table.layout().stores(DataType.CONN_CNT)) {
                return null;
            }
            long v = e.incConnCnt();
            table.touch(e);
            return v;
        } finally {
            table.untrack(e);
        }
    }

    private static Converter byKey(String tableName, Reader r) {
        StickTable table = StickTables.resolve(tableName);
        return (t, v) -> {
            StickKey k = StickTables.keyOf(table, v);
            return k == null ? null : value(r, table.lookup(k));
        };
    }

    /**
     * {@code table_expire(<table>[,<default>])}: the ms until the key's entry expires; {@code table_idle}: the
     * ms since it was last touched ({@code expire} minus that). A key not in the table gives the default, or
     * no sample without one.
     */
    private static Converter dated(List<String> a, String name, boolean idle) {
        StickTable table = StickTables.resolve(a.get(0));
        Long dflt = a.size() > 1 && !a.get(1).isEmpty() ? parseDefault(a.get(1), name) : null;
        return (t, v) -> {
            StickKey k = StickTables.keyOf(table, v);
            StickEntry e = k == null ? null : table.lookup(k);
            if (e == null) {
                return dflt;
            }
            long remaining = Math.max(0, e.expireAt() - table.now());
            return idle ? Math.max(0, table.expireMs() - remaining) : remaining;
        };
    }

    private static long parseDefault(String s, String name) {
        String v = s.strip();
        if (!v.matches("[-+]?\\d{1,18}")) {
            throw new IllegalArgumentException("invalid arg 2 in converter '" + name + "' : failed to parse '" + v
                    + "' as type 'integer' at position 2");
        }
        return Long.parseLong(v.startsWith("+") ? v.substring(1) : v);
    }
}
