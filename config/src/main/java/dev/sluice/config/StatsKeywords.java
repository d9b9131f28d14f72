package dev.sluice.config;

import dev.sluice.config.model.Condition;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.StatsPage;
import dev.sluice.config.model.StatsSocket;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The admin socket keywords of the global section ({@code stats socket}, several may be declared, and
 * {@code stats timeout}) and the {@code stats} keywords of proxies that set up the HTML stats page, as
 * HAProxy has them (any of them enables the page).
 */
final class StatsKeywords {
    private StatsKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);
    private static final Set<Section> PROXIES = EnumSet.of(Section.DEFAULTS, Section.FRONTEND, Section.BACKEND, Section.LISTEN);

    /**
     * Room kept in a UNIX socket path for the temporary name the socket is bound to before it replaces the
     * old one (".<pid>.tmp"): sun_path holds 107 bytes.
     */
    static final int MAX_UNIX_PATH = 107 - 12;

    static final String SOCKET_SYNTAX = "stats socket <path> | [ipv4@|ipv6@]<ip>:<port> | fd@<n> [mode <octal>] [level user|operator|admin]"
            + " [user <name>] [group <name>] [uid <n>] [gid <n>] [expose-fd listeners]";

    private static final List<String> OPTIONS = List.of("mode", "level", "user", "group", "uid", "gid", "expose-fd");

    static void register(KeywordRegistry r) {
        r.family("stats", "stats keyword");
        r.register(new Keyword("stats socket", GLOBAL, SOCKET_SYNTAX,
                "Accept HAProxy's admin commands (show stat, set server, ...) on a UNIX stream socket, a TCP address or an inherited"
                        + " listening socket; sessions start at the given level (default: operator). With 'expose-fd listeners' the"
                        + " socket hands the TCP listening sockets to a new process started with '-x <socket>' ('_getsocks'), which"
                        + " then accepts from them: a reload drops no connection. May be repeated.",
                StatsKeywords::socket));
        r.register(new Keyword("stats timeout", GLOBAL, "stats timeout <time>",
                "Close an admin socket session that sent nothing for that long (default 10s).", c -> {
                    if (!c.expectArgs(1, 1, "stats timeout <time>")) {
                        return;
                    }
                    long v = c.timeArg(c.args().get(0));
                    if (v == 0) {
                        c.error("expects a positive value");
                    } else if (v > 0) {
                        c.global().statsTimeout = v;
                    }
                }));
        page(r, "stats enable", "stats enable", "Enable the HTML stats page (at /haproxy?stats unless 'stats uri' says otherwise).", 0, 0,
                (c, p) -> {
                });
        page(r, "stats uri", "stats uri <prefix>", "Serve the stats page for request paths starting with <prefix> (CSV at <prefix>;csv).", 1, 1,
                (c, p) -> p.uri = c.args().get(0));
        page(r, "stats refresh", "stats refresh <delay>", "Make the page reload itself every <delay>.", 1, 1, (c, p) -> {
            long v = c.timeArg(c.args().get(0));
            if (v >= 0) {
                p.refreshMs = v;
            }
        });
        page(r, "stats auth", "stats auth <user>:<password>", "Require HTTP basic authentication with these credentials (may be repeated).",
                1, 1, (c, p) -> {
                    if (c.args().get(0).indexOf(':') <= 0) {
                        c.error("expects <user>:<passwd> as argument.");
                        return;
                    }
                    p.auth.add(c.args().get(0));
                });
        page(r, "stats realm", "stats realm <realm>", "The realm of the basic authentication (default 'HAProxy Statistics').", 1, 1,
                (c, p) -> p.realm = c.args().get(0));
        page(r, "stats admin", "stats admin { if | unless } <cond>", "Offer HAProxy's actions on the checked servers (ready, drain, maint,"
                + " enable/disable health checks, force health UP/NOLB/DOWN, kill sessions) from the page when the condition holds.", 2, -1, (c, p) -> {
                    Condition cond = c.conditionFrom(0);
                    if (cond != null) {
                        p.admin.add(cond);
                    }
                });
        page(r, "stats http-request", "stats http-request allow|deny|auth [realm <realm>] [if|unless <cond>]",
                "Access rules of the page, the first whose condition holds decides: allow shows it, deny answers 403, auth asks for"
                        + " credentials (401, in <realm>, else the page's); none holding shows the page. Not with 'stats auth' or"
                        + " 'stats realm' (as in HAProxy).", 1, -1,
                (c, p) -> {
                    List<String> a = c.args();
                    String action = a.get(0);
                    if (!action.equals("allow") && !action.equals("deny") && !action.equals("auth")) {
                        c.error("'" + action + "' is not a stats http-request action (expected allow, deny or auth).");
                        return;
                    }
                    int i = 1;
                    String realm = null;
                    if (action.equals("auth") && i < a.size() && a.get(i).equals("realm")) {
                        if (i + 1 >= a.size()) {
                            c.error("'realm' expects a name.");
                            return;
                        }
                        realm = a.get(i + 1);
                        i += 2;
                    }
                    Condition cond = null;
                    if (i < a.size()) {
                        if (!a.get(i).equals("if") && !a.get(i).equals("unless")) {
                            c.error("unexpected '" + a.get(i) + "' (expected if or unless).");
                            return;
                        }
                        cond = c.conditionFrom(i);
                        if (cond == null) {
                            return;
                        }
                    }
                    p.rules.add(new StatsPage.Rule(action, realm, cond));
                });
        page(r, "stats hide-version", "stats hide-version", "Do not show the version on the page.", 0, 0, (c, p) -> p.hideVersion = true);
        page(r, "stats show-legends", "stats show-legends", "Show the legend and server addresses and algorithms on the page.", 0, 0,
                (c, p) -> p.showLegends = true);
        page(r, "stats show-modules", "stats show-modules", "Add the statistics modules' columns (ssl, h2, h1) to each proxy's table on the"
                + " page, as HAProxy's 'Extra modules': each cell lists a module's counters for that row.", 0, 0, (c, p) -> p.showModules = true);
        page(r, "stats show-node", "stats show-node [<name>]", "Show the node name (default: the host name) on the page.", 0, 1,
                (c, p) -> p.node = c.args().isEmpty() ? "" : c.args().get(0));
        page(r, "stats show-desc", "stats show-desc [<description>]", "Show a description on the page (its words joined by spaces, as"
                + " HAProxy does).", 0, -1, (c, p) -> p.desc = String.join(" ", c.args()));
        page(r, "stats scope", "stats scope { <name> | \".\" }", "Show only these proxies on the page ('.' is the proxy itself; may be"
                + " repeated).", 1, 1, (c, p) -> p.scope.add(c.args().get(0)));
        r.register(new Keyword("tune.prometheus.max-series", GLOBAL, "tune.prometheus.max-series <number>",
                "Sluice's bound on label cardinality: the most series (label sets) one metric family of the Prometheus exporter"
                        + " writes per scrape (default 10000, 1 to 10000000), by whole objects (all the series of a server or proxy in"
                        + " the family, its states or response classes, or none); from the first object that does not fit, the"
                        + " family's objects are left out and their series counted in sluice_prometheus_omitted_series.", c -> {
                    if (c.expectArgs(1, 1, "tune.prometheus.max-series <number>")) {
                        c.global().prometheusMaxSeries = c.intArg(c.args().get(0), "tune.prometheus.max-series", 1, 10_000_000,
                                c.global().prometheusMaxSeries);
                    }
                }));
    }

    /** Registers a keyword of the stats page: checks its argument count, enables the page, then applies it. */
    private static void page(KeywordRegistry r, String name, String syntax, String description, int min, int max,
            BiConsumer<KeywordContext, StatsPageBuilder> apply) {
        r.register(new Keyword(name, PROXIES, syntax, description, c -> {
            int n = c.args().size();
            if (n < min || max >= 0 && n > max) {
                c.error("expects " + (min == max ? min + "" : max < 0 ? "at least " + min : min + " to " + max) + " argument(s); syntax: " + syntax
                        + ".");
                return;
            }
            StatsPageBuilder p = c.proxy().stats;
            p.enabled = true;
            if (p.where == null) {
                p.where = c.at();
            }
            apply.accept(c, p);
        }));
    }

    private static void socket(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("expects an address or a path to a UNIX socket; expected: " + SOCKET_SYNTAX);
            return;
        }
        ListenAddress address = address(c, a.get(0));
        if (address == null) {
            return;
        }
        int mode = -1;
        StatsSocket.Level level = StatsSocket.Level.OPERATOR;
        String owner = null;
        String group = null;
        boolean exposeFd = false;
        for (int i = 1; i < a.size(); i += 2) {
            String opt = a.get(i);
            if (!OPTIONS.contains(opt)) {
                String feature = switch (opt) {
                    case "severity-output" -> "severity prefixes on admin socket answers";
                    case "ssl", "crt", "alpn", "accept-proxy", "process", "thread", "maxconn", "name", "id", "backlog", "interface",
                            "namespace", "transparent", "defer-accept", "tfo", "v4v6", "v6only", "nice" -> "this option on stats sockets";
                    default -> null;
                };
                if (feature != null) {
                    c.error("'" + opt + "' is not supported by Sluice yet: " + feature + ".");
                } else {
                    c.error("unknown keyword '" + opt + "'" + Suggestions.didYouMean(Suggestions.closest(opt, OPTIONS)) + ".");
                }
                return;
            }
            if (i + 1 >= a.size()) {
                c.error("'" + opt + "' expects an argument.");
                return;
            }
            String v = a.get(i + 1);
            switch (opt) {
                case "mode" -> {
                    try {
                        mode = Integer.parseInt(v, 8);
                    } catch (NumberFormatException e) {
                        mode = -2;
                    }
                    if (mode < 0 || mode > 07777) {
                        c.error("'mode' expects an octal permission mask such as 600 (got '" + v + "').");
                        return;
                    }
                }
                case "level" -> {
                    switch (v) {
                        case "user" -> level = StatsSocket.Level.USER;
                        case "operator" -> level = StatsSocket.Level.OPERATOR;
                        case "admin" -> level = StatsSocket.Level.ADMIN;
                        default -> {
                            c.error("'level' only supports 'user', 'operator', and 'admin' (got '" + v + "').");
                            return;
                        }
                    }
                }
                case "user" -> owner = v;
                case "group" -> group = v;
                case "uid", "gid" -> {
                    if (!v.chars().allMatch(Character::isDigit) || v.isEmpty() || v.length() > 9) {
                        c.error("'" + opt + "' expects a numeric id (got '" + v + "').");
                        return;
                    }
                    if (opt.equals("uid")) {
                        owner = v;
                    } else {
                        group = v;
                    }
                }
                case "expose-fd" -> {
                    if (!v.equals("listeners")) {
                        c.error("'expose-fd' only supports 'listeners' (got '" + v + "').");
                        return;
                    }
                    exposeFd = true;
                }
                default -> throw new IllegalStateException(opt);
            }
        }
        if (mode >= 0 && !(address instanceof ListenAddress.Unix)) {
            c.warning("'mode' only applies to UNIX sockets; ignored for " + address + ".");
            mode = -1;
        }
        if (exposeFd && address instanceof ListenAddress.Inet) {
            // HAProxy says nothing, and its sendmsg fails at the first '_getsocks': file descriptors only travel over UNIX sockets
            c.notice("'expose-fd listeners' passes nothing on " + address + ": file descriptors only travel over UNIX sockets.");
        }
        c.global().statsSockets.add(new StatsSocket(c.at(), address, mode, level, owner, group, exposeFd));
    }

    /** The listening address of a stats socket, or null after reporting why it is not one. */
    private static ListenAddress address(KeywordContext c, String s) {
        String path = s.startsWith("unix@") ? s.substring(5) : s.startsWith("/") ? s : null;
        if (path != null) {
            if (path.isEmpty()) {
                c.error("missing path after 'unix@'.");
                return null;
            }
            if (path.getBytes(StandardCharsets.UTF_8).length > MAX_UNIX_PATH) {
                c.error("socket path '" + path + "' is too long (at most " + MAX_UNIX_PATH
                        + " bytes: the socket is first bound to a temporary name next to it).");
                return null;
            }
            return new ListenAddress.Unix(path);
        }
        try {
            ListenAddress a = Addresses.networkListen(s);
            if (a instanceof ListenAddress.Quic) {
                c.error("a stats socket cannot listen on QUIC ('" + s + "'): use a UNIX socket or a TCP address.");
                return null;
            }
            return a;
        } catch (IllegalArgumentException e) {
            c.error(e.getMessage() + (s.indexOf(':') < 0 && s.indexOf('@') < 0
                    ? " (a UNIX socket path must be absolute or start with 'unix@')" : "") + ".");
            return null;
        }
    }
}
