package dev.sluice.config;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.BindQuic;
import dev.sluice.config.model.ListenAddress;
import java.util.EnumSet;
import java.util.List;

/**
 * {@code bind} and its options: addresses (TCP, inherited file descriptors, QUIC), TLS termination (options parsed
 * by {@link TlsKeywords}), socket options ({@link BindSocketOptions}), the PROXY protocol and the QUIC options.
 * Registered once at start-up; the parser runs on the parsing thread.
 */
final class BindKeywords {
    private BindKeywords() {
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("bind", EnumSet.of(Section.FRONTEND, Section.LISTEN), "bind <address>:<port>[,...] | fd@<n> | /<path> | unix@<path> | abns@<name> | quic4@<address>:<port> | quic6@<address>:<port> [mode <octal>] [user <name>|uid <n>] [group <name>|gid <n>] [ssl crt <pem|dir>... [alpn <list>] [ciphers <list>] [ssl-min-ver <v>] [verify ... [ca-ignore-err <ids>|all] [crt-ignore-err <ids>|all]]] [proto h1|h2] [accept-proxy] [quic-force-retry] [quic-cc-algo cubic|newreno|bbr]",
                "Accept connections on an IPv4 or IPv6 address and port, or on a listening socket inherited as file descriptor <n>; with ssl, terminate TLS (certificates chosen by SNI; without alpn, h2,http/1.1 in mode http, no ALPN in mode tcp); proto h2 speaks HTTP/2 on clear text, proto h1 HTTP/1 only (HTTP/2's preface is then a bad request, not an upgrade)."
                        + " A UNIX socket (/<path>, unix@<path>, after unix-bind's prefix) is bound under <path>.<pid>.tmp, given mode, user/uid and"
                        + " group/gid (defaults from unix-bind), then renamed over the path, replacing a socket file left there; the file stays when"
                        + " the process stops. abns@<name> listens in Linux's abstract namespace, with HAProxy's padded address (so HAProxy's"
                        + " abns@ servers reach it). A client on a UNIX socket logs as unix:<listener id> (%ci:%cp) and gives src, dst and their"
                        + " ports no sample; TCP options are accepted there and unused, as in HAProxy."
                        + " verify optional|required checks a client certificate against ca-file as OpenSSL does for HAProxy; ca-ignore-err and crt-ignore-err list the X509 error numbers (1..94, or all) that do not fail the handshake when found on a CA of the chain or on the client's own certificate; ssl_c_err, ssl_c_ca_err, ssl_c_ca_err_depth and ssl_c_verify report them."
                        + " accept-proxy: every connection starts with a PROXY protocol header (v1 or v2, from a load balancer in front), whose addresses become the client's (src, dst, logs); a connection without a valid one is closed and logged."
                        + " quic4@/quic6@ receive QUIC datagrams on UDP and serve HTTP/3 (needs ssl crt; ALPN h3): quic-force-retry makes every new connection prove its address with a Retry token first (otherwise Retry starts above tune.quic.retry-threshold half-open connections); quic-cc-algo picks the congestion controller (default cubic); allow-0rtt accepts TLS 1.3 early data (0-RTT) on a QUIC bind (ignored with a warning on a TLS bind over TCP).",
                BindKeywords::bind));
    }

    private static void bind(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("missing address; expected: bind <address>:<port>[,...] | fd@<n> [ssl crt <pem> [alpn <list>] ...] [proto h1|h2]");
            return;
        }
        TlsOptions opts = new TlsOptions();
        BindSocketOptions sock = new BindSocketOptions();
        sock.unix = c.global().unixBind;
        boolean forceRetry = false;
        boolean acceptProxy = false;
        BindQuic.CongestionControl cc = null;
        String quicOption = null;
        int i = 1;
        while (i < a.size()) {
            String opt = a.get(i);
            if (opt.equals("accept-proxy")) {
                acceptProxy = true;
                i++;
                continue;
            }
            if (opt.equals("allow-0rtt")) {
                // HAProxy's bind_parse_allow_0rtt: TLS 1.3 early data; accepted (and unused) without ssl, as there
                opts.earlyData = true;
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
                cc = BindQuic.CongestionControl.of(name);
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
            // HAProxy 2.6 loads the certificates and serves the bind in clear text, silently: a notice, not a warning, so
            // that zero-warning configurations still start as they do there
            c.notice("'crt', 'alpn' and the other TLS options without 'ssl' on the same line are not used: the bind is in clear"
                    + " text, as in HAProxy.");
            opts.certificates.clear();
            opts.alpn = null;
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
                ListenAddress addr = Addresses.listen(one, c.global().unixBindPrefix);
                BindQuic quic = null;
                if (addr instanceof ListenAddress.Quic) {
                    if (!quicBind(c, one, opts)) {
                        continue;
                    }
                    quic = new BindQuic(forceRetry,
                            cc != null ? cc : BindQuic.DEFAULT.congestionControl());
                } else if (Boolean.TRUE.equals(opts.earlyData) && opts.sslEnabled()) {
                    c.warning("'allow-0rtt' is ignored on '" + one + "': Sluice takes TLS 1.3 early data on QUIC binds only (Netty's TLS"
                            + " over TCP, BoringSSL through netty-tcnative or the JDK's engine, has no server-side early data); clients"
                            + " fall back to a full handshake.");
                }
                if (!(addr instanceof ListenAddress.Quic) && quicOption != null) {
                    c.error("'" + quicOption + "' only applies to QUIC binds (quic4@ or quic6@), not to '" + one + "'.");
                    continue;
                }
                if (acceptProxy && addr instanceof ListenAddress.Quic) {
                    c.error("'accept-proxy' does not apply to QUIC bind '" + one + "': the PROXY protocol runs over TCP.");
                    continue;
                }
                // as HAProxy, the TCP options are accepted on a UNIX socket, where they do nothing
                if (sock.used != null && !(addr instanceof ListenAddress.Inet) && !unix(addr)) {
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

    /** Whether the address is a UNIX socket, a path or in the abstract namespace. */
    static boolean unix(ListenAddress a) {
        return a instanceof ListenAddress.Unix || a instanceof ListenAddress.Abstract;
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
}
