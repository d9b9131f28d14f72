package dev.sluice.config;

import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.TcpCheck;
import dev.sluice.config.model.TcpCheck.Connect;
import dev.sluice.config.model.TcpCheck.Expect;
import dev.sluice.config.model.TcpCheck.ExpectKind;
import dev.sluice.config.model.TcpCheck.Rule;
import dev.sluice.config.model.TcpCheck.Send;
import dev.sluice.config.model.TcpCheck.SendKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code option tcp-check} and the {@code tcp-check} rules ({@code connect}, {@code send}, {@code send-lf},
 * {@code send-binary}, {@code send-binary-lf}, {@code expect}, {@code comment}, {@code set-var}, {@code set-var-fmt},
 * {@code unset-var}), with HAProxy 2.6's messages; the protocol options are in {@link ProtocolChecks}. Which rule set a
 * backend runs follows HAProxy: the last check option wins, {@code tcp-check} rules are used once {@code option
 * tcp-check} is on (else they are reported unused), a proxy's own rules replace those of its defaults section. Sample
 * expressions and log-format strings are compiled (and their errors reported) by the runtime.
 */
final class TcpCheckKeywords {
    private TcpCheckKeywords() {
    }

    /**
     * The tcp-check state of a proxy or defaults section while it is parsed (HAProxy's {@code tcpcheck_rules} of the
     * proxy and its own rule set).
     */
    static final class State {
        /** The protocol of the rule set in use; null when the check is not a tcp-check (none, or HTTP). */
        TcpCheck.Kind kind;
        /** The rules in use (this section's own list, its defaults' or a built-in set); null: none yet. */
        List<Rule> rules;
        /** This section's {@code tcp-check} rules. */
        List<Rule> own = new ArrayList<>();
        /** Whether {@link #own} has rules that no {@code option tcp-check} uses (yet). */
        boolean unused;
        List<TcpCheck.Var> vars = List.of();

        /** What a proxy that follows this defaults section starts with: its rule set in use, no rule of its own. */
        State inherited() {
            State s = new State();
            s.kind = kind;
            s.rules = rules == null ? null : List.copyOf(rules);
            s.vars = vars;
            return s;
        }

        /** {@code option httpchk}: the check is an HTTP one from now on. */
        void httpchk() {
            kind = null;
            rules = null;
            vars = List.of();
            unused = false;
        }

        /** A protocol option: its built-in rule set and variables. */
        void protocol(TcpCheck.Kind k, List<Rule> builtIn, List<TcpCheck.Var> presets) {
            kind = k;
            rules = builtIn;
            vars = presets;
            unused = false;
        }

        TcpCheck build() {
            return kind == null ? null : new TcpCheck(kind, rules == null ? List.of() : rules, vars);
        }
    }

    static final String CONNECT_SYNTAX = "tcp-check connect [default] [port <expr>] [addr <ip>] [send-proxy] [via-socks4] [ssl] [sni <sni>]"
            + " [alpn <alpn>] [linger] [proto <name>] [comment <msg>]";
    static final String EXPECT_SYNTAX = "tcp-check expect [min-recv <int>] [comment <msg>] [ok-status <st>] [error-status <st>]"
            + " [tout-status <st>] [on-success <fmt>] [on-error <fmt>] [status-code <expr>] [!] string|rstring|binary|rbinary|string-lf"
            + "|binary-lf <pattern>";

    private static final String RULE_LIST = "'comment', 'connect', 'send', 'send-binary', 'expect', 'set-var-fmt(*)', 'set-var(*)',"
            + " 'unset-var(*)'";

    static void register(KeywordRegistry r) {
        r.family("tcp-check", "tcp-check rule");
        r.register(new Keyword("option tcp-check", Section.PROXIES, "option tcp-check",
                "Check servers with the 'tcp-check' rules (connect, send, expect) of the backend; without rules, a connection.",
                TcpCheckKeywords::option));
        r.register(new Keyword("tcp-check connect", Section.PROXIES, CONNECT_SYNTAX,
                "Open the check's connection (the first rule, or again later): to another port or address, with TLS, SNI, ALPN,"
                        + " a PROXY header; 'linger' closes it without a reset.",
                c -> add(c, connect(c))));
        for (String w : List.of("send", "send-lf", "send-binary", "send-binary-lf")) {
            r.register(new Keyword("tcp-check " + w, Section.PROXIES, "tcp-check " + w + " <data> [comment <msg>]",
                    switch (w) {
                        case "send" -> "Send a string on the check's connection.";
                        case "send-lf" -> "Send a log-format string (sample expressions rendered at each check).";
                        case "send-binary" -> "Send bytes written as hex digits.";
                        default -> "Send bytes written as hex digits produced by a log-format string.";
                    }, c -> add(c, send(c))));
        }
        r.register(new Keyword("tcp-check expect", Section.PROXIES, EXPECT_SYNTAX,
                "Wait for an answer that contains a string, matches a regex, contains bytes ('!': does not); the first failing"
                        + " rule ends the check with its status and message.",
                c -> add(c, expect(c))));
        r.register(new Keyword("tcp-check comment", Section.PROXIES, "tcp-check comment <msg>",
                "A comment the following rules report in their messages.", c -> {
                    if (c.args().isEmpty()) {
                        rejected(c, "expects a string as argument");
                        return;
                    }
                    add(c, new TcpCheck.Comment(c.at(), 0, c.args().get(0)));
                }));
        for (String w : List.of("set-var", "set-var-fmt", "unset-var")) {
            r.register(new Keyword("tcp-check " + w, Section.PROXIES, "tcp-check " + w + "(<name>)" + (w.equals("unset-var") ? ""
                    : w.equals("set-var") ? " <expr>" : " <fmt>"), "Set or unset a variable (scope check., proc., ...) the following rules read.",
                    c -> add(c, setVar(c, w))));
        }
    }

    /** HAProxy's message for a second word the family does not know (or none). */
    static String unknownRule(String got) {
        return "'tcp-check' only supports " + RULE_LIST + ". but got '" + (got == null ? "" : got) + "'";
    }

    /** HAProxy's warning for a check keyword in a frontend: it parses the line and ignores it. */
    private static void warnIfFrontend(KeywordContext c, String what) {
        if (c.section() == Section.FRONTEND) {
            c.lineWarning("'" + what + "' ignored because frontend '" + c.proxy().name + "' has no backend capability.");
        }
    }

    private static void option(KeywordContext c) {
        if (c.negated()) {
            c.lineError("negation/default is not supported for option 'tcp-check'.");
            return;
        }
        warnIfFrontend(c, "tcp-check");
        if (!c.args().isEmpty()) {
            c.lineError("'option tcp-check' cannot handle unexpected argument '" + c.args().get(0) + "'.");
            return;
        }
        CheckKeywords.Builder b = c.proxy().checks;
        State t = b.tcp;
        b.httpchk = false;
        b.external = false;
        if (t.kind == TcpCheck.Kind.TCP && t.rules != null) {
            // the rule set in use stays (inherited from defaults, or this section's)
            return;
        }
        t.kind = TcpCheck.Kind.TCP;
        t.rules = t.own;
        t.vars = List.of();
        t.unused = false;
    }

    /** Reports a rule's error as HAProxy does: {@code 'tcp-check <rule>' : <message>.} */
    private static void rejected(KeywordContext c, String message) {
        c.lineError("'" + c.keyword() + "' : " + message + ".");
    }

    private static void add(KeywordContext c, Rule parsed) {
        if (parsed == null) {
            return;
        }
        warnIfFrontend(c, "tcp-check");
        State t = c.proxy().checks.tcp;
        Rule r = withIndex(parsed, t.own.size());
        t.own.add(r);
        if (t.kind == TcpCheck.Kind.TCP && !c.proxy().checks.httpchk) {
            t.rules = t.own;
            t.unused = false;
        } else {
            t.unused = true;
        }
    }

    /** The rule with its place in its rule set. */
    static Rule withIndex(Rule r, int i) {
        return switch (r) {
            case Connect x -> new Connect(x.where(), i, x.comment(), x.port(), x.portExpr(), x.addr(), x.addrPort(), x.useDefault(), x.sendProxy(),
                    x.viaSocks4(), x.ssl(), x.sni(), x.alpn(), x.linger());
            case Send x -> new Send(x.where(), i, x.comment(), x.kind(), x.data());
            case Expect x -> new Expect(x.where(), i, x.comment(), x.kind(), x.inverse(), x.pattern(), x.minRecv(), x.okStatus(), x.errorStatus(),
                    x.timeoutStatus(), x.onSuccess(), x.onError(), x.statusCode());
            case TcpCheck.Comment x -> new TcpCheck.Comment(x.where(), i, x.comment());
            case TcpCheck.SetVar x -> new TcpCheck.SetVar(x.where(), i, x.name(), x.value(), x.format());
        };
    }

    // ------------------------------------------------------------------ connect

    /** A {@code tcp-check connect} or {@code http-check connect} line (the keyword says which); null after an error. */
    static Connect connect(KeywordContext c) {
        boolean http = c.keyword().startsWith("http-check");
        for (Rule r : http ? List.<Rule>of() : c.proxy().checks.tcp.own) {
            if (r instanceof Connect) {
                break;
            }
            if (!(r instanceof TcpCheck.Comment) && !(r instanceof TcpCheck.SetVar)) {
                rejected(c, "first step MUST also be a 'connect', optionally preceded by a 'set-var', an 'unset-var' or a 'comment', when there"
                        + " is a 'connect' step in the tcp-check ruleset");
                return null;
            }
        }
        List<String> a = c.args();
        int port = 0;
        String portExpr = null;
        String addr = null;
        int addrPort = 0;
        String comment = null;
        String sni = null;
        String alpn = null;
        boolean dflt = false;
        boolean sendProxy = false;
        boolean socks = false;
        boolean ssl = false;
        boolean linger = false;
        for (int i = 0; i < a.size(); i++) {
            String w = a.get(i);
            String next = i + 1 < a.size() ? a.get(i + 1) : "";
            switch (w) {
                case "default" -> dflt = true;
                case "send-proxy" -> sendProxy = true;
                case "via-socks4" -> socks = true;
                case "linger" -> linger = true;
                case "ssl" -> ssl = true;
                case "addr" -> {
                    if (next.isEmpty()) {
                        rejected(c, "'addr' expects <ipv4|ipv6> as argument.");
                        return null;
                    }
                    String v = next.startsWith("ipv4@") || next.startsWith("ipv6@") ? next.substring(5) : next;
                    Addresses.HostPort hp;
                    try {
                        hp = Addresses.split(v, false);
                    } catch (IllegalArgumentException e) {
                        rejected(c, "'addr' : invalid port '" + v.substring(v.lastIndexOf(':') + 1) + "'.");
                        return null;
                    }
                    if (hp.host().isEmpty() || hp.host().indexOf(':') >= 0 && !v.startsWith("[")) {
                        rejected(c, "'addr' : invalid address: '" + hp.host() + "' in '" + next + "'");
                        return null;
                    }
                    addr = hp.host();
                    addrPort = hp.port();
                    i++;
                }
                case "port" -> {
                    if (next.isEmpty()) {
                        rejected(c, "'port' expects a port number or a sample expression as argument.");
                        return null;
                    }
                    i++;
                    if (next.chars().allMatch(Character::isDigit)) {
                        long p = next.length() > 6 ? Long.MAX_VALUE : Long.parseLong(next);
                        if (p < 1 || p > 65535) {
                            rejected(c, "expects a valid TCP port (from range 1 to 65535) or a sample expression, got " + next + ".");
                            return null;
                        }
                        port = (int) p;
                        portExpr = null;
                    } else {
                        port = 0;
                        portExpr = next;
                    }
                }
                case "proto" -> {
                    if (next.isEmpty()) {
                        rejected(c, "'proto' expects a MUX protocol as argument.");
                        return null;
                    }
                    switch (next) {
                        case "none" -> {
                        }
                        case "h1" -> {
                            if (!http) {
                                rejected(c, "'proto' : invalid MUX protocol '" + next + "' for tcp-check");
                                return null;
                            }
                        }
                        case "fcgi" -> {
                            if (!http) {
                                rejected(c, "'proto' : invalid MUX protocol '" + next + "' for tcp-check");
                                return null;
                            }
                        }
                        case "h2" -> {
                            if (!http) {
                                rejected(c, "'proto' : invalid MUX protocol '" + next + "' for tcp-check");
                                return null;
                            }
                        }
                        case "quic" -> {
                            rejected(c, "'proto' : invalid MUX protocol '" + next + "' for " + (http ? "http-check" : "tcp-check"));
                            return null;
                        }
                        default -> {
                            rejected(c, "'proto' : unknown MUX protocol '" + next + "'.");
                            return null;
                        }
                    }
                    i++;
                }
                case "comment", "sni" -> {
                    if (next.isEmpty()) {
                        rejected(c, "'" + w + "' expects a string as argument.");
                        return null;
                    }
                    if (w.equals("comment")) {
                        comment = next;
                    } else {
                        sni = next;
                    }
                    i++;
                }
                case "alpn" -> {
                    String problem = alpnProblem(next);
                    if (problem != null) {
                        rejected(c, "'alpn' : " + problem);
                        return null;
                    }
                    alpn = next;
                    i++;
                }
                default -> {
                    rejected(c, "expects 'comment', 'port', 'addr', 'send-proxy', 'ssl', 'sni', 'alpn' or 'via-socks4', 'linger', 'default' but got '"
                            + w + "' as argument.");
                    return null;
                }
            }
        }
        return new Connect(c.at(), 0, comment, port, portExpr, addr, addrPort, dflt, sendProxy, socks, ssl, sni, alpn, linger);
    }

    /** HAProxy's objection to an ALPN list ({@code h2,http/1.1}), or null. */
    private static String alpnProblem(String v) {
        if (v.isEmpty()) {
            return "missing the comma-delimited ALPN protocol suite";
        }
        for (String p : v.split(",", -1)) {
            if (p.length() > 255) {
                return "ALPN protocol name too long : '" + p + "'";
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ send

    private static Send send(KeywordContext c) {
        String w = c.words().get(1);
        SendKind kind = switch (w) {
            case "send-binary-lf" -> SendKind.BINARY_LF;
            case "send-binary" -> SendKind.BINARY;
            case "send-lf" -> SendKind.STRING_LF;
            default -> SendKind.STRING;
        };
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            // HAProxy's words, the two arguments swapped
            rejected(c, "'" + (kind == SendKind.BINARY ? "binary string" : "string") + "' expects a " + w + " as argument");
            return null;
        }
        String data = a.get(0);
        String comment = null;
        for (int i = 1; i < a.size(); i++) {
            if (!a.get(i).equals("comment")) {
                rejected(c, "expects 'comment' but got '" + a.get(i) + "' as argument.");
                return null;
            }
            if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                rejected(c, "'comment' expects a string as argument.");
                return null;
            }
            comment = a.get(++i);
        }
        switch (kind) {
            case BINARY -> {
                String bad = binaryProblem(data);
                if (bad != null) {
                    rejected(c, "'" + data + "' invalid binary string (" + bad + ")");
                    return null;
                }
            }
            case STRING_LF, BINARY_LF -> {
                if (!logFormat(c, data)) {
                    return null;
                }
            }
            default -> {
            }
        }
        return new Send(c.at(), 0, comment, kind, data);
    }

    /** Why hex digits do not make bytes (HAProxy's parse_binary), or null. */
    static String binaryProblem(String hex) {
        if (hex.length() % 2 != 0) {
            return "an even number of hex digit is expected";
        }
        for (int i = 0; i < hex.length(); i++) {
            if (Character.digit(hex.charAt(i), 16) < 0) {
                return "an hex digit is expected (found '" + hex.charAt(i) + "')";
            }
        }
        return null;
    }

    /** Checks the syntax of a log-format argument (its samples are compiled by the runtime). */
    private static boolean logFormat(KeywordContext c, String text) {
        try {
            LogFormats.parse(text, true);
            return true;
        } catch (IllegalArgumentException e) {
            rejected(c, "'" + text + "' invalid log-format string (" + e.getMessage() + ")");
            return false;
        }
    }

    // ------------------------------------------------------------------ expect

    private static final List<String> OK_STATUSES = List.of("L7OK", "L7OKC", "L6OK", "L4OK");
    private static final List<String> ERROR_STATUSES = List.of("L7RSP", "L7STS", "L7OKC", "L6RSP", "L4CON");
    private static final List<String> TIMEOUT_STATUSES = List.of("L7TOUT", "L6TOUT", "L4TOUT");

    private static Expect expect(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            rejected(c, "expects at least a matching pattern as arguments");
            return null;
        }
        ExpectKind kind = null;
        String pattern = null;
        boolean inverse = false;
        int minRecv = -1;
        String comment = null;
        String ok = null;
        String error = null;
        String tout = null;
        String onSuccess = null;
        String onError = null;
        String statusCode = null;
        for (int i = 0; i < a.size(); i++) {
            String w = a.get(i);
            boolean inPattern = false;
            if (w.startsWith("!")) {
                inPattern = true;
                int n = 0;
                while (n < w.length() && w.charAt(n) == '!') {
                    inverse = !inverse;
                    n++;
                }
                w = w.substring(n);
                if (w.isEmpty()) {
                    i++;
                    w = i < a.size() ? a.get(i) : "";
                }
            }
            String next = i + 1 < a.size() ? a.get(i + 1) : "";
            switch (w) {
                case "min-recv", "comment", "on-success", "on-error", "ok-status", "error-status", "tout-status", "status-code" -> {
                    if (inPattern) {
                        rejected(c, "[!] not supported with '" + w + "'");
                        return null;
                    }
                    if (next.isEmpty()) {
                        rejected(c, "'" + w + "' expects " + (w.equals("min-recv") ? "a integer" : w.equals("status-code") ? "an expression"
                                : "a string") + " as argument");
                        return null;
                    }
                    i++;
                    switch (w) {
                        case "min-recv" -> {
                            long v = atol(next);
                            if (v < -1 || v > Integer.MAX_VALUE) {
                                rejected(c, "'min-recv' expects -1 or an integer from 0 to INT_MAX");
                                return null;
                            }
                            minRecv = (int) v;
                        }
                        case "comment" -> comment = next;
                        case "on-success" -> onSuccess = next;
                        case "on-error" -> onError = next;
                        case "status-code" -> statusCode = next;
                        default -> {
                            List<String> allowed = w.equals("ok-status") ? OK_STATUSES : w.equals("error-status") ? ERROR_STATUSES : TIMEOUT_STATUSES;
                            String st = next.toUpperCase(Locale.ROOT);
                            if (!allowed.contains(st)) {
                                rejected(c, "'" + w + "' only supports " + switch (w) {
                                    case "ok-status" -> "'L4OK', 'L6OK', 'L7OK' or 'L7OKC'";
                                    case "error-status" -> "'L4CON', 'L6RSP', 'L7RSP' or 'L7STS'";
                                    default -> "'L4TOUT', 'L6TOUT' or 'L7TOUT'";
                                } + " status (got '" + next + "').");
                                return null;
                            }
                            switch (w) {
                                case "ok-status" -> ok = st;
                                case "error-status" -> error = st;
                                default -> tout = st;
                            }
                        }
                    }
                }
                case "string", "rstring", "binary", "rbinary", "string-lf", "binary-lf" -> {
                    if (kind != null) {
                        rejected(c, "only on pattern expected");
                        return null;
                    }
                    kind = switch (w) {
                        case "string" -> ExpectKind.STRING;
                        case "rstring" -> ExpectKind.RSTRING;
                        case "binary" -> ExpectKind.BINARY;
                        case "rbinary" -> ExpectKind.RBINARY;
                        case "string-lf" -> ExpectKind.STRING_LF;
                        default -> ExpectKind.BINARY_LF;
                    };
                    if (next.isEmpty()) {
                        rejected(c, "'" + w + "' expects a <pattern> as argument");
                        return null;
                    }
                    pattern = next;
                    i++;
                }
                case "custom" -> {
                    if (inPattern) {
                        rejected(c, "[!] not supported with 'custom'");
                        return null;
                    }
                    if (kind != null) {
                        rejected(c, "only on pattern expected");
                        return null;
                    }
                    kind = ExpectKind.CUSTOM;
                }
                default -> {
                    rejected(c, "'only supports min-recv, '[!]binary', '[!]string', '[!]rstring', '[!]string-lf''[!]rbinary', '[!]binary-lf' or"
                            + " comment but got '" + w + "' as argument.");
                    return null;
                }
            }
        }
        if (onSuccess != null && !logFormat(c, onSuccess) || onError != null && !logFormat(c, onError)) {
            return null;
        }
        if (kind == null) {
            rejected(c, "pattern not found");
            return null;
        }
        switch (kind) {
            case BINARY -> {
                String bad = binaryProblem(pattern);
                if (bad != null) {
                    rejected(c, "invalid binary string (" + bad + ")");
                    return null;
                }
            }
            case RSTRING, RBINARY -> {
                if (!HttpCheckExpects.validRegex(c, pattern)) {
                    return null;
                }
            }
            case STRING_LF, BINARY_LF -> {
                if (!logFormat(c, pattern)) {
                    return null;
                }
            }
            default -> {
            }
        }
        return new Expect(c.at(), 0, comment, kind, inverse, pattern, minRecv, ok, error, tout, onSuccess, onError, statusCode);
    }

    /** C's atol: an optional sign and the digits that follow, 0 when none. */
    private static long atol(String s) {
        int i = 0;
        boolean neg = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && v < 10_000_000_000L) {
            v = v * 10 + (s.charAt(i++) - '0');
        }
        return neg ? -v : v;
    }

    // ------------------------------------------------------------------ variables

    static TcpCheck.SetVar setVar(KeywordContext c, String action) {
        String word = c.words().get(1);
        int open = word.indexOf('(');
        if (open < 0) {
            rejected(c, "'" + action + "' : invalid or incomplete action '" + word + "'. Expects 'set-var(<var-name>)', 'set-var-fmt(<var-name>)'"
                    + " or 'unset-var(<var-name>)'");
            return null;
        }
        if (!word.endsWith(")")) {
            rejected(c, "'" + action + "' : incomplete argument after action '" + word + "'. Expects 'set-var(<var-name>)', 'set-var-fmt(<var-name>)'"
                    + " or 'unset-var(<var-name>)'");
            return null;
        }
        String name = word.substring(open + 1, word.length() - 1);
        if (name.isEmpty()) {
            rejected(c, "'" + action + "' : Empty variable name cannot be accepted");
            return null;
        }
        int dot = name.indexOf('.');
        String scope = dot < 0 ? "" : name.substring(0, dot);
        if (!List.of("proc", "sess", "txn", "req", "res", "check").contains(scope) || dot == name.length() - 1) {
            rejected(c, "'" + action + "' : invalid variable name '" + name + "'. A variable name must be start by its scope. The scope can be"
                    + " 'proc', 'sess', 'txn', 'req', 'res' or 'check'");
            return null;
        }
        if (action.equals("unset-var")) {
            return new TcpCheck.SetVar(c.at(), 0, name, null, false);
        }
        List<String> a = c.args();
        if (action.equals("set-var")) {
            if (a.isEmpty() || a.get(0).isEmpty()) {
                rejected(c, "'set-var' : missing fetch method");
                return null;
            }
            return new TcpCheck.SetVar(c.at(), 0, name, a.get(0), false);
        }
        String fmt = a.isEmpty() ? "" : a.get(0);
        try {
            LogFormats.parse(fmt, true);
        } catch (IllegalArgumentException e) {
            rejected(c, "'set-var-fmt' : " + e.getMessage());
            return null;
        }
        return new TcpCheck.SetVar(c.at(), 0, name, fmt, true);
    }

    // ------------------------------------------------------------------ after parsing

    /**
     * HAProxy's warnings once a proxy is built (unused rules, HTTP check options a tcp-check ignores) and what Sluice
     * cannot do: a {@code connect ssl} towards a server without {@code ssl} (whose TLS settings it would use).
     */
    static void afterBuild(ProxyBuilder b, Proxy p, Diagnostics diags) {
        if (!p.kind().hasBackend() || b.section == Section.DEFAULTS) {
            return;
        }
        String what = p.kind().keyword() + " '" + p.name() + "'";
        State t = b.checks.tcp;
        if (t.unused) {
            diags.warning(p.where(), what + " uses tcp-check rules without 'option tcp-check', so the rules are ignored.");
        }
        TcpCheck tcp = p.checks().tcp();
        if (tcp == null) {
            return;
        }
        if (b.checks.disableOn404) {
            diags.warning(p.where(), "'disable-on-404' will be ignored for " + what + " (requires 'option httpchk').");
        }
        if (b.checks.sendState) {
            diags.warning(p.where(), "'send-state' will be ignored for " + what + " (requires 'option httpchk').");
        }
        for (Rule r : tcp.rules()) {
            if (r instanceof Connect con && con.ssl()) {
                for (Server s : p.servers()) {
                    if (s.check().enabled() && s.tls() == null) {
                        diags.error(con.where(), "'tcp-check connect ssl' : server '" + p.name() + "/" + s.name() + "' has no 'ssl': Sluice takes"
                                + " the check's TLS settings from the server's, add 'ssl' (and 'verify') to it.");
                    }
                }
            }
        }
    }
}
