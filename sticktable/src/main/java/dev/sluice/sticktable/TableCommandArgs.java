package dev.sluice.sticktable;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the arguments of the admin socket's {@code show table}, {@code clear table} and
 * {@code set table} commands on a known table, with HAProxy 2.6's rules and error texts (checked against
 * it by a regtest). {@link TableCli} looks the table up by name and prints a
 * {@link TableCommandException}'s message as the answer. Stateless.
 *
 * <pre>
 * show table &lt;t&gt; [data.&lt;type&gt; &lt;op&gt; &lt;v&gt;]{0..4} | [key &lt;k&gt;]
 * clear table &lt;t&gt; [data.&lt;type&gt; &lt;op&gt; &lt;v&gt;]{0..4} | [key &lt;k&gt;]
 * set table &lt;t&gt; key &lt;k&gt; [data.&lt;type&gt; &lt;v&gt;]*
 * </pre>
 *
 * Two additions from HAProxy 3.x, which 2.6 answers with an error: {@code ptr 0x<hex>} in place of
 * {@code key <k>} (the only way to address an entry of a binary table), and {@code data.gpc[1]} for
 * element 1 of an array type (2.6 reaches element 0 only, as {@code data.gpc}). One departure: 2.6 takes
 * {@code set table <t>} with nothing after the name as a clear of the whole table (its dump loop runs
 * with the clear branch); Sluice answers the usage message instead.
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
        String first = args.isEmpty() ? "" : args.getFirst();
        if (first.isEmpty()) {
            if (action == TableCommand.Action.SET) {
                throw usage(action);
            }
            return new TableCommand(action, new TableQuery.All(), List.of());
        }
        if (first.equals("key")) {
            if (args.size() < 2 || args.get(1).isEmpty()) {
                throw new TableCommandException("Key value expected");
            }
            StickKey key = parseKey(table, args.get(1), action);
            return withValues(action, new TableQuery.ByKey(key), table, args);
        }
        if (first.equals("ptr")) {
            long ptr = args.size() < 2 ? -1 : parsePtr(args.get(1));
            if (ptr < 0) {
                throw new TableCommandException("Pointer expected (0xffff notation)");
            }
            return withValues(action, new TableQuery.ByPtr(ptr), table, args);
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
     * A key typed on the CLI, read as HAProxy 2.6 reads it for the table's type.
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
        StickKey k = table.parseCliKey(text);
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
            if (i > 0 && (base >= args.size() || args.get(base).isEmpty())) {
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
            EntryFilter.Op op = base + 1 < args.size() ? EntryFilter.Op.of(args.get(base + 1)) : null;
            if (op == null) {
                throw new TableCommandException(prefix + "Require and operator among \"eq\", \"ne\", \"le\", \"ge\", \"lt\", \"gt\"");
            }
            Long v = base + 2 < args.size() ? strl2llrc(args.get(base + 2)) : null;
            if (v == null) {
                throw new TableCommandException(prefix + "Require a valid integer value to compare against");
            }
            out.add(new EntryFilter(ref.type, ref.index, op, v));
        }
        if (3 * i < args.size() && !args.get(3 * i).isEmpty()) {
            // HAProxy counts words from the command's start: "show table <t>" are words 1 to 3.
            throw new TableCommandException("Detected extra data in filter, " + (3 * i + 4) + "th word of input, after '"
                    + args.get(3 * i - 1) + "'");
        }
        return out;
    }

    /**
     * The {@code data.<type> <value>} pairs of a {@code set}, up to the first that does not parse, whose
     * message becomes the command's {@link TableCommand#error}. {@code show} and {@code clear} ignore what
     * follows the key, as HAProxy does.
     */
    private static TableCommand withValues(TableCommand.Action action, TableQuery query, StickTable table, List<String> args) {
        if (action != TableCommand.Action.SET) {
            return new TableCommand(action, query, List.of());
        }
        List<DataAssignment> out = new ArrayList<>();
        for (int j = 2; j < args.size() && !args.get(j).isEmpty(); j += 2) {
            String w = args.get(j);
            String error = null;
            DataRef ref = null;
            Long v = null;
            if (!w.startsWith("data.")) {
                error = "\"data.<type>\" followed by a value expected";
            } else if ((ref = dataRef(w.substring(5))) == null) {
                error = UNKNOWN_DATA_TYPE;
            } else if (!stored(table, ref)) {
                error = NOT_STORED;
            } else if ((v = j + 1 < args.size() ? strl2llrc(args.get(j + 1)) : null) == null) {
                error = "Require a valid integer value to store";
            }
            if (error != null) {
                return new TableCommand(action, query, out, error);
            }
            // HAProxy 2.6 parses a number for server_key too, then has nothing to store it with.
            if (ref.type != DataType.SERVER_KEY) {
                out.add(new DataAssignment(ref.type, ref.index, v, null));
            }
        }
        return new TableCommand(action, query, out, null);
    }

    private record DataRef(DataType type, int index) {
    }

    /** {@code gpc0}, {@code http_req_rate}, {@code gpc} (element 0), {@code gpc[2]}; null when unknown or malformed. */
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

    /**
     * HAProxy's {@code strl2llrc}: an optional minus sign then decimal digits only (no plus sign, no
     * blank), within the signed 64-bit range; a lone {@code -} is 0. Null otherwise, and for "".
     */
    static Long strl2llrc(String s) {
        if (s.isEmpty()) {
            return null;
        }
        boolean neg = s.charAt(0) == '-';
        long v = 0;
        for (int i = neg ? 1 : 0; i < s.length(); i++) {
            int d = s.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return null;
            }
            if (neg) {
                if (v < Long.MIN_VALUE / 10 || v * 10 < Long.MIN_VALUE + d) {
                    return null;
                }
                v = v * 10 - d;
            } else {
                if (v > Long.MAX_VALUE / 10 || v * 10 > Long.MAX_VALUE - d) {
                    return null;
                }
                v = v * 10 + d;
            }
        }
        return v;
    }

    private static TableCommandException usage(TableCommand.Action action) {
        return new TableCommandException(switch (action) {
            case SHOW -> "Optional argument only supports \"data.<store_data_type>\" <operator> <value> and key <key>";
            case CLEAR -> "Required arguments: <table> \"data.<store_data_type>\" <operator> <value> or <table> key <key>";
            case SET -> "Required arguments: <table> key <key> [data.<store_data_type> <value>]*";
        });
    }
}
