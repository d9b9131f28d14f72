package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.stats.ErrorCapture;
import dev.sluice.proxy.stats.InfoFields;
import dev.sluice.proxy.stats.StatRow;
import dev.sluice.proxy.stats.StatTyped;
import dev.sluice.proxy.stream.Frontend;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
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
        r.register(new CliCommand(List.of("reload"), Level.ADMIN, "reload",
                "reload the configuration files in this process (Success=1|0, then the messages)", req -> {
                    Generations g = rt.generations();
                    if (g == null) {
                        return "Success=0\n--\n[ALERT] this process cannot reload its configuration\n";
                    }
                    // a master's request: a change only a new process applies is answered Restart=1 and not loaded
                    boolean inPlaceOnly = req.arg(1).equals(Generations.IN_PLACE_ONLY);
                    if (!inPlaceOnly && !req.arg(1).isEmpty()) {
                        return "'reload' takes no argument.\n";
                    }
                    return req.later(g.reload(inPlaceOnly).thenApply(Generations.Result::answer));
                }));
        r.register(new CliCommand(List.of("show", "version"), Level.USER, "show version", "show version of the current process",
                req -> ProductInfo.VERSION + "\n"));
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
        r.register(new CliCommand(List.of("set", "maxconn", "frontend"), Level.ADMIN, "set maxconn frontend <frontend> <value>",
                "change a frontend's maxconn setting", req -> {
                    Frontend fe = frontend(rt, req.arg(3));
                    if (fe == null) {
                        return req.arg(3).isEmpty() ? "A frontend name is expected.\n" : "No such frontend.\n";
                    }
                    if (req.arg(4).isEmpty()) {
                        return "Integer value expected.\n";
                    }
                    int v = atoi(req.arg(4));
                    if (v < 0) {
                        return "Value out of range.\n";
                    }
                    // 0 falls back to the process-wide limit, as a frontend without maxconn does
                    fe.limit().max(v == 0 ? rt.globalLimit().max() : v);
                    return "";
                }));
        r.register(new CliCommand(List.of("set", "maxconn", "global"), Level.ADMIN, "set maxconn global <value>",
                "change the per-process maxconn setting", req -> {
                    if (req.arg(3).isEmpty()) {
                        return "Expects an integer value.\n";
                    }
                    int v = atoi(req.arg(3));
                    if (v > rt.hardMaxconn() || v < 0) {
                        return "Value out of range.\n";
                    }
                    rt.globalLimit().max(v == 0 ? rt.hardMaxconn() : v);
                    return "";
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
        boolean hideDown = false;
        boolean typed = false;
        boolean json = false;
        boolean desc = false;
        for (; arg < req.args().size(); arg++) {
            switch (req.arg(arg)) {
                case "json" -> json = true;
                case "typed" -> typed = true;
                case "desc" -> desc = true;
                case "no-maint" -> hideMaint = true;
                case "up" -> hideDown = true;
                default -> {
                    // ignored, as HAProxy ignores unknown words here
                }
            }
        }
        if (json) {
            typed = false;
        }
        StringBuilder out = new StringBuilder(typed ? "" : json ? "[" : StatRow.header());
        Format fmt = json ? Format.JSON : typed ? Format.TYPED : Format.CSV;
        for (Proxy p : rt.config().proxies()) {
            Frontend fe = rt.frontends().get(p.name());
            Backend be = rt.backends().get(p.name());
            int id = rt.proxyId(p.name());
            if (iid != -1 && iid != id) {
                continue;
            }
            if (fe != null && (types & StatRow.Type.FRONTEND.mask()) != 0) {
                out.append(format(out, StatRows.frontend(fe), StatRow.Type.FRONTEND, id, 0, fmt, desc));
            }
            if (fe != null && (types & StatRow.Type.LISTENER.mask()) != 0) {
                for (var l : fe.listenerCounters()) {
                    if (sid == -1 || sid == l.id()) {
                        out.append(format(out, StatRows.listener(fe, l, req.level()), StatRow.Type.LISTENER, id, l.id(), fmt, desc));
                    }
                }
            }
            if (be != null && (types & StatRow.Type.SERVER.mask()) != 0) {
                for (Server s : be.servers()) {
                    if ((sid != -1 && sid != s.id()) || hidden(s, hideMaint, hideDown)) {
                        continue;
                    }
                    out.append(format(out, StatRows.server(s, req.level()), StatRow.Type.SERVER, id, s.id(), fmt, desc));
                }
            }
            if (be != null && (types & StatRow.Type.BACKEND.mask()) != 0) {
                out.append(format(out, StatRows.backend(be, req.level()), StatRow.Type.BACKEND, id, 0, fmt, desc));
            }
        }
        if (json) {
            out.append("]\n");
        }
        return out.toString();
    }

    /**
     * HAProxy's {@code no-maint} hides servers in maintenance; {@code up} also hides the DOWN ones, except those whose
     * checks are bringing them up ("DOWN 1/2").
     */
    static boolean hidden(Server s, boolean hideMaint, boolean hideDown) {
        if (!hideMaint && !hideDown) {
            return false;
        }
        String status = StatRows.status(s);
        return status.equals("MAINT") || hideDown && status.equals("DOWN");
    }

    /** {@code show stat} in CSV, every proxy, at a level (addresses and algorithms from operator up): the stats page's CSV. */
    static String statCsv(ProxyRuntime rt, Level level, boolean hideMaint) {
        return statCsv(rt, level, hideMaint, false);
    }

    static String statCsv(ProxyRuntime rt, Level level, boolean hideMaint, boolean hideDown) {
        StringBuilder out = new StringBuilder(StatRow.header());
        for (Proxy p : rt.config().proxies()) {
            Frontend fe = rt.frontends().get(p.name());
            Backend be = rt.backends().get(p.name());
            if (fe != null) {
                out.append(StatRows.frontend(fe).csv());
                for (var l : fe.listenerCounters()) {
                    out.append(StatRows.listener(fe, l, level).csv());
                }
            }
            if (be != null) {
                for (Server s : be.servers()) {
                    if (!hidden(s, hideMaint, hideDown)) {
                        out.append(StatRows.server(s, level).csv());
                    }
                }
                out.append(StatRows.backend(be, level).csv());
            }
        }
        return out.toString();
    }

    private enum Format {
        CSV, TYPED, JSON
    }

    private static String format(StringBuilder out, StatRow row, StatRow.Type type, int iid, int sid, Format f, boolean desc) {
        return switch (f) {
            case CSV -> row.csv();
            case TYPED -> StatTyped.render(row, type, iid, sid, desc);
            // rows are separated by commas inside the outer array
            case JSON -> (out.length() > 1 ? "," : "") + StatTyped.json(row, type, iid, sid);
        };
    }

    private static final DateTimeFormatter ERRORS_DATE = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss.SSS", Locale.ROOT);

    /**
     * {@code show errors [<px>] [request|response]}: the last invalid request of each frontend and the last
     * invalid response of each backend, in HAProxy's layout (see {@link ErrorCapture}).
     */
    private static String showErrors(ProxyRuntime rt, CliRequest req) {
        int arg = 2;
        int only = -1;
        // as HAProxy 2.6: the first word is the proxy (a name, #<id> or -1 for all), then the direction
        if (!req.arg(arg).isEmpty()) {
            if (!req.arg(arg).equals("-1")) {
                Integer id = rt.proxyId(req.arg(arg));
                only = id != null ? id : req.arg(arg).startsWith("#") ? atoi(req.arg(arg).substring(1)) : 0;
                if (only == 0 || !rt.proxyIds().contains(only)) {
                    return "No such proxy.\n";
                }
            }
            arg++;
        }
        boolean requests = !req.arg(arg).equals("response");
        boolean responses = !req.arg(arg).equals("request");
        List<ErrorCapture.Event> events = new ArrayList<>();
        for (Proxy p : rt.config().proxies()) {
            int id = rt.proxyId(p.name());
            if (only != -1 && only != id) {
                continue;
            }
            Frontend fe = rt.frontends().get(p.name());
            Backend be = rt.backends().get(p.name());
            if (requests && fe != null && fe.lastError() != null) {
                events.add(fe.lastError());
            }
            if (responses && be != null && be.lastError() != null) {
                events.add(be.lastError());
            }
        }
        StringBuilder out = new StringBuilder("Total events captured on [" + ERRORS_DATE.format(ZonedDateTime.now()) + "] : "
                + ErrorCapture.total() + "\n");
        for (ErrorCapture.Event e : events) {
            e.dump(out);
        }
        return out.toString();
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
