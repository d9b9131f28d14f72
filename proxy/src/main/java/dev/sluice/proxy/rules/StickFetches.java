package dev.sluice.proxy.rules;

import dev.sluice.sticktable.DataType;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The stick-counter samples: {@code sc_<metric>(<sc>[,<table>])}, {@code sc0_..sc2_<metric>([<table>])},
 * {@code src_<metric>([<table>])} and the converters {@code table_<metric>(<table>)} and
 * {@code in_table(<table>)}. Tables are resolved when the rules are compiled. Lookups never create or
 * refresh entries (except {@code inc_gpc*} and {@code clr_gpc*} on tracked entries, which change them).
 */
final class StickFetches {
    private StickFetches() {
    }

    /** A metric: the data type it needs (null: none) and how to read it from an entry that stores it. */
    private record Metric(DataType needs, ToLongFunction<StickEntry> read) {
    }

    private static Metric plain(DataType t) {
        return new Metric(t, e -> e.get(t));
    }

    private static final Map<String, Metric> METRICS = Map.ofEntries(
            Map.entry("conn_cnt", plain(DataType.CONN_CNT)), Map.entry("conn_cur", plain(DataType.CONN_CUR)),
            Map.entry("conn_rate", plain(DataType.CONN_RATE)), Map.entry("sess_cnt", plain(DataType.SESS_CNT)),
            Map.entry("sess_rate", plain(DataType.SESS_RATE)), Map.entry("http_req_cnt", plain(DataType.HTTP_REQ_CNT)),
            Map.entry("http_req_rate", plain(DataType.HTTP_REQ_RATE)), Map.entry("http_err_cnt", plain(DataType.HTTP_ERR_CNT)),
            Map.entry("http_err_rate", plain(DataType.HTTP_ERR_RATE)), Map.entry("http_fail_cnt", plain(DataType.HTTP_FAIL_CNT)),
            Map.entry("http_fail_rate", plain(DataType.HTTP_FAIL_RATE)), Map.entry("bytes_in_rate", plain(DataType.BYTES_IN_RATE)),
            Map.entry("bytes_out_rate", plain(DataType.BYTES_OUT_RATE)), Map.entry("glitch_cnt", plain(DataType.GLITCH_CNT)),
            Map.entry("glitch_rate", plain(DataType.GLITCH_RATE)), Map.entry("gpc0_rate", plain(DataType.GPC0_RATE)),
            Map.entry("gpc1_rate", plain(DataType.GPC1_RATE)),
            Map.entry("kbytes_in", new Metric(DataType.BYTES_IN_CNT, e -> e.get(DataType.BYTES_IN_CNT) >> 10)),
            Map.entry("kbytes_out", new Metric(DataType.BYTES_OUT_CNT, e -> e.get(DataType.BYTES_OUT_CNT) >> 10)),
            Map.entry("get_gpc0", plain(DataType.GPC0)), Map.entry("get_gpc1", plain(DataType.GPC1)),
            Map.entry("get_gpt0", plain(DataType.GPT0)),
            Map.entry("inc_gpc0", changing(DataType.GPC0, StickEntry::incGpc0)),
            Map.entry("inc_gpc1", changing(DataType.GPC1, StickEntry::incGpc1)),
            Map.entry("clr_gpc0", changing(DataType.GPC0, StickEntry::clearGpc0)),
            Map.entry("clr_gpc1", changing(DataType.GPC1, StickEntry::clearGpc1)),
            Map.entry("trackers", new Metric(null, StickEntry::trackers)));

    /** A metric that changes the entry: applies {@code change}, then touches the entry (expiry, update log). */
    private static Metric changing(DataType needs, ToLongFunction<StickEntry> change) {
        return new Metric(needs, e -> {
            long v = change.applyAsLong(e);
            e.table().touch(e);
            return v;
        });
    }

    /** Reads {@code m} from {@code e} in {@code t}; null when the table does not store what it needs. */
    private static Object read(Metric m, StickTable t, StickEntry e) {
        if (m.needs() != null && !t.layout().stores(m.needs())) {
            return null;
        }
        return e == null ? 0L : m.read().applyAsLong(e);
    }

    /** Whether a fetch name is one of the stick-counter samples (readable in every phase). */
    static boolean isStickSample(String name) {
        return name.startsWith("sc_") || name.startsWith("sc0_") || name.startsWith("sc1_") || name.startsWith("sc2_")
                || name.startsWith("src_");
    }

    static void register() {
        for (Map.Entry<String, Metric> m : METRICS.entrySet()) {
            String metric = m.getKey();
            Metric how = m.getValue();
            Fetches.def("sc_" + metric, 1, 2, Match.INT, false, a -> tracked(slot(a.get(0)), a.size() > 1 ? a.get(1) : null, how));
            for (int slot = 0; slot < Trackers.SLOTS; slot++) {
                int s = slot;
                Fetches.def("sc" + slot + "_" + metric, 0, 1, Match.INT, false, a -> tracked(s, a.isEmpty() ? null : a.get(0), how));
            }
            if (!metric.startsWith("inc_") && !metric.startsWith("clr_")) {
                Fetches.def("src_" + metric, 0, 1, Match.INT, false, a -> bySource(a.isEmpty() ? null : a.get(0), how));
                Converters.def("table_" + metric, 1, 1, a -> byKey(a.get(0), how));
            }
        }
        Fetches.def("sc_tracked", 1, 2, Match.BOOL, false, a -> {
            int s = slot(a.get(0));
            return t -> t.trackers() != null && t.trackers().get(s) != null;
        });
        for (int slot = 0; slot < Trackers.SLOTS; slot++) {
            int s = slot;
            Fetches.def("sc" + slot + "_tracked", 0, 1, Match.BOOL, false, a -> t -> t.trackers() != null && t.trackers().get(s) != null);
        }
        Converters.def("in_table", 1, 1, a -> {
            StickTable table = StickTables.resolve(a.get(0));
            return (t, v) -> {
                StickKey k = StickTables.keyOf(table, v);
                return k != null && table.lookup(k) != null;
            };
        });
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

    /** A tracked entry's metric; with a table argument, the same key looked up in that table. */
    private static Fetch tracked(int slot, String tableName, Metric m) {
        StickTable other = tableName == null ? null : StickTables.resolve(tableName);
        return t -> {
            Trackers tr = t.trackers();
            StickEntry e = tr == null ? null : tr.get(slot);
            if (e == null) {
                return null;
            }
            if (other != null && other != e.table()) {
                StickTable table = other;
                return read(m, table, table.lookup(e.key()));
            }
            return read(m, e.table(), e);
        };
    }

    private static Fetch bySource(String tableName, Metric m) {
        StickTable table = StickTables.resolve(tableName);
        return t -> {
            StickKey k = StickTables.keyOf(table, t.clientAddress().getAddress());
            return k == null ? null : read(m, table, table.lookup(k));
        };
    }

    private static Converter byKey(String tableName, Metric m) {
        StickTable table = StickTables.resolve(tableName);
        return (t, v) -> {
            StickKey k = StickTables.keyOf(table, v);
            return k == null ? null : read(m, table, table.lookup(k));
        };
    }
}
