package dev.sluice.config;

import dev.sluice.config.model.Captures;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.HttpRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The layer-4 rule sets: {@code tcp-request connection|session|content|inspect-delay} and {@code tcp-response
 * content|inspect-delay}, with HAProxy 2.6's action lists, the sections each is allowed in (rules in named {@code defaults}
 * sections only, which proxies then run before their own: see {@link #useDefaults}), its messages, the warning about a rule
 * placed after one that runs later, and the warnings about layer-6 fetches where they give nothing ({@link L6Fetches}).
 * Actions are parsed into {@link HttpRule.Action}s as written, even those the daemon does not run yet; the actions of the
 * http-request rule sets ({@link RuleKeywords}) keep their checks here. Registered once; parsers run on the parsing thread.
 */
final class TcpRuleKeywords {
    private TcpRuleKeywords() {
    }

    /** A rule set, with what it is called in messages and the actions HAProxy 2.6 lists for it. */
    private enum Ruleset {
        CONNECTION("tcp-request connection", CONNECTION_ACTIONS),
        SESSION("tcp-request session", CONNECTION_ACTIONS),
        CONTENT("tcp-request content", CONTENT_ACTIONS),
        RESPONSE("tcp-response content", RESPONSE_ACTIONS);

        final String keyword;
        /** The actions beyond accept, reject, capture, expect-proxy and track-sc (accept, reject and close for responses), as HAProxy lists them. */
        final List<String> listed;

        Ruleset(String keyword, List<String> listed) {
            this.keyword = keyword;
            this.listed = listed;
        }

        boolean request() {
            return this != RESPONSE;
        }
    }

    private static final List<String> CONNECTION_ACTIONS = List.of("sc-inc-gpc(*)", "sc-inc-gpc0(*)", "sc-inc-gpc1(*)", "sc-set-gpt(*)",
            "sc-set-gpt0(*)", "set-var-fmt(*)", "set-var(*)", "unset-var(*)", "set-dst", "set-dst-port", "set-mark", "set-src", "set-src-port",
            "set-tos", "silent-drop");
    private static final List<String> CONTENT_ACTIONS = List.of("ot-group", "set-log-level", "set-nice", "switch-mode", "use-service",
            "sc-inc-gpc(*)", "sc-inc-gpc0(*)", "sc-inc-gpc1(*)", "sc-set-gpt(*)", "sc-set-gpt0(*)", "send-spoe-group", "do-resolve(*)",
            "set-var-fmt(*)", "set-var(*)", "unset-var(*)", "set-src", "set-src-port", "set-dst", "set-dst-port", "set-mark", "set-tos",
            "silent-drop", "set-priority-class", "set-priority-offset");
    private static final List<String> RESPONSE_ACTIONS = List.of("ot-group", "set-log-level", "set-nice", "sc-inc-gpc(*)", "sc-inc-gpc0(*)",
            "sc-inc-gpc1(*)", "sc-set-gpt(*)", "sc-set-gpt0(*)", "send-spoe-group", "set-var-fmt(*)", "set-var(*)", "unset-var(*)",
            "set-mark", "set-tos", "silent-drop");

    /** Actions of HAProxy 2.6 that need a feature Sluice does not have, with that feature. */
    private static final List<String[]> UNSUPPORTED = List.of(new String[] {"ot-group", "OpenTracing"},
            new String[] {"send-spoe-group", "SPOE/SPOA filters"}, new String[] {"do-resolve", "DNS resolvers"},
            new String[] {"expect-netscaler-cip", "NetScaler client IP insertion"});

    /** Actions taking one sample expression ("missing fetch method" without it). */
    private static final Set<String> ONE_SAMPLE = Set.of("set-src", "set-src-port", "set-dst", "set-dst-port", "set-priority-class",
            "set-priority-offset", "set-var", "set-var-fmt");

    static void register(KeywordRegistry r) {
        r.family("tcp-request", "tcp-request ruleset");
        r.family("tcp-response", "tcp-response ruleset");
        String cond = " [if|unless <cond>]";
        r.register(new Keyword("tcp-request connection", Section.PROXIES,
                "tcp-request connection <accept|reject|expect-proxy layer4|track-sc0..2 <key> [table t]|sc-inc-gpc0(<sc>)|set-var(<v>) <expr>"
                        + "|set-src <expr>|silent-drop|...>" + cond,
                "Rules run once per accepted connection, before any protocol (frontend side; in a named defaults section, run before the"
                        + " proxy's own): reject closes it at once; trackers last as long as the connection and count its requests;"
                        + " expect-proxy layer4 makes the connection start with a PROXY protocol header, as 'bind ... accept-proxy' does.",
                c -> rule(c, Ruleset.CONNECTION)));
        r.register(new Keyword("tcp-request session", Section.PROXIES,
                "tcp-request session <accept|reject|track-sc0..2 <key> [table t]|sc-inc-gpc0(<sc>)|set-var(<v>) <expr>|silent-drop|...>" + cond,
                "Rules run once the session is set up (after the PROXY header and the TLS handshake), frontend side. Parsed and checked;"
                        + " Sluice does not run them yet.", c -> rule(c, Ruleset.SESSION)));
        r.register(new Keyword("tcp-request content", Section.PROXIES,
                "tcp-request content <accept|reject|capture <expr> len <n>|track-sc0..2 <key> [table t]|set-var(<v>) <expr>|switch-mode http"
                        + " [proto h1|h2]|set-log-level <level>|silent-drop|...>" + cond,
                "Rules run on the first bytes of a TCP connection (waiting up to 'tcp-request inspect-delay' for what they need), and for"
                        + " each request before the http-request rules in HTTP mode: reject closes the connection.",
                c -> rule(c, Ruleset.CONTENT)));
        r.register(new Keyword("tcp-request inspect-delay", Section.PROXIES, "tcp-request inspect-delay <time>",
                "How long 'tcp-request content' rules may wait for the data they need before they decide with what arrived.",
                c -> inspectDelay(c, false)));
        r.register(new Keyword("tcp-response content", Section.PROXIES,
                "tcp-response content <accept|reject|close|set-var(<v>) <expr>|sc-inc-gpc0(<sc>)|set-log-level <level>|silent-drop|...>"
                        + cond,
                "Rules run on the first bytes of a server's response (backend side). Parsed and checked; Sluice does not run them yet.",
                c -> rule(c, Ruleset.RESPONSE)));
        r.register(new Keyword("tcp-response inspect-delay", Section.PROXIES, "tcp-response inspect-delay <time>",
                "How long 'tcp-response content' rules may wait for the data they need (backend side).", c -> inspectDelay(c, true)));
    }

    // ---------------------------------------------------------------- messages about the proxy

    /** HAProxy's {@code proxy_type_str}. */
    static String typeOf(Section s) {
        return switch (s) {
            case DEFAULTS -> "defaults";
            case LISTEN -> "proxy";
            default -> s.keyword();
        };
    }

    /** {@code <type> '<name>'}, as HAProxy names the proxy being parsed (an anonymous defaults section is {@code defaults ''}). */
    private static String named(KeywordContext c) {
        return typeOf(c.section()) + " '" + (c.proxy().name == null ? "" : c.proxy().name) + "'";
    }

    private static boolean anonymousDefaults(KeywordContext c) {
        return c.section() == Section.DEFAULTS && c.proxy().name == null;
    }

    private static boolean frontendSide(Section s) {
        return s != Section.BACKEND;
    }

    /** HAProxy's error for a {@code tcp-request}/{@code tcp-response} line without a rule set, or with an unknown one. */
    static String unknownRuleset(String family, String got, Section section, ProxyBuilder p) {
        String where = section == Section.DEFAULTS && family.equals("tcp-request") ? "defaults section"
                : typeOf(section) + " '" + (p.name == null ? "" : p.name) + "'";
        if (got == null) {
            return "missing argument for '" + family + "' in " + where;
        }
        return "'" + family + "' expects " + (family.equals("tcp-request") ? "'inspect-delay', 'connection', or 'content'"
                : "'inspect-delay' or 'content'") + " in " + where + " (got '" + got + "')";
    }

    // ---------------------------------------------------------------- inspect-delay

    private static void inspectDelay(KeywordContext c, boolean response) {
        String kw = response ? "tcp-response inspect-delay" : "tcp-request inspect-delay";
        if (response ? anonymousDefaults(c) || c.section() == Section.FRONTEND : anonymousDefaults(c)) {
            c.lineError(response ? kw + " is only allowed in 'backend' sections or 'defaults' section with a name"
                    : kw + " is not allowed in anonymous 'defaults' sections");
            return;
        }
        String problem = c.args().isEmpty() ? "" : delayProblem(c.args().get(0));
        if (problem != null) {
            c.lineError("'" + kw + "' expects a positive delay in milliseconds, in " + named(c) + problem);
            return;
        }
        long v = delay(c.args().get(0));
        ProxyBuilder p = c.proxy();
        if ((response ? p.tcpResponseInspectDelay : p.tcpInspectDelay) != 0) {
            c.lineWarning("ignoring " + kw + " (was already defined) in " + named(c));
            return;
        }
        if (response) {
            p.tcpResponseInspectDelay = v;
        } else {
            p.tcpInspectDelay = v;
        }
    }

    private static final String[] UNITS = {"us", "ms", "s", "m", "h", "d"};
    private static final long[] UNIT_US = {1, 1000, 1000_000, 60_000_000, 3600_000_000L, 86_400_000_000L};

    /** What HAProxy's {@code parse_time_err} says about a delay (null when fine): the character it stops at, or the range. */
    static String delayProblem(String v) {
        int i = 0;
        while (i < v.length() && Character.isDigit(v.charAt(i))) {
            i++;
        }
        String rest = v.substring(i);
        int unit = unitOf(rest);
        String after = unit < 0 ? rest : rest.substring(UNITS[unit].length());
        if (!after.isEmpty()) {
            return " (unexpected character '" + after.charAt(0) + "')";
        }
        if (i == 0) {
            return null;
        }
        double us = Double.parseDouble(v.substring(0, i)) * UNIT_US[unit < 0 ? 1 : unit];
        if (us / 1000 > Integer.MAX_VALUE) {
            return " (timer overflow in '" + v + "', maximum value is 2147483647 ms or ~24.8 days)";
        }
        if (us > 0 && us < 1000) {
            return " (timer underflow in '" + v + "', minimum non-null value is 1 ms)";
        }
        return null;
    }

    private static int unitOf(String rest) {
        for (int u = 0; u < UNITS.length; u++) {
            if (rest.startsWith(UNITS[u])) {
                return u;
            }
        }
        return -1;
    }

    /** A delay {@link #delayProblem} accepted, in milliseconds (no digits: 0, as HAProxy). */
    private static long delay(String v) {
        int i = 0;
        while (i < v.length() && Character.isDigit(v.charAt(i))) {
            i++;
        }
        if (i == 0) {
            return 0;
        }
        int unit = unitOf(v.substring(i));
        return Long.parseLong(v.substring(0, i)) * UNIT_US[unit < 0 ? 1 : unit] / 1000;
    }

    // ---------------------------------------------------------------- rules

    private static void rule(KeywordContext c, Ruleset set) {
        Section s = c.section();
        String family = set.request() ? "tcp-request" : "tcp-response";
        String rs = set.keyword.substring(family.length() + 1);
        if ((set == Ruleset.CONNECTION || set == Ruleset.SESSION) && s == Section.BACKEND) {
            c.lineError(set.keyword + " is not allowed because " + named(c).replace("'", "") + " is not a frontend");
            return;
        }
        if (!set.request() && (anonymousDefaults(c) || s == Section.FRONTEND)) {
            c.lineError(set.keyword + " is only allowed in 'backend' sections or 'defaults' section with a name");
            return;
        }
        if (set.request() && anonymousDefaults(c)) {
            c.lineError(set.keyword + " is not allowed in anonymous 'defaults' sections");
            return;
        }
        List<String> a = c.args();
        String word = a.isEmpty() ? "" : a.get(0);
        String name = KeywordRegistry.stripParens(word);
        int end = c.conditionStart(1);
        List<String> args = a.isEmpty() ? List.of() : a.subList(1, end);
        String prefix = "'" + set.keyword + " " + word + "'";
        String problem = action(c, set, word, name, args, prefix);
        if (problem == null) {
            return;
        }
        if (!problem.isEmpty()) {
            c.lineError(problem);
            return;
        }
        // the action is fine: what follows it must be a condition
        Condition cond = null;
        if (end < a.size()) {
            cond = condition(c, set, word, a.subList(end, a.size()));
            if (cond == null) {
                return;
            }
        }
        if (name.equals("capture")) {
            // as HAProxy: a capture slot of the frontend, which the rule fills
            List<Captures.Slot> slots = c.proxy().requestCaptures;
            slots.add(new Captures.Slot(null, atoi(args.get(2))));
            args = List.of(args.get(0), "id", Integer.toString(slots.size() - 1));
        }
        warnMisplaced(c, set);
        String conflict = L6Fetches.conflict(cond, c.proxy().acls, place(set, s), set.keyword);
        if (conflict != null) {
            c.lineWarning(conflict);
        }
        HttpRule rule = new HttpRule.Action(c.at(), cond, word, args);
        ProxyBuilder p = c.proxy();
        (switch (set) {
            case CONNECTION -> p.tcpRequestConnectionRules;
            case SESSION -> p.tcpRequestSessionRules;
            case CONTENT -> p.tcpRequestContentRules;
            case RESPONSE -> p.tcpResponseContentRules;
        }).add(rule);
    }

    private static L6Fetches.Place place(Ruleset set, Section s) {
        return switch (set) {
            case CONNECTION -> L6Fetches.Place.CONNECTION;
            case SESSION -> L6Fetches.Place.SESSION;
            case CONTENT -> frontendSide(s) ? L6Fetches.Place.FRONTEND_CONTENT : L6Fetches.Place.BACKEND_CONTENT;
            case RESPONSE -> L6Fetches.Place.RESPONSE_CONTENT;
        };
    }

    /**
     * Checks one action and its arguments: null after reporting a problem in Sluice's words, "" when the action is
     * fine, else HAProxy's message (reported as it is).
     */
    private static String action(KeywordContext c, Ruleset set, String word, String name, List<String> args, String prefix) {
        String onlyIf = prefix + " only accepts 'if' or 'unless', in " + named(c) + " (got '%s')";
        switch (name) {
            case "accept", "reject", "silent-drop" -> {
                return args.isEmpty() ? "" : onlyIf.formatted(args.get(0));
            }
            case "close" -> {
                if (!set.request()) {
                    return args.isEmpty() ? "" : onlyIf.formatted(args.get(0));
                }
            }
            case "expect-proxy", "expect-netscaler-cip" -> {
                if (!set.request()) {
                    break;
                }
                String mode = args.isEmpty() ? "" : args.get(0);
                if (!mode.equals("layer4")) {
                    return "'" + set.keyword + " " + word + "' only supports 'layer4' in " + named(c) + " (got '" + mode + "')";
                }
                if (set != Ruleset.CONNECTION) {
                    return "'" + word + " layer4' is not allowed in '" + set.keyword + "' rules in " + named(c);
                }
                if (name.equals("expect-netscaler-cip")) {
                    return unsupported(c, set, name);
                }
                return args.size() > 1 ? onlyIf.formatted(args.get(1)) : "";
            }
            case "capture" -> {
                if (set.request()) {
                    return capture(c, set, args, prefix, onlyIf);
                }
            }
            default -> {
            }
        }
        if (set.request() && name.startsWith("track-sc")) {
            return trackSc(c, set, name, args, prefix, onlyIf);
        }
        if (!listed(set, name)) {
            return unknownAction(c, set, word);
        }
        for (String[] u : UNSUPPORTED) {
            if (u[0].equals(name)) {
                return unsupported(c, set, name);
            }
        }
        return listedAction(c, set, word, name, args, onlyIf);
    }

    private static boolean listed(Ruleset set, String name) {
        for (String l : set.listed) {
            if (l.equals(name) || l.equals(name + "(*)")) {
                return true;
            }
        }
        // 'sc-add-gpc' came with HAProxy 2.7; Sluice has it wherever the other stick-counter actions are
        return name.equals("sc-add-gpc");
    }

    private static String unsupported(KeywordContext c, Ruleset set, String name) {
        for (String[] u : UNSUPPORTED) {
            if (u[0].equals(name)) {
                c.lineError("'" + set.keyword + " " + name + "' is not supported by Sluice yet: " + u[1] + ".");
            }
        }
        return null;
    }

    private static String unknownAction(KeywordContext c, Ruleset set, String word) {
        List<String> known = new ArrayList<>(set.request()
                ? List.of("accept", "reject", "capture", "track-sc", "expect-proxy", "expect-netscaler-cip")
                : List.of("accept", "reject", "close"));
        StringBuilder listed = new StringBuilder();
        for (String l : set.listed) {
            known.add(l.replace("(*)", ""));
            listed.append(listed.isEmpty() ? "" : ", ").append('\'').append(l).append('\'');
        }
        String best = word.isEmpty() ? null : Suggestions.closest(KeywordRegistry.stripParens(word), known);
        return "'" + set.keyword + "' expects " + (set.request()
                ? "'accept', 'reject', 'capture', 'expect-proxy', 'expect-netscaler-cip', 'track-sc0' ... 'track-sc2', "
                : "'accept', 'close', 'reject', ") + listed + " in " + named(c) + " (got '" + word + "')."
                + (best == null ? "" : " Did you mean '" + best + "' maybe ?");
    }

    private static String capture(KeywordContext c, Ruleset set, List<String> args, String prefix, String onlyIf) {
        if (!frontendSide(c.section())) {
            return prefix + " : proxy '" + c.proxy().name + "' has no frontend capability";
        }
        if (set != Ruleset.CONTENT) {
            return "'capture " + (args.isEmpty() ? "" : args.get(0)) + "' is not allowed in '" + set.keyword + "' rules in " + named(c);
        }
        if (args.isEmpty()) {
            return prefix + " : missing fetch method";
        }
        String problem = fetchProblem(set, c.section(), args.get(0), prefix);
        if (problem != null) {
            return problem;
        }
        if (args.size() < 2 || !args.get(1).equals("len")) {
            return args.size() >= 2 ? onlyIf.formatted(args.get(1)) : prefix + " : a positive 'len' argument is mandatory";
        }
        if (args.size() < 3) {
            return prefix + " : missing length value";
        }
        if (atoi(args.get(2)) <= 0) {
            return prefix + " : length must be > 0";
        }
        if (c.section() == Section.DEFAULTS) {
            c.error("'capture' in a defaults section is not supported by Sluice: declare it in the frontend.");
            return null;
        }
        return args.size() > 3 ? onlyIf.formatted(args.get(3)) : "";
    }

    private static String trackSc(KeywordContext c, Ruleset set, String name, List<String> args, String prefix, String onlyIf) {
        String n = name.substring("track-sc".length());
        if (!n.matches("\\d+")) {
            return prefix + " : Wrong track-sc number '" + n + "'";
        }
        if (Integer.parseInt(n) > 2) {
            return prefix + " : " + n + " track-sc number exceeding 2 (MAX_SESS_STKCTR-1) value";
        }
        if (args.isEmpty()) {
            return prefix + " : missing fetch method";
        }
        String problem = fetchProblem(set, c.section(), args.get(0), prefix);
        if (problem != null) {
            return problem;
        }
        if (args.size() > 1 && !args.get(1).equals("table")) {
            return onlyIf.formatted(args.get(1));
        }
        if (args.size() > 3) {
            return onlyIf.formatted(args.get(3));
        }
        String check = RuleKeywords.check(name, args);
        if (check != null) {
            c.error(check);
            return null;
        }
        return "";
    }

    /** HAProxy's error for a sample of a capture or tracker that reads a buffer this rule set cannot see, or null. */
    private static String fetchProblem(Ruleset set, Section s, String sample, String prefix) {
        L6Fetches.Reads r = L6Fetches.reads(sample);
        if (r == null || place(set, s).allows(r)) {
            return null;
        }
        String from = switch (r) {
            case REQUEST -> "request buffer";
            case RESPONSE -> "response buffer";
            case BOTH -> "request buffer, response buffer";
        };
        return prefix + " : fetch method '" + L6Fetches.fetchName(sample) + "' extracts information from '" + from
                + "', none of which is available here";
    }

    /** The actions of HAProxy's per-rule-set lists (stick counters, variables, addresses, marks, switch-mode, ...). */
    private static String listedAction(KeywordContext c, Ruleset set, String word, String name, List<String> args, String onlyIf) {
        RuleKeywords.Spec spec = RuleKeywords.spec(name);
        int open = word.indexOf('(');
        String inner = open < 0 || !word.endsWith(")") ? null : word.substring(open + 1, word.length() - 1);
        if (inner != null && (name.endsWith("-var") || name.equals("set-var-fmt"))) {
            String var = inner.split(",")[0];
            if (!var.matches("(proc|sess|txn|req|res)\\..+")) {
                // HAProxy's words ('check' is the scope of tcp-check rules)
                return "invalid variable name '" + var + "'. A variable name must be start by its scope. The scope can be 'proc', 'sess',"
                        + " 'txn', 'req', 'res' or 'check'";
            }
        }
        if (inner != null && name.startsWith("sc-") && inner.matches("(\\d+,)?\\d{1,9}") && Integer.parseInt(inner.replaceAll("^\\d+,", "")) > 2) {
            return "invalid stick table track ID. The max allowed ID is 2";
        }
        if (spec != null) {
            String problem = RuleKeywords.wordProblem(spec, word);
            if (problem != null) {
                c.error(problem);
                return null;
            }
        }
        int max = switch (name) {
            case "sc-inc-gpc", "sc-inc-gpc0", "sc-inc-gpc1", "unset-var" -> 0;
            case "switch-mode" -> 3;
            default -> 1;
        };
        if (args.isEmpty() && max > 0) {
            return switch (name) {
                case "set-mark", "set-tos" -> "expects exactly 1 argument (integer/hex value)";
                case "set-nice" -> "expects exactly 1 argument (integer value)";
                case "set-log-level" -> "expects exactly 1 argument (log level name or 'silent')";
                case "switch-mode" -> "'tcp-request switch-mode' expects a mode as argument.";
                case "use-service" -> "'" + set.keyword.substring(set.keyword.indexOf(' ') + 1) + "' expects a service name.";
                default -> ONE_SAMPLE.contains(name) ? "missing fetch method"
                        : "'" + name + "' expects an argument; syntax: " + set.keyword + " " + (spec == null ? name : spec.syntax()) + ".";
            };
        }
        switch (name) {
            case "set-log-level" -> {
                if (!RuleKeywords.LOG_LEVELS.contains(args.get(0))) {
                    return "expects exactly 1 argument (log level name or 'silent')";
                }
            }
            case "set-tos", "set-mark" -> {
                String problem = RuleKeywords.socketValueProblem(args.get(0));
                if (problem != null) {
                    return problem;
                }
            }
            case "set-nice" -> c.warning(RuleKeywords.SET_NICE);
            case "switch-mode" -> {
                if (!frontendSide(c.section())) {
                    return "'tcp-request switch-mode' not allowed because backend '" + c.proxy().name + "' has no frontend capability";
                }
                if (!args.get(0).equals("http")) {
                    return "'tcp-request switch-mode' expects a valid mode (got '" + args.get(0) + "').";
                }
                if (args.size() > 1) {
                    if (!args.get(1).equals("proto")) {
                        return "'" + set.keyword + " " + word + "' only accepts 'if' or 'unless', in " + named(c) + " (got '" + args.get(1) + "')";
                    }
                    if (args.size() == 2) {
                        return "'tcp-request switch-mode': 'proto' expects a protocol as argument.";
                    }
                    if (!args.get(2).equals("h1") && !args.get(2).equals("h2")) {
                        return "'tcp-request switch-mode': 'proto' expects a valid MUX protocol, if specified (got '" + args.get(2) + "')";
                    }
                }
            }
            case "use-service" -> {
                if (args.get(0).equals("prometheus-exporter")) {
                    return "Prometheus exporter service only available on 'http-request' rulesets";
                }
                return "'" + set.keyword.substring(set.keyword.indexOf(' ') + 1) + "' unknown service name.";
            }
            default -> {
                String problem = RuleKeywords.check(name, args);
                if (problem != null) {
                    c.error(problem);
                    return null;
                }
            }
        }
        return args.size() > max ? onlyIf.formatted(args.get(max)) : "";
    }

    private static int atoi(String s) {
        int i = 0;
        while (i < s.length() && i < 9 && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i == 0 ? 0 : Integer.parseInt(s.substring(0, i));
    }

    /** The condition of a rule, with HAProxy's messages; null after reporting a problem. */
    private static Condition condition(KeywordContext c, Ruleset set, String word, List<String> words) {
        String what = "'" + set.keyword + " " + word + "' : error detected in " + named(c) + " while parsing '" + words.get(0)
                + "' condition : ";
        Condition cond;
        try {
            cond = ConditionParser.parse(words.get(0).equals("unless"), words.subList(1, words.size()));
        } catch (IllegalArgumentException e) {
            c.lineError(what + e.getMessage());
            return null;
        }
        // as HAProxy: a named ACL must be declared before the rule that uses it
        for (List<Condition.Term> and : cond.alternatives()) {
            for (Condition.Term t : and) {
                String n = t.aclName();
                if (n != null && !Predefined.ACLS.contains(n) && c.proxy().acls.stream().noneMatch(a -> a.name().equals(n))) {
                    c.lineError(what + "no such ACL : '" + n + "'");
                    return null;
                }
            }
        }
        return cond;
    }

    /** HAProxy's warning for a rule placed after one of another set that runs after it ({@code warnif_misplaced_tcp_*}). */
    private static void warnMisplaced(KeywordContext c, Ruleset set) {
        switch (set) {
            case CONNECTION -> RuleOrder.check(c, RuleOrder.Set.TCP_CONNECTION, "tcp-request");
            case SESSION -> RuleOrder.check(c, RuleOrder.Set.TCP_SESSION, "tcp-request");
            case CONTENT -> RuleOrder.check(c, RuleOrder.Set.TCP_CONTENT, "tcp-request");
            case RESPONSE -> {
            }
        }
    }

    // ---------------------------------------------------------------- named defaults with rules

    /**
     * HAProxy 2.6's rules on a proxy that inherits a defaults section with tcp-request/tcp-response rules: it runs them
     * before its own, unless it may not use them (a defaults or listen section, frontends and backends sharing one, a
     * backend with connection or session rules, a frontend with response rules). Messages are HAProxy's; the section line
     * is {@code at}.
     */
    static void useDefaults(ProxyBuilder p, ProxyBuilder d, SourceRef at, Diagnostics diags) {
        if (!d.hasTcpRules()) {
            return;
        }
        String dat = " (defaults section at " + d.where + ")";
        String problem;
        if (p.section == Section.DEFAULTS) {
            problem = "a defaults section cannot inherit from a defaults section defining TCP/HTTP rules" + dat + ".";
        } else if (p.section == Section.LISTEN) {
            problem = "a listen section cannot inherit from a defaults section defining TCP/HTTP rules.";
        } else if (d.rulesUsedBy != null && d.rulesUsedBy != p.section) {
            problem = "frontends and backends cannot inherit from the same defaults section if it defines TCP/HTTP rules" + dat + ".";
        } else if (p.section == Section.BACKEND && (!d.tcpRequestConnectionRules.isEmpty() || !d.tcpRequestSessionRules.isEmpty())) {
            problem = "a backend section cannot inherit from a defaults section defining 'tcp-request connection' or 'tcp-request session'"
                    + " rules" + dat + ".";
        } else if (p.section == Section.FRONTEND && !d.tcpResponseContentRules.isEmpty()) {
            problem = "a frontend section cannot inherit from a defaults section defining 'tcp-response content' rules" + dat + ".";
        } else {
            d.rulesUsedBy = p.section;
            p.rulesDefaults = d;
            return;
        }
        diags.error(at, problem);
    }
}
