package dev.sluice.config;

import static dev.sluice.config.Section.BACKEND_SIDE;
import static dev.sluice.config.Section.FRONTEND_SIDE;
import static dev.sluice.config.Section.PROXIES;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.UseBackend;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The foundation keywords: process settings, proxies, binds, servers, timeouts, connection options,
 * content switching and {@code http-request return}.
 */
final class CoreKeywords {
    private CoreKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);
    private static final Set<Section> PROXY_SECTIONS = EnumSet.of(Section.FRONTEND, Section.BACKEND, Section.LISTEN);
    private static final Set<Section> FRONTENDS = EnumSet.of(Section.FRONTEND, Section.LISTEN);
    private static final Set<Section> BACKENDS = EnumSet.of(Section.BACKEND, Section.LISTEN);

    static void register(KeywordRegistry r) {
        r.family("timeout", "timeout");
        r.family("option", "option");
        r.family("http-request", "http-request action");

        // global
        r.register(new Keyword("maxconn", EnumSet.of(Section.GLOBAL, Section.DEFAULTS, Section.FRONTEND, Section.LISTEN), "maxconn <number>",
                "Maximum concurrent connections: for the whole process in global, per frontend elsewhere; excess connections wait in the kernel backlog.",
                CoreKeywords::maxconn));
        r.register(new Keyword("nbthread", GLOBAL, "nbthread <number>",
                "Number of event-loop threads (default: one per available core).",
                c -> {
                    if (c.expectArgs(1, 1, "nbthread <number>")) {
                        c.global().nbthread = c.intArg(c.args().get(0), "nbthread", 1, 4096, 0);
                    }
                }));
        r.register(new Keyword("daemon", GLOBAL, "daemon", "Detach from the terminal and run in the background (same as -D).",
                c -> {
                    if (c.expectArgs(0, 0, "daemon")) {
                        c.global().daemon = true;
                    }
                }));
        r.register(new Keyword("pidfile", GLOBAL, "pidfile <path>", "Write the daemon's PID to this file (same as -p).",
                c -> {
                    if (c.expectArgs(1, 1, "pidfile <path>")) {
                        c.global().pidfile = c.args().get(0);
                    }
                }));

        processKeywords(r);

        // proxies
        r.register(new Keyword("mode", PROXIES, "mode http", "Proxy mode: 'http' processes HTTP requests (the only mode Sluice has so far).",
                CoreKeywords::mode));
        r.register(new Keyword("bind", FRONTENDS, "bind <address>:<port>[,...] | fd@<n> | quic4@<address>:<port> | quic6@<address>:<port> [ssl crt <pem|dir>... [alpn <list>] [ciphers <list>] [ssl-min-ver <v>] [verify ...]] [proto h2] [accept-proxy] [quic-force-retry] [quic-cc-algo cubic|newreno|bbr]",
                "Accept connections on an IPv4 or IPv6 address and port, or on a listening socket inherited as file descriptor <n>; with ssl, terminate TLS (certificates chosen by SNI, default ALPN h2,http/1.1); proto h2 speaks HTTP/2 on clear text."
                        + " accept-proxy: every connection starts with a PROXY protocol header (v1 or v2, from a load balancer in front), whose addresses become the client's (src, dst, logs); a connection without a valid one is closed and logged."
                        + " quic4@/quic6@ receive QUIC datagrams on UDP and serve HTTP/3 (needs ssl crt; ALPN h3): quic-force-retry makes every new connection prove its address with a Retry token first (otherwise Retry starts above tune.quic.retry-threshold half-open connections); quic-cc-algo picks the congestion controller (default cubic).",
                CoreKeywords::bind));
        r.register(new Keyword("server", BACKENDS, "server <name> <address>[:<port>] [weight <0-256>] [backup] [disabled] [id <n>]"
                + " [init-state fully-up|up|down|fully-down] [maxconn <n>] [minconn <n>] [maxqueue <n>] [slowstart <time>] [cookie <value>]"
                + " [ssl [verify none|required]"
                + " [ca-file <f>] [sni <expr>] [alpn <list>] [crt <pem>]] [proto h2] [send-proxy|send-proxy-v2] [init-addr <method>[,...]]",
                "Declare a server of the backend; without a port the connection's destination port is used. A backup server serves"
                        + " only when no active server is usable; a disabled one (or weight 0) is never chosen; init-state down starts it"
                        + " DOWN. id defaults to the first free number. maxconn: concurrent requests; more wait in a queue (the server's"
                        + " own when a hash or stickiness chose it, else the backend's), first in first out, until 'timeout queue'"
                        + " (503); maxqueue: the most requests its own queue holds (503 beyond); minconn: with maxconn, a limit that"
                        + " grows from minconn to maxconn with the backend's load, reaching maxconn at 'fullconn' requests."
                        + " cookie: the value of the backend's"
                        + " persistence cookie that designates this server. With ssl, connect over TLS (SNI from the sni expression, else"
                        + " the host name; with alpn h2 the handshake chooses HTTP/2 or HTTP/1.1). send-proxy/send-proxy-v2: each new"
                        + " connection starts with a PROXY protocol v1/v2 header giving the client's addresses; such connections only"
                        + " carry requests of the client connection they were opened for. init-addr: how a host name becomes an address"
                        + " at start-up, the first method that works: libc (the system's resolver), none (start in maintenance, 'MAINT"
                        + " (resolution)', until 'set server ... addr'), an IP address, last (the state file's: Sluice has none, so it"
                        + " is skipped); default last,libc.",
                CoreKeywords::server));
        r.register(new Keyword("default-server", BACKEND_SIDE, "default-server [weight <0-256>] [backup|no-backup] [disabled|enabled]"
                + " [init-state <state>] [maxconn <n>] [minconn <n>] [maxqueue <n>] [slowstart <time>] [cookie <value>] [ssl options]"
                + " [proto h2]",
                "Default values for the server lines that follow.", CoreKeywords::defaultServer));
        r.register(new Keyword("default_backend", FRONTEND_SIDE, "default_backend <backend>",
                "Backend used when no use_backend rule matches.", c -> {
                    if (c.expectArgs(1, 1, "default_backend <backend>")) {
                        c.proxy().defaultBackend = c.args().get(0);
                        c.proxy().defaultBackendWhere = c.at();
                    }
                }));
        r.register(new Keyword("use_backend", FRONTENDS, "use_backend <backend> [if|unless <condition>]",
                "Switch to a backend when the condition matches; the first matching rule wins.", CoreKeywords::useBackend));
        r.register(new Keyword("acl", PROXY_SECTIONS, "acl <name> <fetch> [flags] [values...]",
                "Declare a named ACL; several lines with one name are ORed.", CoreKeywords::acl));

        timeout(r, "client", FRONTEND_SIDE, "Maximum inactivity time on the client side.", (p, v) -> p.timeoutClient = v);
        timeout(r, "server", BACKEND_SIDE, "Maximum inactivity time on the server side; a response not started in time gives 504.",
                (p, v) -> p.timeoutServer = v);
        timeout(r, "connect", BACKEND_SIDE, "Maximum time to wait for a connection to a server to succeed.", (p, v) -> p.timeoutConnect = v);
        timeout(r, "http-request", FRONTEND_SIDE, "Maximum time to receive a complete request head (408 after it).",
                (p, v) -> p.timeoutHttpRequest = v);
        timeout(r, "http-keep-alive", FRONTEND_SIDE,
                "Maximum time to wait for the next request on a kept-alive connection (defaults to 'timeout http-request').",
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
        timeout(r, "tunnel", PROXIES, "Inactivity limit of a tunnel (WebSocket, CONNECT), both sides; defaults to client/server.",
                (p, v) -> p.timeoutTunnel = v);

        r.register(new Keyword("option forwardfor", PROXIES, "option forwardfor [except <network>] [header <name>] [if-none]",
                "Add an X-Forwarded-For header (its own line) with the client address.", CoreKeywords::forwardFor));
        connectionMode(r, "http-keep-alive", HttpOptions.ConnectionMode.KEEP_ALIVE,
                "Keep client and server connections open between requests (the default).");
        connectionMode(r, "http-server-close", HttpOptions.ConnectionMode.SERVER_CLOSE,
                "Close the server connection after each response; keep the client connection.");
        connectionMode(r, "httpclose", HttpOptions.ConnectionMode.CLOSE, "Close both connections after each response.");
        r.register(new Keyword("pool-purge-delay", BACKEND_SIDE, "pool-purge-delay <time>",
                "Each period, half of a server's idle connections are closed (default 5s; 0: never).", c -> {
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
                        c.proxy().stickRules.add(new dev.sluice.config.model.StickRule(c.at(), kind, a.get(0), end == 3 ? a.get(2) : null, cond));
                    }));
        }
        r.register(new Keyword("stick-table", PROXY_SECTIONS,
                "stick-table type <ip|ipv6|integer|string [len n]|binary [len n]> size <n> [expire <time>] [nopurge] [store <type>[,<type>]*]",
                "The proxy's stick table (one per proxy), for track-sc rules and the sc_*, src_* and table_* samples.", c -> {
                    if (c.args().isEmpty()) {
                        c.error("expects a table definition: type <type> size <size> [expire <time>] [store <types>].");
                    } else if (c.proxy().stickTable != null) {
                        c.error("only one stick-table per proxy (previous one at line " + c.proxy().stickTable.where().line() + ").");
                    } else {
                        c.proxy().stickTable = new dev.sluice.config.model.StickTableDecl(c.at(), c.args());
                    }
                }));

        r.register(new Keyword("tune.bufsize", EnumSet.of(Section.GLOBAL), "tune.bufsize <bytes>",
                "Buffer size (default 16384): a request or response head must fit in it minus tune.maxrewrite (414/431/502 otherwise).",
                c -> {
                    if (c.expectArgs(1, 1, "tune.bufsize <bytes>")) {
                        c.global().bufsize = c.intArg(c.args().get(0), "tune.bufsize", 1024, 1 << 30, c.global().bufsize);
                    }
                }));
        r.register(new Keyword("tune.maxrewrite", EnumSet.of(Section.GLOBAL), "tune.maxrewrite <bytes>",
                "Room kept in the buffer for header rewrites (default 1024).", c -> {
                    if (c.expectArgs(1, 1, "tune.maxrewrite <bytes>")) {
                        c.global().maxrewrite = c.intArg(c.args().get(0), "tune.maxrewrite", 0, 1 << 29, c.global().maxrewrite);
                    }
                }));
        r.register(new Keyword("tune.http.maxhdr", EnumSet.of(Section.GLOBAL), "tune.http.maxhdr <number>",
                "Most header fields in a message (default 101, 1 to 32767); more gives 400 (502 for a response).", c -> {
                    if (c.expectArgs(1, 1, "tune.http.maxhdr <number>")) {
                        c.global().maxhdr = c.intArg(c.args().get(0), "tune.http.maxhdr", 1, 32767, c.global().maxhdr);
                    }
                }));

        r.register(new Keyword("description", EnumSet.of(Section.GLOBAL, Section.FRONTEND, Section.BACKEND, Section.LISTEN), "description <text>",
                "A description of the process (global: 'show info', the stats page with 'stats show-desc') or of a proxy (shown"
                        + " beside its name on the stats page); the words are joined by spaces.",
                c -> {
                    if (c.args().isEmpty()) {
                        c.error("expects a string argument.");
                        return;
                    }
                    String text = String.join(" ", c.args());
                    if (c.section() == Section.GLOBAL) {
                        c.global().description = text;
                    } else {
                        c.proxy().description = text;
                    }
                }));
        r.register(new Keyword("node", EnumSet.of(Section.GLOBAL), "node <name>",
                "The name of this process in a cluster, shown by 'show info' and on the stats page with 'stats show-node' (default:"
                        + " the host name).",
                c -> {
                    if (c.expectArgs(1, 1, "node <name>")) {
                        c.global().node = c.args().get(0);
                    }
                }));
        TlsKeywords.register(r);
        BalanceKeywords.register(r);
        LogKeywords.register(r);
        StatsKeywords.register(r);
        ErrorKeywords.register(r);
        RuleKeywords.register(r);
        UserlistKeywords.register(r);
        RetryKeywords.register(r);
        CompressionKeywords.register(r);
        QuicKeywords.register(r);
        CheckKeywords.register(r);
        PersistenceKeywords.register(r);

        r.register(new Keyword("http-request return", PROXY_SECTIONS,
                "http-request return [status <code>] [content-type <type>] [string <text> | file <path>] [hdr <name> <value>]* [if|unless <cond>]",
                "Answer the request from the proxy itself (default status 200, empty body).", CoreKeywords::httpReturn));
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

    private static void connectionMode(KeywordRegistry r, String option, HttpOptions.ConnectionMode mode, String description) {
        r.register(new Keyword("option " + option, PROXIES, "[no] option " + option, description, c -> {
            if (c.expectArgs(0, 0, "option " + option)) {
                c.proxy().connectionMode = c.negated() ? HttpOptions.ConnectionMode.KEEP_ALIVE : mode;
            }
        }));
    }

    private static void maxconn(KeywordContext c) {
        if (!c.expectArgs(1, 1, "maxconn <number>")) {
            return;
        }
        int v = c.intArg(c.args().get(0), "maxconn", 1, Integer.MAX_VALUE, 0);
        if (c.section() == Section.GLOBAL) {
            c.global().maxconn = v;
        } else {
            c.proxy().maxconn = v;
        }
    }

    private static void mode(KeywordContext c) {
        if (!c.expectArgs(1, 1, "mode http")) {
            return;
        }
        switch (c.args().get(0)) {
            case "http" -> c.proxy().mode = Mode.HTTP;
            case "tcp" -> c.error("mode tcp (layer-4 proxying) is not supported by Sluice yet; only 'mode http' is.");
            case "health" -> c.error("mode health was removed from HAProxy 2.4; use monitor-uri instead.");
            default -> c.error("unknown mode '" + c.args().get(0) + "' (expected 'http')");
        }
    }

    private static void bind(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("missing address; expected: bind <address>:<port>[,...] | fd@<n> [ssl crt <pem> [alpn <list>] ...] [proto h2]");
            return;
        }
        TlsOptions opts = new TlsOptions();
        BindSocketOptions sock = new BindSocketOptions();
        boolean forceRetry = false;
        boolean acceptProxy = false;
        dev.sluice.config.model.BindQuic.CongestionControl cc = null;
        String quicOption = null;
        int i = 1;
        while (i < a.size()) {
            String opt = a.get(i);
            if (opt.equals("accept-proxy")) {
                acceptProxy = true;
                i++;
                continue;
            }
            if (opt.equals("quic-force-retry")) {
                forceRetry = true;
                quicOption = opt;
                i++;
                continue;
            }
            if (opt.equals("quic-cc-algo")) {
                String v = i + 1 < a.size() ? a.get(i + 1) : null;
                // HAProxy accepts an optional window size in parentheses: cubic(8m)
                String name = v == null ? null : v.replaceFirst("\\(.*\\)$", "");
                cc = dev.sluice.config.model.BindQuic.CongestionControl.of(name);
                if (cc == null) {
                    c.error(v == null ? "'quic-cc-algo' expects an argument (cubic, newreno or bbr)."
                            : name.equals("nocc") || name.equals("bbr2") ? "'quic-cc-algo " + name + "' is not supported by Sluice: Netty's QUIC codec offers cubic, newreno and bbr."
                            : "'quic-cc-algo' : unknown algorithm '" + v + "' (expected cubic, newreno or bbr).");
                    return;
                }
                if (!name.equals(v)) {
                    c.warning("'quic-cc-algo' : the window size in '" + v + "' is ignored (the codec sizes its congestion window itself).");
                }
                quicOption = opt;
                i += 2;
                continue;
            }
            int next = TlsKeywords.option(c, opts, a, i, false);
            if (next == TlsKeywords.FAILED) {
                return;
            }
            if (next == TlsKeywords.NOT_MINE) {
                next = sock.option(c, a, i);
                if (next == TlsKeywords.FAILED) {
                    return;
                }
            }
            if (next == TlsKeywords.NOT_MINE) {
                String what = TlsKeywords.bindFeature(opt);
                c.error(what != null ? "bind option '" + opt + "' is not supported by Sluice yet: " + what
                        : "unknown bind option '" + opt + "'" + Suggestions.didYouMean(Suggestions.closest(opt, List.of("ssl", "crt", "alpn",
                                "ciphers", "ciphersuites", "ssl-min-ver", "ssl-max-ver", "ca-file", "verify", "proto", "no-tls-tickets",
                                "strict-sni", "curves", "quic-force-retry", "quic-cc-algo", "accept-proxy"))));
                return;
            }
            i = next;
        }
        if (!opts.sslEnabled() && (!opts.certificates.isEmpty() || opts.alpn != null)) {
            c.error("'crt' and 'alpn' need 'ssl' on the same line.");
            return;
        }
        if (opts.sslEnabled() && opts.certificates.isEmpty()) {
            c.error("'ssl' needs at least one 'crt <pem file or directory>'.");
            return;
        }
        if (opts.noVersionLeft()) {
            c.error("no TLS version is left enabled by the version options.");
            return;
        }
        for (String one : a.get(0).split(",", -1)) {
            if (one.isEmpty()) {
                c.error("empty address in list '" + a.get(0) + "'");
                continue;
            }
            try {
                ListenAddress addr = Addresses.listen(one);
                dev.sluice.config.model.BindQuic quic = null;
                if (addr instanceof ListenAddress.Quic) {
                    if (!quicBind(c, one, opts)) {
                        continue;
                    }
                    quic = new dev.sluice.config.model.BindQuic(forceRetry,
                            cc != null ? cc : dev.sluice.config.model.BindQuic.DEFAULT.congestionControl());
                } else if (quicOption != null) {
                    c.error("'" + quicOption + "' only applies to QUIC binds (quic4@ or quic6@), not to '" + one + "'.");
                    continue;
                }
                if (acceptProxy && addr instanceof ListenAddress.Quic) {
                    c.error("'accept-proxy' does not apply to QUIC bind '" + one + "': the PROXY protocol runs over TCP.");
                    continue;
                }
                if (sock.used != null && !(addr instanceof ListenAddress.Inet)) {
                    c.error("'" + sock.used + "' only applies to TCP addresses, not to '" + one + "'.");
                    continue;
                }
                c.proxy().binds.add(new Bind(c.at(), addr, one, null, opts.proto, quic, sock.build(), acceptProxy));
                c.proxy().bindOptions.add(opts);
            } catch (IllegalArgumentException e) {
                c.error(e.getMessage());
            }
        }
    }

    /** What a QUIC bind needs: TLS with a certificate (QUIC always carries TLS 1.3), HTTP/3 as its protocol. */
    private static boolean quicBind(KeywordContext c, String addr, TlsOptions opts) {
        if (!opts.sslEnabled()) {
            c.error("QUIC bind '" + addr + "' needs 'ssl crt <pem>': QUIC always runs TLS 1.3.");
            return false;
        }
        if (opts.proto != null) {
            c.error("'proto' does not apply to QUIC bind '" + addr + "': it always speaks HTTP/3.");
            return false;
        }
        if (opts.alpn != null && !opts.alpn.contains("h3")) {
            c.error("QUIC bind '" + addr + "' speaks HTTP/3 only: its 'alpn' must include 'h3' (not '" + String.join(",", opts.alpn) + "').");
            return false;
        }
        return true;
    }

    private static String serverOptionFeature(String opt) {
        return switch (opt) {
            case "agent-check", "agent-port", "agent-addr", "agent-inter", "agent-send", "agent-host" -> "agent checks";
            case "observe", "error-limit", "on-error", "on-marked-down", "on-marked-up" -> "health analysis of live traffic (observe)";
            case "check-alpn", "check-proto", "check-via-socks4" -> "this health-check option";
            case "verifyhost", "sni-auto", "allow-0rtt", "crl-file" -> "this server TLS option";
            case "send-proxy-v2-ssl", "send-proxy-v2-ssl-cn", "proxy-v2-options" -> "PROXY protocol v2 TLS and extra fields (TLVs)";
            case "resolvers", "resolve-prefer", "resolve-opts", "resolve-net" -> "DNS resolvers";
            case "track" -> "server tracking";
            case "pool-max-conn", "pool-low-conn", "pool-purge-delay" -> "connection pool tuning";
            case "redir" -> "redirect servers";
            case "tfo" -> "TCP fast open";
            case "namespace" -> "network namespaces";
            default -> null;
        };
    }

    private static void server(KeywordContext c) {
        List<String> a = c.args();
        if (a.size() < 2) {
            c.error(a.isEmpty() ? "missing server name and address" : "missing address for server '" + a.get(0) + "'");
            return;
        }
        String name = a.get(0);
        if (!validName(name)) {
            c.error("invalid character in server name '" + name + "'");
            return;
        }
        Addresses.HostPort hp;
        String addr = a.get(1);
        try {
            if (addr.startsWith("ipv4@") || addr.startsWith("ipv6@")) {
                addr = addr.substring(5);
            } else if (addr.indexOf('@') >= 0 || addr.startsWith("/")) {
                c.error("server '" + name + "' : address '" + addr + "' is not supported by Sluice yet (only IPv4, IPv6 and host names)");
                return;
            }
            hp = Addresses.split(addr, false);
        } catch (IllegalArgumentException e) {
            c.error("server '" + name + "' : " + e.getMessage());
            return;
        }
        if (hp.host().isEmpty()) {
            c.error("server '" + name + "' : missing host in address '" + addr + "'");
            return;
        }
        ServerLine line = serverOptions(c, name, a, 2, c.proxy().defaultServer.copy(), c.proxy().defaultServerTls.copy());
        if (line != null) {
            ServerParams p = line.params;
            if (p.check && hp.port() == 0 && p.checkPort == 0) {
                c.error("server '" + name + "' has neither service port nor check port.");
                return;
            }
            // HAProxy's check_config_validity: a minconn above maxconn becomes the maxconn, no minconn means a static maxconn
            int maxconn = p.minconn > p.maxconn ? p.minconn : p.maxconn;
            int minconn = p.minconn > p.maxconn || p.minconn == 0 ? maxconn : p.minconn;
            c.proxy().servers.add(new Server(c.at(), name, hp.host(), hp.port(), p.weight, null, line.tls.proto, p.id, p.backup, p.disabled,
                    p.initState, maxconn, p.maxqueue, p.slowstart, CheckKeywords.serverCheck(p), p.cookie, minconn,
                    (p.sendProxy & 2) != 0 ? 2 : p.sendProxy & 1, p.initAddr));
            c.proxy().serverOptions.add(line.tls);
        }
    }

    /** What the options of a server or default-server line set. */
    private record ServerLine(ServerParams params, TlsOptions tls) {
    }

    /** Parses the options of a server line ({@code name} is the server's) or of default-server ({@code name} "default-server"). */
    private static ServerLine serverOptions(KeywordContext c, String name, List<String> a, int from, ServerParams params, TlsOptions tls) {
        boolean dflt = name.equals("default-server");
        params.id = 0;
        int i = from;
        while (i < a.size()) {
            String opt = a.get(i);
            switch (opt) {
                case "send-proxy", "send-proxy-v2" -> {
                    // a set of versions, as HAProxy's pp_opts: v2 wins when both are set
                    params.sendProxy |= opt.equals("send-proxy") ? 1 : 2;
                    i++;
                    continue;
                }
                case "init-addr" -> {
                    String v = i + 1 < a.size() ? a.get(i + 1) : "";
                    java.util.List<String> methods = new ArrayList<>();
                    for (String m : v.split(",", -1)) {
                        if (!m.equals("last") && !m.equals("libc") && !m.equals("none") && Addresses.literal(m) == null) {
                            c.error((dflt ? "" : "server '" + name + "' : ") + "'init-addr' : expects 'last', 'libc', 'none' or an IP"
                                    + " address, not '" + m + "'.");
                            return null;
                        }
                        methods.add(m);
                    }
                    params.initAddr = List.copyOf(methods);
                    i += 2;
                    continue;
                }
                case "no-send-proxy", "no-send-proxy-v2" -> {
                    params.sendProxy &= opt.equals("no-send-proxy") ? ~1 : ~2;
                    i++;
                    continue;
                }
                default -> {
                }
            }
            int next = BalanceKeywords.serverOption(c, dflt ? null : name, params, a, i);
            if (next == TlsKeywords.NOT_MINE) {
                next = CheckKeywords.serverOption(c, dflt ? null : name, params, a, i);
            }
            if (next == TlsKeywords.FAILED) {
                return null;
            }
            if (next != TlsKeywords.NOT_MINE) {
                i = next;
                continue;
            }
            next = TlsKeywords.option(c, tls, a, i, true);
            if (next == TlsKeywords.FAILED) {
                return null;
            }
            if (next == TlsKeywords.NOT_MINE) {
                String feature = serverOptionFeature(opt);
                c.error((name.equals("default-server") ? "" : "server '" + name + "' : ") + (feature != null
                        ? "option '" + opt + "' is not supported by Sluice yet: " + feature
                        : "unknown keyword '" + opt + "'" + Suggestions.didYouMean(Suggestions.closest(opt, serverOptionNames()))));
                return null;
            }
            i = next;
        }
        return new ServerLine(params, tls);
    }

    private static List<String> serverOptionNames() {
        List<String> names = new ArrayList<>(BalanceKeywords.SERVER_OPTIONS);
        names.addAll(CheckKeywords.SERVER_OPTIONS);
        names.addAll(List.of("ssl", "verify", "ca-file", "sni", "alpn", "proto", "crt", "no-ssl-reuse", "send-proxy", "send-proxy-v2", "init-addr"));
        return names;
    }

    private static void defaultServer(KeywordContext c) {
        ServerLine line = serverOptions(c, "default-server", c.args(), 0, c.proxy().defaultServer.copy(), c.proxy().defaultServerTls.copy());
        if (line != null) {
            c.proxy().defaultServer = line.params;
            c.proxy().defaultServerTls = line.tls;
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
            c.proxy().acls.add(new Acl(c.at(), name, ConditionParser.parseExpr(a.subList(1, a.size()))));
        } catch (IllegalArgumentException e) {
            c.error("error detected while parsing ACL '" + name + "' : " + e.getMessage());
        }
    }

    private static void forwardFor(KeywordContext c) {
        List<String> a = c.args();
        if (c.negated()) {
            if (c.expectArgs(0, 0, "no option forwardfor")) {
                c.proxy().forwardFor = null;
            }
            return;
        }
        String header = "X-Forwarded-For";
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
                case "if-none" -> ifNone = true;
                default -> {
                    c.error("unexpected argument '" + a.get(i) + "'; expected: option forwardfor [except <network>] [header <name>] [if-none]");
                    return;
                }
            }
        }
        c.proxy().forwardFor = new HttpOptions.ForwardFor(header, except, ifNone);
    }

    private static void httpReturn(KeywordContext c) {
        List<String> a = c.args();
        int end = c.conditionStart(0);
        int status = 200;
        String contentType = null;
        boolean nonEmptyBody = false;
        boolean hasBody = false;
        for (int i = 0; i < end; i++) {
            String w = a.get(i);
            boolean hasValue = i + 1 < end;
            switch (w) {
                case "status" -> {
                    if (!hasValue) {
                        c.error("'status' expects a status code.");
                        return;
                    }
                    status = c.intArg(a.get(++i), "status", 200, 599, -1);
                    if (status < 0) {
                        return;
                    }
                }
                case "content-type" -> {
                    if (!hasValue) {
                        c.error("'content-type' expects a type.");
                        return;
                    }
                    contentType = a.get(++i);
                }
                case "string", "lf-string" -> {
                    if (!hasValue) {
                        c.error("'" + w + "' expects a text.");
                        return;
                    }
                    if (hasBody) {
                        c.error("only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.");
                        return;
                    }
                    hasBody = true;
                    nonEmptyBody = !a.get(++i).isEmpty();
                }
                case "file", "lf-file" -> {
                    if (!hasValue) {
                        c.error("'" + w + "' expects a path.");
                        return;
                    }
                    if (hasBody) {
                        c.error("only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.");
                        return;
                    }
                    String path = a.get(++i);
                    try {
                        hasBody = true;
                        nonEmptyBody = Files.size(Path.of(path)) > 0;
                        if (!Files.isReadable(Path.of(path))) {
                            throw new IOException("not readable");
                        }
                    } catch (IOException | RuntimeException e) {
                        c.error("cannot read file '" + path + "': " + e.getMessage());
                        return;
                    }
                }
                case "hdr" -> {
                    if (i + 2 >= end) {
                        c.error("'hdr' expects a name and a value.");
                        return;
                    }
                    String name = a.get(i + 1);
                    if (!HttpTokens.isToken(name)) {
                        c.error("invalid header name '" + name + "'.");
                        return;
                    }
                    i += 2;
                }
                case "errorfile", "errorfiles" -> i++;
                case "default-errorfiles" -> {
                }
                default -> {
                    c.error("unexpected argument '" + w + "'; expected: status, content-type, string, lf-string, file, lf-file, hdr,"
                            + " errorfile, errorfiles, default-errorfiles, if or unless.");
                    return;
                }
            }
        }
        if (nonEmptyBody && contentType == null) {
            c.error("a content type must be defined when non-empty payload is configured.");
            return;
        }
        if (hasBody && (status == 204 || status == 304)) {
            c.error("status " + status + " cannot carry a body.");
            return;
        }
        Condition cond = null;
        if (end < a.size()) {
            cond = c.conditionFrom(end);
            if (cond == null) {
                return;
            }
        }
        List<String> args = ErrorKeywords.resolveRulePage(c, a.subList(0, end), status);
        if (args == null) {
            return;
        }
        RuleKeywords.warnAfterRedirect(c);
        c.proxy().httpRequestRules.add(new HttpRule.Action(c.at(), cond, "return", args));
    }

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

    /** The global {@code user} (a userlist's {@code user} is the same keyword: {@link UserlistKeywords}). */
    static void globalUser(KeywordContext c) {
        if (c.expectArgs(1, 1, "user <user name>")) {
            if (c.global().user != null || c.global().uid >= 0) {
                c.warning("user/uid already specified; the last one wins.");
            }
            c.global().user = c.args().get(0);
            c.global().userAt = c.at();
            c.global().uid = -1;
        }
    }

    /** The global {@code group} (a userlist's {@code group} is the same keyword: {@link UserlistKeywords}). */
    static void globalGroup(KeywordContext c) {
        if (c.expectArgs(1, 1, "group <group name>")) {
            if (c.global().group != null || c.global().gid >= 0) {
                c.warning("group/gid already specified; the last one wins.");
            }
            c.global().group = c.args().get(0);
            c.global().groupAt = c.at();
            c.global().gid = -1;
        }
    }

    /** uid, gid, chroot, ulimit-n (and user, group: see above): applied by the daemon once its listeners are bound. */
    private static void processKeywords(KeywordRegistry r) {
        r.register(new Keyword("uid", GLOBAL, "uid <number>", "Run with this numeric user id once the listeners are bound.",
                c -> {
                    if (c.expectArgs(1, 1, "uid <number>")) {
                        if (c.global().user != null || c.global().uid >= 0) {
                            c.warning("user/uid already specified; the last one wins.");
                        }
                        c.global().uid = c.intArg(c.args().get(0), "uid", 0, Integer.MAX_VALUE, -1);
                        c.global().user = null;
                    }
                }));
        r.register(new Keyword("gid", GLOBAL, "gid <number>", "Run with this numeric group id once the listeners are bound.",
                c -> {
                    if (c.expectArgs(1, 1, "gid <number>")) {
                        if (c.global().group != null || c.global().gid >= 0) {
                            c.warning("group/gid already specified; the last one wins.");
                        }
                        c.global().gid = c.intArg(c.args().get(0), "gid", 0, Integer.MAX_VALUE, -1);
                        c.global().group = null;
                    }
                }));
        r.register(new Keyword("chroot", GLOBAL, "chroot <directory>",
                "Change the root directory to this one once the listeners are bound and every file is read (needs root).",
                c -> {
                    if (c.expectArgs(1, 1, "chroot <directory>")) {
                        c.global().chroot = c.args().get(0);
                    }
                }));
        r.register(new Keyword("zero-warning", GLOBAL, "zero-warning",
                "Treat every configuration warning as fatal: the daemon does not start and -c fails.", c -> {
                    if (c.expectArgs(0, 0, "zero-warning")) {
                        c.global().zeroWarning = true;
                    }
                }));
        r.register(new Keyword("master-worker", GLOBAL, "master-worker [no-exit-on-failure]",
                "Run as a master that supervises a worker process (as -W): SIGUSR2 reloads, and the master exits with the "
                        + "worker when it dies, unless no-exit-on-failure.",
                c -> {
                    if (c.expectArgs(0, 1, "master-worker [no-exit-on-failure]")) {
                        if (c.args().isEmpty()) {
                            c.global().masterWorker = true;
                        } else if (c.args().get(0).equals("no-exit-on-failure")) {
                            c.global().masterWorker = true;
                            c.global().exitOnFailure = false;
                        } else {
                            c.error("'master-worker' only supports 'no-exit-on-failure' option.");
                        }
                    }
                }));
        r.register(new Keyword("mworker-max-reloads", GLOBAL, "mworker-max-reloads <number>",
                "In master-worker mode, a leaving worker still running after this many reloads gets a SIGTERM.", c -> {
                    if (c.expectArgs(1, 1, "mworker-max-reloads <number>")) {
                        c.global().maxReloads = c.intArg(c.args().get(0), "mworker-max-reloads", 0, Integer.MAX_VALUE, -1);
                    }
                }));
        r.register(new Keyword("noreuseport", GLOBAL, "noreuseport",
                "Listen without SO_REUSEPORT: a new process started with -sf then cannot bind the same ports while the old one runs.",
                c -> {
                    if (c.expectArgs(0, 0, "noreuseport")) {
                        c.global().noReusePort = true;
                    }
                }));
        r.register(new Keyword("hard-stop-after", GLOBAL, "hard-stop-after <time>",
                "The longest a graceful stop (SIGUSR1, -sf) may last: connections still open then are closed.", c -> {
                    if (c.expectArgs(1, 1, "hard-stop-after <time>")) {
                        long t = c.timeArg(c.args().get(0));
                        if (t >= 0) {
                            c.global().hardStopAfter = t;
                        }
                    }
                }));
        r.register(new Keyword("ulimit-n", GLOBAL, "ulimit-n <number>",
                "Set the process's file-descriptor limit (soft and hard) before anything is opened.",
                c -> {
                    if (c.expectArgs(1, 1, "ulimit-n <number>")) {
                        c.global().ulimitN = c.intArg(c.args().get(0), "ulimit-n", 1, Integer.MAX_VALUE, 0);
                    }
                }));
    }
}
