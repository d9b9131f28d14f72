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
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Health checks: the server options ({@code check inter fastinter downinter rise fall port addr check-ssl check-sni}),
 * {@code option httpchk}, {@code http-check send|expect|send-state|disable-on-404}, {@code option log-health-checks},
 * {@code spread-checks}. Messages follow HAProxy 2.6's.
 */
final class CheckKeywords {
    private CheckKeywords() {
    }

    /** The server options this class parses. */
    static final List<String> SERVER_OPTIONS = List.of("check", "no-check", "inter", "fastinter", "downinter", "rise", "fall", "port", "addr",
            "check-ssl", "no-check-ssl", "check-sni", "check-send-proxy", "no-check-send-proxy");

    static final String SEND_SYNTAX = "http-check send [meth <method>] [uri <uri>] [ver <version>] [hdr <name> <value>]* [body <string>]"
            + " [comment <msg>]";
    static final String EXPECT_SYNTAX = "http-check expect [min-recv <int>] [comment <msg>] [ok-status <st>] [error-status <st>]"
            + " [tout-status <st>] [!] status <codes> | rstatus <regex> | string <text> | rstring <regex>"
            + " | hdr|fhdr name [-m str|beg|end|sub|reg] <name> [value [-m str|beg|end|sub|reg] <value>]";

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

        HealthChecks build(boolean forkAllowed) {
            if (external) {
                return new HealthChecks(null, log, sendState, false, null,
                        new HealthChecks.ExternalCheck(externalCommand, externalPath == null ? "" : externalPath, forkAllowed));
            }
            HealthChecks.HttpCheck http = null;
            if (httpchk) {
                http = new HealthChecks.HttpCheck(sendMethod != null ? sendMethod : method, sendUri != null ? sendUri : uri,
                        sendVersion != null ? sendVersion : version, headers, body, expects, connect, connectFcgi);
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
                .replace("[via-socks4] ", "").replace("[proto <name>]", "[proto h1]"),
                "How the HTTP check connects, instead of the server's check settings: to another port (a number or a sample"
                        + " expression) or address, with TLS ('default': the server's check settings for what is not given), SNI,"
                        + " a PROXY header; 'linger' closes without a reset. The first http-check rule; one per backend.",
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
        r.register(new Keyword("http-check send", BACKEND_SIDE, SEND_SYNTAX,
                "The HTTP check request: method, URI and version override 'option httpchk', headers and a body are added"
                        + " (with content-length); 'connection: close' is added unless a connection header is given.",
                CheckKeywords::send));
        r.register(new Keyword("http-check expect", BACKEND_SIDE, EXPECT_SYNTAX,
                "A rule the HTTP check response must pass (several: all of them, in order): status codes or ranges, a status"
                        + " regex, a string or regex in the body (up to tune.bufsize), a header name and value; '!' inverts it.",
                CheckKeywords::expect));
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
        List<HealthChecks.Header> headers = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            String w = a.get(i);
            switch (w) {
                case "meth", "uri", "ver", "body", "comment" -> {
                    if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                        c.error("'" + w + "' expects a string as argument..");
                        return;
                    }
                    String v = a.get(++i);
                    switch (w) {
                        case "meth" -> method = v;
                        case "uri" -> uri = v;
                        case "ver" -> version = v;
                        case "body" -> body = v;
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
                    if (value.indexOf('%') >= 0 || value.chars().anyMatch(ch -> ch < 32 && ch != '\t')) {
                        c.error("header value '" + value + "' : log-format values and control characters are not supported by Sluice"
                                + " yet in health checks.");
                        return;
                    }
                    i += 2;
                    String lower = name.toLowerCase(Locale.ROOT);
                    // HAProxy drops the framing fields: it sets content-length itself from the body
                    if (!lower.equals("content-length") && !lower.equals("transfer-encoding")) {
                        headers.add(new HealthChecks.Header(name, value));
                    }
                }
                case "uri-lf", "body-lf" -> {
                    c.error("'" + w + "' (log-format) is not supported by Sluice yet in health checks.");
                    return;
                }
                default -> {
                    c.error("expects 'comment', 'meth', 'uri', 'uri-lf', 'ver', 'hdr', 'body' or 'body-lf' but got '" + w + "' as argument..");
                    return;
                }
            }
        }
        String bad = requestLineProblem(method != null ? method : "GET", uri != null ? uri : "/", version != null ? version : "HTTP/1.0");
        if (bad != null) {
            c.error(bad);
            return;
        }
        b.ownRules();
        if (b.sent) {
            c.error("a second 'http-check send' (a multi-step check) is not supported by Sluice yet.");
            return;
        }
        b.next("send");
        if (!b.expects.isEmpty()) {
            c.error("'http-check send' after 'http-check expect' (a multi-step check) is not supported by Sluice yet.");
            return;
        }
        b.sent = true;
        b.sendMethod = method;
        b.sendUri = uri;
        b.sendVersion = version;
        b.headers = headers;
        b.body = body;
    }

    private static final List<String> STATUSES_OK = List.of("L7OK", "L7OKC", "L6OK", "L4OK");
    private static final List<String> STATUSES_ERROR = List.of("L7OKC", "L7RSP", "L7STS", "L6RSP", "L4CON");
    private static final List<String> STATUSES_TIMEOUT = List.of("L7TOUT", "L6TOUT", "L4TOUT");

    private static void expect(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("expects at least a matching pattern as arguments.");
            return;
        }
        boolean inverse = false;
        String comment = null;
        String ok = null;
        String error = null;
        String tout = null;
        int minRecv = -1;
        Expect.Kind kind = null;
        String pattern = null;
        int[] codes = null;
        String[] hdr = null;
        int i = 0;
        while (i < a.size()) {
            String w = a.get(i);
            switch (w) {
                case "!" -> {
                    inverse = true;
                    i++;
                    continue;
                }
                case "min-recv" -> {
                    if (i + 1 >= a.size()) {
                        c.error("'min-recv' expects an integer as argument.");
                        return;
                    }
                    try {
                        minRecv = Integer.parseInt(a.get(i + 1));
                    } catch (NumberFormatException e) {
                        c.error("'min-recv' expects an integer as argument.");
                        return;
                    }
                    i += 2;
                    continue;
                }
                case "comment", "ok-status", "error-status", "tout-status" -> {
                    if (i + 1 >= a.size()) {
                        c.error("'" + w + "' expects a string as argument.");
                        return;
                    }
                    String v = a.get(i + 1);
                    List<String> allowed = switch (w) {
                        case "ok-status" -> STATUSES_OK;
                        case "error-status" -> STATUSES_ERROR;
                        case "tout-status" -> STATUSES_TIMEOUT;
                        default -> null;
                    };
                    if (allowed != null && !allowed.contains(v)) {
                        c.error("'" + w + "' only supports " + String.join(", ", allowed.stream().map(x -> "'" + x + "'").toList())
                                + " status (got '" + v + "').");
                        return;
                    }
                    switch (w) {
                        case "comment" -> comment = v;
                        case "ok-status" -> ok = v;
                        case "error-status" -> error = v;
                        default -> tout = v;
                    }
                    i += 2;
                    continue;
                }
                case "on-success", "on-error", "status-code", "string-lf" -> {
                    c.error("'" + w + "' (log-format) is not supported by Sluice yet in health checks.");
                    return;
                }
                default -> {
                }
            }
            if (w.startsWith("!") && w.length() > 1) {
                inverse = true;
                w = w.substring(1);
            }
            Expect.Kind k = switch (w) {
                case "status" -> Expect.Kind.STATUS;
                case "rstatus" -> Expect.Kind.RSTATUS;
                case "string" -> Expect.Kind.STRING;
                case "rstring" -> Expect.Kind.RSTRING;
                case "hdr" -> Expect.Kind.HDR;
                case "fhdr" -> Expect.Kind.FHDR;
                default -> null;
            };
            if (k == null) {
                c.error("'only supports min-recv, [!]string', '[!]rstring', '[!]string-lf', '[!]status', '[!]rstatus', [!]hdr, [!]fhdr or"
                        + " comment but got '" + w + "' as argument..");
                return;
            }
            if (kind != null) {
                c.error("only one pattern expected, got '" + w + "' after '" + kind.name().toLowerCase(Locale.ROOT) + "'.");
                return;
            }
            kind = k;
            if (k == Expect.Kind.HDR || k == Expect.Kind.FHDR) {
                hdr = new String[4];
                i = header(c, k, a, i + 1, hdr);
                if (i < 0) {
                    return;
                }
                continue;
            }
            if (i + 1 >= a.size()) {
                c.error("'" + w + "' expects <pattern> as argument.");
                return;
            }
            pattern = a.get(i + 1);
            switch (k) {
                case STATUS -> {
                    codes = codes(c, pattern);
                    if (codes == null) {
                        return;
                    }
                }
                case RSTATUS, RSTRING -> {
                    if (!validRegex(c, pattern)) {
                        return;
                    }
                }
                default -> {
                }
            }
            i += 2;
        }
        if (kind == null) {
            c.error("expects at least a matching pattern as arguments.");
            return;
        }
        Expect e = hdr == null
                ? new Expect(kind, inverse, codes, pattern, null, null, null, null, comment, ok, error, tout, minRecv)
                : new Expect(kind, inverse, null, null, Expect.Match.valueOf(hdr[0]), hdr[1], hdr[3] == null ? null : Expect.Match.valueOf(hdr[2]),
                        hdr[3], comment, ok, error, tout, minRecv);
        CheckKeywords.Builder b = c.proxy().checks;
        b.ownRules();
        if (b.connect != null && !b.sent) {
            // HAProxy: with a connect rule the expect must follow a send
            c.error("unable to add http-check expect rule at step " + (b.steps + 1) + " (missing send rule)..");
            return;
        }
        String pending = b.next("expect");
        if (comment == null && pending != null) {
            e = new Expect(e.kind(), e.inverse(), e.codes(), e.pattern(), e.nameMatch(), e.name(), e.valueMatch(), e.value(), pending, e.okStatus(),
                    e.errorStatus(), e.timeoutStatus(), e.minRecv());
        }
        b.expects.add(e);
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
        if (b.connect != null) {
            c.error("a second 'http-check connect' (a multi-step check) is not supported by Sluice yet.");
            return;
        }
        if (b.sent || !b.expects.isEmpty()) {
            c.error("'http-check connect' : first step MUST also be a 'connect', optionally preceded by a 'set-var', an 'unset-var' or a"
                    + " 'comment', when there is a 'connect' step in the tcp-check ruleset.");
            return;
        }
        String pending = b.next("connect");
        int proto = c.args().indexOf("proto");
        b.connectFcgi = proto >= 0 && proto + 1 < c.args().size() && c.args().get(proto + 1).equals("fcgi");
        b.connect = parsed.comment() == null && pending != null
                ? new TcpCheck.Connect(parsed.where(), parsed.index(), pending, parsed.port(), parsed.portExpr(), parsed.addr(), parsed.addrPort(),
                        parsed.useDefault(), parsed.sendProxy(), parsed.viaSocks4(), parsed.ssl(), parsed.sni(), parsed.alpn(), parsed.linger())
                : parsed;
    }

    /** {@code 200,201,300-310}: pairs of inclusive bounds. */
    private static int[] codes(KeywordContext c, String p) {
        List<Integer> out = new ArrayList<>();
        for (String part : p.split(",", -1)) {
            for (int k = 0; k < part.length(); k++) {
                char ch = part.charAt(k);
                if (!(ch >= '0' && ch <= '9') && ch != '-') {
                    c.error("invalid character '" + ch + "' in the list of status codes.");
                    return null;
                }
            }
            String[] range = part.split("-", -1);
            try {
                int lo = Integer.parseInt(range[0]);
                int hi = range.length == 2 ? Integer.parseInt(range[1]) : lo;
                if (range.length > 2 || lo > hi) {
                    throw new NumberFormatException();
                }
                out.add(lo);
                out.add(hi);
            } catch (NumberFormatException e) {
                c.error("invalid range of status codes '" + part + "'.");
                return null;
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    static boolean validRegex(KeywordContext c, String re) {
        try {
            Pattern.compile(re);
            return true;
        } catch (PatternSyntaxException e) {
            c.error("regex '" + re + "' is invalid (error=" + e.getDescription() + ", erroffset=" + e.getIndex() + ").");
            return false;
        }
    }

    /**
     * Parses {@code name [-m <meth>] <name> [value [-m <meth>] <value>]} from {@code a[i]} into {@code out} (name match,
     * name, value match, value); returns the index after it, or -1 after reporting an error.
     */
    private static int header(KeywordContext c, Expect.Kind kind, List<String> a, int i, String[] out) {
        String what = kind.name().toLowerCase(Locale.ROOT);
        while (i < a.size() && (a.get(i).equals("name") || a.get(i).equals("value") || a.get(i).equals("name-lf")
                || a.get(i).equals("value-lf"))) {
            String w = a.get(i);
            if (w.endsWith("-lf")) {
                c.error("'" + w + "' (log-format) is not supported by Sluice yet in health checks.");
                return -1;
            }
            int j = i + 1;
            Expect.Match m = Expect.Match.STR;
            if (j < a.size() && a.get(j).equals("-m")) {
                if (j + 1 >= a.size()) {
                    c.error("'-m' expects a matching method (str, beg, end, sub or reg).");
                    return -1;
                }
                m = switch (a.get(j + 1)) {
                    case "str" -> Expect.Match.STR;
                    case "beg" -> Expect.Match.BEG;
                    case "end" -> Expect.Match.END;
                    case "sub" -> Expect.Match.SUB;
                    case "reg" -> Expect.Match.REG;
                    default -> null;
                };
                if (m == null) {
                    c.error("'-m' : only 'str', 'beg', 'end', 'sub' and 'reg' are supported (got '" + a.get(j + 1) + "').");
                    return -1;
                }
                j += 2;
            }
            if (j >= a.size()) {
                c.error("'" + w + "' expects a pattern as argument.");
                return -1;
            }
            String pat = a.get(j);
            if (m == Expect.Match.REG && !validRegex(c, pat)) {
                return -1;
            }
            int k = w.equals("value") ? 2 : 0;
            out[k] = m.name();
            out[k + 1] = pat;
            i = j + 1;
        }
        if (out[1] == null) {
            c.error("'" + what + "' expects a header name ('name <pattern>').");
            return -1;
        }
        return i;
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
                AgentKeywords.agent(p), p.observe);
    }
}
