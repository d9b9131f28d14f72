package dev.sluice.sticktable;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the arguments of the admin socket's {@code show table}, {@code clear table} and
 * {@code set table} commands on a known table, with HAProxy's error texts. The admin layer looks the
 * table up by name (answering {@link #NO_SUCH_TABLE} when absent), passes the words after the name, and
 * prints a {@link TableCommandException}'s message as the answer. Stateless.
 *
 * <pre>
 * show table &lt;t&gt; [data.&lt;type&gt; &lt;op&gt; &lt;v&gt;]{0..4} | [key &lt;k&gt;] | [ptr &lt;0x..&gt;]
 * clear table &lt;t&gt; [data.&lt;type&gt; &lt;op&gt; &lt;v&gt;]{0..4} | [key &lt;k&gt;] | [ptr &lt;0x..&gt;]
 * set table &lt;t&gt; key &lt;k&gt;|ptr &lt;0x..&gt; [data.&lt;type&gt; &lt;v&gt;]*
 * </pre>
 *
 * Array elements are addressed as {@code data.gpc[1]} (an array type without index means element 0).
 */
public final class TableCommandArgs {
    public static final String NO_SUCH_TABLE = "No such table";
    public static final String ENTRY_IN_USE = "Entry currently in use, cannot remove";
    public static final String CANNOT_ALLOCATE = "Unable to allocate a new entry";
    public static final String UNKNOWN_DATA_TYPE = "Unknown data type";
    public static final String NOT_STORED = "Data type not stored in this table";
    public static final String INVALID_KEY = "Invalid key";

    /** Maximum number of {@code data.} filters (HAProxy's STKTABLE_FILTER_LEN). */
    public static final int MAX_FILTERS = 4;

    private TableCommandArgs() {
    }

    /**
     * Parses {@code args}, the words after the table name.
     *
     * @throws TableCommandException with HAProxy's message when the words are not a valid command
     */
    public static TableCommand parse(TableCommand.Action action, StickTable table, List<String> args) {
        if (args.isEmpty()) {
            if (action == TableCommand.Action.SET) {
                throw usage(action);
            }
            return new TableCommand(action, new TableQuery.All(), List.of());
        }
        String first = args.getFirst();
        if (first.equals("key")) {
            if (args.size() < 2 || args.get(1).isEmpty()) {
                throw new TableCommandException("Key value expected");
            }
            StickKey key = parseKey(table, args.get(1), action);
            return new TableCommand(action, new TableQuery.ByKey(key), values(action, table, args));
        }
        if (first.equals("ptr")) {
            long ptr = args.size() < 2 ? -1 : parsePtr(args.get(1));
            if (ptr < 0) {
                throw new TableCommandException("Pointer expected (0xffff notation)");
            }
            return new TableCommand(action, new TableQuery.ByPtr(ptr), values(action, table, args));
        }
        if (first.startsWith("data.")) {
            if (action == TableCommand.Action.SET) {
                throw new TableCommandException("content-based lookup is only supported with the \"show\" and \"clear\" actions");
            }
            return new TableCommand(action, new TableQuery.Filtered(filters(table, args)), List.of());
        }
        throw usage(action);
    }

    /**
     * A key typed on the CLI, checked against the table's type.
     *
     * @throws TableCommandException "Invalid key", or HAProxy's refusal for binary tables
     */
    public static StickKey parseKey(StickTable table, String text, TableCommand.Action action) {
        if (table.keyType() == KeyType.BINARY) {
            throw new TableCommandException(switch (action) {
                case SHOW -> "Showing keys from tables of type other than ip, ipv6, string and integer is not supported";
                case CLEAR -> "Removing keys from tables of type other than ip, ipv6, string and integer is not supported";
                case SET -> "Inserting keys into tables of type other than ip, ipv6, string and integer is not supported";
            });
        }
        StickKey k = table.parseKey(text);
        if (k == null) {
            throw new TableCommandException(INVALID_KEY);
        }
        return k;
    }

    /** A pointer in {@code 0x<hex>} (or bare hex) notation, or -1. */
    public static long parsePtr(String s) {
        String h = s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s;
        if (h.isEmpty() || h.length() > 16) {
            return -1;
        }
        try {
            long v = Long.parseUnsignedLong(h, 16);
            return v < 0 ? -1 : v;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The filters of a {@code show/clear table <t> data.<type> <op> <v> ...}. */
    static List<EntryFilter> filters(StickTable table, List<String> args) {
        List<EntryFilter> out = new ArrayList<>();
        int i = 0;
        for (; i < MAX_FILTERS; i++) {
            int base = 3 * i;
            if (i > 0 && base >= args.size()) {
                break;
            }
            String prefix = "Filter entry #" + (i + 1) + ": ";
            String word = args.get(base);
            DataRef ref = word.startsWith("data.") ? dataRef(word.substring(5)) : null;
            if (ref == null) {
                throw new TableCommandException(prefix + UNKNOWN_DATA_TYPE);
            }
            if (!stored(table, ref)) {
                throw new TableCommandException(prefix + NOT_STORED);
            }
            if (ref.type == DataType.SERVER_KEY) {
                throw new TableCommandException(prefix + "Data type server_key cannot be compared to a number");
            }
            EntryFilter.Op op = base + 1 < args.size() ? EntryFilter.Op.of(args.get(base + 1)) : null;
            if (op == null) {
                throw new TableCommandException(prefix + "Require and operator among \"eq\", \"ne\", \"le\", \"ge\", \"lt\", \"gt\"");
            }
            Long v = base + 2 < args.size() ? parseLong(args.get(base + 2)) : null;
            if (v == null) {
                throw new TableCommandException(prefix + "Require a valid integer value to compare against");
            }
            out.add(new EntryFilter(ref.type, ref.index, op, v));
        }
        if (3 * i < args.size()) {
            // HAProxy counts words from the command's start: "show table <t>" are words 1 to 3.
            throw new TableCommandException("Detected extra data in filter, " + (3 * i + 4) + "th word of input, after '"
                    + args.get(3 * i - 1) + "'");
        }
        return out;
    }

    private static List<DataAssignment> values(TableCommand.Action action, StickTable table, List<String> args) {
        if (action != TableCommand.Action.SET) {
            return List.of();
        }
        List<DataAssignment> out = new ArrayList<>();
        for (int j = 2; j < args.size(); j += 2) {
            String w = args.get(j);
            if (!w.startsWith("data.")) {
                throw new TableCommandException("\"data.<type>\" followed by a value expected");
            }
            DataRef ref = dataRef(w.substring(5));
            if (ref == null) {
                throw new TableCommandException(UNKNOWN_DATA_TYPE);
            }
            if (!stored(table, ref)) {
                throw new TableCommandException(NOT_STORED);
            }
            String text = j + 1 < args.size() ? args.get(j + 1) : "";
            if (ref.type == DataType.SERVER_KEY) {
                if (text.isEmpty()) {
                    throw new TableCommandException("Require a server key to store");
                }
                out.add(new DataAssignment(ref.type, 0, 0, text));
                continue;
            }
            Long v = parseLong(text);
            if (v == null) {
                throw new TableCommandException("Require a valid integer value to store");
            }
            out.add(new DataAssignment(ref.type, ref.index, v, null));
        }
        return out;
    }

    private record DataRef(DataType type, int index) {
    }

    /** {@code gpc0}, {@code http_req_rate}, {@code gpc[2]}; null when unknown or malformed. */
    private static DataRef dataRef(String s) {
        int open = s.indexOf('[');
        int idx = 0;
        String name = s;
        if (open >= 0) {
            if (!s.endsWith("]")) {
                return null;
            }
            name = s.substring(0, open);
            try {
                idx = Integer.parseInt(s.substring(open + 1, s.length() - 1));
            } catch (NumberFormatException e) {
                return null;
            }
        }
        DataType t = DataType.byName(name);
        if (t == null || (open >= 0 && !t.isArray()) || idx < 0) {
            return null;
        }
        return new DataRef(t, idx);
    }

    private static boolean stored(StickTable table, DataRef ref) {
        return table.layout().stores(ref.type) && ref.index < Math.max(1, table.layout().count(ref.type));
    }

    private static Long parseLong(String s) {
        if (s.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static TableCommandException usage(TableCommand.Action action) {
        return new TableCommandException(switch (action) {
            case SHOW -> "Optional argument only supports \"data.<store_data_type>\" <operator> <value> or key <key> or ptr <ptr>";
            case CLEAR -> "Required arguments: <table> \"data.<store_data_type>\" <operator> <value> or <table> key <key> or <table> ptr <ptr>";
            case SET -> "Required arguments: <table> key <key> [data.<store_data_type> <value>]* or <table> ptr <ptr> [data.<store_data_type> <value>]*";
        });
    }
}
