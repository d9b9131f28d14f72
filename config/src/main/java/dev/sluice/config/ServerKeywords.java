package dev.sluice.config;

import static dev.sluice.config.Section.BACKEND_SIDE;

import dev.sluice.config.model.Server;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * {@code server}, {@code default-server} and their options. The options of other subsystems are parsed by their
 * keyword classes ({@link BalanceKeywords}, {@link CheckKeywords}, {@link TlsKeywords}); this class parses the
 * address and the PROXY protocol and init-addr options, and names the HAProxy options Sluice lacks.
 * Registered once at start-up; the parsers run on the parsing thread.
 */
final class ServerKeywords {
    private ServerKeywords() {
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("server", EnumSet.of(Section.BACKEND, Section.LISTEN), "server <name> <address>[:<port>] [weight <0-256>] [backup] [disabled] [id <n>]"
                + " [init-state fully-up|up|down|fully-down] [maxconn <n>] [minconn <n>] [maxqueue <n>] [slowstart <time>] [cookie <value>]"
                + " [ssl [verify none|required]"
                + " [ca-file <f>] [sni <expr>] [alpn <list>] [crt <pem>]] [proto h2|fcgi] [send-proxy|send-proxy-v2|send-proxy-v2-ssl|send-proxy-v2-ssl-cn] [proxy-v2-options <opt>[,...]] [init-addr <method>[,...]]"
                + " [resolvers <name> [resolve-prefer ipv4|ipv6] [resolve-opts <opt>[,...]] [resolve-net <net>[,...]]]"
                + " [agent-check [agent-port <port>] [agent-addr <ip>] [agent-inter <time>] [agent-send <string>]]"
                + " [observe none|layer4|layer7] [error-limit <n>] [on-error fastinter|fail-check|sudden-death|mark-down]"
                + " [on-marked-down shutdown-sessions] [on-marked-up shutdown-backup-sessions]"
                + " [pool-max-conn <n>] [pool-low-conn <n>] [pool-purge-delay <time>]",
                "Declare a server of the backend; without a port the connection's destination port is used. The address may be a"
                        + " UNIX stream socket (unix@<path> or an absolute path, or abns@<name> in Linux's abstract namespace with HAProxy's padded address; checks go there too; logs and statistics show 'unix'). A backup server serves"
                        + " only when no active server is usable; a disabled one (or weight 0) is never chosen; init-state down starts it"
                        + " DOWN. id defaults to the first free number. maxconn: concurrent requests; more wait in a queue (the server's"
                        + " own when a hash or stickiness chose it, else the backend's), first in first out, until 'timeout queue'"
                        + " (503); maxqueue: the most requests its own queue holds (503 beyond); minconn: with maxconn, a limit that"
                        + " grows from minconn to maxconn with the backend's load, reaching maxconn at 'fullconn' requests."
                        + " cookie: the value of the backend's"
                        + " persistence cookie that designates this server. With ssl, connect over TLS (SNI from the sni expression, else"
                        + " the host name; with alpn h2 the handshake chooses HTTP/2 or HTTP/1.1). send-proxy/send-proxy-v2: each new"
                        + " connection starts with a PROXY protocol v1/v2 header giving the client's addresses; such connections only"
                        + " carry requests of the client connection they were opened for. proxy-v2-options (ssl, ssl-cipher, cert-key,"
                        + " cert-sig, cert-cn, authority, unique-id, crc32c): the v2 header's extra fields, as HAProxy writes them (the"
                        + " ALPN field goes whenever the client agreed one; cert-key and cert-sig describe the frontend's certificate;"
                        + " cert-cn, the client certificate's, never appears: clients are not asked for certificates);"
                        + " send-proxy-v2-ssl is send-proxy-v2 with ssl, -cn adds cert-cn. init-addr: how a host name becomes an address"
                        + " at start-up, the first method that works: libc (the system's resolver), none (start in maintenance, 'MAINT"
                        + " (resolution)', until 'set server ... addr'), an IP address, last (the state file's: Sluice has none, so it"
                        + " is skipped); default last,libc. resolvers: follow the name's DNS answers at run time (see the resolvers"
                        + " section; a name starting with '_' asks for SRV records, which give address, port and weight): a new"
                        + " address takes the new connections, no address puts the server in 'MAINT (resolution)'. resolve-prefer:"
                        + " the address family taken first (default ipv6); resolve-opts allow-dup-ip (servers of the same name may"
                        + " share an address, by default each takes one no other has), ignore-weight (SRV weights leave the weight"
                        + " alone), prevent-dup-ip; resolve-net: networks whose addresses are preferred, in order. agent-check: every agent-inter (default: inter) connect to"
                        + " agent-port (else port) at agent-addr (else addr, else the server's address), send agent-send if any and read one"
                        + " line, as HAProxy's agent: up, down, stopped, fail (health), ready, drain, maint (administrative state), <n>%"
                        + " (weight relative to the configured one), maxconn:<n>, '#' then a description; an agent that cannot be reached"
                        + " changes nothing. observe: with 'check', the server's live traffic counts as well: layer4 its connections"
                        + " (a failed or timed-out connect is an error, an established one a success), layer7 (mode http) the"
                        + " failed connects and its responses too (a 5xx other than 501 and 505, an invalid, truncated or timed-out"
                        + " response, a close before it are errors); error-limit (default 10) consecutive errors trigger on-error:"
                        + " fastinter (checks run at fastinter), fail-check (default: as a failed check, status HANA), sudden-death"
                        + " (as a failed check leaving a single one before DOWN), mark-down (DOWN at once); each mode also runs the"
                        + " next check at fastinter. on-marked-down shutdown-sessions: going DOWN (checks, maintenance) kills the"
                        + " server's streams (termination flag D); on-marked-up shutdown-backup-sessions: a non-backup server"
                        + " coming UP kills the streams of the backend's backup servers (flag U). pool-max-conn: the most idle"
                        + " connections kept for the server (default -1: no limit; 0: none); pool-low-conn: idle connections"
                        + " kept beyond the estimated need, on each event loop (default 0); pool-purge-delay: each period, half"
                        + " of the server's idle connections in excess of the need are closed (default: the backend's"
                        + " pool-purge-delay, 5s; 0: none kept).",
                ServerKeywords::server));
        r.register(new Keyword("server-template", EnumSet.of(Section.BACKEND, Section.LISTEN),
                "server-template <prefix> <num | low-high> <address>[:<port>] [server options]",
                "Declare servers <prefix><n> for n from 1 to <num> (or from <low> to <high>), each as a 'server' line with the"
                        + " same address and options would. With 'resolvers' the slots are filled from the DNS answers, one"
                        + " address (or SRV record) each; the slots without one are in 'MAINT (resolution)'.",
                ServerKeywords::serverTemplate));
        r.register(new Keyword("default-server", BACKEND_SIDE, "default-server [weight <0-256>] [backup|no-backup] [disabled|enabled]"
                + " [init-state <state>] [maxconn <n>] [minconn <n>] [maxqueue <n>] [slowstart <time>] [cookie <value>] [ssl options]"
                + " [proto h2|fcgi] [observe ...] [error-limit <n>] [on-error <mode>] [on-marked-down ...] [on-marked-up ...]"
                + " [pool-max-conn <n>] [pool-low-conn <n>] [pool-purge-delay <time>]",
                "Default values for the server lines that follow.", ServerKeywords::defaultServer));
    }

    private static String serverOptionFeature(String opt) {
        return switch (opt) {
            case "check-via-socks4" -> "this health-check option";
            case "verifyhost", "sni-auto", "allow-0rtt", "crl-file" -> "this server TLS option";
            case "track" -> "server tracking";
            case "redir" -> "redirect servers";
            case "tfo" -> "TCP fast open";
            case "namespace" -> "network namespaces";
            default -> null;
        };
    }

    /** {@code server-template}, with HAProxy 2.6's range reading (srv_tmpl_parse_range: atoi on each bound) and messages. */
    private static void serverTemplate(KeywordContext c) {
        List<String> a = c.args();
        if (a.size() < 3 || a.get(2).isEmpty()) {
            c.lineError("'server-template' expects <prefix> <nb | range> <addr>[:<port>] as arguments.");
            return;
        }
        String range = a.get(1);
        int dash = range.indexOf('-');
        int low;
        int high;
        if (dash >= 0) {
            low = atoi(range.substring(0, dash));
            high = atoi(range.substring(dash + 1));
        } else {
            low = 1;
            high = atoi(range);
        }
        if (low < 0 || high < low) {
            c.lineError("Wrong server-template number or range arg '" + range + "'.");
            return;
        }
        for (int n = low; n <= high; n++) {
            List<String> line = new ArrayList<>(a.size() - 1);
            line.add(a.get(0) + n);
            line.addAll(a.subList(2, a.size()));
            server(c, line);
        }
    }

    /** C's atoi: the leading decimal digits (after spaces and a sign), 0 when there are none. */
    static int atoi(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean negative = i < s.length() && s.charAt(i) == '-';
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            i++;
        }
        long v = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9' && v < Integer.MAX_VALUE) {
            v = v * 10 + (s.charAt(i++) - '0');
        }
        return (int) Math.min(Integer.MAX_VALUE, negative ? -v : v);
    }

    private static void server(KeywordContext c) {
        server(c, c.args());
    }

    private static void server(KeywordContext c, List<String> a) {
        if (a.size() < 2) {
            c.error(a.isEmpty() ? "missing server name and address" : "missing address for server '" + a.get(0) + "'");
            return;
        }
        String name = a.get(0);
        if (!ProxyKeywords.validName(name)) {
            c.error("invalid character in server name '" + name + "'");
            return;
        }
        Addresses.HostPort hp = null;
        String addr = a.get(1);
        try {
            if (addr.startsWith("ipv4@") || addr.startsWith("ipv6@")) {
                addr = addr.substring(5);
            } else if (addr.startsWith("unix@") || addr.startsWith("/")) {
                // a UNIX stream socket: its path is the server's host, without a port
                String path = addr.startsWith("unix@") ? addr.substring(5) : addr;
                if (path.isEmpty()) {
                    c.error("server '" + name + "' : missing path in address '" + addr + "'");
                    return;
                }
                if (path.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 107) {
                    c.error("server '" + name + "' : socket path '" + path + "' too long (max 107)");
                    return;
                }
                hp = new Addresses.HostPort(Server.UNIX_PREFIX + path, 0);
                addr = null;
            } else if (addr.startsWith("abns@")) {
                // Linux's abstract namespace: the path of the UNIX socket is a NUL then the name (see Server.unixPath)
                String abstractName = addr.substring(5);
                if (abstractName.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 107) {
                    c.error("server '" + name + "' : socket path '" + addr + "' too long (max 107)");
                    return;
                }
                hp = new Addresses.HostPort(Server.UNIX_PREFIX + "\0" + abstractName, 0);
                addr = null;
            } else if (addr.indexOf('@') >= 0) {
                c.error("server '" + name + "' : address '" + addr + "' is not supported by Sluice yet (only IPv4, IPv6, host names,"
                        + " UNIX socket paths and abns@ names)");
                return;
            }
            if (addr != null) {
                hp = Addresses.split(addr, false);
            }
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
            boolean unix = Server.unixHost(hp.host());
            if (p.check && hp.port() == 0 && p.checkPort == 0 && !unix) {
                c.error("server '" + name + "' has neither service port nor check port.");
                return;
            }
            if (p.agent && p.agentPort == 0 && p.checkPort == 0) {
                c.error("server " + name + " does not have agent port. Agent check has been disabled.");
                return;
            }
            // HAProxy's check_config_validity: a minconn above maxconn becomes the maxconn, no minconn means a static maxconn
            int maxconn = p.minconn > p.maxconn ? p.minconn : p.maxconn;
            int minconn = p.minconn > p.maxconn || p.minconn == 0 ? maxconn : p.minconn;
            c.proxy().servers.add(new Server(c.at(), name, hp.host(), hp.port(), p.weight, null, line.tls.proto, p.id, p.backup, p.disabled,
                    p.initState, maxconn, p.maxqueue, p.slowstart, CheckKeywords.serverCheck(p), p.cookie, minconn,
                    p.sendProxy, p.initAddr, p.id > 0, p.dns, p.pool));
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
                    List<String> methods = new ArrayList<>();
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
                case "resolvers", "resolve-prefer", "resolve-opts", "resolve-net" -> {
                    String where = dflt ? "'default-server' : " : "'server " + c.proxy().name + "/" + name + "' : ";
                    if (!ResolversKeywords.serverOption(c, where, params, opt, i + 1 < a.size() ? a.get(i + 1) : "")) {
                        return null;
                    }
                    i += 2;
                    continue;
                }
                case "send-proxy-v2-ssl", "send-proxy-v2-ssl-cn" -> {
                    params.sendProxy |= Server.PP_V2 | Server.PP_V2_SSL | (opt.endsWith("-cn") ? Server.PP_V2_SSL_CN : 0);
                    i++;
                    continue;
                }
                case "proxy-v2-options" -> {
                    if (i + 1 >= a.size()) {
                        c.error((dflt ? "" : "server '" + name + "' : ") + "'proxy-v2-options' expects an argument.");
                        return null;
                    }
                    for (String o : a.get(i + 1).split(",", -1)) {
                        int bits = switch (o) {
                            case "ssl" -> Server.PP_V2_SSL;
                            case "cert-cn" -> Server.PP_V2_SSL | Server.PP_V2_SSL_CN;
                            case "cert-key" -> Server.PP_V2_SSL | Server.PP_V2_SSL_KEY_ALG;
                            case "cert-sig" -> Server.PP_V2_SSL | Server.PP_V2_SSL_SIG_ALG;
                            case "ssl-cipher" -> Server.PP_V2_SSL | Server.PP_V2_SSL_CIPHER;
                            case "authority" -> Server.PP_V2_AUTHORITY;
                            case "crc32c" -> Server.PP_V2_CRC32C;
                            case "unique-id" -> Server.PP_V2_UNIQUE_ID;
                            default -> 0;
                        };
                        if (bits == 0) {
                            c.error((dflt ? "" : "server '" + name + "' : ") + "'" + o + "' : proxy v2 option not implemented");
                            return null;
                        }
                        params.sendProxy |= bits;
                    }
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
            if (next == TlsKeywords.NOT_MINE) {
                next = AgentKeywords.serverOption(c, dflt ? null : name, params, a, i);
            }
            if (next == TlsKeywords.NOT_MINE) {
                next = ObserveKeywords.serverOption(c, dflt ? null : name, params, a, i);
            }
            if (next == TlsKeywords.NOT_MINE) {
                next = ServerPoolKeywords.serverOption(c, dflt ? null : name, params, a, i);
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
        names.addAll(AgentKeywords.SERVER_OPTIONS);
        names.addAll(ObserveKeywords.SERVER_OPTIONS);
        names.addAll(ServerPoolKeywords.SERVER_OPTIONS);
        names.addAll(List.of("ssl", "verify", "ca-file", "sni", "alpn", "proto", "crt", "no-ssl-reuse", "send-proxy", "send-proxy-v2",
                "send-proxy-v2-ssl", "send-proxy-v2-ssl-cn", "proxy-v2-options", "init-addr", "resolvers",
                "resolve-prefer", "resolve-opts", "resolve-net"));
        return names;
    }

    private static void defaultServer(KeywordContext c) {
        ServerLine line = serverOptions(c, "default-server", c.args(), 0, c.proxy().defaultServer.copy(), c.proxy().defaultServerTls.copy());
        if (line != null) {
            c.proxy().defaultServer = line.params;
            c.proxy().defaultServerTls = line.tls;
        }
    }
}
