package dev.sluice.config;

import dev.sluice.config.model.Condition;
import dev.sluice.config.model.Cookie;
import dev.sluice.config.model.Persist;
import dev.sluice.config.model.StickRule;
import dev.sluice.config.model.StickTableDecl;
import dev.sluice.config.model.UseServer;
import java.math.BigInteger;
import java.util.EnumSet;
import java.util.List;

/**
 * Persistence: cookie persistence, the proxy's {@code cookie} and {@code dynamic-cookie-key} (the server side,
 * {@code cookie <value>}, is a server option: {@link BalanceKeywords}), parsed as HAProxy 2.6 parses them, with its
 * messages; and stickiness, the {@code stick} rules and the proxy's {@code stick-table} (which track-sc rules and the
 * sc_*, src_* and table_* samples use too).
 */
final class PersistenceKeywords {
    private PersistenceKeywords() {
    }

    static final String COOKIE_SYNTAX = "cookie <name> [rewrite|insert|prefix] [indirect] [nocache] [postonly] [preserve] [httponly]"
            + " [secure] [domain <domain>]* [maxidle <idle>] [maxlife <life>] [dynamic] [attr <value>]*";

    static void register(KeywordRegistry r) {
        r.register(new Keyword("cookie", EnumSet.of(Section.DEFAULTS, Section.FRONTEND, Section.BACKEND, Section.LISTEN), COOKIE_SYNTAX,
                "Cookie-based persistence: a request whose cookie <name> carries a server's 'cookie' value goes to that server"
                        + " while it is not down (before any stick rule or the balancing). insert: the proxy sets the cookie in"
                        + " responses (removing one the server set), indirect: the server never sees it (insert) and one it sets"
                        + " is removed when the client had a valid one; rewrite: the server's own cookie gets the server's value;"
                        + " prefix: the value is put in front of an application cookie with a '~'. nocache adds 'Cache-control:"
                        + " private' to a cacheable response that gets the cookie, postonly inserts it only on POST responses,"
                        + " preserve leaves a cookie the server set alone. maxidle/maxlife (seconds by default) date the cookie and"
                        + " ignore it past that age. dynamic gives servers without a cookie one made from dynamic-cookie-key and"
                        + " their address. The log's %tsc shows what happened to the cookie in its last two characters.",
                PersistenceKeywords::cookie));
        r.register(new Keyword("dynamic-cookie-key", Section.BACKEND_SIDE, "dynamic-cookie-key <string>",
                "The secret that 'cookie ... dynamic' hashes with a server's address and port (XXH64) to make its cookie value.",
                c -> {
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'dynamic-cookie-key' expects <secret_key> as argument.");
                        return;
                    }
                    c.proxy().dynamicCookieKey = c.args().get(0);
                }));

        r.register(new Keyword("use-server", EnumSet.of(Section.DEFAULTS, Section.FRONTEND, Section.BACKEND, Section.LISTEN),
                "use-server <server> if|unless <condition>",
                "Send the request to <server> when the condition holds (the first matching rule wins), after use_backend and before"
                        + " the persistence cookie, the stick rules and the balancing, as HAProxy 2.6: the server is used even with"
                        + " weight 0, draining or full (the request then waits in its queue), a down one not (the next rule is tried; Sluice has"
                        + " unless 'option persist' or a 'force-persist' rule says so). <server> may be a log-format expression naming the server"
                        + " per request (a name that matches no server then ends the rules).",
                PersistenceKeywords::useServer));
        r.register(new Keyword("option persist", Section.PROXIES, "[no] option persist",
                "A request that a persistence cookie, a stick match, a use-server rule or an RDP cookie sends to a server that is"
                        + " down still goes there (by default it is balanced to another one); with 'option redispatch', a failed"
                        + " connection is then retried elsewhere, and requests queued on a server that goes down stay queued there.",
                c -> {
                    if (c.expectArgs(0, 0, "option persist") && !notBackend(c, "persist")) {
                        c.proxy().persistDown = !c.negated();
                    }
                }));
        for (String kw : new String[] {"force-persist", "ignore-persist"}) {
            boolean force = kw.equals("force-persist");
            r.register(new Keyword(kw, Section.PROXIES, kw + " if|unless <condition>",
                    force ? "When the condition holds, persistence (a cookie, a stick match, a use-server rule, an RDP cookie) sends the"
                            + " request to its server even if that server is down, and no retry redispatches it. The first"
                            + " force-persist or ignore-persist rule whose condition holds applies."
                            : "When the condition holds, the persistence cookie is ignored: the request is balanced, and no cookie is"
                                    + " inserted in the response nor the server's own one processed. The first force-persist or"
                                    + " ignore-persist rule whose condition holds applies.",
                    c -> persistRule(c, kw, force)));
        }
        r.register(new Keyword("persist", Section.PROXIES, "persist rdp-cookie[(<name>)]",
                "RDP cookie persistence (mode tcp): the client's first bytes, held by 'tcp-request inspect-delay' (for example until"
                        + " 'tcp-request content accept if RDP_COOKIE'), are read for the RDP cookie <name> (default msts) whose value"
                        + " '<ip>.<port>.' names a server by its IPv4 address and port, as Windows' session broker writes them; the"
                        + " connection goes to that server when it is not down (or with 'option persist').",
                PersistenceKeywords::persist));
        r.register(new Keyword("http-send-name-header", Section.PROXIES, "http-send-name-header <header>",
                "Each request sent to a server carries the server's name in <header> (set when it leaves, again on a retry or a"
                        + " redispatch; the field the client sent under that name is removed), as HAProxy 2.6 adds it after the"
                        + " other fields.",
                c -> {
                    // HAProxy warns in a frontend, then reads it anyway (a frontend has no use for it)
                    notBackend(c, "http-send-name-header");
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'http-send-name-header' requires a header string.");
                        return;
                    }
                    c.proxy().sendNameHeader = c.args().get(0).toLowerCase(java.util.Locale.ROOT);
                }));
        r.family("stick", "stick rule");
        for (String kind : new String[] {"on", "match", "store-request", "store-response"}) {
            r.register(new Keyword("stick " + kind, EnumSet.of(Section.BACKEND, Section.LISTEN),
                    "stick " + kind + " <expr> [table <table>] [if|unless <cond>]",
                    switch (kind) {
                        case "match" -> "Send the request to the server stored for the key in the table, when it is usable.";
                        case "store-request" -> "Store the key with the server the request goes to.";
                        case "store-response" -> "Store the key, read from the response, with the server that answered.";
                        default -> "Stickiness: 'stick match' and 'stick store-request' on the same key.";
                    },
                    c -> {
                        List<String> a = c.args();
                        int end = c.conditionStart(0);
                        if (end != 1 && end != 3 || end == 3 && !a.get(1).equals("table")) {
                            c.error("expects '<expr> [table <table>]' before the condition.");
                            return;
                        }
                        Condition cond = null;
                        if (end < a.size()) {
                            cond = c.conditionFrom(end);
                            if (cond == null) {
                                return;
                            }
                        }
                        c.proxy().stickRules.add(new StickRule(c.at(), kind, a.get(0), end == 3 ? a.get(2) : null, cond));
                    }));
        }
        r.register(new Keyword("stick-table", EnumSet.of(Section.FRONTEND, Section.BACKEND, Section.LISTEN),
                "stick-table type <ip|ipv6|integer|string [len n]|binary [len n]> size <n> [expire <time>] [nopurge] [store <type>[,<type>]*]",
                "The proxy's stick table (one per proxy), for track-sc rules and the sc_*, src_* and table_* samples.", c -> {
                    if (c.args().isEmpty()) {
                        c.error("expects a table definition: type <type> size <size> [expire <time>] [store <types>].");
                    } else if (c.proxy().stickTable != null) {
                        c.error("only one stick-table per proxy (previous one at line " + c.proxy().stickTable.where().line() + ").");
                    } else {
                        c.proxy().stickTable = new StickTableDecl(c.at(), c.args());
                    }
                }));
    }

    /** HAProxy's warnifnotcap: in a frontend, {@code keyword} is ignored with a warning; true then. */
    private static boolean notBackend(KeywordContext c, String keyword) {
        if (c.section() == Section.FRONTEND) {
            c.lineWarning("'" + keyword + "' ignored because frontend '" + c.proxy().name + "' has no backend capability.");
            return true;
        }
        return false;
    }

    /** {@code force-persist} and {@code ignore-persist}, with HAProxy 2.6's checks and messages. */
    private static void persistRule(KeywordContext c, String kw, boolean force) {
        if (c.section() == Section.DEFAULTS) {
            c.lineError("'" + kw + "' not allowed in 'defaults' section.");
            return;
        }
        boolean ignored = notBackend(c, kw);
        List<String> a = c.args();
        if (a.isEmpty() || !a.get(0).equals("if") && !a.get(0).equals("unless")) {
            c.lineError("'" + kw + "' requires either 'if' or 'unless' followed by a condition.");
            return;
        }
        Condition cond;
        try {
            cond = ConditionParser.parse(a.get(0).equals("unless"), a.subList(1, a.size()));
        } catch (IllegalArgumentException e) {
            c.lineError("error detected while parsing a '" + kw + "' rule : " + e.getMessage() + ".");
            return;
        }
        if (!ignored) {
            c.proxy().persistRules.add(new Persist.Rule(c.at(), force, cond));
        }
    }

    /** {@code persist rdp-cookie[(<name>)]}, with HAProxy 2.6's messages (cfgparse-listen.c). */
    private static void persist(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.lineError("missing persist method.");
            return;
        }
        String m = a.get(0);
        if (!m.startsWith("rdp-cookie")) {
            c.lineError("unknown persist method.");
            return;
        }
        String name;
        if (m.length() > 10 && m.charAt(10) == '(') {
            if (a.size() > 1) {
                c.lineError("'persist' cannot handle unexpected argument '" + a.get(1) + "'.");
                return;
            }
            int end = m.indexOf(')', 11);
            if (end <= 11) {
                c.lineError("persist rdp-cookie(name)' requires an rdp cookie name.");
                return;
            }
            name = m.substring(11, end);
        } else if (m.length() == 10) {
            name = "msts";
        } else {
            c.lineError("persist rdp-cookie(name)' requires an rdp cookie name.");
            return;
        }
        c.proxy().rdpPersistCookie = name;
    }

    /** {@code use-server}, with HAProxy 2.6's checks and messages (cfgparse-listen.c). */
    private static void useServer(KeywordContext c) {
        if (c.section() == Section.DEFAULTS) {
            c.lineError("'use-server' not allowed in 'defaults' section.");
            return;
        }
        if (c.section() == Section.FRONTEND) {
            c.lineWarning("'use-server' ignored because frontend '" + c.proxy().name + "' has no backend capability.");
        }
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.lineError("'use-server' expects a server name.");
            return;
        }
        if (a.size() < 2 || !a.get(1).equals("if") && !a.get(1).equals("unless")) {
            c.lineError("'use-server' requires either 'if' or 'unless' followed by a condition.");
            return;
        }
        Condition cond;
        try {
            cond = ConditionParser.parse(a.get(1).equals("unless"), a.subList(2, a.size()));
        } catch (IllegalArgumentException e) {
            c.lineError("error detected while parsing switching rule : " + e.getMessage() + ".");
            return;
        }
        c.proxy().useServers.add(new UseServer(c.at(), a.get(0), cond));
    }

    private static void cookie(KeywordContext c) {
        if (c.section() == Section.FRONTEND) {
            c.lineWarning("'cookie' ignored because frontend '" + c.proxy().name + "' has no backend capability.");
            return;
        }
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.lineError("'cookie' expects <cookie_name> as argument.");
            return;
        }
        ProxyBuilder p = c.proxy();
        // as HAProxy, each cookie line starts over, except for the attributes which pile up
        Cookie.Mode mode = Cookie.Mode.PASSIVE;
        boolean rewrite = false;
        boolean insert = false;
        boolean prefix = false;
        boolean indirect = false;
        boolean nocache = false;
        boolean postonly = false;
        boolean preserve = false;
        boolean httponly = false;
        boolean secure = false;
        boolean dynamic = false;
        String domain = null;
        int maxIdle = 0;
        int maxLife = 0;
        String attrs = p.cookieAttrs;
        for (int i = 1; i < a.size(); i++) {
            String w = a.get(i);
            String next = i + 1 < a.size() ? a.get(i + 1) : "";
            switch (w) {
                case "rewrite" -> rewrite = true;
                case "insert" -> insert = true;
                case "prefix" -> prefix = true;
                case "indirect" -> indirect = true;
                case "nocache" -> nocache = true;
                case "postonly" -> postonly = true;
                case "preserve" -> preserve = true;
                case "httponly" -> httponly = true;
                case "secure" -> secure = true;
                case "dynamic" -> dynamic = true;
                case "domain" -> {
                    if (next.isEmpty()) {
                        c.lineError("'domain' expects <domain> as argument.");
                        return;
                    }
                    if (next.indexOf('.') < 0) {
                        c.lineWarning("domain '" + next + "' contains no embedded dot, this configuration may not work properly"
                                + " (see RFC6265#5.2.3).");
                    }
                    for (int k = 0; k < next.length(); k++) {
                        char ch = next.charAt(k);
                        if (!(ch < 128 && Character.isLetterOrDigit(ch)) && ch != '.' && ch != '_' && ch != '-') {
                            c.lineError("character '" + ch + "' is not permitted in domain name '" + next + "'.");
                            return;
                        }
                    }
                    domain = domain == null ? next : domain + "; domain=" + next;
                    i++;
                }
                case "maxidle", "maxlife" -> {
                    if (next.isEmpty()) {
                        c.lineError("'" + w + "' expects <" + (w.equals("maxidle") ? "idletime" : "lifetime") + "> in seconds as argument.");
                        return;
                    }
                    long secs = seconds(c, next, w);
                    if (secs < 0) {
                        return;
                    }
                    if (w.equals("maxidle")) {
                        maxIdle = (int) secs;
                    } else {
                        maxLife = (int) secs;
                    }
                    i++;
                }
                case "attr" -> {
                    if (next.isEmpty()) {
                        c.lineError("'attr' expects <value> as argument.");
                        return;
                    }
                    for (int k = 0; k < next.length(); k++) {
                        char ch = next.charAt(k);
                        if (ch < 32 || ch == 127 || ch == ';') {
                            c.lineError(String.format("character '%%x%02X' is not permitted in attribute value.", (int) ch));
                            return;
                        }
                    }
                    attrs = attrs == null ? next : attrs + "; " + next;
                    i++;
                }
                default -> {
                    c.lineError("'cookie' supports 'rewrite', 'insert', 'prefix', 'indirect', 'nocache', 'postonly', 'domain', 'maxidle',"
                            + " 'dynamic', 'maxlife' and 'attr' options.");
                    return;
                }
            }
        }
        p.cookieAttrs = attrs;
        boolean failed = false;
        if (rewrite && indirect) {
            c.lineError("cookie 'rewrite' and 'indirect' modes are incompatible.");
            failed = true;
        }
        if ((rewrite ? 1 : 0) + (insert ? 1 : 0) + (prefix ? 1 : 0) > 1) {
            c.lineError("cookie 'rewrite', 'insert' and 'prefix' modes are incompatible.");
            failed = true;
        }
        if (preserve && !insert && !indirect) {
            c.lineError("cookie 'preserve' requires at least 'insert' or 'indirect'.");
            failed = true;
        }
        if (failed) {
            return;
        }
        mode = rewrite ? Cookie.Mode.REWRITE : insert ? Cookie.Mode.INSERT : prefix ? Cookie.Mode.PREFIX : Cookie.Mode.PASSIVE;
        p.cookie = new Cookie(c.at(), a.get(0), mode, indirect, nocache, postonly, preserve, httponly, secure, domain, maxIdle, maxLife,
                dynamic, attrs, null);
    }

    /**
     * A time in seconds as HAProxy reads {@code maxidle} and {@code maxlife}: a bare number is seconds, units us ms s m h d
     * round up to the next second; -1 (reported) when it is not a time or exceeds 2147483647 s.
     */
    static long seconds(KeywordContext c, String v, String what) {
        int i = 0;
        while (i < v.length() && v.charAt(i) >= '0' && v.charAt(i) <= '9') {
            i++;
        }
        if (i == 0) {
            c.lineError("unexpected character '" + v.charAt(0) + "' in argument to <" + what + ">.");
            return -1;
        }
        long micros = 1_000_000;
        int at = i;
        if (at < v.length()) {
            char u = v.charAt(at);
            boolean sNext = at + 1 < v.length() && v.charAt(at + 1) == 's';
            switch (u) {
                case 's' -> at++;
                case 'u' -> {
                    if (!sNext) {
                        c.lineError("unexpected character 'u' in argument to <" + what + ">.");
                        return -1;
                    }
                    micros = 1;
                    at += 2;
                }
                case 'm' -> {
                    micros = sNext ? 1_000 : 60_000_000L;
                    at += sNext ? 2 : 1;
                }
                case 'h' -> {
                    micros = 3_600_000_000L;
                    at++;
                }
                case 'd' -> {
                    micros = 86_400_000_000L;
                    at++;
                }
                default -> {
                    c.lineError("unexpected character '" + u + "' in argument to <" + what + ">.");
                    return -1;
                }
            }
            if (at < v.length()) {
                c.lineWarning("unexpected character '" + v.charAt(at) + "' after the timer value '" + v + "', only (us=microseconds,"
                        + "ms=milliseconds,s=seconds,m=minutes,h=hours,d=days) are supported. This will be reported as an error in next"
                        + " versions.");
            }
        }
        String digits = v.substring(0, i);
        BigInteger n = new BigInteger(digits).multiply(BigInteger.valueOf(micros));
        BigInteger[] qr = n.divideAndRemainder(BigInteger.valueOf(1_000_000));
        BigInteger secs = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        if (secs.compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) > 0) {
            c.lineError("timer overflow in argument <" + v + "> to <" + what + ">, maximum value is 2147483647 s (~68 years).");
            return -1;
        }
        return secs.longValue();
    }
}
