package dev.sluice.config;

import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.ServerTls;
import dev.sluice.config.model.TlsTune;
import dev.sluice.config.model.TlsVersion;
import dev.sluice.config.model.Verify;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The TLS and protocol options of {@code bind} and {@code server} lines, and the global
 * {@code ssl-default-*}, {@code crt-base}, {@code ca-base} and {@code ssl-server-verify} keywords.
 */
final class TlsKeywords {
    private TlsKeywords() {
    }

    /** What a line option parser returns when the word is not one of its options. */
    static final int NOT_MINE = -1;
    /** What it returns after reporting an error. */
    static final int FAILED = -2;

    private static final List<String> VERSIONS = Arrays.stream(TlsVersion.values()).map(TlsVersion::keyword).toList();

    /**
     * Parses the option at {@code a[i]} into {@code o}; returns the index of the next option, or
     * {@link #NOT_MINE}, or {@link #FAILED} (already reported).
     */
    static int option(KeywordContext c, TlsOptions o, List<String> a, int i, boolean server) {
        String w = a.get(i);
        switch (w) {
            case "ssl" -> {
                o.ssl = true;
                return i + 1;
            }
            case "no-ssl" -> {
                if (!server) {
                    return NOT_MINE;
                }
                o.ssl = false;
                return i + 1;
            }
            case "alpn" -> {
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                List<String> protos = Arrays.asList(v.split(","));
                for (String p : protos) {
                    if (p.isEmpty() || p.length() > 255) {
                        c.error("'alpn' : invalid protocol list '" + v + "'");
                        return FAILED;
                    }
                }
                o.alpn = List.copyOf(protos);
                return i + 2;
            }
            case "ciphers", "ciphersuites", "curves" -> {
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                switch (w) {
                    case "ciphers" -> o.ciphers = v;
                    case "ciphersuites" -> o.ciphersuites = v;
                    default -> {
                        if (server) {
                            return NOT_MINE;
                        }
                        o.curves = v;
                    }
                }
                return i + 2;
            }
            case "ssl-min-ver", "ssl-max-ver" -> {
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                TlsVersion ver = TlsVersion.of(v);
                if (ver == null) {
                    c.error("'" + w + "' : unknown version '" + v + "' (expected one of " + String.join(", ", VERSIONS) + ")");
                    return FAILED;
                }
                if (w.equals("ssl-min-ver")) {
                    o.minVersion = ver;
                } else {
                    o.maxVersion = ver;
                }
                return i + 2;
            }
            case "no-sslv3", "no-tlsv10", "no-tlsv11", "no-tlsv12", "no-tlsv13" -> {
                o.disabled.add(versionOf(w.substring(3)));
                return i + 1;
            }
            case "force-sslv3", "force-tlsv10", "force-tlsv11", "force-tlsv12", "force-tlsv13" -> {
                o.forced = versionOf(w.substring(6));
                return i + 1;
            }
            case "ca-file" -> {
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                o.caFile = v;
                return i + 2;
            }
            case "verify" -> {
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                switch (v) {
                    case "none" -> o.verify = Verify.NONE;
                    case "required" -> o.verify = Verify.REQUIRED;
                    case "optional" -> {
                        if (server) {
                            c.error("'verify' on a server takes 'none' or 'required', not 'optional'");
                            return FAILED;
                        }
                        o.verify = Verify.OPTIONAL;
                    }
                    default -> {
                        c.error("'verify' : unknown value '" + v + "' (expected none, " + (server ? "" : "optional, ") + "required)");
                        return FAILED;
                    }
                }
                return i + 2;
            }
            case "ca-ignore-err", "crt-ignore-err" -> {
                return server ? NOT_MINE : ignoreErr(c, o, a, i);
            }
            case "no-tls-tickets", "tls-tickets" -> {
                o.tickets = w.equals("tls-tickets");
                return i + 1;
            }
            case "strict-sni", "prefer-client-ciphers" -> {
                if (server) {
                    return NOT_MINE;
                }
                if (w.equals("strict-sni")) {
                    o.strictSni = true;
                } else {
                    o.preferClientCiphers = true;
                }
                return i + 1;
            }
            case "crt" -> {
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                if (server) {
                    o.crt = v;
                } else {
                    o.certificates.add(v);
                }
                return i + 2;
            }
            case "sni" -> {
                if (!server) {
                    return NOT_MINE;
                }
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                o.sni = v;
                return i + 2;
            }
            case "no-ssl-reuse", "ssl-reuse" -> {
                if (!server) {
                    return NOT_MINE;
                }
                o.sessionReuse = w.equals("ssl-reuse");
                return i + 1;
            }
            case "proto" -> {
                String v = value(c, a, i);
                if (v == null) {
                    return FAILED;
                }
                if (server && v.equals("fcgi")) {
                    // the FastCGI protocol: the backend's fcgi-app says how (FcgiAppKeywords)
                    o.proto = v;
                    return i + 2;
                }
                if (!v.equals("h2") && !v.equals("h1")) {
                    c.error("'proto' : unknown protocol '" + v + "' (Sluice supports 'h1' and 'h2')");
                    return FAILED;
                }
                o.proto = v;
                return i + 2;
            }
            default -> {
                return NOT_MINE;
            }
        }
    }

    /**
     * HAProxy 2.6.12's {@code bind_parse_ignore_err}: {@code all}, or X509 error numbers (1..94) separated by commas, each
     * read as C's {@code atoi} reads it (so a name such as X509_V_ERR_CERT_HAS_EXPIRED is 0 and out of range: names came in
     * later versions).
     */
    private static int ignoreErr(KeywordContext c, TlsOptions o, List<String> a, int i) {
        String w = a.get(i);
        String v = i + 1 < a.size() ? a.get(i + 1) : "";
        if (v.isEmpty()) {
            c.lineError(bindLine(c, a) + " : '" + w + "' : missing error IDs list");
            return FAILED;
        }
        Set<Integer> into = w.equals("ca-ignore-err") ? o.caIgnoreErr : o.crtIgnoreErr;
        if (v.equals("all")) {
            for (int n = 1; n <= BindTls.MAX_VERIFY_ERROR; n++) {
                into.add(n);
            }
            return i + 2;
        }
        for (String p : v.split(",", -1)) {
            int code = atoi(p);
            if (code <= 0 || code > BindTls.MAX_VERIFY_ERROR) {
                c.lineError(bindLine(c, a) + " : '" + w + "' : ID '" + code + "' out of range (1.." + BindTls.MAX_VERIFY_ERROR + ") in error IDs list '" + v + "'");
                return FAILED;
            }
            into.add(code);
        }
        return i + 2;
    }

    /** How HAProxy's messages about a bind option name the line: {@code 'bind :443' in section 'frontend'}. */
    private static String bindLine(KeywordContext c, List<String> a) {
        return "'bind " + a.get(0) + "' in section '" + c.section().name().toLowerCase(java.util.Locale.ROOT) + "'";
    }

    /** C's {@code atoi}: leading blanks, a sign, the digits that follow (0 when none; saturated past int). */
    static int atoi(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean neg = i < s.length() && s.charAt(i) == '-';
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            i++;
        }
        long n = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i)) && n < Integer.MAX_VALUE) {
            n = n * 10 + (s.charAt(i++) - '0');
        }
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, neg ? -n : n));
    }

    private static TlsVersion versionOf(String suffix) {
        return switch (suffix) {
            case "sslv3" -> TlsVersion.SSLV3;
            case "tlsv10" -> TlsVersion.TLSV10;
            case "tlsv11" -> TlsVersion.TLSV11;
            case "tlsv12" -> TlsVersion.TLSV12;
            default -> TlsVersion.TLSV13;
        };
    }

    private static String value(KeywordContext c, List<String> a, int i) {
        if (i + 1 >= a.size()) {
            c.error("'" + a.get(i) + "' expects an argument.");
            return null;
        }
        return a.get(i + 1);
    }

    /** Options of other HAProxy features that may appear on bind lines, with the feature they belong to. */
    static String bindFeature(String opt) {
        return switch (opt) {
            case "crt-list" -> "certificate lists (use several 'crt' or a directory)";
            case "npn" -> "NPN (obsolete; use 'alpn')";
            case "ecdhe", "ca-sign-file", "ca-sign-pass", "generate-certificates",
                    "no-ca-names", "crl-file", "ca-verify-file", "ocsp-update", "sigalgs", "client-sigalgs", "ssl-reuse" -> "this TLS option";
            case "accept-netscaler-cip" -> "NetScaler client IP insertion";
            case "maxconn" -> "per-listener connection limits (use the frontend's maxconn)";
            case "namespace", "nice", "process", "thread", "shards", "label", "guid-prefix" -> "this bind option";
            case "level", "mode", "user", "group", "uid", "gid", "expose-fd", "severity-output" -> "stats sockets";
            case "quic-socket" -> "QUIC socket ownership (connections share their listener's socket)";
            default -> null;
        };
    }

    // ------------------------------------------------------------------ global keywords

    static void register(KeywordRegistry r) {
        Set<Section> global = EnumSet.of(Section.GLOBAL);
        r.register(new Keyword("ssl-default-bind-options", global, "ssl-default-bind-options <option>...",
                "TLS options applied to every 'bind ... ssl' line (e.g. ssl-min-ver TLSv1.2 no-tls-tickets).",
                c -> defaults(c, c.global().bindDefaults, false)));
        r.register(new Keyword("ssl-default-server-options", global, "ssl-default-server-options <option>...",
                "TLS options applied to every 'server ... ssl' line.", c -> defaults(c, c.global().serverDefaults, true)));
        suite(r, "ssl-default-bind-ciphers", "Default TLS 1.2 cipher list (OpenSSL syntax) of ssl binds.", "a cipher suite as an argument.",
                (c, v) -> c.global().bindDefaults.ciphers = v);
        suite(r, "ssl-default-bind-ciphersuites", "Default TLS 1.3 cipher suites of ssl binds.", "a cipher suite as an argument.",
                (c, v) -> c.global().bindDefaults.ciphersuites = v);
        suite(r, "ssl-default-bind-curves", "Default key-exchange groups of ssl binds (e.g. X25519:P-256).",
                "a curves suite as an arguments.", (c, v) -> c.global().bindDefaults.curves = v);
        suite(r, "ssl-default-server-ciphers", "Default TLS 1.2 cipher list towards ssl servers.", "a cipher suite as an argument.",
                (c, v) -> c.global().serverDefaults.ciphers = v);
        suite(r, "ssl-default-server-ciphersuites", "Default TLS 1.3 cipher suites towards ssl servers.", "a cipher suite as an argument.",
                (c, v) -> c.global().serverDefaults.ciphersuites = v);
        base(r, "crt-base", "Directory for relative 'crt' paths.", (c, v) -> c.global().crtBase = v, c -> c.global().crtBase);
        base(r, "ca-base", "Directory for relative 'ca-file' paths.", (c, v) -> c.global().caBase = v, c -> c.global().caBase);
        r.register(new Keyword("ssl-server-verify", global, "ssl-server-verify none|required",
                "Default verification of server certificates (HAProxy's default: required).", c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    String v = c.args().isEmpty() ? "" : c.args().get(0);
                    switch (v) {
                        case "none" -> c.global().serverVerify = Verify.NONE;
                        case "required" -> c.global().serverVerify = Verify.REQUIRED;
                        case "" -> c.lineError("'ssl-server-verify' expects an integer argument.");
                        default -> c.lineError("'ssl-server-verify' expects 'none' or 'required' as argument.");
                    }
                }));
        r.register(new Keyword("tune.ssl.default-dh-param", global, "tune.ssl.default-dh-param <bits>",
                "Accepted for compatibility: BoringSSL offers no DHE key exchange, so the value has no effect.", c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'tune.ssl.default-dh-param' expects an integer argument.");
                    } else if (Units.atoi(c.args().get(0)) < 1024) {
                        c.lineError("'tune.ssl.default-dh-param' expects a value >= 1024.");
                    } else {
                        c.warning(TuneKeywords.NO_EFFECT + "BoringSSL offers no DHE key exchange (ECDHE is used).");
                    }
                }));
        r.register(new Keyword("ssl-dh-param-file", global, "ssl-dh-param-file <file>",
                "Accepted for compatibility: the file must be readable, but BoringSSL offers no DHE key exchange, so it has no"
                        + " effect.",
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'ssl-dh-param-file' expects a file path as an argument.");
                    } else if (!dhParams(Path.of(c.path(c.args().get(0))))) {
                        c.lineError("'ssl-dh-param-file': unable to load DH parameters from file <" + c.args().get(0) + ">.");
                    } else {
                        c.warning(TuneKeywords.NO_EFFECT + "BoringSSL offers no DHE key exchange (ECDHE is used).");
                    }
                }));
        r.register(new Keyword("tune.ssl.cachesize", global, "tune.ssl.cachesize <entries>",
                "Size of the TLS session cache for resumption (default 20000; 0 disables it).", c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'tune.ssl.cachesize' expects an integer argument.");
                        return;
                    }
                    int v = Units.atoi(c.args().get(0));
                    if (v < 0) {
                        c.lineError("'tune.ssl.cachesize' expects a positive numeric value.");
                        return;
                    }
                    c.global().sslCacheSize = v;
                }));
        r.register(new Keyword("tune.ssl.lifetime", global, "tune.ssl.lifetime <time>",
                "Lifetime of cached TLS sessions (default 300s; a number without unit is in seconds, as in HAProxy).", c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    String a = c.args().isEmpty() ? "" : c.args().get(0);
                    if (a.isEmpty()) {
                        c.lineError("'tune.ssl.lifetime' expects ssl sessions <lifetime> in seconds as argument.");
                        return;
                    }
                    try {
                        c.global().sslLifetime = Units.parseTimeErr(a, 1000);
                    } catch (Units.BadTime e) {
                        c.lineError(e.overflow() ? "timer overflow in argument '" + a + "' to <tune.ssl.lifetime> (maximum value is 2147483647 s"
                                + " or ~68 years)." : "unexpected character '" + e.at() + "' in argument to <tune.ssl.lifetime>.");
                    }
                }));
        r.register(new Keyword("issuers-chain-path", global, "issuers-chain-path <dir>",
                "A directory of issuer certificates: a 'crt' given without its issuer's certificate gets it from there (the one"
                        + " whose subject is the certificate's issuer and whose key signed it), to send a complete chain.",
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    String dir = c.args().isEmpty() ? "" : c.args().get(0);
                    Path p = Path.of(c.path(dir));
                    if (dir.isEmpty() || !Files.exists(p)) {
                        c.lineError("global statement 'issuers-chain-path' expects a directory path as an argument.");
                    } else if (!Files.isDirectory(p)) {
                        c.lineError("global statement 'issuers-chain-path': " + dir + " is not a directory.");
                    } else {
                        c.global().issuersChainPath = p.toString();
                    }
                }));
        r.register(new Keyword("ssl-load-extra-files", global, "ssl-load-extra-files none|all|<kind>...",
                "Which files beside a 'crt' file complete it: 'key' (<crt>.key holds the private key) and 'issuer' (<crt>.issuer"
                        + " the issuer's certificate, added to the chain) are Sluice's; 'ocsp', 'sctl' and 'bundle' name what Sluice does"
                        + " not support (OCSP stapling, SCTs, multi-certificate bundles) and are ignored. Default: all.",
                c -> {
                    List<String> a = c.args();
                    Set<String> kinds = new HashSet<>();
                    if (a.isEmpty() || a.get(0).isEmpty()) {
                        c.lineError("'ssl-load-extra-files' expects one or multiple arguments (none, all, bundle, sctl, ocsp, issuer).");
                        return;
                    }
                    for (int i = 0; i < a.size(); i++) {
                        String k = a.get(i);
                        if (k.equals("none") || k.equals("all")) {
                            if (!kinds.isEmpty() || i + 1 < a.size()) {
                                c.lineError("'ssl-load-extra-files' 'none' and 'all' can be only used alone");
                                return;
                            }
                            c.global().sslExtraFiles = k.equals("all") ? TlsTune.ALL_EXTRA_FILES : Set.of();
                            return;
                        }
                        if (!TlsTune.ALL_EXTRA_FILES.contains(k)) {
                            c.lineError("'ssl-load-extra-files' expects one or multiple arguments (none, all, bundle, sctl, ocsp, issuer).");
                            return;
                        }
                        kinds.add(k);
                    }
                    c.global().sslExtraFiles = kinds;
                }));
        r.register(new Keyword("ssl-load-extra-del-ext", global, "ssl-load-extra-del-ext",
                "The companion files of a 'crt' file are named without its extension: site.key beside site.pem, not site.pem.key.",
                c -> c.global().sslExtraDelExt = true));
    }

    /** A global cipher or curve list, one argument, HAProxy's messages ("expects <what>"). */
    private static void suite(KeywordRegistry r, String name, String description, String what,
            BiConsumer<KeywordContext, String> set) {
        r.register(new Keyword(name, EnumSet.of(Section.GLOBAL), name + " <list>", description, c -> {
            if (!c.atMost(1)) {
                return;
            }
            if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                c.lineError("global statement '" + name + "' expects " + what);
                return;
            }
            set.accept(c, c.args().get(0));
        }));
    }

    /** crt-base, ca-base: one directory, once (HAProxy refuses a second one). */
    private static void base(KeywordRegistry r, String name, String description, BiConsumer<KeywordContext, String> set,
            Function<KeywordContext, String> current) {
        r.register(new Keyword(name, EnumSet.of(Section.GLOBAL), name + " <dir>", description, c -> {
            if (!c.atMost(1)) {
                return;
            }
            if (current.apply(c) != null) {
                c.lineError("'" + name + "' already specified.");
                return;
            }
            if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                c.lineError("global statement '" + name + "' expects a directory path as an argument.");
                return;
            }
            set.accept(c, c.args().get(0));
        }));
    }

    /** Whether {@code file} holds PEM DH parameters (what HAProxy loads from it). */
    private static boolean dhParams(Path file) {
        try {
            String text = Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
            return text.contains("-----BEGIN DH PARAMETERS-----") || text.contains("-----BEGIN X9.42 DH PARAMETERS-----");
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * {@code ssl-default-bind-options} and {@code ssl-default-server-options} with what HAProxy 2.6 takes there and its
     * messages: the protocol versions ({@code no-*}, {@code force-*}, {@code ssl-min-ver}, {@code ssl-max-ver}),
     * {@code no-tls-tickets}, and {@code prefer-client-ciphers} for binds.
     */
    private static void defaults(KeywordContext c, TlsOptions into, boolean server) {
        List<String> a = c.args();
        String kw = c.keyword();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.lineError("global statement '" + kw + "' expects an option as an argument.");
            return;
        }
        for (int i = 0; i < a.size(); i++) {
            String w = a.get(i);
            switch (w) {
                case "no-tls-tickets" -> into.tickets = false;
                case "prefer-client-ciphers" -> {
                    if (server) {
                        c.lineError("unknown option '" + w + "' on global statement '" + kw + "'.");
                        return;
                    }
                    into.preferClientCiphers = true;
                }
                case "ssl-min-ver", "ssl-max-ver" -> {
                    if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                        c.lineError("'" + w + "' : missing the ssl/tls version on global statement '" + kw + "'.");
                        return;
                    }
                    TlsVersion v = TlsVersion.of(a.get(++i));
                    if (v == null) {
                        c.lineError("'" + a.get(i) + "' : unknown ssl/tls version on global statement '" + kw + "'.");
                        return;
                    }
                    if (w.equals("ssl-min-ver")) {
                        into.minVersion = v;
                    } else {
                        into.maxVersion = v;
                    }
                }
                case "no-sslv3", "no-tlsv10", "no-tlsv11", "no-tlsv12", "no-tlsv13" -> into.disabled.add(versionOf(w.substring(3)));
                case "force-sslv3", "force-tlsv10", "force-tlsv11", "force-tlsv12", "force-tlsv13" -> into.forced = versionOf(w.substring(6));
                default -> {
                    c.lineError("unknown option '" + w + "' on global statement '" + kw + "'.");
                    return;
                }
            }
        }
    }

    /**
     * The effective TLS settings of a proxy's binds and servers once the whole configuration is read: each line's own
     * options over the global {@code ssl-default-bind-*} / {@code ssl-default-server-*} ones.
     */
    static void resolve(ProxyBuilder p, GlobalBuilder global, Diagnostics diags) {
        for (int i = 0; i < p.binds.size(); i++) {
            TlsOptions own = p.bindOptions.get(i);
            if (own.sslEnabled()) {
                TlsOptions eff = own.copy();
                if (p.binds.get(i).isQuic() && eff.alpn == null) {
                    // a QUIC bind speaks HTTP/3: the TCP binds' default ALPN never applies to it
                    eff.alpn = List.of("h3");
                }
                eff.layerOver(global.bindDefaults);
                if (eff.alpn == null && p.effectiveMode() == Mode.TCP) {
                    // HAProxy offers no ALPN on a bind without 'alpn'; Sluice's HTTP binds offer h2,http/1.1 then, a TCP
                    // frontend's none (its bytes are relayed whatever the protocol)
                    eff.alpn = List.of();
                }
                p.binds.set(i, p.binds.get(i).withTls(eff.toBind(global.crtBase, p.directory)));
            }
        }
        for (int i = 0; i < p.servers.size(); i++) {
            TlsOptions own = p.serverOptions.get(i);
            if (!Boolean.TRUE.equals(own.ssl != null ? own.ssl : global.serverDefaults.ssl)) {
                // no TLS towards it: nothing to layer (what layerOver would say, without a copy per server)
                continue;
            }
            TlsOptions eff = own.copy();
            eff.layerOver(global.serverDefaults);
            Server s = p.servers.get(i);
            ServerTls t = eff.toServer(global.caBase, global.crtBase, global.serverVerify, p.directory);
            if (t.verify() == Verify.REQUIRED && t.caFile() == null) {
                diags.error(s.where(), "'server " + p.name + "/" + s.name() + "' : verify is enabled by default but no CA file specified. If"
                        + " you're running on a LAN where you're certain to trust the server's certificate, please set an explicit 'verify"
                        + " none' statement on the 'server' line, or use 'ssl-server-verify none' in the global section to disable server-side"
                        + " verifications by default.");
            }
            p.servers.set(i, s.withTls(t));
        }
    }
}
