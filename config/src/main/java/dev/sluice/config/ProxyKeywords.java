package dev.sluice.config;

import static dev.sluice.config.Section.BACKEND_SIDE;
import static dev.sluice.config.Section.FRONTEND_SIDE;
import static dev.sluice.config.Section.PROXIES;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.ProxyOptions;
import dev.sluice.config.model.UseBackend;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The keywords all proxy sections share: mode, content switching ({@code acl}, {@code use_backend},
 * {@code default_backend}), the {@code timeout} family, the connection options of the {@code option} family
 * (forwardfor, keep-alive modes, TCP keep-alive, relaxed parsing), connection reuse and pooling, the listen backlog.
 * Registered once at start-up; the parsers run on the parsing thread.
 */
final class ProxyKeywords {
    private ProxyKeywords() {
    }

    private static final Set<Section> PROXY_SECTIONS = EnumSet.of(Section.FRONTEND, Section.BACKEND, Section.LISTEN);
    private static final Set<Section> FRONTENDS = EnumSet.of(Section.FRONTEND, Section.LISTEN);

    static void register(KeywordRegistry r) {
        r.family("timeout", "timeout");
        r.family("option", "option");

        r.register(new Keyword("mode", PROXIES, "mode http|tcp",
                "Proxy mode: 'http' processes HTTP requests, 'tcp' relays bytes (layer 4; the default, as in HAProxy). Sluice parses and"
                        + " checks TCP proxies but does not run them yet.",
                ProxyKeywords::mode));
        r.register(new Keyword("default_backend", FRONTEND_SIDE, "default_backend <backend>",
                "Backend used when no use_backend rule matches.", c -> {
                    if (c.expectArgs(1, 1, "default_backend <backend>")) {
                        c.proxy().defaultBackend = c.args().get(0);
                        c.proxy().defaultBackendWhere = c.at();
                    }
                }));
        r.register(new Keyword("use_backend", FRONTENDS, "use_backend <backend> [if|unless <condition>]",
                "Switch to a backend when the condition matches; the first matching rule wins.", ProxyKeywords::useBackend));
        r.register(new Keyword("acl", EnumSet.of(Section.FRONTEND, Section.BACKEND, Section.LISTEN, Section.FCGI_APP), "acl <name> <fetch> [flags] [values...]",
                "Declare a named ACL; several lines with one name are ORed.", ProxyKeywords::acl));

        timeout(r, "client", FRONTEND_SIDE, "Maximum inactivity time on the client side.", (p, v) -> p.timeoutClient = v);
        timeout(r, "server", BACKEND_SIDE, "Maximum inactivity time on the server side; a response not started in time gives 504.",
                (p, v) -> p.timeoutServer = v);
        timeout(r, "connect", BACKEND_SIDE, "Maximum time to wait for a connection to a server to succeed.", (p, v) -> p.timeoutConnect = v);
        // HAProxy 2.6 takes both in backends too (PR_CAP_FE|PR_CAP_BE): the head of a request and the wait for the next
        // one are bounded by the frontend's values; a backend's 'timeout http-request' bounds only the wait for a
        // request body that 'option http-buffer-request' makes, and its 'timeout http-keep-alive' nothing
        timeout(r, "http-request", PROXIES, "Maximum time to receive a complete request head (408 after it); the frontend's"
                + " applies. In a backend it only bounds the wait for the body of 'option http-buffer-request', as in HAProxy 2.6.",
                (p, v) -> p.timeoutHttpRequest = v);
        timeout(r, "http-keep-alive", PROXIES,
                "Maximum time to wait for the next request on a kept-alive connection (defaults to 'timeout http-request'); the"
                        + " frontend's applies, a backend's has no effect (as in HAProxy 2.6).",
                (p, v) -> p.timeoutHttpKeepAlive = v);

        timeout(r, "queue", BACKEND_SIDE, "Maximum time a request waits in a queue for a server slot (server maxconn); 503 after"
                + " it. Defaults to 'timeout connect'.", (p, v) -> p.timeoutQueue = v);
        timeout(r, "tarpit", PROXIES, "How long 'http-request tarpit' holds a request before answering (defaults to 'timeout connect').",
                (p, v) -> p.timeoutTarpit = v);
        r.register(new Keyword("backlog", FRONTEND_SIDE, "backlog <conns>",
                "The listen queue of this frontend's binds that do not set one ('bind ... backlog'); default: maxconn, as HAProxy.",
                c -> {
                    if (c.expectArgs(1, 1, "backlog <conns>")) {
                        int n = c.intArg(c.args().get(0), "backlog", 1, Integer.MAX_VALUE, -1);
                        if (n > 0) {
                            c.proxy().backlog = n;
                        }
                    }
                }));
        timeout(r, "check", BACKEND_SIDE, "With 'timeout connect', a health check connects within MIN(timeout connect, inter) and then"
                + " has this long to get its answer; unset, the whole check must finish within 'inter'.", (p, v) -> p.timeoutCheck = v);
        sideTimeout(r, "client-fin", true, "Inactivity limit on the client side once the client half-closed (or a FIN was forwarded to it);"
                + " defaults to 'timeout client'.", (p, v) -> p.timeoutClientFin = v);
        sideTimeout(r, "server-fin", false, "Inactivity limit on the server side once the server half-closed (or a FIN was forwarded to it);"
                + " defaults to 'timeout server'.", (p, v) -> p.timeoutServerFin = v);
        timeout(r, "tunnel", PROXIES, "Inactivity limit of a tunnel (WebSocket, CONNECT), both sides; defaults to client/server.",
                (p, v) -> p.timeoutTunnel = v);

        r.register(new Keyword("option forwardfor", PROXIES, "option forwardfor [except <network>] [header <name>] [if-none]",
                "Add an X-Forwarded-For header (its own line) with the client address.", ProxyKeywords::forwardFor));
        connectionMode(r, "http-keep-alive", HttpOptions.ConnectionMode.KEEP_ALIVE,
                "Keep client and server connections open between requests (the default).");
        connectionMode(r, "http-server-close", HttpOptions.ConnectionMode.SERVER_CLOSE,
                "Close the server connection after each response; keep the client connection.");
        connectionMode(r, "httpclose", HttpOptions.ConnectionMode.CLOSE, "Close both connections after each response.");
        r.register(new Keyword("pool-purge-delay", BACKEND_SIDE, "pool-purge-delay <time>",
                "The period of the backend's servers without their own pool-purge-delay: each period, half of a server's idle"
                        + " connections in excess of its need are closed (default 5s; 0: none kept). HAProxy 2.6 takes it on server"
                        + " lines only.", c -> {
                    if (c.expectArgs(1, 1, "pool-purge-delay <time>")) {
                        long t = c.timeArg(c.args().get(0));
                        if (t >= 0) {
                            c.proxy().poolPurgeDelay = t;
                        }
                    }
                }));
        r.register(new Keyword("option tcpka", PROXIES, "[no] option tcpka",
                "Send TCP keep-alive probes on client connections (frontends) and server connections (backends).", c -> {
                    if (c.expectArgs(0, 0, "option tcpka")) {
                        c.proxy().clientTcpKeepAlive = !c.negated();
                        c.proxy().serverTcpKeepAlive = !c.negated();
                    }
                }));
        r.register(new Keyword("option clitcpka", FRONTEND_SIDE, "[no] option clitcpka",
                "Send TCP keep-alive probes on client connections.", c -> {
                    if (c.expectArgs(0, 0, "option clitcpka")) {
                        c.proxy().clientTcpKeepAlive = !c.negated();
                    }
                }));
        r.register(new Keyword("option srvtcpka", BACKEND_SIDE, "[no] option srvtcpka",
                "Send TCP keep-alive probes on server connections.", c -> {
                    if (c.expectArgs(0, 0, "option srvtcpka")) {
                        c.proxy().serverTcpKeepAlive = !c.negated();
                    }
                }));
        for (String name : new String[] {"accept-unsafe-violations-in-http-request", "accept-invalid-http-request"}) {
            r.register(new Keyword("option " + name, FRONTEND_SIDE, "[no] option " + name,
                    "Relax HTTP/1 request parsing as HAProxy does: any non-control character in field names, 8-bit characters, "
                            + "'\"<>\\^`{|}' and '#' in the request target, several digits in the version. Control characters, "
                            + "framing errors and ambiguous lengths are still rejected.",
                    c -> {
                        if (c.expectArgs(0, 0, "option " + name)) {
                            c.proxy().acceptInvalidRequest = !c.negated();
                        }
                    }));
        }

        r.register(new Keyword("http-reuse", BACKEND_SIDE, "http-reuse never|safe|aggressive|always",
                "Which idle server connections a request may take: never (only its own client connection's), safe (the default: "
                        + "a client connection's first request gets a new one), aggressive (also ones already reused), always (any). "
                        + "HTTP/2 server connections are always shared.",
                c -> {
                    if (!c.expectArgs(1, 1, "http-reuse never|safe|aggressive|always")) {
                        return;
                    }
                    switch (c.args().get(0)) {
                        case "never" -> c.proxy().reuse = HttpOptions.Reuse.NEVER;
                        case "safe" -> c.proxy().reuse = HttpOptions.Reuse.SAFE;
                        case "aggressive" -> c.proxy().reuse = HttpOptions.Reuse.AGGRESSIVE;
                        case "always" -> c.proxy().reuse = HttpOptions.Reuse.ALWAYS;
                        default -> c.error("expects 'never', 'safe', 'aggressive' or 'always', not '" + c.args().get(0) + "'.");
                    }
                }));
        for (ProxyOptions.Splice s : ProxyOptions.Splice.values()) {
            String opt = "splice-" + s.name().toLowerCase(Locale.ROOT);
            r.register(new Keyword("option " + opt, PROXIES, "[no] option " + opt,
                    switch (s) {
                        case AUTO -> "Let the kernel move a TCP relay's data (splice) in a direction once it looks like a bulk transfer.";
                        case REQUEST -> "Let the kernel move a TCP relay's client-to-server data (splice).";
                        case RESPONSE -> "Let the kernel move a TCP relay's server-to-client data (splice).";
                    }, c -> {
                        if (c.expectArgs(0, 0, "option " + opt)) {
                            if (c.negated()) {
                                c.proxy().splice.remove(s);
                            } else {
                                c.proxy().splice.add(s);
                            }
                        }
                    }));
        }
        r.register(new Keyword("option http-buffer-request", PROXIES, "[no] option http-buffer-request",
                "Wait for the request's whole body (or a buffer's worth) before the proxy's http-request rules and the connection to"
                        + " a server, as 'http-request wait-for-body' does, until 'timeout http-request' (else 'timeout client'): then"
                        + " 408. The rules can then read req.body; a server gets the request at once, body included.",
                c -> {
                    if (c.expectArgs(0, 0, "option http-buffer-request")) {
                        c.proxy().bufferRequest = c.negated() ? null : c.at();
                    }
                }));
        r.register(new Keyword("option originalto", PROXIES, "option originalto [except <network>] [header <name>]",
                "Add the address the client connected to (the frontend's, or the PROXY header's destination) as an X-Original-To"
                        + " field (or <name>) to each request sent to a server, unless it is in the except network; set in the"
                        + " frontend or the backend, the backend's header name first.",
                c -> forwardedHeader(c, true)));
    }

    private interface TimeoutSetter {
        void set(ProxyBuilder p, long ms);
    }

    private static void timeout(KeywordRegistry r, String name, Set<Section> sections, String description, TimeoutSetter setter) {
        String syntax = "timeout " + name + " <time>";
        r.register(new Keyword("timeout " + name, sections, syntax, description, c -> {
            if (c.expectArgs(1, 1, syntax)) {
                long v = c.timeArg(c.args().get(0));
                if (v >= 0) {
                    setter.set(c.proxy(), v);
                }
            }
        }));
    }

    /**
     * A timeout of one side: HAProxy takes it anywhere but ignores it, with a warning, in a section without that side's
     * capability.
     */
    private static void sideTimeout(KeywordRegistry r, String name, boolean frontend, String description, TimeoutSetter setter) {
        String syntax = "timeout " + name + " <time>";
        r.register(new Keyword("timeout " + name, PROXIES, syntax, description, c -> {
            if (!c.expectArgs(1, 1, syntax)) {
                return;
            }
            long v = c.timeArg(c.args().get(0));
            if (v < 0) {
                return;
            }
            Section s = c.section();
            if (frontend && s == Section.BACKEND || !frontend && s == Section.FRONTEND) {
                c.lineWarning("'timeout " + name + "' will be ignored because " + s.keyword() + " '" + c.proxy().name + "' has no "
                        + (frontend ? "frontend" : "backend") + " capability");
                return;
            }
            setter.set(c.proxy(), v);
        }));
    }

    private static void connectionMode(KeywordRegistry r, String option, HttpOptions.ConnectionMode mode, String description) {
        r.register(new Keyword("option " + option, PROXIES, "[no] option " + option, description, c -> {
            if (c.expectArgs(0, 0, "option " + option)) {
                c.proxy().connectionMode = c.negated() ? HttpOptions.ConnectionMode.KEEP_ALIVE : mode;
            }
        }));
    }

    private static void mode(KeywordContext c) {
        if (!c.expectArgs(1, 1, "mode http|tcp")) {
            return;
        }
        switch (c.args().get(0)) {
            case "http" -> c.proxy().mode = Mode.HTTP;
            case "tcp" -> c.proxy().mode = Mode.TCP;
            case "health" -> c.error("mode health was removed from HAProxy 2.4; use monitor-uri instead.");
            default -> c.lineError("unknown proxy mode '" + c.args().get(0) + "'.");
        }
    }

    private static void useBackend(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).equals("if") || a.get(0).equals("unless")) {
            c.error("missing backend name; expected: use_backend <backend> [if|unless <condition>]");
            return;
        }
        Condition cond = null;
        if (a.size() > 1) {
            cond = c.conditionFrom(1);
            if (cond == null) {
                return;
            }
        }
        c.proxy().useBackends.add(new UseBackend(c.at(), a.get(0), cond));
    }

    private static void acl(KeywordContext c) {
        List<String> a = c.args();
        if (a.size() < 2) {
            c.error(a.isEmpty() ? "missing ACL name" : "missing fetch method in ACL '" + a.get(0) + "'");
            return;
        }
        String name = a.get(0);
        try {
            AclNames.check(name);
        } catch (IllegalArgumentException e) {
            c.error(e.getMessage());
            return;
        }
        if (Predefined.ACLS.contains(name)) {
            c.error("ACL name '" + name + "' is reserved for a predefined ACL.");
            return;
        }
        try {
            Acl acl = new Acl(c.at(), name, ConditionParser.parseExpr(a.subList(1, a.size())));
            if (c.section() == Section.FCGI_APP) {
                // an application's ACLs are its own, for its set-param and pass-header conditions
                c.currentFcgiApp().acls.add(acl);
            } else {
                c.proxy().acls.add(acl);
            }
        } catch (IllegalArgumentException e) {
            c.error("error detected while parsing ACL '" + name + "' : " + e.getMessage());
        }
    }

    private static void forwardFor(KeywordContext c) {
        forwardedHeader(c, false);
    }

    /** {@code option forwardfor}, or {@code option originalto} ({@code original}: without if-none). */
    private static void forwardedHeader(KeywordContext c, boolean original) {
        List<String> a = c.args();
        String option = original ? "option originalto" : "option forwardfor";
        if (c.negated()) {
            if (c.expectArgs(0, 0, "no " + option)) {
                if (original) {
                    c.proxy().originalTo = null;
                } else {
                    c.proxy().forwardFor = null;
                }
            }
            return;
        }
        String header = original ? "X-Original-To" : "X-Forwarded-For";
        String except = null;
        boolean ifNone = false;
        for (int i = 0; i < a.size(); i++) {
            switch (a.get(i)) {
                case "header" -> {
                    if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                        c.error("'header' requires a header name.");
                        return;
                    }
                    header = a.get(++i);
                }
                case "except" -> {
                    if (i + 1 >= a.size()) {
                        c.error("'except' requires a network in CIDR form.");
                        return;
                    }
                    except = a.get(++i);
                    if (!Networks.valid(except)) {
                        c.error("'except' : invalid network '" + except + "' (expected <ip>[/<prefix>])");
                        return;
                    }
                }
                case "if-none" -> {
                    if (original) {
                        c.error("unexpected argument 'if-none'; expected: option originalto [except <network>] [header <name>]");
                        return;
                    }
                    ifNone = true;
                }
                default -> {
                    c.error("unexpected argument '" + a.get(i) + "'; expected: " + option + " [except <network>] [header <name>]"
                            + (original ? "" : " [if-none]"));
                    return;
                }
            }
        }
        if (original) {
            c.proxy().originalTo = new HttpOptions.ForwardFor(header, except, false);
        } else {
            c.proxy().forwardFor = new HttpOptions.ForwardFor(header, except, ifNone);
        }
    }

    /** Whether a proxy or server name has only the characters HAProxy allows: ASCII letters and digits, {@code - _ . :}. */
    static boolean validName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (!(Character.isLetterOrDigit(ch) && ch < 128) && ch != '-' && ch != '_' && ch != '.' && ch != ':') {
                return false;
            }
        }
        return true;
    }
}
