package dev.sluice.config;

import dev.sluice.config.model.Captures;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.ProxyOptions;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Logging keywords: {@code log} (global and proxies, {@code log global}, {@code no log}),
 * {@code log-format}, {@code log-tag} and the logging options.
 */
final class LogKeywords {
    private LogKeywords() {
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("option http-ignore-probes", Section.FRONTEND_SIDE, "[no] option http-ignore-probes",
                "A connection closed or timed out before sending a single byte (a browser's pre-connect) is closed quietly: no"
                        + " 400 or 408, no log line, no error counted. Without it HAProxy and Sluice answer, log and count it.",
                c -> {
                    if (c.expectArgs(0, 0, "option http-ignore-probes")) {
                        c.proxy().ignoreProbes = !c.negated();
                    }
                }));
        r.register(new Keyword("option http-restrict-req-hdr-names", Section.PROXIES, "option http-restrict-req-hdr-names preserve|delete|reject",
                "Request fields whose name has a character outside [A-Za-z0-9-]: kept (preserve, the default), removed"
                        + " (delete), or the request refused with a 403 (reject). Applied after the proxy's http-request rules, the"
                        + " frontend's then the backend's, as HAProxy does.",
                c -> {
                    if (c.negated()) {
                        c.lineError("'no option http-restrict-req-hdr-names' is not supported.");
                        return;
                    }
                    List<String> a = c.args();
                    if (a.size() > 1) {
                        c.lineError("'option http-restrict-req-hdr-names' cannot handle unexpected argument '" + a.get(1) + "'.");
                        return;
                    }
                    String what = a.isEmpty() || a.get(0).isEmpty() ? null : a.get(0);
                    ProxyOptions.HeaderNames v = what == null ? null : switch (what) {
                        case "preserve" -> ProxyOptions.HeaderNames.PRESERVE;
                        case "delete" -> ProxyOptions.HeaderNames.DELETE;
                        case "reject" -> ProxyOptions.HeaderNames.REJECT;
                        default -> null;
                    };
                    if (v == null) {
                        c.lineError((what == null ? "missing parameter" : "invalid parameter '" + what + "'")
                                + ". option 'http-restrict-req-hdr-names' expects 'preserve', 'reject' or 'delete' option.");
                        return;
                    }
                    c.proxy().headerNames = v;
                }));
        r.register(new Keyword("option contstats", Section.FRONTEND_SIDE, "[no] option contstats",
                "Add the bytes of a transfer to the frontend, backend and server byte counters (bin, bout) as they go, rather"
                        + " than when the exchange ends, so that long transfers show in the statistics while they run.",
                c -> {
                    if (c.expectArgs(0, 0, "option contstats")) {
                        c.proxy().contStats = !c.negated();
                    }
                }));
        r.register(new Keyword("option socket-stats", Section.FRONTEND_SIDE, "[no] option socket-stats",
                "Statistics per listener: 'show stat' and the stats page add a row (type 3) per bind address after the frontend's,"
                        + " named by the bind's 'name' or sock-<n>, with its connections, bytes, denials and invalid requests.",
                c -> {
                    if (c.expectArgs(0, 0, "option socket-stats")) {
                        c.proxy().socketStats = !c.negated();
                    }
                }));
        registerCaptures(r);
        Set<Section> all = EnumSet.of(Section.GLOBAL, Section.DEFAULTS, Section.FRONTEND, Section.BACKEND, Section.LISTEN,
                Section.LOG_FORWARD);
        r.register(new Keyword("log", all,
                "log global | log <stdout|stderr|/unix/path|host[:port]|ring@<name>> [len <n>] [format rfc3164|rfc5424|raw|short|...] <facility> [<level> [<minlevel>]]",
                "Send log lines there (UDP syslog, a UNIX datagram socket, stdout/stderr, or a ring section); 'log global' uses the"
                        + " global section's.",
                LogKeywords::log));
        r.register(new Keyword("log-format", Section.PROXIES, "log-format <format>",
                "The format of the log line (HAProxy's %-variables, e.g. %ci %ST %{+Q}r).", c -> {
                    if (c.args().isEmpty()) {
                        c.error("expects a format string.");
                        return;
                    }
                    try {
                        c.proxy().logFormat = LogFormats.parse(String.join(" ", c.args()), true);
                        c.proxy().logFormatWhere = c.at();
                        c.proxy().httplogWhere = null;
                    } catch (IllegalArgumentException e) {
                        c.error("failed to parse log-format : " + e.getMessage() + ".");
                    }
                }));
        r.register(new Keyword("log-tag", EnumSet.of(Section.GLOBAL, Section.DEFAULTS, Section.FRONTEND, Section.BACKEND, Section.LISTEN),
                "log-tag <tag>", "The syslog tag (program name) of log lines (default: haproxy, for existing log filters).", c -> {
                    if (c.expectArgs(1, 1, "log-tag <tag>")) {
                        if (c.section() == Section.GLOBAL) {
                            c.global().logTag = c.args().get(0);
                        } else {
                            c.proxy().logTag = c.args().get(0);
                        }
                    }
                }));
        r.register(new Keyword("option httplog", Section.PROXIES, "option httplog [clf]",
                "Log each HTTP request in HAProxy's HTTP format (timers, termination state, counts, request line).", c -> {
                    if (!c.expectArgs(0, 1, "option httplog [clf]")) {
                        return;
                    }
                    if (c.negated()) {
                        c.proxy().logFormat = null;
                        c.proxy().httplogWhere = null;
                        return;
                    }
                    if (!c.args().isEmpty() && !c.args().get(0).equals("clf")) {
                        c.error("unexpected argument '" + c.args().get(0) + "' (expected 'clf')");
                        return;
                    }
                    c.proxy().logFormat = LogFormats.parse(c.args().isEmpty() ? LogFormats.HTTPLOG : LogFormats.HTTPLOG_CLF);
                    c.proxy().httplogWhere = c.at();
                }));
        r.register(new Keyword("option tcplog", Section.PROXIES, "option tcplog",
                "Log each connection in HAProxy's TCP format.", c -> {
                    if (c.expectArgs(0, 0, "option tcplog")) {
                        c.proxy().logFormat = c.negated() ? null : LogFormats.parse(LogFormats.TCPLOG);
                        c.proxy().httplogWhere = null;
                    }
                }));
        r.register(new Keyword("option dontlognull", Section.PROXIES, "[no] option dontlognull",
                "Do not log connections on which no request was received.", c -> {
                    if (c.expectArgs(0, 0, "option dontlognull")) {
                        c.proxy().dontLogNull = !c.negated();
                    }
                }));
        r.register(new Keyword("option log-separate-errors", Section.PROXIES, "[no] option log-separate-errors",
                "Log failed requests (5xx, errors) at level err instead of info.", c -> {
                    if (c.expectArgs(0, 0, "option log-separate-errors")) {
                        c.proxy().logSeparateErrors = !c.negated();
                    }
                }));
        r.register(new Keyword("option dontlog-normal", Section.PROXIES, "[no] option dontlog-normal",
                "Log only failed requests.", c -> {
                    if (c.expectArgs(0, 0, "option dontlog-normal")) {
                        c.proxy().dontLogNormal = !c.negated();
                    }
                }));
    }

    private static final Set<Section> FRONTENDS = EnumSet.of(Section.FRONTEND, Section.LISTEN);

    /** capture request|response header, capture cookie, declare capture, option logasap, unique-id-format|header. */
    static void registerCaptures(KeywordRegistry r) {
        r.family("capture", "capture");
        r.register(new Keyword("capture request", FRONTENDS, "capture request header <name> len <length>",
                "Keep the last value of this request header (at most <length> bytes) for the log line (%hr) and capture.req.hdr(<n>).",
                c -> header(c, c.proxy().requestCaptures)));
        r.register(new Keyword("capture response", FRONTENDS, "capture response header <name> len <length>",
                "Keep the last value of this response header (at most <length> bytes) for the log line (%hs) and capture.res.hdr(<n>).",
                c -> header(c, c.proxy().responseCaptures)));
        r.register(new Keyword("capture cookie", FRONTENDS, "capture cookie <name> len <length>",
                "Log the first request cookie (%CC) and response Set-Cookie (%CS) whose name starts with <name> ('name=' for an exact name).",
                c -> {
                    if (!c.expectArgs(3, 3, "capture cookie <name> len <length>") || !c.args().get(1).equals("len")) {
                        if (c.args().size() == 3) {
                            c.error("expects 'len' after the cookie name.");
                        }
                        return;
                    }
                    if (c.proxy().captureCookie != null) {
                        c.error("only one cookie capture is allowed per frontend.");
                        return;
                    }
                    int len = c.intArg(c.args().get(2), "len", 1, 65535, 0);
                    if (len > 0) {
                        c.proxy().captureCookie = new Captures.Cookie(c.args().get(0), len);
                    }
                }));
        r.family("declare", "declaration");
        r.register(new Keyword("declare capture", FRONTENDS, "declare capture request|response len <length>",
                "Declare a capture slot for 'http-request capture ... id <n>' or 'http-response capture ... id <n>'.", c -> {
                    List<String> a = c.args();
                    if (!c.expectArgs(3, 3, "declare capture request|response len <length>")) {
                        return;
                    }
                    if (!a.get(1).equals("len") || !a.get(0).equals("request") && !a.get(0).equals("response")) {
                        c.error("expects 'request' or 'response', then 'len <length>'.");
                        return;
                    }
                    int len = c.intArg(a.get(2), "len", 1, 65535, 0);
                    if (len > 0) {
                        (a.get(0).equals("request") ? c.proxy().requestCaptures : c.proxy().responseCaptures)
                                .add(new Captures.Slot(null, len));
                    }
                }));
        r.register(new Keyword("option logasap", Section.PROXIES, "[no] option logasap",
                "Log a request as soon as the response head is sent, without waiting for the body (bytes and total time then start with '+').",
                c -> {
                    if (c.expectArgs(0, 0, "option logasap")) {
                        c.proxy().logAsap = !c.negated();
                    }
                }));
        r.register(new Keyword("unique-id-format", Section.PROXIES, "unique-id-format <format>",
                "Give each request an identifier built from this log-format string (%ID in logs, the unique-id fetch).", c -> {
                    if (c.args().isEmpty()) {
                        c.error("expects an argument.");
                        return;
                    }
                    try {
                        c.proxy().uniqueIdFormat = LogFormats.parse(String.join(" ", c.args()), true);
                        c.proxy().uniqueIdWhere = c.at();
                    } catch (IllegalArgumentException e) {
                        c.error("failed to parse unique-id-format : " + e.getMessage() + ".");
                    }
                }));
        r.register(new Keyword("unique-id-header", Section.PROXIES, "unique-id-header <name>",
                "Add the request's unique identifier to the request sent to the server in this header.", c -> {
                    if (c.expectArgs(1, 1, "unique-id-header <name>")) {
                        if (!HttpTokens.isToken(c.args().get(0))) {
                            c.error("'" + c.args().get(0) + "' is not a valid header name.");
                            return;
                        }
                        c.proxy().uniqueIdHeader = c.args().get(0);
                    }
                }));
    }

    private static void header(KeywordContext c, List<Captures.Slot> slots) {
        List<String> all = c.args();
        if (all.size() != 4 || !all.get(0).equals("header") || !all.get(2).equals("len")) {
            c.error("expects 'header <name> len <length>'.");
            return;
        }
        List<String> a = all.subList(1, 4);
        if (!HttpTokens.isToken(a.get(0))) {
            c.error("'" + a.get(0) + "' is not a valid header name.");
            return;
        }
        int len = c.intArg(a.get(2), "len", 1, 65535, 0);
        if (len > 0) {
            slots.add(new Captures.Slot(a.get(0), len));
        }
    }

    private static void log(KeywordContext c) {
        List<String> a = c.args();
        boolean global = c.section() == Section.GLOBAL;
        if (c.section() == Section.LOG_FORWARD && (c.negated() || a.size() == 1 && a.get(0).equals("global"))) {
            c.error("'log global' and 'no log' are not supported by Sluice in a log-forward section yet.");
            return;
        }
        if (c.negated()) {
            if (global || !a.isEmpty()) {
                c.error("'no log' takes no argument and is not used in global.");
                return;
            }
            c.proxy().logs.clear();
            c.proxy().logGlobal = false;
            return;
        }
        if (a.size() == 1 && a.get(0).equals("global")) {
            if (global) {
                c.error("'log global' is only meaningful in a proxy or defaults section.");
                return;
            }
            c.proxy().logGlobal = true;
            return;
        }
        LogTarget t = target(c, a);
        if (t == null) {
            return;
        }
        if (global) {
            c.global().logs.add(t);
        } else if (c.section() == Section.LOG_FORWARD) {
            if (c.currentLogForward() != null) {
                c.currentLogForward().targets.add(t);
            }
        } else {
            c.proxy().logs.add(t);
        }
    }

    /**
     * The target of a {@code log} line ({@code a}: its words after the keyword), also what {@code log-stderr} of an
     * {@code fcgi-app} section takes; null after reporting why it is not one.
     */
    static LogTarget target(KeywordContext c, List<String> a) {
        if (a.size() < 2) {
            c.error("expects a target and a facility; expected: log <target> [len <n>] [format <fmt>] <facility> [<level> [<minlevel>]]");
            return null;
        }
        String target = a.get(0);
        LogTarget.Kind kind;
        String address = null;
        int port = 0;
        if (target.equals("stdout") || target.equals("fd@1")) {
            kind = LogTarget.Kind.STDOUT;
        } else if (target.equals("stderr") || target.equals("fd@2")) {
            kind = LogTarget.Kind.STDERR;
        } else if (target.startsWith("/") || target.startsWith("unix@")) {
            kind = LogTarget.Kind.UNIX;
            address = target.startsWith("unix@") ? target.substring(5) : target;
        } else if (target.startsWith("ring@")) {
            kind = LogTarget.Kind.RING;
            address = target.substring(5);
        } else if (target.startsWith("tcp@") || target.startsWith("fd@")) {
            c.error("log target '" + target + "' is not supported by Sluice yet (use stdout, stderr, a UDP address or a UNIX socket).");
            return null;
        } else {
            kind = LogTarget.Kind.UDP;
            String t = target;
            for (String pfx : new String[] {"udp@", "udp4@", "udp6@", "ipv4@", "ipv6@"}) {
                if (t.startsWith(pfx)) {
                    t = t.substring(pfx.length());
                }
            }
            try {
                Addresses.HostPort hp = Addresses.split(t, false);
                address = hp.host();
                port = hp.port() == 0 ? 514 : hp.port();
            } catch (IllegalArgumentException e) {
                c.error("invalid log target '" + target + "': " + e.getMessage());
                return null;
            }
            if (address.isEmpty()) {
                c.error("invalid log target '" + target + "': missing address");
                return null;
            }
        }
        int len = 1024;
        LogTarget.Format format = LogTarget.Format.RFC3164;
        int i = 1;
        while (i < a.size()) {
            String w = a.get(i);
            if (w.equals("len") && i + 1 < a.size()) {
                len = c.intArg(a.get(i + 1), "len", 80, 65535, 1024);
                i += 2;
            } else if (w.equals("format") && i + 1 < a.size()) {
                try {
                    format = LogTarget.Format.valueOf(a.get(i + 1).toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    c.error("unknown log format '" + a.get(i + 1) + "' (expected rfc3164, rfc5424, raw, short, priority, timed, iso, local)");
                    return null;
                }
                i += 2;
            } else if (w.equals("sample") || w.equals("profile")) {
                c.error("'" + w + "' on log lines is not supported by Sluice yet.");
                return null;
            } else {
                break;
            }
        }
        if (i >= a.size()) {
            c.error("missing facility.");
            return null;
        }
        int facility = indexOf(LogTarget.FACILITIES, a.get(i));
        if (facility < 0) {
            c.error("unknown facility '" + a.get(i) + "'" + Suggestions.didYouMean(Suggestions.closest(a.get(i), List.of(LogTarget.FACILITIES))));
            return null;
        }
        int level = 7;
        int minLevel = 0;
        if (i + 1 < a.size()) {
            level = indexOf(LogTarget.LEVELS, a.get(i + 1));
            if (level < 0) {
                c.error("unknown optional log level '" + a.get(i + 1) + "'");
                return null;
            }
        }
        if (i + 2 < a.size()) {
            minLevel = indexOf(LogTarget.LEVELS, a.get(i + 2));
            if (minLevel < 0) {
                c.error("unknown optional minimum log level '" + a.get(i + 2) + "'");
                return null;
            }
        }
        if (i + 3 < a.size()) {
            c.error("unexpected argument '" + a.get(i + 3) + "'.");
            return null;
        }
        return new LogTarget(c.at(), kind, address, port, len, format, facility, level, minLevel);
    }

    private static int indexOf(String[] list, String v) {
        for (int k = 0; k < list.length; k++) {
            if (list[k].equals(v)) {
                return k;
            }
        }
        return -1;
    }

    /**
     * HAProxy's check after parsing: a {@code capture cookie} length of {@code tune.http.cookielen} or more is cut to it,
     * with its warning.
     */
    static void capCookieCapture(ProxyBuilder p, int cookieRoom, Diagnostics diags) {
        if (p.captureCookie != null && p.captureCookie.len() >= cookieRoom) {
            diags.warning(p.where, "truncating capture length to " + (cookieRoom - 1) + " bytes for " + p.kind().keyword() + " '" + p.name
                    + "'.");
            p.captureCookie = new Captures.Cookie(p.captureCookie.name(), cookieRoom - 1);
        }
    }
}
