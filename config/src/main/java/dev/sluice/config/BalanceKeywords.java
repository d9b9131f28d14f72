package dev.sluice.config;

import static dev.sluice.config.Section.BACKEND_SIDE;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.HashType;
import dev.sluice.config.model.Server;
import java.util.List;
import java.util.Locale;

/**
 * Load balancing: {@code balance}, {@code hash-type}, {@code option allbackups}, and the load-balancing
 * options of {@code server} and {@code default-server} lines ({@code weight backup disabled id init-state
 * maxconn maxqueue slowstart}, and the persistence {@code cookie <value>}).
 */
final class BalanceKeywords {
    private BalanceKeywords() {
    }

    static final String BALANCE_SYNTAX = "balance roundrobin | static-rr | leastconn | first | source | uri [whole] [len <n>] [depth <n>]"
            + " [path-only] | url_param <name> [check_post] | hdr(<name>) [use_domain_only] | random[(<draws>)] | hash <expr>"
            + " | rdp-cookie[(<name>)]";

    /** The server options this class parses, for suggestions. */
    static final List<String> SERVER_OPTIONS = List.of("weight", "backup", "no-backup", "disabled", "enabled", "id", "init-state",
            "maxconn", "minconn", "maxqueue", "slowstart", "cookie");

    private static final List<String> ALGORITHMS = List.of("roundrobin", "static-rr", "leastconn", "first", "source", "uri", "url_param",
            "hdr", "random", "hash", "rdp-cookie");

    static void register(KeywordRegistry r) {
        r.register(new Keyword("balance", BACKEND_SIDE, BALANCE_SYNTAX,
                "Load-balancing algorithm (default roundrobin). roundrobin: smooth weighted rotation; static-rr: rotation over HAProxy's"
                        + " weighted server map; leastconn: fewest current requests (weighted), rotation among equals; first: the"
                        + " lowest-id server with a free slot (maxconn); source, uri, url_param, hdr, hash: a hash of the client address,"
                        + " the path (or whole URI), a query parameter, a header or a sample expression, mapped per hash-type (round"
                        + " robin when the request has no key); random: power of <draws> (default 2) random choices on the consistent"
                        + " ring; rdp-cookie: a hash of the RDP cookie <name> (default mstshash) in the bytes a TCP stream holds during"
                        + " its content inspection (round robin without one).",
                BalanceKeywords::balance));
        r.register(new Keyword("hash-type", BACKEND_SIDE, "hash-type map-based | consistent [sdbm | djb2 | wt6 | crc32 | none] [avalanche]",
                "How the hash algorithms map a hash to a server: map-based is table[hash % total weight] with HAProxy's table order"
                        + " (default, sdbm); consistent is the closest of weight*16 points per server on a ring (default sdbm with"
                        + " avalanche). none uses a decimal key as the hash.",
                BalanceKeywords::hashType));
        r.register(new Keyword("fullconn", Section.PROXIES, "fullconn <conns>",
                "The backend load (requests in it, queued ones included) at which servers with a 'minconn' reach their 'maxconn';"
                        + " below it their limit is MAX(minconn, load * maxconn / fullconn). Default (or 0): a tenth of the maxconn of"
                        + " the frontends that use the backend.",
                c -> {
                    if (c.section() == Section.FRONTEND) {
                        c.lineWarning("'fullconn' ignored because frontend '" + c.proxy().name + "' has no backend capability. Maybe you"
                                + " want 'maxconn' instead ?");
                        return;
                    }
                    if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
                        c.lineError("'fullconn' expects an integer argument.");
                        return;
                    }
                    int n = positive(c.args().get(0));
                    if (n < 0 || c.args().size() > 1) {
                        c.lineError(n < 0 ? "'fullconn' expects an integer argument." : "'fullconn' cannot handle unexpected argument '"
                                + c.args().get(1) + "'.");
                        return;
                    }
                    c.proxy().fullconn = n;
                }));
        r.register(new Keyword("option abortonclose", BACKEND_SIDE, "[no] option abortonclose",
                "A client that half-closes its connection (FIN) after its request aborts it while still possible: waiting in a"
                        + " queue (CQ) or for the server connection (CC) it ends without a response; waiting for the response head,"
                        + " the server connection is closed and the client gets a 400 (CH). Without it the request is served.",
                c -> {
                    if (c.expectArgs(0, 0, "option abortonclose")) {
                        c.proxy().abortOnClose = !c.negated();
                    }
                }));
        r.register(new Keyword("option prefer-last-server", BACKEND_SIDE, "[no] option prefer-last-server",
                "A balanced request (roundrobin, static-rr, leastconn, first, random) goes to the server its client connection"
                        + " still holds a private connection to ('http-reuse never'), when that server is usable, even if it has to"
                        + " queue there; as in HAProxy 2.6, shared server connections ('http-reuse safe' and the others) give no"
                        + " such preference.",
                c -> {
                    if (c.expectArgs(0, 0, "option prefer-last-server")) {
                        c.proxy().preferLastServer = !c.negated();
                    }
                }));
        r.register(new Keyword("option allbackups", BACKEND_SIDE, "[no] option allbackups",
                "When no active server is usable, balance over all usable backup servers instead of the first one only.",
                c -> {
                    if (c.expectArgs(0, 0, "option allbackups")) {
                        c.proxy().allBackups = !c.negated();
                    }
                }));
    }

    // ------------------------------------------------------------------ balance

    private static void balance(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("missing algorithm; expected: " + BALANCE_SYNTAX);
            return;
        }
        String algo = a.get(0);
        String base = KeywordRegistry.stripParens(algo);
        String inParens = null;
        if (base.length() < algo.length()) {
            if (!algo.endsWith(")")) {
                c.error(base.equals("rdp-cookie") ? "rdp-cookie : missing cookie name." : "missing closing parenthesis in '" + algo + "'");
                return;
            }
            inParens = algo.substring(base.length() + 1, algo.length() - 1);
        }
        Balance.Algorithm al = null;
        for (Balance.Algorithm x : Balance.Algorithm.values()) {
            if (x.keyword().equals(base)) {
                al = x;
            }
        }
        if (al == null) {
            if (algo.startsWith("rdp-cookie")) {
                // HAProxy reads a name in parentheses right after the keyword, anything else is no name
                c.error("rdp-cookie : missing cookie name.");
            } else {
                c.error("unknown algorithm '" + algo + "'" + Suggestions.didYouMean(Suggestions.closest(base, ALGORITHMS)));
            }
            return;
        }

        if (inParens != null && al != Balance.Algorithm.HDR && al != Balance.Algorithm.RANDOM && al != Balance.Algorithm.RDP_COOKIE) {
            c.error("'balance " + base + "' takes no argument in parentheses (got '" + algo + "')");
            return;
        }
        Balance b = switch (al) {
            case ROUNDROBIN, STATIC_RR, LEASTCONN, FIRST, SOURCE -> {
                if (a.size() > 1) {
                    c.error("'balance " + algo + "' takes no argument (got '" + a.get(1) + "')");
                    yield null;
                }
                yield Balance.of(al, c.at());
            }
            case URI -> uri(c, a);
            case URL_PARAM -> urlParam(c, a);
            case HDR -> hdr(c, a, inParens);
            case RANDOM -> random(c, a, inParens);
            case RDP_COOKIE -> {
                if (inParens != null && inParens.isEmpty()) {
                    c.error("rdp-cookie : missing cookie name.");
                    yield null;
                }
                // HAProxy ignores further words here
                yield new Balance(al, inParens != null ? inParens : "mstshash", 0, 0, false, false, false, false, Balance.DEFAULT_DRAWS,
                        HashType.DEFAULT, false, c.at());
            }
            case HASH -> {
                if (a.size() < 2) {
                    c.error("'balance hash' requires a sample expression.");
                    yield null;
                }
                if (a.size() > 2) {
                    c.error("'balance hash' takes one sample expression (unexpected '" + a.get(2) + "')");
                    yield null;
                }
                yield new Balance(al, a.get(1), 0, 0, false, false, false, false, Balance.DEFAULT_DRAWS, HashType.DEFAULT, false, c.at());
            }
        };
        if (b != null) {
            c.proxy().balance = b;
        }
    }

    private static Balance uri(KeywordContext c, List<String> a) {
        int len = 0;
        int depth = 0;
        boolean whole = false;
        boolean pathOnly = false;
        for (int i = 1; i < a.size(); i++) {
            String w = a.get(i);
            switch (w) {
                case "len", "depth" -> {
                    int v = positive(i + 1 < a.size() ? a.get(i + 1) : "");
                    if (v <= 0) {
                        c.error("'balance uri' : '" + w + "' expects a positive integer (got '" + (i + 1 < a.size() ? a.get(i + 1) : "") + "').");
                        return null;
                    }
                    if (w.equals("len")) {
                        len = v;
                    } else {
                        depth = v;
                    }
                    i++;
                }
                case "whole" -> whole = true;
                case "path-only" -> pathOnly = true;
                default -> {
                    c.error("'balance uri' only accepts parameters 'len', 'depth', 'path-only', and 'whole' (got '" + w + "').");
                    return null;
                }
            }
        }
        return new Balance(Balance.Algorithm.URI, null, len, depth, whole, pathOnly, false, false, Balance.DEFAULT_DRAWS, HashType.DEFAULT,
                false, c.at());
    }

    private static Balance urlParam(KeywordContext c, List<String> a) {
        if (a.size() < 2 || a.get(1).isEmpty()) {
            c.error("'balance url_param' requires an URL parameter name.");
            return null;
        }
        boolean checkPost = false;
        if (a.size() > 2) {
            if (!a.get(2).equals("check_post")) {
                c.error("'balance url_param' only accepts 'check_post' modifier (got '" + a.get(2) + "').");
                return null;
            }
            checkPost = true;
            c.warning("'check_post' : Sluice does not search POST bodies for the parameter yet (it needs request body buffering);"
                    + " a request without the parameter in its query string is balanced round robin.");
            if (a.size() > 3) {
                if (positive(a.get(3)) < 0 || a.size() > 4) {
                    c.error("'balance url_param' : unexpected argument '" + a.get(a.size() > 4 ? 4 : 3) + "' after 'check_post'.");
                    return null;
                }
                c.warning("the <max_wait> argument of 'check_post' (" + a.get(3) + ") is ignored, as in HAProxy.");
            }
        }
        return new Balance(Balance.Algorithm.URL_PARAM, a.get(1), 0, 0, false, false, checkPost, false, Balance.DEFAULT_DRAWS,
                HashType.DEFAULT, false, c.at());
    }

    private static Balance hdr(KeywordContext c, List<String> a, String name) {
        if (name == null || name.isEmpty()) {
            c.error("'balance hdr' requires an http header field name: hdr(<name>).");
            return null;
        }
        if (!HttpTokens.isToken(name)) {
            c.error("'balance hdr' : invalid header name '" + name + "'.");
            return null;
        }
        boolean domainOnly = false;
        if (a.size() > 1) {
            if (!a.get(1).equals("use_domain_only") || a.size() > 2) {
                String bad = a.get(1).equals("use_domain_only") ? a.get(2) : a.get(1);
                c.error("'balance " + a.get(0) + "' only accepts 'use_domain_only' modifier (got '" + bad + "').");
                return null;
            }
            domainOnly = true;
        }
        return new Balance(Balance.Algorithm.HDR, name.toLowerCase(Locale.ROOT), 0, 0, false, false, false, domainOnly,
                Balance.DEFAULT_DRAWS, HashType.DEFAULT, false, c.at());
    }

    private static Balance random(KeywordContext c, List<String> a, String draws) {
        if (a.size() > 1) {
            c.error("'balance " + a.get(0) + "' takes no argument (got '" + a.get(1) + "')");
            return null;
        }
        int n = Balance.DEFAULT_DRAWS;
        if (draws != null) {
            n = positive(draws);
            if (n < 0) {
                c.error("'balance random' : the number of draws must be an integer, not '" + draws + "'.");
                return null;
            }
            if (n < 1) {
                c.error("'balance random' : number of draws must be at least 1.");
                return null;
            }
        }
        return new Balance(Balance.Algorithm.RANDOM, null, 0, 0, false, false, false, false, n, HashType.DEFAULT, false, c.at());
    }

    /** A non-negative decimal integer (at most 9 digits), or -1. */
    private static int positive(String s) {
        if (s.isEmpty() || s.length() > 9) {
            return -1;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return -1;
            }
        }
        return Integer.parseInt(s);
    }

    // ------------------------------------------------------------------ hash-type

    private static void hashType(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("missing method; expected: hash-type map-based | consistent [<function>] [avalanche]");
            return;
        }
        HashType.Method method = switch (a.get(0)) {
            case "map-based" -> HashType.Method.MAP_BASED;
            case "consistent" -> HashType.Method.CONSISTENT;
            default -> null;
        };
        if (method == null) {
            c.error(a.get(0).equals("avalanche")
                    ? "'hash-type avalanche' is not supported anymore, please use 'hash-type map-based sdbm avalanche' instead."
                    : "'hash-type' only supports 'consistent' and 'map-based' (got '" + a.get(0) + "').");
            return;
        }
        if (a.size() == 1) {
            // HAProxy: sdbm, with avalanche for consistent hashing
            c.proxy().hashType = new HashType(method, HashType.Function.SDBM, method == HashType.Method.CONSISTENT);
            return;
        }
        HashType.Function f = null;
        for (HashType.Function x : HashType.Function.values()) {
            if (x.keyword().equals(a.get(1))) {
                f = x;
            }
        }
        if (f == null) {
            c.error("'hash-type' only supports 'sdbm', 'djb2', 'crc32', 'wt6' or 'none' hash functions (got '" + a.get(1) + "').");
            return;
        }
        boolean avalanche = false;
        if (a.size() > 2) {
            if (!a.get(2).equals("avalanche") || a.size() > 3) {
                c.error("'hash-type' only supports 'avalanche' as a modifier for hash functions (got '" + a.get(a.get(2).equals("avalanche") ? 3 : 2)
                        + "').");
                return;
            }
            avalanche = true;
        }
        c.proxy().hashType = new HashType(method, f, avalanche);
    }

    // ------------------------------------------------------------------ server options

    /**
     * Parses the load-balancing option at {@code a[i]} of a server ({@code server} is its name) or a
     * default-server line ({@code server} null) into {@code p}; returns the index of the next option, or
     * {@link TlsKeywords#NOT_MINE}, or {@link TlsKeywords#FAILED} (already reported).
     */
    static int serverOption(KeywordContext c, String server, ServerParams p, List<String> a, int i) {
        String w = a.get(i);
        String who = server == null ? "default-server" : server;
        String prefix = server == null ? "" : "server '" + server + "' : ";
        switch (w) {
            case "weight" -> {
                String v = i + 1 < a.size() ? a.get(i + 1) : null;
                if (v == null) {
                    c.error("'weight' expects an integer argument.");
                    return TlsKeywords.FAILED;
                }
                try {
                    int n = Integer.parseInt(v);
                    if (n < 0 || n > 256) {
                        c.error("weight of server " + who + " is not within 0 and 256 (" + n + ").");
                        return TlsKeywords.FAILED;
                    }
                    p.weight = n;
                } catch (NumberFormatException e) {
                    c.error("'weight' expects an integer argument, not '" + v + "'.");
                    return TlsKeywords.FAILED;
                }
                return i + 2;
            }
            case "backup", "no-backup" -> {
                p.backup = w.equals("backup");
                return i + 1;
            }
            case "disabled", "enabled" -> {
                p.disabled = w.equals("disabled");
                return i + 1;
            }
            case "id" -> {
                if (server == null) {
                    c.error("'id' option is not accepted in default-server sections.");
                    return TlsKeywords.FAILED;
                }
                int id = i + 1 < a.size() ? positive(a.get(i + 1)) : -1;
                if (id <= 0) {
                    c.error(prefix + "'id' : custom id has to be > 0" + (i + 1 < a.size() ? " (got '" + a.get(i + 1) + "')." : "."));
                    return TlsKeywords.FAILED;
                }
                for (Server s : c.proxy().servers) {
                    if (s.id() == id) {
                        c.error(prefix + "'id' : custom id " + id + " already used at " + s.where() + " ('server " + s.name() + "').");
                        return TlsKeywords.FAILED;
                    }
                }
                p.id = id;
                return i + 2;
            }
            case "init-state" -> {
                String v = i + 1 < a.size() ? a.get(i + 1) : "";
                for (Server.InitState s : Server.InitState.values()) {
                    if (s.keyword().equals(v)) {
                        p.initState = s;
                        return i + 2;
                    }
                }
                c.error(prefix + "'init-state' expects 'fully-up', 'up', 'down' or 'fully-down'" + (v.isEmpty() ? "." : " (got '" + v + "')."));
                return TlsKeywords.FAILED;
            }
            case "maxconn", "maxqueue", "minconn" -> {
                int n = i + 1 < a.size() ? positive(a.get(i + 1)) : -1;
                if (n < 0) {
                    c.error(prefix + "'" + w + "' expects a non-negative integer" + (i + 1 < a.size() ? " (got '" + a.get(i + 1) + "')." : "."));
                    return TlsKeywords.FAILED;
                }
                switch (w) {
                    case "maxconn" -> p.maxconn = n;
                    case "minconn" -> p.minconn = n;
                    default -> p.maxqueue = n;
                }
                return i + 2;
            }
            case "cookie" -> {
                if (i + 1 >= a.size() || a.get(i + 1).isEmpty()) {
                    c.error(prefix + "'cookie' expects <value> as argument.");
                    return TlsKeywords.FAILED;
                }
                p.cookie = a.get(i + 1);
                return i + 2;
            }
            case "slowstart" -> {
                if (i + 1 >= a.size()) {
                    c.error(prefix + "'slowstart' expects a time.");
                    return TlsKeywords.FAILED;
                }
                long ms;
                try {
                    ms = Units.parseTimeMillis(a.get(i + 1));
                } catch (IllegalArgumentException e) {
                    c.error(prefix + "'slowstart' : " + e.getMessage() + ".");
                    return TlsKeywords.FAILED;
                }
                p.slowstart = ms;
                return i + 2;
            }
            default -> {
                return TlsKeywords.NOT_MINE;
            }
        }
    }
}
