package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.stats.InfoFields;
import dev.sluice.proxy.stats.StatRow;
import dev.sluice.proxy.stats.StatTyped;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * The admin commands the runtime owns: {@code show info}, {@code show stat}, {@code show backend},
 * {@code show errors}, {@code disable|enable frontend} and {@code clear counters}, with HAProxy's
 * arguments, levels and error strings.
 */
final class ProxyCommands {
    private ProxyCommands() {
    }

    static void register(CliRegistry r, ProxyRuntime rt) {
        r.register(new CliCommand(List.of("show", "info"), Level.USER, "show info [desc|json|typed|float]*",
                "report information about the running process", req -> showInfo(rt, req)));
        r.register(new CliCommand(List.of("show", "stat"), Level.USER, "show stat [desc|json|no-maint|typed|up]*",
                "report counters for each proxy and server", req -> showStat(rt, req)));
        r.register(new CliCommand(List.of("show", "backend"), Level.USER, "show backend",
                "list backends in the current running config", req -> {
                    StringBuilder b = new StringBuilder("# name\n");
                    for (Backend be : rt.backends().values()) {
                        b.append(be.name()).append('\n');
                    }
                    return b.toString();
                }));
        r.register(new CliCommand(List.of("show", "errors"), Level.OPERATOR, "show errors [<px>] [request|response]",
                "report last request and/or response errors for each proxy", req -> showErrors(rt, req)));
        r.register(new CliCommand(List.of("disable", "frontend"), Level.ADMIN, "disable frontend <frontend>",
                "temporarily disable specific frontend", req -> {
                    Frontend fe = frontend(rt, req.arg(2));
                    if (fe == null) {
                        return req.arg(2).isEmpty() ? "A frontend name is expected.\n" : "No such frontend.\n";
                    }
                    if (fe.status().equals("STOP")) {
                        return "Frontend was previously shut down, cannot disable.\n";
                    }
                    return fe.limit().disable() ? "" : "All sockets are already disabled.\n";
                }));
        r.register(new CliCommand(List.of("enable", "frontend"), Level.ADMIN, "enable frontend <frontend>",
                "re-enable specific frontend", req -> {
                    Frontend fe = frontend(rt, req.arg(2));
                    if (fe == null) {
                        return req.arg(2).isEmpty() ? "A frontend name is expected.\n" : "No such frontend.\n";
                    }
                    if (fe.status().equals("STOP")) {
                        return "Frontend was previously shut down, cannot enable.\n";
                    }
                    return fe.limit().enable() ? "" : "All sockets are already enabled.\n";
                }));
        r.register(new CliCommand(List.of("clear", "counters"), Level.OPERATOR, "clear counters [all]",
                "clear max statistics counters (or all counters)", req -> {
                    boolean all = req.arg(2).equals("all");
                    if (all && !req.allowed(Level.ADMIN)) {
                        return CliRequest.PERMISSION_DENIED;
                    }
                    rt.clearCounters(all);
                    return "";
                }));
    }

    private static String showInfo(ProxyRuntime rt, CliRequest req) {
        InfoFields.Format format = InfoFields.Format.PLAIN;
        boolean desc = false;
        for (int i = 2; i < req.args().size(); i++) {
            switch (req.arg(i)) {
                case "typed" -> format = InfoFields.Format.TYPED;
                case "json" -> format = InfoFields.Format.JSON;
                case "desc" -> desc = true;
                default -> {
                    // HAProxy ignores what it does not know ("float" changes nothing without float fields)
                }
            }
        }
        return InfoFields.render(rt.info(), format, desc);
    }

    private static String showStat(ProxyRuntime rt, CliRequest req) {
        int arg = 2;
        if (req.arg(arg).equals("domain")) {
            if (!req.arg(arg + 1).equals("proxy")) {
                return "Unsupported domain \"" + req.arg(arg + 1) + "\"; Sluice has only 'proxy'.\n";
            }
            arg += 2;
        }
        int iid = -1;
        int types = -1;
        int sid = -1;
        if (!req.arg(arg).isEmpty() && !req.arg(arg + 1).isEmpty() && !req.arg(arg + 2).isEmpty()) {
            Integer id = rt.proxyId(req.arg(arg));
            iid = id != null ? id : atoi(req.arg(arg));
            if (iid == 0) {
                return "No such proxy.\n";
            }
            types = atoi(req.arg(arg + 1));
            sid = atoi(req.arg(arg + 2));
            arg += 3;
        }
        boolean hideMaint = false;
        boolean typed = false;
        boolean desc = false;
        for (; arg < req.args().size(); arg++) {
            switch (req.arg(arg)) {
                case "json" -> {
                    return "'show stat json' is not supported by Sluice yet (use the CSV or typed form).\n";
                }
                case "typed" -> typed = true;
                case "desc" -> desc = true;
                case "up", "no-maint" -> hideMaint = true;
                default -> {
                    // ignored, as HAProxy ignores unknown words here
                }
            }
        }
        StringBuilder out = new StringBuilder(typed ? "" : StatRow.header());
        for (Proxy p : rt.config().proxies()) {
            Frontend fe = rt.frontends().get(p.name());
            Backend be = rt.backends().get(p.name());
            int id = rt.proxyId(p.name());
            if (iid != -1 && iid != id) {
                continue;
            }
            if (fe != null && (types & StatRow.Type.FRONTEND.mask()) != 0) {
                out.append(format(StatRows.frontend(fe), StatRow.Type.FRONTEND, id, 0, typed, desc));
            }
            if (be != null && (types & StatRow.Type.SERVER.mask()) != 0) {
                for (Server s : be.servers()) {
                    if ((sid != -1 && sid != s.id()) || (hideMaint && (s.adminState() & Server.FORCED_MAINT) != 0)) {
                        continue;
                    }
                    out.append(format(StatRows.server(s, req.level()), StatRow.Type.SERVER, id, s.id(), typed, desc));
                }
            }
            if (be != null && (types & StatRow.Type.BACKEND.mask()) != 0) {
                out.append(format(StatRows.backend(be, req.level()), StatRow.Type.BACKEND, id, 0, typed, desc));
            }
        }
        return out.toString();
    }

    private static String format(StatRow row, StatRow.Type type, int iid, int sid, boolean typed, boolean desc) {
        return typed ? StatTyped.render(row, type, iid, sid, desc) : row.csv();
    }

    private static final DateTimeFormatter ERRORS_DATE = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss.SSS", Locale.ROOT);

    /** Sluice does not capture invalid messages yet: HAProxy's header with no event. */
    private static String showErrors(ProxyRuntime rt, CliRequest req) {
        if (!req.arg(2).isEmpty()) {
            Integer id = rt.proxyId(req.arg(2));
            if ((id != null ? id : atoi(req.arg(2))) == 0) {
                return "No such proxy.\n";
            }
        }
        return "Total events captured on [" + ERRORS_DATE.format(ZonedDateTime.now()) + "] : 0\n";
    }

    /** A frontend by name or {@code #<id>}, or null. */
    private static Frontend frontend(ProxyRuntime rt, String nameOrId) {
        for (Frontend fe : rt.frontends().values()) {
            if (fe.name().equals(nameOrId) || nameOrId.equals("#" + fe.id())) {
                return fe;
            }
        }
        return null;
    }

    /** C's atoi: the leading optionally signed digits, 0 when there are none. */
    static int atoi(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean neg = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9' && v <= Integer.MAX_VALUE) {
            v = v * 10 + (s.charAt(i) - '0');
            i++;
        }
        return (int) (neg ? -v : v);
    }
}
