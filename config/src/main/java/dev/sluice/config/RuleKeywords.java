package dev.sluice.config;

import dev.sluice.config.model.Captures;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.HttpRule;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The actions of {@code http-request}, {@code http-response} and {@code http-after-response} rules:
 * each registered as a keyword of its family with its syntax, checked for its argument count and
 * options here; the runtime compiles expressions, formats and regexes.
 */
final class RuleKeywords {
    private RuleKeywords() {
    }

    private static final Set<Section> PROXY_SECTIONS = EnumSet.of(Section.FRONTEND, Section.BACKEND, Section.LISTEN);

    /** The warning of {@code set-nice}, in HTTP and TCP rules. */
    static final String SET_NICE = "'set-nice' has no effect in Sluice: its event loops run every stream's work in arrival order,"
            + " without task priorities.";

    /** The levels of {@code set-log-level}, in syslog order, then {@code silent}. */
    static final List<String> LOG_LEVELS = List.of("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug", "silent");

    /** Which rule sets an action exists in. */
    private static final int REQ = 1;
    private static final int RES = 2;
    private static final int AFTER = 4;

    record Spec(String name, int sets, int min, int max, String syntax, String description) {
    }

    private static final List<Spec> SPECS = List.of(
            new Spec("allow", REQ | RES | AFTER, 0, 0, "allow", "Stop evaluating the rules of this set and let the message pass."),
            new Spec("deny", REQ | RES, 0, -1,
                    "deny [deny_status <code>] [status <code>] [content-type <type>] [string <text> | errorfile <file>] [hdr <name> <fmt>]*",
                    "Reject with 403 (or the given status and content); final."),
            new Spec("reject", REQ, 0, 0, "reject", "Close the connection at once without a response."),
            new Spec("silent-drop", REQ | RES, 0, 0, "silent-drop",
                    "Close the connection at once without a response and without telling the client (TCP repair mode, as HAProxy;"
                            + " a reset where that is not allowed); an HTTP/2 client's whole connection."),
            new Spec("tarpit", REQ, 0, -1, "tarpit [deny_status <code>] ...", "Hold the request for 'timeout tarpit', then answer 500 (or the status)."),
            new Spec("redirect", REQ | RES, 2, -1,
                    "redirect location|prefix|scheme <fmt> [code 301|302|303|307|308] [drop-query] [append-slash] [set-cookie <c>] [clear-cookie <c>]",
                    "Answer with a redirection; final."),
            new Spec("set-header", REQ | RES | AFTER, 2, 2, "set-header <name> <fmt>", "Remove every field of that name, then add one."),
            new Spec("add-header", REQ | RES | AFTER, 2, 2, "add-header <name> <fmt>", "Add a field."),
            new Spec("del-header", REQ | RES | AFTER, 1, 3, "del-header <name> [-m str|beg|end|sub|reg]", "Remove the matching fields."),
            new Spec("replace-header", REQ | RES | AFTER, 3, 3, "replace-header <name> <regex> <fmt>",
                    "Rewrite whole values of a field by regex (\\1 back-references)."),
            new Spec("replace-value", REQ | RES | AFTER, 3, 3, "replace-value <name> <regex> <fmt>",
                    "Rewrite each comma-separated value of a field by regex."),
            new Spec("set-path", REQ, 1, 1, "set-path <fmt>", "Replace the path (query kept)."),
            new Spec("set-pathq", REQ, 1, 1, "set-pathq <fmt>", "Replace the path and query."),
            new Spec("set-query", REQ, 1, 1, "set-query <fmt>", "Replace the query string (empty removes it)."),
            new Spec("set-uri", REQ, 1, 1, "set-uri <fmt>", "Replace the request target."),
            new Spec("set-method", REQ, 1, 1, "set-method <fmt>", "Replace the method."),
            new Spec("set-src", REQ, 1, 1, "set-src <expr>", "Set the client connection's source address (its port kept within a family)."),
            new Spec("set-src-port", REQ, 1, 1, "set-src-port <expr>", "Set the client connection's source port."),
            new Spec("set-dst", REQ, 1, 1, "set-dst <expr>", "Set the client connection's destination address (its port kept within a family)."),
            new Spec("set-dst-port", REQ, 1, 1, "set-dst-port <expr>", "Set the client connection's destination port."),
            new Spec("set-priority-class", REQ, 1, 1, "set-priority-class <expr>",
                    "Set the request's priority class in server and backend queues (an integer, -2047 to 2047, clamped; lower"
                            + " classes are served first; 0 by default)."),
            new Spec("set-priority-offset", REQ, 1, 1, "set-priority-offset <expr>",
                    "Set the request's priority offset in queues (milliseconds, -524287 to 524287, clamped): within a class,"
                            + " requests are served in the order of their arrival time plus their offset."),
            new Spec("set-tos", REQ | RES, 1, 1, "set-tos <tos>",
                    "Set the IP TOS (IPv4) or traffic class (IPv6) of the packets sent to the client (an integer, 0x for hex)."),
            new Spec("set-mark", REQ | RES, 1, 1, "set-mark <mark>",
                    "Set the netfilter mark (SO_MARK) of the client connection's socket (an integer, 0x for hex); needs CAP_NET_ADMIN,"
                            + " and is silently left as it was without, as HAProxy does."),
            new Spec("set-nice", REQ | RES, 1, 1, "set-nice <nice>",
                    "HAProxy's scheduling priority of the stream (-1024 to 1024). Accepted with a warning: Sluice's event loops"
                            + " run every stream's work in arrival order, without task priorities, so it changes nothing."),
            new Spec("replace-path", REQ, 2, 2, "replace-path <regex> <fmt>", "Rewrite the path by regex."),
            new Spec("replace-pathq", REQ, 2, 2, "replace-pathq <regex> <fmt>", "Rewrite the path and query by regex."),
            new Spec("replace-uri", REQ, 2, 2, "replace-uri <regex> <fmt>", "Rewrite the request target by regex."),
            new Spec("set-status", RES | AFTER, 1, 3, "set-status <code> [reason <text>]", "Change the response status."),
            new Spec("set-var", REQ | RES | AFTER, 1, 1, "set-var(<scope.name>) <expr>", "Store a sample in a variable."),
            new Spec("set-var-fmt", REQ | RES | AFTER, 1, 1, "set-var-fmt(<scope.name>) <fmt>", "Store a formatted string in a variable."),
            new Spec("unset-var", REQ | RES | AFTER, 0, 0, "unset-var(<scope.name>)", "Remove a variable."),
            new Spec("set-timeout", REQ, 2, 2, "set-timeout server|tunnel <time>",
                    "Change the server or tunnel timeout of this stream (in a backend or listen section)."),
            new Spec("disable-l7-retry", REQ, 0, 0, "disable-l7-retry",
                    "No retry-on retry for this request but after a connection failure (a request is sent once at most)."),
            new Spec("set-retries", REQ, 1, 1, "set-retries <n>",
                    "Change the number of connect retries for this stream (HAProxy 2.7 and later; HAProxy 2.6 refuses it)."),
            new Spec("track-sc0", REQ | RES, 1, 3, "track-sc0 <key> [table <table>]",
                    "Track the key's entry in stick counter 0 for this request (the first tracker of a slot wins)."),
            new Spec("track-sc1", REQ | RES, 1, 3, "track-sc1 <key> [table <table>]", "Track the key's entry in stick counter 1."),
            new Spec("track-sc2", REQ | RES, 1, 3, "track-sc2 <key> [table <table>]", "Track the key's entry in stick counter 2."),
            new Spec("sc-inc-gpc0", REQ | RES, 0, 0, "sc-inc-gpc0(<sc>)", "Increment gpc0 of the entry tracked by stick counter <sc>."),
            new Spec("sc-inc-gpc1", REQ | RES, 0, 0, "sc-inc-gpc1(<sc>)", "Increment gpc1 of the entry tracked by stick counter <sc>."),
            new Spec("sc-inc-gpc", REQ | RES, 0, 0, "sc-inc-gpc(<idx>,<sc>)", "Increment gpc(<idx>) of the tracked entry."),
            new Spec("sc-add-gpc", REQ | RES, 1, 1, "sc-add-gpc(<idx>,<sc>) <int|expr>", "Add a value to gpc(<idx>) of the tracked entry."),
            new Spec("sc-set-gpt0", REQ | RES, 1, 1, "sc-set-gpt0(<sc>) <int|expr>", "Set gpt0 of the tracked entry."),
            new Spec("sc-set-gpt", REQ | RES, 1, 1, "sc-set-gpt(<idx>,<sc>) <int|expr>", "Set gpt(<idx>) of the tracked entry."),
            new Spec("capture", REQ | RES | AFTER, 3, 3, "capture <sample> len <length> | id <slot>",
                    "Keep a sample in a capture slot of the frontend for the log line (%hr/%hs): a new slot of <length> bytes"
                            + " (http-request, in a frontend), or a declared one."),
            new Spec("set-log-level", REQ | RES, 1, 1, "set-log-level emerg|alert|crit|err|warning|notice|info|debug|silent",
                    "Log this request at that syslog level, or not at all (silent)."),
            new Spec("auth", REQ, 0, 2, "auth [realm <realm>]",
                    "Answer 401 with 'WWW-Authenticate: Basic realm=\"<realm>\"' (default realm: the proxy's name); final. Use with"
                            + " 'unless { http_auth(<userlist>) }'."),
            new Spec("use-service", REQ, 1, 1, "use-service <service-name>",
                    "Answer the request with a service of the proxy; final. Sluice has HAProxy's 'prometheus-exporter' (the"
                            + " metrics of frontends, backends, servers, stick tables and the process, in Prometheus' text format, under"
                            + " HAProxy 2.6's names; the URI's query selects as HAProxy's: scope=<global|frontend|listener|backend|server|sticktable|*>,"
                            + " repeatable, an empty one for none, and no-maint to leave out servers in maintenance)."),
            new Spec("cache-use", REQ, 1, 1, "cache-use <cache>",
                    "Answer from the cache when it holds a fresh response for the request (Host and URI, and the Vary fields);"
                            + " also needed by cache-store, as it computes the request's key."),
            new Spec("cache-store", RES, 1, 1, "cache-store <cache>",
                    "Store the response in the cache when HAProxy would (200 to a GET of HTTP/1.1 or later, fresh or with a validator,"
                            + " not private nor no-store, without Authorization in the request, a Vary the cache processes, within"
                            + " max-object-size); the head as it is at this rule."),
            new Spec("strict-mode", REQ | RES | AFTER, 1, 1, "strict-mode on|off",
                    "HAProxy's strict rewriting mode for the rules after it (a failed rewrite gives a 500 when on, is ignored when"
                            + " off). Sluice's rewrites do not fail (its messages have no fixed rewrite reserve), so both modes act"
                            + " the same."),
            new Spec("wait-for-body", REQ | RES, 2, 4, "wait-for-body time <time> [at-least <size>]",
                    "Hold the request (or the response) until its whole body, <size> bytes of it or a full buffer (tune.bufsize)"
                            + " arrived, so that req.body (res.body) fetches see it; 408 (504 for a response) when <time> passes first."));

    static void register(KeywordRegistry r) {
        r.family("http-request", "http-request action");
        r.family("http-response", "http-response action");
        r.family("http-after-response", "http-after-response action");
        for (Spec s : SPECS) {
            if ((s.sets() & REQ) != 0) {
                add(r, "http-request", s);
            }
            if ((s.sets() & RES) != 0) {
                add(r, "http-response", s);
            }
            if ((s.sets() & AFTER) != 0) {
                add(r, "http-after-response", s);
            }
        }
        Spec ret = new Spec("return", RES | AFTER, 0, -1, "return [status <code>] [content-type <type>] [string <text> | file <path>] [hdr <name> <value>]*",
                "Answer from the proxy itself.");
        add(r, "http-response", ret);
        r.register(new Keyword("redirect", PROXY_SECTIONS,
                "redirect location|prefix|scheme <fmt> [code 301|302|303|307|308] [drop-query] [append-slash] [set-cookie <c>] [clear-cookie <c>]"
                        + " [if|unless <condition>]",
                "Answer with a redirection (the older form of 'http-request redirect', evaluated after the proxy's http-request rules).",
                RuleKeywords::redirect));
    }

    /**
     * What is wrong with the parenthesised part of {@code sc-inc-gpc0(<sc>)}, {@code sc-inc-gpc(<idx>,<sc>)} and
     * their kin, or null: an array index that is not a number is HAProxy's "Missing gpc ID" (any number is
     * taken, as HAProxy takes it: one past the table's array changes nothing), a counter number outside 0..2
     * is refused.
     */
    static String stickCounterProblem(String name, String word, Spec s) {
        boolean two = name.equals("sc-inc-gpc") || name.equals("sc-add-gpc") || name.equals("sc-set-gpt");
        int open = word.indexOf('(');
        String inner = open < 0 || !word.endsWith(")") ? null : word.substring(open + 1, word.length() - 1);
        if (two && inner != null && !inner.matches("\\d+,.*")) {
            String what = name.equals("sc-set-gpt") ? "gpt" : "gpc";
            return "Missing " + what + " ID '" + word + "'. Expects " + name + "(<" + what.toUpperCase(Locale.ROOT)
                    + " ID>,<Track ID>).";
        }
        if (inner == null || !inner.matches(two ? "\\d+,[0-2]" : "[0-2]")) {
            return "expects '" + s.syntax().split(" ")[0] + "' with a stick counter number between 0 and 2.";
        }
        return null;
    }

    private static void add(KeywordRegistry r, String family, Spec s) {
        r.register(new Keyword(family + " " + s.name(), PROXY_SECTIONS, family + " " + s.syntax() + " [if|unless <cond>]",
                s.description(), c -> parse(c, family, s)));
    }

    private static void parse(KeywordContext c, String family, Spec s) {
        String word = c.words().get(1);
        String name = s.name();
        String wordProblem = wordProblem(s, word);
        if (wordProblem != null) {
            c.error(wordProblem);
            return;
        }
        List<String> a = c.args();
        int end = c.conditionStart(0);
        List<String> args = a.subList(0, end);
        if ((name.equals("cache-use") || name.equals("cache-store")) && args.isEmpty()) {
            c.lineError("error detected in " + TcpRuleKeywords.typeOf(c.section()) + " '" + c.proxy().name + "' while parsing '" + family + " "
                    + name + "' rule : expects a cache name.");
            return;
        }
        if ((name.equals("cache-use") || name.equals("cache-store")) && args.size() > 1) {
            c.lineError("'" + family + " " + name + "' expects either 'if' or 'unless' followed by a condition but found '" + args.get(1) + "'.");
            return;
        }
        if (args.size() < s.min() || s.max() >= 0 && args.size() > s.max()) {
            c.error("expects " + (s.min() == s.max() ? s.min() + "" : s.min() + " to " + (s.max() < 0 ? "more" : s.max())) + " argument(s); syntax: "
                    + family + " " + s.syntax() + ".");
            return;
        }
        if (name.equals("redirect")) {
            args = typeFirst(args);
        }
        String problem = check(name, args);
        if (problem == null) {
            problem = checkIn(c, family, name, args);
        }
        if (problem != null) {
            c.error(problem);
            return;
        }
        if (name.equals("set-nice")) {
            c.warning(SET_NICE);
        }
        if (name.equals("capture")) {
            args = captureSlot(c, family, args);
            if (args == null) {
                return;
            }
        }
        if (name.equals("deny") || name.equals("tarpit") || name.equals("return")) {
            int dflt = name.equals("tarpit") ? 500 : name.equals("return") ? 200 : family.equals("http-request") ? 403 : 502;
            args = ErrorKeywords.resolveRulePage(c, args, statusOf(args, dflt));
            if (args == null) {
                return;
            }
        }
        Condition cond = null;
        if (end < a.size()) {
            cond = c.conditionFrom(end);
            if (cond == null) {
                return;
            }
        }
        if (name.equals("cache-use") || name.equals("cache-store")) {
            CacheKeywords.ruleNames(c, args.get(0));
        }
        HttpRule rule = new HttpRule.Action(c.at(), cond, word, args);
        if (family.equals("http-request")) {
            warnAfterRedirect(c);
        }
        switch (family) {
            case "http-request" -> c.proxy().httpRequestRules.add(rule);
            case "http-response" -> c.proxy().httpResponseRules.add(rule);
            default -> c.proxy().httpAfterResponseRules.add(rule);
        }
    }

    /** The spec of an action of the http-request, http-response or http-after-response rule sets, or null. */
    static Spec spec(String name) {
        for (Spec s : SPECS) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    /**
     * What is wrong with the action word as written ({@code set-var(txn.x)}, {@code sc-inc-gpc0(1)}, {@code deny}), or
     * null: the variable of the variable actions, the stick counter of the sc-* ones, no parentheses on the others.
     */
    static String wordProblem(Spec s, String word) {
        String name = s.name();
        if (name.endsWith("-var") || name.equals("set-var-fmt")) {
            int open = word.indexOf('(');
            if (open < 0 || !word.endsWith(")") || open + 1 >= word.length() - 1) {
                return "expects '" + name + "(<scope.name>)'.";
            }
            String var = word.substring(open + 1, word.length() - 1).split(",")[0];
            if (!var.matches("(proc|sess|txn|req|res)\\.[A-Za-z0-9._-]+")) {
                return "invalid variable name '" + var + "': the scope must be one of proc, sess, txn, req, res.";
            }
        } else if (name.startsWith("sc-")) {
            return stickCounterProblem(name, word, s);
        } else if (word.indexOf('(') >= 0) {
            return "'" + name + "' takes no argument in parentheses.";
        }
        return null;
    }

    /** Option-level checks of one action's arguments; null when fine. */
    static String check(String name, List<String> a) {
        switch (name) {
            case "use-service" -> {
                if (!a.get(0).equals("prometheus-exporter")) {
                    return "'use-service' : unknown service '" + a.get(0) + "' (Sluice has 'prometheus-exporter').";
                }
            }
            case "track-sc0", "track-sc1", "track-sc2" -> {
                if (a.size() == 2 || a.size() == 3 && !a.get(1).equals("table")) {
                    return "expects '<key> [table <table>]'.";
                }
            }
            case "deny", "tarpit" -> {
                for (int i = 0; i < a.size(); i++) {
                    switch (a.get(i)) {
                        case "deny_status", "status" -> {
                            if (i + 1 >= a.size() || !a.get(i + 1).matches("[1-5]\\d\\d")) {
                                return "'" + a.get(i) + "' expects a status code.";
                            }
                            i++;
                        }
                        case "content-type", "string", "lf-string", "errorfile", "file", "lf-file", "errorfiles" -> {
                            if (i + 1 >= a.size()) {
                                return "'" + a.get(i) + "' expects an argument.";
                            }
                            i++;
                        }
                        case "hdr" -> {
                            if (i + 2 >= a.size()) {
                                return "'hdr' expects a name and a value.";
                            }
                            i += 2;
                        }
                        case "default-errorfiles" -> {
                        }
                        default -> {
                            return "unexpected argument '" + a.get(i) + "'.";
                        }
                    }
                }
            }
            case "redirect" -> {
                if (!List.of("location", "prefix", "scheme").contains(a.get(0))) {
                    return "expects 'location', 'prefix' or 'scheme', not '" + a.get(0) + "'.";
                }
                for (int i = 2; i < a.size(); i++) {
                    switch (a.get(i)) {
                        case "code" -> {
                            if (i + 1 >= a.size() || !List.of("301", "302", "303", "307", "308").contains(a.get(i + 1))) {
                                return "'code' expects one of 301, 302, 303, 307, 308.";
                            }
                            i++;
                        }
                        case "set-cookie", "clear-cookie" -> {
                            if (i + 1 >= a.size()) {
                                return "'" + a.get(i) + "' expects a cookie.";
                            }
                            i++;
                        }
                        case "drop-query", "append-slash", "ignore-empty", "keep-query" -> {
                        }
                        default -> {
                            return "unexpected argument '" + a.get(i) + "'.";
                        }
                    }
                }
            }
            case "set-header", "add-header", "del-header", "replace-header", "replace-value" -> {
                boolean regex = name.equals("del-header") && a.size() == 3 && a.get(2).equals("reg");
                if (!regex && !HttpTokens.isToken(a.get(0))) {
                    return "invalid header name '" + a.get(0) + "'.";
                }
                if (name.equals("del-header") && a.size() > 1) {
                    if (a.size() != 3 || !a.get(1).equals("-m") || !List.of("str", "beg", "end", "sub", "reg").contains(a.get(2))) {
                        return "expects '-m str|beg|end|sub|reg' after the name.";
                    }
                }
            }
            case "set-status" -> {
                if (!a.get(0).matches("[1-5]\\d\\d")) {
                    return "invalid status code '" + a.get(0) + "'.";
                }
                if (a.size() > 1 && (a.size() != 3 || !a.get(1).equals("reason"))) {
                    return "expects 'reason <text>' after the status.";
                }
            }
            case "set-timeout" -> {
                if (!List.of("server", "tunnel").contains(a.get(0))) {
                    return "'set-timeout' rule supports 'server'/'tunnel' (got '" + a.get(0) + "').";
                }
            }
            case "auth" -> {
                if (!a.isEmpty() && !a.get(0).equals("realm")) {
                    return "expects either 'if' or 'unless' followed by a condition but found '" + a.get(0) + "'.";
                }
                if (a.size() == 1) {
                    return "missing realm value.";
                }
            }
            case "wait-for-body" -> {
                if (!a.get(0).equals("time")) {
                    return "expects time <time> [ at-least <bytes> ].";
                }
                try {
                    Units.parseTimeMillis(a.get(1));
                } catch (IllegalArgumentException e) {
                    return "invalid time '" + a.get(1) + "': " + e.getMessage();
                }
                if (a.size() > 2) {
                    if (!a.get(2).equals("at-least")) {
                        return "expects either 'if' or 'unless' followed by a condition but found '" + a.get(2) + "'.";
                    }
                    if (a.size() == 3) {
                        return "missing argument for 'at-least'.";
                    }
                    try {
                        Units.parseSize(a.get(3));
                    } catch (IllegalArgumentException e) {
                        return "invalid size '" + a.get(3) + "': " + e.getMessage();
                    }
                }
            }
            case "set-tos", "set-mark" -> {
                return socketValueProblem(a.get(0));
            }
            case "set-retries" -> {
                if (!a.get(0).matches("\\d+")) {
                    return "expects a number of retries.";
                }
            }
            case "capture" -> {
                if (!a.get(1).equals("len") && !a.get(1).equals("id") || !a.get(2).matches("\\d{1,5}")) {
                    return "expects '<sample> len <length>' or '<sample> id <slot>'.";
                }
            }
            case "set-log-level" -> {
                if (!LOG_LEVELS.contains(a.get(0))) {
                    return "expects one of " + String.join(", ", LOG_LEVELS) + ", not '" + a.get(0) + "'.";
                }
            }
            case "strict-mode" -> {
                if (!a.get(0).equals("on") && !a.get(0).equals("off")) {
                    return "Unexpected value '" + a.get(0) + "'. Only 'on' and 'off' are supported.";
                }
            }
            default -> {
            }
        }
        return null;
    }

    /**
     * {@code set-tos} and {@code set-mark}'s value as HAProxy reads it ({@code strtol(v, &end, 0)}, all of it): null when it
     * is one, else HAProxy's message.
     */
    static String socketValueProblem(String v) {
        int end = Units.strtol(v, 0).end();
        return end == v.length() && end > 0 ? null : "invalid character starting at '" + v.substring(end) + "' (integer/hex value expected)";
    }

    /** What HAProxy 2.6 refuses of an action in this rule set or section, or null. */
    private static String checkIn(KeywordContext c, String family, String name, List<String> args) {
        if (name.equals("set-timeout") && c.section() == Section.FRONTEND) {
            return "proxy '" + c.proxy().name + "' has no backend capability.";
        }
        if (name.equals("redirect") && family.equals("http-response") && !args.get(0).equals("location")) {
            return "response only supports redirect type 'location'.";
        }
        return null;
    }

    private static int statusOf(List<String> args, int dflt) {
        for (int i = 0; i + 1 < args.size(); i++) {
            if ((args.get(i).equals("status") || args.get(i).equals("deny_status")) && args.get(i + 1).matches("\\d{3}")) {
                return Integer.parseInt(args.get(i + 1));
            }
        }
        return dflt;
    }

    /**
     * HAProxy's warning for an http-request rule written after a {@code redirect}, {@code use_backend} or {@code use-server}
     * line of the same proxy (see {@link RuleOrder}).
     */
    static void warnAfterRedirect(KeywordContext c) {
        RuleOrder.check(c, RuleOrder.Set.HTTP_REQUEST, "http-request");
    }

    /** The {@code redirect} keyword: an http-request redirect that runs after the http-request rules. */
    private static void redirect(KeywordContext c) {
        List<String> a = c.args();
        int end = c.conditionStart(0);
        List<String> args = typeFirst(a.subList(0, end));
        if (args.size() < 2) {
            c.error("expects 'location', 'prefix' or 'scheme' and a value.");
            return;
        }
        String problem = check("redirect", args);
        if (problem != null) {
            c.error(problem);
            return;
        }
        Condition cond = null;
        if (end < a.size()) {
            cond = c.conditionFrom(end);
            if (cond == null) {
                return;
            }
        }
        RuleOrder.check(c, RuleOrder.Set.REDIRECT, "redirect");
        c.proxy().redirectRules.add(new HttpRule.Action(c.at(), cond, "redirect", args));
    }

    /** {@code redirect} options in any order, as HAProxy reads them: the type and its value moved first. */
    static List<String> typeFirst(List<String> args) {
        for (int i = 0; i + 1 < args.size(); i++) {
            String w = args.get(i);
            if (w.equals("location") || w.equals("prefix") || w.equals("scheme")) {
                if (i == 0) {
                    return args;
                }
                List<String> out = new ArrayList<>(args.size());
                out.add(w);
                out.add(args.get(i + 1));
                out.addAll(args.subList(0, i));
                out.addAll(args.subList(i + 2, args.size()));
                return out;
            }
            if (w.equals("code") || w.equals("set-cookie") || w.equals("clear-cookie")) {
                i++;
            }
        }
        return args;
    }

    /**
     * {@code capture <sample> len <n>} declares a new slot of the frontend, as HAProxy does, and becomes
     * {@code capture <sample> id <slot>}; null (after an error) where that is not allowed.
     */
    private static List<String> captureSlot(KeywordContext c, String family, List<String> args) {
        boolean request = family.equals("http-request");
        if (args.get(1).equals("id")) {
            return args;
        }
        if (!request) {
            c.error("'len' is only allowed in http-request rules; declare the slot with 'declare capture response len <n>' and use 'id'.");
            return null;
        }
        if (c.section() != Section.FRONTEND && c.section() != Section.LISTEN) {
            c.error("proxy '" + c.proxy().name + "' has no frontend capability: 'capture ... len' needs one (use 'id').");
            return null;
        }
        int len = c.intArg(args.get(2), "len", 1, 65535, 0);
        if (len <= 0) {
            return null;
        }
        List<Captures.Slot> slots = c.proxy().requestCaptures;
        slots.add(new Captures.Slot(null, len));
        return List.of(args.get(0), "id", Integer.toString(slots.size() - 1));
    }
}
