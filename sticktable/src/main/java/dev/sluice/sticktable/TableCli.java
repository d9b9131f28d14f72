package dev.sluice.sticktable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The admin socket's {@code show table}, {@code clear table} and {@code set table} as functions from the
 * command's words to its answer, with HAProxy 2.6's output, error strings and levels (a regtest runs the
 * same inputs through HAProxy 2.6 and compares). The proxy registers them as admin commands at user
 * level and passes whether the session has operator level; HAProxy's finer rules follow:
 * <ul>
 * <li>{@code show table} lists every table's header line at any level, last declared first (HAProxy's
 * proxy list order);</li>
 * <li>{@code show table <t> [filters]} prints the header, then the entries in key order, or below operator
 * level {@code # contents not dumped due to insufficient privileges};</li>
 * <li>{@code clear table <t> [filters]} below operator level does nothing and says nothing;</li>
 * <li>a command on one entry ({@code key <k>}, {@code ptr <p>}) answers {@code Permission denied} below
 * operator level, once its key has been read.</li>
 * </ul>
 * Answers end with a newline per line and do not include the CLI's blank separator line. Stateless; runs
 * on the admin connection's thread and takes only the table's usual locks.
 */
public final class TableCli {
    static final String PERMISSION_DENIED = "Permission denied";
    static final String NOT_DUMPED = "# contents not dumped due to insufficient privileges";

    private TableCli() {
    }

    /**
     * {@code show table [<name> ...]}.
     *
     * @param tables every table, in declaration order
     * @param args the words after {@code show table}
     * @param operator whether the session has at least operator level
     */
    public static String show(Collection<StickTable> tables, List<String> args, boolean operator) {
        if (args.isEmpty() || args.getFirst().isEmpty()) {
            StringBuilder out = new StringBuilder();
            List<StickTable> reversed = new ArrayList<>(tables);
            for (StickTable t : reversed.reversed()) {
                out.append(TableDump.header(t)).append('\n');
            }
            return out.toString();
        }
        StickTable t = find(tables, args.getFirst());
        if (t == null) {
            return line(TableCommandArgs.NO_SUCH_TABLE);
        }
        TableCommand cmd;
        try {
            cmd = TableCommandArgs.parse(TableCommand.Action.SHOW, t, args.subList(1, args.size()));
        } catch (TableCommandException e) {
            return line(e.getMessage());
        }
        StringBuilder out = new StringBuilder();
        if (cmd.singleEntry()) {
            if (!operator) {
                return line(PERMISSION_DENIED);
            }
            StickEntry e = single(t, cmd.query());
            if (e != null) {
                out.append(TableDump.header(t)).append('\n').append(TableDump.entry(e)).append('\n');
            }
            return out.toString();
        }
        out.append(TableDump.header(t)).append('\n');
        if (!operator) {
            return out.append(NOT_DUMPED).append('\n').toString();
        }
        long now = t.now();
        for (StickEntry e : t.select(cmd.query())) {
            TableDump.appendEntry(out, e, now);
            out.append('\n');
        }
        return out.toString();
    }

    /** {@code clear table <name> [filters] | key <k>}: removes the addressed entries no tracker holds. */
    public static String clear(Collection<StickTable> tables, List<String> args, boolean operator) {
        if (args.isEmpty() || args.getFirst().isEmpty()) {
            return line("Required arguments: <table> \"data.<store_data_type>\" <operator> <value> or <table> key <key>");
        }
        StickTable t = find(tables, args.getFirst());
        if (t == null) {
            return line(TableCommandArgs.NO_SUCH_TABLE);
        }
        TableCommand cmd;
        try {
            cmd = TableCommandArgs.parse(TableCommand.Action.CLEAR, t, args.subList(1, args.size()));
        } catch (TableCommandException e) {
            return line(e.getMessage());
        }
        if (cmd.singleEntry()) {
            if (!operator) {
                return line(PERMISSION_DENIED);
            }
            return t.clear(cmd.query()).inUse() > 0 ? line(TableCommandArgs.ENTRY_IN_USE) : "";
        }
        if (operator) {
            t.clear(cmd.query());
        }
        return "";
    }

    /** {@code set table <name> key <k> [data.<type> <v>]*}: creates or updates the entry, then touches it. */
    public static String set(Collection<StickTable> tables, List<String> args, boolean operator) {
        if (args.isEmpty() || args.getFirst().isEmpty()) {
            return line("Required arguments: <table> key <key> [data.<store_data_type> <value>]*");
        }
        StickTable t = find(tables, args.getFirst());
        if (t == null) {
            return line(TableCommandArgs.NO_SUCH_TABLE);
        }
        TableCommand cmd;
        try {
            cmd = TableCommandArgs.parse(TableCommand.Action.SET, t, args.subList(1, args.size()));
        } catch (TableCommandException e) {
            return line(e.getMessage());
        }
        if (!operator) {
            return line(PERMISSION_DENIED);
        }
        if (t.set(cmd.query(), cmd.values()) == null) {
            return line(cmd.query() instanceof TableQuery.ByPtr ? "No entry can be found matching passed pointer."
                    : TableCommandArgs.CANNOT_ALLOCATE);
        }
        return cmd.error() == null ? "" : line(cmd.error());
    }

    private static StickEntry single(StickTable t, TableQuery q) {
        return switch (q) {
            case TableQuery.ByKey(StickKey key) -> t.lookup(key);
            case TableQuery.ByPtr(long ptr) -> t.findByPtr(ptr);
            default -> null;
        };
    }

    private static StickTable find(Collection<StickTable> tables, String name) {
        for (StickTable t : tables) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    private static String line(String s) {
        return s + "\n";
    }
}
