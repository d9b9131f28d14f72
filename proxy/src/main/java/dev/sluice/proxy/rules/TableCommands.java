package dev.sluice.proxy.rules;

import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import dev.sluice.sticktable.TableCli;
import java.util.ArrayList;
import java.util.List;

/**
 * The stick tables' admin commands, registered by the runtime that owns the tables: {@code show table},
 * {@code clear table} and {@code set table}, with HAProxy 2.6's help lines. The commands are open at user
 * level, as in HAProxy; {@link TableCli} applies its finer rules (contents and single entries need
 * operator level).
 */
public final class TableCommands {
    private TableCommands() {
    }

    public static void register(CliRegistry r, StickTables tables) {
        List<dev.sluice.sticktable.StickTable> all = new ArrayList<>();
        tables.all().forEach(all::add);
        r.register(new CliCommand(List.of("clear", "table"), Level.USER, "clear table <table> [<filter>]*",
                "remove an entry from a table (filter: data/key)", req -> TableCli.clear(all, rest(req), operator(req))));
        r.register(new CliCommand(List.of("set", "table"), Level.USER, "set table <table> key <k> [data.* <v>]*",
                "update or create a table entry's data", req -> TableCli.set(all, rest(req), operator(req))));
        r.register(new CliCommand(List.of("show", "table"), Level.USER, "show table <table> [<filter>]*",
                "report table usage stats or dump this table's contents (filter: data/key)",
                req -> TableCli.show(all, rest(req), operator(req))));
    }

    private static List<String> rest(CliRequest req) {
        return req.args().subList(Math.min(2, req.args().size()), req.args().size());
    }

    private static boolean operator(CliRequest req) {
        return req.allowed(Level.OPERATOR);
    }
}
