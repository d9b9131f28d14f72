package dev.sluice.config;

import dev.sluice.config.model.ServerStateFiles;
import java.util.EnumSet;
import java.util.Set;

/**
 * Server state files, as HAProxy 2.6: the global {@code server-state-base} and {@code server-state-file}, a
 * backend's {@code load-server-state-from-file} and {@code server-state-file-name}. The daemon reads the files at
 * start-up (a reload is a start with {@code -sf}) and gives each server the state the previous process had.
 */
final class ServerStateKeywords {
    private ServerStateKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);

    static void register(KeywordRegistry r) {
        r.register(new Keyword("server-state-base", GLOBAL, "server-state-base <directory>",
                "The directory that relative server state file names ('server-state-file', 'server-state-file-name') are read"
                        + " from. The first one given stays.",
                c -> {
                    if (c.global().serverStateBase != null) {
                        c.lineWarning("'server-state-base' already specified. Continuing.");
                        return;
                    }
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'server-state-base' expects one argument: a directory path.");
                        return;
                    }
                    c.global().serverStateBase = c.args().get(0);
                }));
        r.register(new Keyword("server-state-file", GLOBAL, "server-state-file <file>",
                "The global server state file (what 'show servers state' printed before a reload), read at start-up for the"
                        + " backends with 'load-server-state-from-file global': each server named in it gets back its"
                        + " maintenance or drain, operational state, weight, port (and its address when it was declared with a"
                        + " name and init-addr has 'last'). The first one given stays.",
                c -> {
                    if (c.global().serverStateFile != null) {
                        c.lineWarning("'server-state-file' already specified. Continuing.");
                        return;
                    }
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'server-state-file' expect one argument: a file path.");
                        return;
                    }
                    c.global().serverStateFile = c.args().get(0);
                    c.global().serverStateFileAt = c.at();
                }));
        r.register(new Keyword("load-server-state-from-file", Section.PROXIES, "load-server-state-from-file global|local|none",
                "Where this backend's servers take their state from at start-up: the global 'server-state-file' (lines"
                        + " matched by backend and server names), its own file ('server-state-file-name'; lines matched by backend"
                        + " id or name), or none (the default).",
                c -> {
                    notBackend(c);
                    String v = c.args().isEmpty() ? "" : c.args().get(0);
                    ServerStateFiles.From from = switch (v) {
                        case "global" -> ServerStateFiles.From.GLOBAL;
                        case "local" -> ServerStateFiles.From.LOCAL;
                        case "none" -> ServerStateFiles.From.NONE;
                        default -> null;
                    };
                    if (from == null) {
                        c.lineError("'load-server-state-from-file' expects 'global', 'local' or 'none'. Got '" + v + "'");
                        return;
                    }
                    c.proxy().serverStateFrom = from;
                }));
        r.register(new Keyword("server-state-file-name", Section.PROXIES, "server-state-file-name [<file>|use-backend-name]",
                "The file of 'load-server-state-from-file local' (under 'server-state-base' when relative); without a name or"
                        + " with use-backend-name, the backend's name. Not inherited from defaults, as in HAProxy.",
                c -> {
                    notBackend(c);
                    if (!c.atMost(1)) {
                        return;
                    }
                    String v = c.args().isEmpty() ? "" : c.args().get(0);
                    c.proxy().serverStateFileName = v.isEmpty() || v.equals("use-backend-name") ? c.proxy().name : v;
                }));
    }

    /** HAProxy's warnifnotcap: the line counts (the frontend has no server to load anyway). */
    private static void notBackend(KeywordContext c) {
        if (c.section() == Section.FRONTEND) {
            c.lineWarning("'" + c.keyword() + "' ignored because frontend '" + c.proxy().name + "' has no backend capability.");
        }
    }
}
