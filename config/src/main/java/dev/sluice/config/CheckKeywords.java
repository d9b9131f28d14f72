package dev.sluice.config;

import static dev.sluice.config.Section.BACKEND_SIDE;

import dev.sluice.config.model.HealthChecks.Expect;
import dev.sluice.config.model.HealthChecks;
import dev.sluice.config.model.ServerCheck;
import dev.sluice.config.model.TcpCheck;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/**
 * Health checks: the server options ({@code check inter fastinter downinter rise fall port addr check-ssl check-sni}),
 * {@code option httpchk}, {@code http-check connect|send|expect|comment|set-var|set-var-fmt|unset-var|send-state|
 * disable-on-404} (a multi-step rule list when HAProxy's needs one), {@code option log-health-checks},
 * {@code spread-checks}. Messages follow HAProxy 2.6's.
 */
final class CheckKeywords {
    private CheckKeywords() {
    }

    /** The server options this class parses. */
    static final List<String> SERVER_OPTIONS = List.of("check", "no-check", "inter", "fastinter", "downinter", "rise", "fall", "port", "addr",
            "check-ssl", "no-check-ssl", "check-sni", "check-send-proxy", "no-check-send-proxy", "check-proto", "check-alpn");

    static final String SEND_SYNTAX = "http-check send [meth <method>] [uri <uri> | uri-lf <fmt>] [ver <version>] [hdr <name> <fmt>]*"
            + " [body <string> | body-lf <fmt>]"
            + " [comment <msg>]";
    static final String EXPECT_SYNTAX = "http-check expect [min-recv <int>] [comment <msg>] [ok-status <st>] [error-status <st>]"
            + " [tout-status <st>] [on-success <fmt>] [on-error <fmt>] [status-code <expr>] [!] status <codes> | rstatus <regex>"
            + " | string <text> | string-lf <fmt> | rstring <regex> | hdr|fhdr name|name-lf [-m str|beg|end|sub|reg] <name>"
            + " [value|value-lf [-m str|beg|end|sub|reg] <value>]";

    /** The parse-time state of a proxy's checks, inherited from defaults and frozen by {@link #build}. */
    static final class Builder {
        boolean httpchk;
        String method = "OPTIONS";
        String uri = "/";
        String version = "HTTP/1.0";
        /** From http-check send: null where the option's line applies. */
        String sendMethod;
        String sendUri;
        String sendVersion;
        List<HealthChecks.Header> headers = new ArrayList<>();
        String body;
        boolean sent;
        List<Expect> expects = new ArrayList<>();
        /** {@code http-check connect}: how the check connects (null: as the server's check settings say). */
        TcpCheck.Connect connect;
        /** {@code http-check connect ... proto fcgi}. */
        boolean connectFcgi;
        /**
         * The comment of an {@code http-check comment} line, for the following rules of one kind (HAProxy's
         * check_proxy_tcpcheck), and the kind of the last rule ("comment", "connect", "send", "expect"; null: none).
         */
        String comment;
        String lastRule;
        /** The kind of the last connect, send or expect rule (HAProxy's order checks; null: none yet). */
        String lastAction;
        /** Every rule of this section in order, for a multi-step check (see {@link #multi}). */
        List<HealthChecks.Step> rules = new ArrayList<>();
        /**
         * Whether the check needs HAProxy's rule list played step by step: a second connect or send, a variable rule, a
         * log-format value. Else the single-step form is kept.
         */
        boolean multi;
        /** This section's http-check rules so far (HAProxy's step numbers count them all). */
        int steps;
        boolean log;
        boolean sendState;
        boolean disableOn404;
        /** Whether this section wrote its own send/expect rules (the inherited ones are then dropped). */
        boolean ownRules;
        /** The tcp-check side, kept by {@link TcpCheckKeywords}. */
        TcpCheckKeywords.State tcp = new TcpCheckKeywords.State();
        /** {@code option external-check} and {@code external-check command|path} ({@link ExternalCheckKeywords}). */
        boolean external;
        String externalCommand;
        String externalPath;

        Builder copy() {
            Builder b = new Builder();
            b.httpchk = httpchk;
            b.method = method;
            b.uri = uri;
            b.version = version;
            b.sendMethod = sendMethod;
            b.sendUri = sendUri;
            b.sendVersion = sendVersion;
            b.headers = new ArrayList<>(headers);
            b.body = body;
            b.sent = sent;
            b.expects = new ArrayList<>(expects);
            b.connect = connect;
            b.connectFcgi = connectFcgi;
            b.comment = comment;
            b.lastRule = lastRule;
            b.lastAction = lastAction;
            b.rules = new ArrayList<>(rules);
            b.multi = multi;
            b.steps = steps;
            b.log = log;
            b.sendState = sendState;
            b.disableOn404 = disableOn404;
            b.tcp = tcp.inherited();
            b.external = external;
            b.externalCommand = externalCommand;
            b.externalPath = externalPath;
            return b;
        }

        void ownRules() {
            if (!ownRules) {
                ownRules = true;
                sendMethod = null;
                sendUri = null;
                sendVersion = null;
                headers = new ArrayList<>();
                body = null;
                sent = false;
                expects = new ArrayList<>();
                connect = null;
                connectFcgi = false;
                comment = null;
                lastRule = null;
                lastAction = null;
                rules = new ArrayList<>();
                multi = false;
                steps = 0;
            }
        }

        /**
         * A rule of {@code kind} follows: the pending comment ends unless it was the last rule or this rule continues
         * its kind; returns the comment that applies to this rule (null: none).
         */
        String next(String kind) {
            if (lastRule != null && !lastRule.equals(kind) && !lastRule.equals("comment")) {
                comment = null;
            }
            lastRule = kind;
            steps++;
            return comment;
        }

        /**
         * The rule list of a multi-step check as HAProxy completes it: the first request takes what {@code option httpchk}
         * says where its send does not (or is the option's own request when no send comes before the first expect), and
         * a list ending with a send gets the implicit expect (a 2xx or 3xx status).
         */
        private List<HealthChecks.Step> steps() {
            List<HealthChecks.Step> out = new ArrayList<>(rules.size() + 2);
            boolean merged = false;
            for (HealthChecks.Step s : rules) {
                if (!merged && s instanceof HealthChecks.Request r) {
                    merged = true;
                    s = new HealthChecks.Request(r.where(), r.method() != null ? r.method() : method, r.uri() != null ? r.uri() : uri, r.uriLf(),
                            r.version() != null ? r.version() : version, r.headers(), r.body(), r.bodyLf());
                } else if (!merged && s instanceof Expect) {
                    merged = true;
                    out.add(new HealthChecks.Request(null, method, uri, false, version, List.of(), null, false));
                }
                out.add(s);
            }
            if (!merged) {
                out.add(new HealthChecks.Request(null, method, uri, false, version, List.of(), null, false));
            }
            HealthChecks.Step last = out.reversed().stream().filter(x -> !(x instanceof HealthChecks.Var)).findFirst().orElse(null);
            if (last instanceof HealthChecks.Request) {
                out.add(new Expect(Expect.Kind.STATUS, false, new int[] {200, 399}, "200-399", null, null, null, null, null, null, null, null, -1));
            }
            return out;
        }

        HealthChecks build(boolean forkAllowed) {
            if (external) {
                return new HealthChecks(null, log, sendState, false, null,
                        new HealthChecks.ExternalCheck(externalCommand, externalPath == null ? "" : externalPath, forkAllowed));
            }
            HealthChecks.HttpCheck http = null;
            if (httpchk) {
                http = new HealthChecks.HttpCheck(sendMethod != null ? sendMethod : method, sendUri != null ? sendUri : uri,
                        sendVersion != null ? sendVersion : version, headers, body, expects, connect, connectFcgi,
                        multi ? steps() : List.of());
            }
            TcpCheck tcpCheck = httpchk ? null : tcp.build();
            // a tcp-check ignores disable-on-404 (HAProxy warns, see TcpCheckKeywords.afterBuild)
            return new HealthChecks(http, log, sendState, disableOn404 && tcpCheck == null, tcpCheck);
        }
    }

    static void register(KeywordRegistry r) {
        r.family("http-check", "http-check rule");
        r.register(new Keyword("option httpchk", BACKEND_SIDE, "option httpchk [[<method>] <uri> [<version>]]",
                "Check servers with an HTTP request (default 'OPTIONS / HTTP/1.0', no Host) instead of a bare connection; a 2xx"
                        + " or 3xx status passes unless 'http-check expect' says otherwise.",
                CheckKeywords::httpchk));
        r.register(new Keyword("option log-health-checks", BACKEND_SIDE, "[no] option log-health-checks",
                "Log every change of a server's check status or health (HAProxy's lines), not only its UP/DOWN transitions.",
                c -> {
                    if (c.expectArgs(0, 0, "option log-health-checks")) {
                        c.proxy().checks.log = !c.negated();
                    }
                }));
        r.register(new Keyword("http-check connect", BACKEND_SIDE, TcpCheckKeywords.CONNECT_SYNTAX.replace("tcp-check", "http-check")
                .replace("[via-socks4] ", "").replace("[proto <name>]", "[proto h1|h2|fcgi]"),
                "How the HTTP check connects, instead of the server's check settings: to another port (a number or a sample"
                        + " expression) or address, with TLS ('default': the server's check settings for what is not given), SNI,"
                        + " a PROXY header; 'linger' closes without a reset; 'proto h2' speaks HTTP/2 (as does 'alpn' when the"
                        + " handshake chooses h2, and a 'proto h2' server checked through its own settings). The first http-check rule"
                        + " when there is one; a later one (after an expect) opens the next connection of a multi-step check, whose"
                        + " request follows it.",
                CheckKeywords::connect));
        r.register(new Keyword("http-check comment", BACKEND_SIDE, "http-check comment <msg>",
                "A comment the following http-check rules of one kind report in their messages (an expect that fails says it).",
                c -> {
                    if (c.args().isEmpty()) {
                        c.lineError("'http-check comment' : expects a string as argument.");
                        return;
                    }
                    CheckKeywords.Builder b = c.proxy().checks;
                    b.ownRules();
                    b.next("comment");
                    b.comment = c.args().get(0);
                }));
        for (String w : List.of("set-var", "set-var-fmt", "unset-var")) {
            r.register(new Keyword("http-check " + w, BACKEND_SIDE, "http-check " + w + "(<name>)" + (w.equals("unset-var") ? ""
                    : w.equals("set-var") ? " <expr>" : " <fmt>"),
                    "Set or unset a variable (scope check., proc., sess., ...) the following rules of the HTTP check read in their"
                            + " log-format values (uri-lf, body-lf, header values).",
                    c -> {
                        TcpCheck.SetVar v = TcpCheckKeywords.setVar(c, w);
                        if (v == null) {
                            return;
                        }
                        CheckKeywords.Builder b = c.proxy().checks;
                        b.ownRules();
                        b.next("set-var");
                        b.multi = true;
                        b.rules.add(new HealthChecks.Var(v));
                    }));
        }
        r.register(new Keyword("http-check send", BACKEND_SIDE, SEND_SYNTAX,
                "The HTTP check request: method, URI and version override 'option httpchk', headers and a body are added"
                        + " (with content-length); 'connection: close' is added unless a connection header is given. 'uri-lf',"
                        + " 'body-lf' and header values with '%' are log-format strings rendered at each check. One request per"
                        + " connection, as in HAProxy 2.6: a second send follows an 'http-check connect'.",
                CheckKeywords::send));
        r.register(new Keyword("http-check expect", BACKEND_SIDE, EXPECT_SYNTAX,
                "A rule the HTTP check response must pass (several: all of them, in order): status codes or ranges, a status"
                        + " regex, a string (string-lf: a log-format string) or regex in the body (up to tune.bufsize), a header name and value"
                        + " (name-lf/value-lf: log-format strings); '!' inverts it. on-error (the failing rule's) and on-success (the last"
                        + " rule's) are log-format strings that become the check's message (they may read the response: status, res.hdr),"
                        + " status-code an expression that becomes its code; ok-, error- and tout-status its status.",
                HttpCheckExpects::expect));
        r.register(new Keyword("http-check send-state", BACKEND_SIDE, "[no] http-check send-state",
                "Add 'X-Haproxy-Server-State' (the server's state, address, name, weights and load) to HTTP checks.",
                c -> {
                    if (c.args().isEmpty()) {
                        c.proxy().checks.sendState = !c.negated();
                    } else {
                        c.lineError("'http-check' cannot handle unexpected argument '" + c.args().get(0) + "'.");
                    }
                }));
        r.register(new Keyword("http-check disable-on-404", BACKEND_SIDE, "[no] http-check disable-on-404",
                "A 404 answer to the HTTP check of a running server puts it in NOLB (no new request, HAProxy's soft stop)"
                        + " instead of failing the check; a 2xx or 3xx brings it back.",
                c -> {
                    if (c.args().isEmpty()) {
                        c.proxy().checks.disableOn404 = !c.negated();
                    } else {
                        c.lineError("'http-check' cannot handle unexpected argument '" + c.args().get(0) + "'.");
                    }
                }));
        r.register(new Keyword("spread-checks", EnumSet.of(Section.GLOBAL), "spread-checks <0..50>",
                "Add random noise of up to +/- this percentage to every check interval (default 0).",
                c -> {
                    if (c.expectArgs(1, 1, "spread-checks <0..50>")) {
                        int v = c.intArg(c.args().get(0), "spread-checks", 0, 50, -1);
                        if (v >= 0) {
                            c.global().spreadChecks = v;
                        }
                    }
                }));
    }

    private static void httpchk(KeywordContext c) {
        List<String> a = c.args();
        if (c.negated()) {
            if (c.expectArgs(0, 0, "no option httpchk")) {
                c.proxy().checks.httpchk = false;
            }
            return;
        }
        if (a.size() > 3) {
            c.lineError("'option httpchk' cannot handle unexpected argument '" + a.get(3) + "'.");
            return;
        }
        CheckKeywords.Builder b = c.proxy().checks;
        b.httpchk = true;
        b.external = false;
        b.tcp.httpchk();
        b.method = "OPTIONS";
        b.uri = "/";
        b.version = "HTTP/1.0";
        if (a.size() == 1) {
            b.uri = a.get(0);
        } else if (a.size() >= 2) {
            b.method = a.get(0);
            b.uri = a.get(1);
            if (a.size() == 3) {
                b.version = a.get(2);
            }
        }
        int crlf = b.version.indexOf("\r\n");
        if (crlf >= 0) {
            // the old way to add fields: "HTTP/1.1\r\nHost: x" (HAProxy still reads it, with a warning)
            c.warning("hiding headers or body at the end of the version string is deprecated. Please, consider to use 'http-check send'"
                    + " directive instead.");
            String rest = b.version.substring(crlf + 2);
            b.version = b.version.substring(0, crlf);
            b.ownRules();
            b.headers = new ArrayList<>();
            for (String line : rest.split("\r\n")) {
                int colon = line.indexOf(':');
                if (line.isEmpty()) {
                    continue;
                }
                if (colon <= 0) {
                    c.error("invalid header line '" + line + "' at the end of the version string.");
                    return;
                }
                b.headers.add(new HealthChecks.Header(line.substring(0, colon).strip(), line.substring(colon + 1).strip()));
            }
        }
        String bad = requestLineProblem(b.method, b.uri, b.version);
        if (bad != null) {
            c.error(bad);
        }
    }

    /** Why a check request line could not be sent as is (a space or control character would break it), or null. */
    private static String requestLineProblem(String method, String uri, String version) {
        if (!method.chars().allMatch(ch -> ch > 32 && ch < 127)) {
            return "invalid method '" + method + "'.";
        }
        if (uri.isEmpty() || !uri.chars().allMatch(ch -> ch > 32 && ch != 127)) {
            return "invalid uri '" + uri + "'.";
        }
        if (!version.matches("HTTP/[0-9]\\.[0-9]")) {
            return "invalid version '" + version + "' (expected HTTP/1.0 or HTTP/1.1).";
        }
        return null;
    }

    private static void send(KeywordContext c) {
        List<String> a = c.args();
        CheckKeywords.Builder b = c.proxy().checks;
        String method = null;
        String uri = null;
        String version = null;
        String body = null;
        boolean uriLf = false;
        boolean bodyLf = false;
        boolean lf = false;
        List<HealthChecks.Header> headers = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            String w = a.get(i);
            switch (w) {
                case "meth", "uri", "ver", "body", "comment", "uri-lf", "body-lf" -> {
                    if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                        c.error("'" + w + "' expects a string as argument..");
                        return;
                    }
                    String v = a.get(++i);
                    switch (w) {
                        case "meth" -> method = v;
                        case "uri" -> {
                            uri = v;
                            uriLf = false;
                        }
                        case "uri-lf", "body-lf" -> {
                            if (!logFormat(c, v, true)) {
                                return;
                            }
                            lf = true;
                            if (w.equals("uri-lf")) {
                                uri = v;
                                uriLf = true;
                            } else {
                                body = v;
                                bodyLf = true;
                            }
                        }
                        case "ver" -> version = v;
                        case "body" -> {
                            body = v;
                            bodyLf = false;
                        }
                        default -> {
                            // a comment is only reported by multi-step checks, which Sluice does not have
                        }
                    }
                }
                case "hdr" -> {
                    if (i + 2 >= a.size() || a.get(i + 1).isEmpty()) {
                        c.error("'hdr' expects <name> and <value> as arguments.");
                        return;
                    }
                    String name = a.get(i + 1);
                    String value = a.get(i + 2);
                    if (!name.chars().allMatch(ch -> ch > 32 && ch < 127 && ch != ':')) {
                        c.error("invalid header name '" + name + "'.");
                        return;
                    }
                    if (value.chars().anyMatch(ch -> ch < 32 && ch != '\t')) {
                        c.error("header value '" + value + "' : control characters are not supported by Sluice in health checks.");
                        return;
                    }
                    if (value.indexOf('%') >= 0) {
                        // header values are log-format strings in HAProxy
                        if (!logFormat(c, value, false)) {
                            return;
                        }
                        lf = true;
                    }
                    i += 2;
                    String lower = name.toLowerCase(Locale.ROOT);
                    // HAProxy drops the framing fields: it sets content-length itself from the body
                    if (!lower.equals("content-length") && !lower.equals("transfer-encoding")) {
                        headers.add(new HealthChecks.Header(name, value));
                    }
                }
                default -> {
                    c.error("expects 'comment', 'meth', 'uri', 'uri-lf', 'ver', 'hdr', 'body' or 'body-lf' but got '" + w + "' as argument..");
                    return;
                }
            }
        }
        String bad = requestLineProblem(method != null ? method : "GET", uri != null && !uriLf ? uri : "/", version != null ? version : "HTTP/1.0");
        if (bad != null) {
            c.error(bad);
            return;
        }
        b.ownRules();
        if (b.lastAction != null && !b.lastAction.equals("connect")) {
            c.error("unable to add http-check send rule at step " + (b.steps + 1) + " (missing connect rule)..");
            return;
        }
        b.next("send");
        b.lastAction = "send";
        b.rules.add(new HealthChecks.Request(c.at(), method, uri, uriLf, version, headers, body, bodyLf));
        if (b.sent || lf) {
            b.multi = true;
        }
        if (b.sent) {
            return;
        }
        b.sent = true;
        b.sendMethod = method;
        b.sendUri = uri;
        b.sendVersion = version;
        b.headers = headers;
        b.body = body;
    }

    /**
     * {@code http-check connect}: how the check's connection is made (port, address, TLS, SNI, a PROXY header,
     * linger). The first rule when there is one, as HAProxy requires; one connection per check in Sluice, so one
     * connect.
     */
    private static void connect(KeywordContext c) {
        TcpCheck.Connect parsed = TcpCheckKeywords.connect(c);
        if (parsed == null) {
            return;
        }
        if (parsed.viaSocks4()) {
            c.error("'via-socks4' is not supported by Sluice yet in health checks.");
            return;
        }
        CheckKeywords.Builder b = c.proxy().checks;
        b.ownRules();
        if (b.connect == null && b.lastAction != null) {
            c.error("first step MUST also be a 'connect', optionally preceded by a 'set-var', an 'unset-var' or a"
                    + " 'comment', when there is a 'connect' step in the tcp-check ruleset.");
            return;
        }
        if (b.lastAction != null && !b.lastAction.equals("expect")) {
            c.error("unable to add http-check connect rule at step " + (b.steps + 1) + " (missing expect rule)..");
            return;
        }
        String pending = b.next("connect");
        b.lastAction = "connect";
        int proto = c.args().indexOf("proto");
        String mux = proto >= 0 && proto + 1 < c.args().size() ? c.args().get(proto + 1) : null;
        b.connectFcgi = "fcgi".equals(mux);
        TcpCheck.Connect rule = parsed.comment() == null && pending != null
                ? new TcpCheck.Connect(parsed.where(), parsed.index(), pending, parsed.port(), parsed.portExpr(), parsed.addr(), parsed.addrPort(),
                        parsed.useDefault(), parsed.sendProxy(), parsed.viaSocks4(), parsed.ssl(), parsed.sni(), parsed.alpn(), parsed.linger())
                : parsed;
        b.rules.add(new HealthChecks.Connect(rule, mux));
        if ("h2".equals(mux)) {
            // the rule list keeps each connection's protocol
            b.multi = true;
        }
        if (b.connect != null) {
            // a connect after an expect: a step of a multi-step check
            b.multi = true;
            return;
        }
        b.connect = rule;
    }

    /**
     * Checks a log-format value of {@code http-check send} (its samples are compiled by the runtime): HAProxy's message
     * for a bad one ({@code uri-lf}/{@code body-lf} name the string, a header value says what failed).
     */
    private static boolean logFormat(KeywordContext c, String text, boolean named) {
        try {
            LogFormats.parse(text, true);
            return true;
        } catch (IllegalArgumentException e) {
            c.error(named ? "'" + text + "' invalid log-format string (" + e.getMessage() + ")." : e.getMessage() + ".");
            return false;
        }
    }


    // ------------------------------------------------------------------ server options

    /**
     * Parses a check option of a server line at {@code a[i]}: the index after it, {@link TlsKeywords#NOT_MINE} when
     * it is not one, {@link TlsKeywords#FAILED} after reporting an error.
     */
    static int serverOption(KeywordContext c, String server, ServerParams p, List<String> a, int i) {
        String w = a.get(i);
        String who = server == null ? "default-server" : server;
        String prefix = server == null ? "" : "server '" + server + "' : ";
        switch (w) {
            case "check", "no-check" -> {
                p.check = w.equals("check");
                return i + 1;
            }
            case "check-ssl", "no-check-ssl" -> {
                p.checkSsl = w.equals("check-ssl");
                return i + 1;
            }
            case "check-send-proxy", "no-check-send-proxy" -> {
                p.checkSendProxy = w.equals("check-send-proxy");
                return i + 1;
            }
            case "check-proto" -> {
                if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                    c.error(prefix + "'check-proto' : missing value");
                    return TlsKeywords.FAILED;
                }
                String proto = a.get(i + 1);
                if (!proto.equals("h1") && !proto.equals("h2") && !proto.equals("fcgi")) {
                    c.error(prefix + "'check-proto' :  unknown MUX protocol '" + proto + "'");
                    return TlsKeywords.FAILED;
                }
                p.checkProto = proto;
                return i + 2;
            }
            case "check-alpn" -> {
                String v = i + 1 < a.size() ? a.get(i + 1) : "";
                for (String proto : v.split(",", -1)) {
                    if (proto.isEmpty() || proto.length() > 255) {
                        c.error(prefix + "'check-alpn' : invalid protocol list '" + v + "'");
                        return TlsKeywords.FAILED;
                    }
                }
                p.checkAlpn = List.of(v.split(","));
                return i + 2;
            }
            case "check-sni" -> {
                if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                    c.error(prefix + "'check-sni' expects a string as argument.");
                    return TlsKeywords.FAILED;
                }
                p.checkSni = a.get(i + 1);
                return i + 2;
            }
            case "inter", "fastinter", "downinter" -> {
                if (i + 1 >= a.size()) {
                    c.error(prefix + "'" + w + "' expects a delay as argument..");
                    return TlsKeywords.FAILED;
                }
                long ms;
                try {
                    ms = Units.parseTimeMillis(a.get(i + 1));
                } catch (IllegalArgumentException e) {
                    c.error(prefix + "'" + w + "' : " + e.getMessage() + ".");
                    return TlsKeywords.FAILED;
                }
                if (ms <= 0 || ms > Integer.MAX_VALUE) {
                    c.error(prefix + "invalid value " + a.get(i + 1) + " for argument '" + w + "' of server " + who + "..");
                    return TlsKeywords.FAILED;
                }
                switch (w) {
                    case "inter" -> p.inter = ms;
                    case "fastinter" -> p.fastinter = ms;
                    default -> p.downinter = ms;
                }
                return i + 2;
            }
            case "rise", "fall" -> {
                if (i + 1 >= a.size()) {
                    c.error(prefix + "'" + w + "' expects an integer argument..");
                    return TlsKeywords.FAILED;
                }
                int n;
                try {
                    n = Integer.parseInt(a.get(i + 1));
                } catch (NumberFormatException e) {
                    c.error(prefix + "'" + w + "' expects an integer argument..");
                    return TlsKeywords.FAILED;
                }
                if (n <= 0) {
                    c.error(prefix + "'" + w + "' has to be > 0..");
                    return TlsKeywords.FAILED;
                }
                if (w.equals("rise")) {
                    p.rise = n;
                } else {
                    p.fall = n;
                }
                return i + 2;
            }
            case "port" -> {
                int port = -1;
                if (i + 1 < a.size()) {
                    try {
                        port = Integer.parseInt(a.get(i + 1));
                    } catch (NumberFormatException e) {
                        port = -1;
                    }
                }
                if (port < 1 || port > 65535) {
                    c.error(prefix + "'port' expects a valid TCP port (from 1 to 65535)" + (i + 1 < a.size() ? ", got '" + a.get(i + 1) + "'." : "."));
                    return TlsKeywords.FAILED;
                }
                p.checkPort = port;
                return i + 2;
            }
            case "addr" -> {
                String v = i + 1 < a.size() ? a.get(i + 1) : "";
                if (v.startsWith("ipv4@") || v.startsWith("ipv6@")) {
                    v = v.substring(5);
                }
                if (v.isEmpty() || Addresses.literal(v) == null) {
                    c.error(prefix + "'addr' : invalid address: '" + v + "' (an IPv4 or IPv6 address is expected).");
                    return TlsKeywords.FAILED;
                }
                p.checkAddr = v;
                return i + 2;
            }
            default -> {
                return TlsKeywords.NOT_MINE;
            }
        }
    }

    /** The check options a server line ends with. */
    static ServerCheck serverCheck(ServerParams p) {
        return new ServerCheck(p.check, p.inter, p.fastinter, p.downinter, p.rise, p.fall, p.checkPort, p.checkAddr, p.checkSsl, p.checkSni, p.checkSendProxy,
                AgentKeywords.agent(p), p.observe, p.checkProto, p.checkAlpn);
    }
}
