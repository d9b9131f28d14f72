package dev.sluice.config;

import java.util.EnumSet;
import java.util.Set;

/**
 * HAProxy 2.6's {@code tune.*} keywords of the {@code global} section (besides {@code tune.bufsize},
 * {@code tune.maxrewrite}, {@code tune.http.maxhdr}, {@code tune.pipesize}, {@code tune.ssl.*} and {@code tune.quic.*},
 * registered with their features) and the compression limits: each one is either applied where it maps onto Sluice
 * (socket buffers, accept batches, epoll events, HTTP/2 settings, the compression level, the log's URI and cookie lengths,
 * TLS record sizes) or accepted with a warning that says why it has no effect, so that no HAProxy 2.6 configuration is
 * refused for one of them. Arguments are checked as HAProxy checks them, with its messages (its {@code atol} reading
 * included: "x" is 0). Registered once at start-up; the parsers run on the parsing thread.
 */
final class TuneKeywords {
    private TuneKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);
    /** The start of every "has no effect" warning (what the keyword inventory test looks for). */
    static final String NO_EFFECT = "has no effect in Sluice: ";

    static void register(KeywordRegistry r) {
        sockets(r);
        h2(r);
        compression(r);
        http(r);
        ignored(r);
        lua(r);
        vars(r);
    }

    // ------------------------------------------------------------------ applied

    private static void sockets(KeywordRegistry r) {
        once(r, "tune.rcvbuf.client", "SO_RCVBUF of the listening sockets, which accepted client connections inherit (default: the kernel's).",
                (c, v) -> c.global().clientRcvbuf = (int) clamp(v));
        once(r, "tune.sndbuf.client", "SO_SNDBUF of accepted client connections (default: the kernel's).",
                (c, v) -> c.global().clientSndbuf = (int) clamp(v));
        once(r, "tune.rcvbuf.server", "SO_RCVBUF of connections to servers (default: the kernel's).",
                (c, v) -> c.global().serverRcvbuf = (int) clamp(v));
        once(r, "tune.sndbuf.server", "SO_SNDBUF of connections to servers (default: the kernel's).",
                (c, v) -> c.global().serverSndbuf = (int) clamp(v));
        once(r, "tune.maxaccept", "How many connections a listener accepts in a row before its event loop does other work (-1: no"
                + " limit; default: Netty's 16).", (c, v) -> {
                    if (v > Integer.MAX_VALUE) {
                        c.lineError("'tune.maxaccept' expects -1 or an integer from 0 to INT_MAX.");
                        return;
                    }
                    // HAProxy accepts one connection at a time with 0
                    c.global().maxAccept = v < 0 ? -1 : Math.max(1, (int) v);
                });
        once(r, "tune.maxpollevents", "The most events one epoll_wait returns (default: Netty's, growing as needed); no effect with the"
                + " NIO transport.", (c, v) -> c.global().maxPollEvents = (int) Math.max(0, clamp(v)));
    }

    private static void h2(KeywordRegistry r) {
        r.register(new Keyword("tune.h2.header-table-size", GLOBAL, "tune.h2.header-table-size <number>",
                "The HPACK dynamic table size advertised to HTTP/2 clients and servers (4096 to 65536, default 4096).", c -> {
                    if (c.atMost(1)) {
                        int v = c.args().isEmpty() ? 0 : Units.atoi(c.args().get(0));
                        if (v < 4096 || v > 65536) {
                            c.lineError("'tune.h2.header-table-size' expects a numeric value between 4096 and 65536.");
                            return;
                        }
                        c.global().h2HeaderTableSize = v;
                    }
                }));
        r.register(new Keyword("tune.h2.initial-window-size", GLOBAL, "tune.h2.initial-window-size <number>",
                "The initial window of HTTP/2 streams: request (and response) body bytes a peer may send before an acknowledgment"
                        + " (default 65535).",
                c -> {
                    if (c.atMost(1)) {
                        int v = c.args().isEmpty() ? 0 : Units.atoi(c.args().get(0));
                        if (v < 0) {
                            c.lineError("'tune.h2.initial-window-size' expects a positive numeric value.");
                            return;
                        }
                        c.global().h2InitialWindowSize = v;
                    }
                }));
        r.register(new Keyword("tune.h2.max-concurrent-streams", GLOBAL, "tune.h2.max-concurrent-streams <number>",
                "The most streams an HTTP/2 client may open at once, and a server connection carries at once (default 100; 0: no"
                        + " limit).",
                c -> {
                    if (c.atMost(1)) {
                        int v = c.args().isEmpty() ? 0 : Units.atoi(c.args().get(0));
                        if (v < 0) {
                            c.lineError("'tune.h2.max-concurrent-streams' expects a positive numeric value.");
                            return;
                        }
                        c.global().h2MaxConcurrentStreams = v;
                    }
                }));
        r.register(new Keyword("tune.h2.max-frame-size", GLOBAL, "tune.h2.max-frame-size <number>",
                "The largest HTTP/2 frame Sluice accepts (16384 to 16777215; default and upper bound: tune.bufsize).", c -> {
                    if (c.atMost(1)) {
                        int v = c.args().isEmpty() ? 0 : Units.atoi(c.args().get(0));
                        if (v < 16384 || v > 16777215) {
                            c.lineError("'tune.h2.max-frame-size' expects a numeric value between 16384 and 16777215.");
                            return;
                        }
                        c.global().h2MaxFrameSize = v;
                    }
                }));
    }

    private static void compression(KeywordRegistry r) {
        r.register(new Keyword("tune.comp.maxlevel", GLOBAL, "tune.comp.maxlevel <1..9>",
                "The zlib level of response compression (default 1: fastest).", c -> {
                    if (c.atMost(1)) {
                        int v = c.args().isEmpty() ? 0 : Units.atoi(c.args().get(0));
                        if (v < 1 || v > 9) {
                            c.lineError("'tune.comp.maxlevel' expects a numeric value between 1 and 9");
                            return;
                        }
                        c.global().compMaxLevel = v;
                    }
                }));
        zlib(r, "tune.zlib.memlevel", 1, 9, 8, "the JDK's Deflater always gives zlib a memory level of 8");
        zlib(r, "tune.zlib.windowsize", 8, 15, 15, "the JDK's Deflater always uses zlib's largest window (15 bits)");
        r.register(new Keyword("maxcompcpuusage", GLOBAL, "maxcompcpuusage <0..100>",
                "Accepted; HAProxy lowers the compression level when its CPU usage passes this percentage. Sluice does not"
                        + " measure the CPU usage of its event loops: a value under 100 has no effect (warning).",
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    if (c.args().isEmpty() || 100 - Units.atoi(c.args().get(0)) > 100) {
                        c.lineError("'maxcompcpuusage' expects an integer argument between 0 and 100.");
                        return;
                    }
                    if (Units.atoi(c.args().get(0)) < 100) {
                        c.warning(NO_EFFECT + "Sluice does not measure the CPU usage of its event loops, so compression is never"
                                + " turned down for it.");
                    }
                }));
        r.register(new Keyword("maxcomprate", GLOBAL, "maxcomprate <kB/s>",
                "Accepted; HAProxy lowers the compression level past this input rate. Sluice does not measure it: a value other"
                        + " than 0 has no effect (warning).",
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    if (c.args().isEmpty()) {
                        c.lineError("'maxcomprate' expects an integer argument in kb/s.");
                        return;
                    }
                    if (Units.atoi(c.args().get(0)) != 0) {
                        c.warning(NO_EFFECT + "Sluice does not measure the rate of compressed input, so compression is never"
                                + " turned down for it.");
                    }
                }));
        r.register(new Keyword("maxzlibmem", GLOBAL, "maxzlibmem <MB>",
                "Accepted; HAProxy stops compressing when its zlib states would take more. The JDK's Deflater allocates them"
                        + " outside Sluice's pools: a value other than 0 has no effect (warning).",
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    if (c.args().isEmpty()) {
                        c.lineError("'maxzlibmem' expects an integer argument.");
                        return;
                    }
                    if (Units.atol(c.args().get(0)) != 0) {
                        c.warning(NO_EFFECT + "the JDK's Deflater allocates its zlib states outside Sluice's accounting, so they"
                                + " are not bounded.");
                    }
                }));
    }

    private static void zlib(KeywordRegistry r, String name, int min, int max, int only, String why) {
        r.register(new Keyword(name, GLOBAL, name + " <" + min + ".." + max + ">",
                "Accepted; only " + only + " (zlib's default) is what Sluice does: " + why + " (another value: warning).", c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    int v = c.args().isEmpty() ? 0 : Units.atoi(c.args().get(0));
                    if (v < min || v > max) {
                        c.lineError("'" + name + "' expects a numeric value between " + min + " and " + max + ".");
                        return;
                    }
                    if (v != only) {
                        c.warning(NO_EFFECT + why + ".");
                    }
                }));
    }

    private static void http(KeywordRegistry r) {
        integer(r, "tune.http.cookielen", "The longest cookie value 'capture cookie' keeps (default 63); a longer capture length is"
                + " truncated to it, with HAProxy's warning.", (c, v) -> c.global().cookieLen = (int) Math.min(clamp(v) + 1, 65536));
        integer(r, "tune.http.logurilen", "The longest request line the access log keeps (%r, %HM, %HU, %HV...; default 1024"
                + " bytes including the final NUL, as HAProxy counts it).", (c, v) -> c.global().logUriLen = (int) Math.max(1,
                        Math.min(clamp(v) + 1, Integer.MAX_VALUE)));
    }

    // ------------------------------------------------------------------ accepted without effect

    private static void ignored(KeywordRegistry r) {
        ignoredInt(r, "tune.buffers.limit", false, true, "Sluice's buffers come from Netty's pooled allocator as messages need them"
                + " (bounded with -m), not from a fixed number of tune.bufsize buffers");
        ignoredInt(r, "tune.buffers.reserve", false, false, "Sluice keeps no reserve of buffers: Netty's pooled allocator serves every"
                + " one");
        ignoredInt(r, "tune.recv_enough", false, false, "Sluice reads whatever a socket holds into buffers sized by Netty's allocator"
                + " and has no minimum to wait for before processing");
        ignoredInt(r, "tune.runqueue-depth", true, false, "Sluice's event loops run Netty's task queues, which have no batch size to"
                + " set");
        integer(r, "tune.ssl.capture-buffer-size", "The bytes of each client's TLS hello kept for the ssl_fc_cipherlist_*,"
                + " ssl_fc_extlist_bin, ssl_fc_eclist_bin, ssl_fc_ecformats_bin and ssl_fc_protocol_hello_id fetches (JA3 fingerprints):"
                + " the cipher list, then the extension ids, the groups and the point formats, each cut where the room ends, as HAProxy"
                + " 2.6 keeps them (default 0: nothing is kept and those fetches give no sample).",
                (c, v) -> c.global().sslCaptureSize = (int) Math.max(0, clamp(v)));
        r.register(new Keyword("tune.ssl.capture-cipherlist-size", GLOBAL, "tune.ssl.capture-cipherlist-size <number>",
                "Deprecated alias of tune.ssl.capture-buffer-size (HAProxy's warning).", c -> {
                    c.lineWarning("'tune.ssl.capture-cipherlist-size' is deprecated and will be removed in version 2.7. Please use"
                            + " 'tune.ssl.capture-buffer-size' instead.");
                    if (c.atMost(1) && requireInt(c)) {
                        c.global().sslCaptureSize = (int) Math.max(0, clamp(Units.atol(c.args().get(0))));
                    }
                }));
        ignoredInt(r, "tune.ssl.ssl-ctx-cache-size", false, false, "it sizes the cache of certificates generated on the fly ('bind ..."
                + " generate-certificates'), which Sluice does not do");
        ignoredInt(r, "tune.ssl.maxrecord", false, true, "Sluice does not resize TLS records after idle periods; use"
                + " tune.ssl.hard-maxrecord to bound every record");
        integer(r, "tune.ssl.hard-maxrecord", "The most plaintext bytes Sluice puts in one TLS record towards clients (default 0: up"
                + " to 16384).", (c, v) -> c.global().sslHardMaxRecord = (int) Math.max(0, clamp(v)));
        r.register(new Keyword("tune.ssl.force-private-cache", GLOBAL, "tune.ssl.force-private-cache",
                "Keep the TLS session cache private to the process: what Sluice always does (its cache is per process).", c -> c.atMost(0)));
        onOff(r, "tune.ssl.keylog", false, "Accepted ('off' is Sluice's way); 'on' has no effect (warning): it enables the fetches"
                + " that export TLS secrets (ssl_fc_client_random and the like), which Sluice does not have.",
                "the fetches it enables (ssl_fc_client_random, ssl_fc_session_key and the like) do not exist in Sluice");
        onOff(r, "tune.idle-pool.shared", false, "Accepted ('off' is Sluice's way); 'on' (HAProxy's default) has no effect (warning):"
                + " idle server connections are pooled per event loop and only reused by the streams of that loop.",
                "idle server connections are pooled per event loop and only reused by the streams of that loop");
        onOff(r, "tune.listener.multi-queue", true, "Accepted ('on' is Sluice's way: accepted connections go to the event loops in"
                + " turn); 'off' has no effect (warning).",
                "a listener always hands its accepted connections to the event loops in turn");
        onOff(r, "tune.sched.low-latency", false, "Accepted ('off' is Sluice's way); 'on' has no effect (warning): Netty's event loops"
                + " have no task classes to reorder.", "Netty's event loops run their tasks in order, without latency classes");
        r.register(new Keyword("tune.fd.edge-triggered", GLOBAL, "tune.fd.edge-triggered on|off",
                "Experimental in HAProxy (needs expose-experimental-directives). 'on' is Sluice's way with the epoll transport"
                        + " (Netty registers sockets edge-triggered); 'off' has no effect (warning).",
                c -> {
                    if (!c.global().experimental) {
                        c.lineError("'tune.fd.edge-triggered' directive is experimental, must be allowed via a global"
                                + " 'expose-experimental-directives'");
                        return;
                    }
                    if (onOffValue(c) == Boolean.FALSE) {
                        c.warning(NO_EFFECT + "Netty's epoll transport always registers sockets edge-triggered.");
                    }
                }));
        r.register(new Keyword("tune.idletimer", GLOBAL, "tune.idletimer <0..65535 ms>",
                noEffectDoc("HAProxy uses it to detect idle streams and then send small TLS records or splice; Sluice does neither"
                        + " by stream activity"),
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    String a = c.args().isEmpty() ? "" : c.args().get(0);
                    if (a.isEmpty()) {
                        c.lineError("'tune.idletimer' expects a timer value between 0 and 65535 ms.");
                        return;
                    }
                    long ms;
                    try {
                        ms = Units.parseTimeErr(a, 1);
                    } catch (Units.BadTime e) {
                        c.lineError(e.overflow() ? "timer overflow in argument <" + a + "> to <tune.idletimer>, maximum value is 65535 ms."
                                : "unexpected character '" + e.at() + "' in argument to <tune.idletimer>.");
                        return;
                    }
                    if (ms > 65535) {
                        c.lineError("'tune.idletimer' expects a timer value between 0 and 65535 ms.");
                        return;
                    }
                    c.warning(NO_EFFECT + "HAProxy uses it to detect idle streams and then send small TLS records or splice;"
                            + " Sluice does neither by stream activity.");
                }));
        r.register(new Keyword("tune.fail-alloc", GLOBAL, "tune.fail-alloc <0..100>",
                noEffectDoc("a debugging aid that makes HAProxy's pool allocations fail at random; Sluice's allocations are the JVM's"
                        + " and Netty's (a rate of 0 changes nothing and gives no warning)"),
                c -> {
                    if (!c.atMost(1)) {
                        return;
                    }
                    int v = c.args().isEmpty() ? 0 : Units.atoi(c.args().get(0));
                    if (v < 0 || v > 100) {
                        c.lineError("'tune.fail-alloc' expects a numeric value between 0 and 100.");
                        return;
                    }
                    if (v > 0) {
                        c.warning(NO_EFFECT + "a debugging aid that makes HAProxy's pool allocations fail at random; Sluice's"
                                + " allocations are the JVM's and Netty's.");
                    }
                }));
        r.register(new Keyword("tune.pattern.cache-size", GLOBAL, "tune.pattern.cache-size <number>",
                noEffectDoc("Sluice keeps no cache of pattern lookups: maps and ACL patterns are looked up in their hash tables"
                        + " and trees each time (0 turns HAProxy's cache off, which is Sluice's way, without a warning)"),
                c -> {
                    int v = c.args().isEmpty() ? -1 : Units.atoi(c.args().get(0));
                    if (v < 0) {
                        c.lineError("'tune.pattern.cache-size' expects a positive numeric value");
                        return;
                    }
                    if (v > 0) {
                        c.warning(NO_EFFECT + "Sluice keeps no cache of pattern lookups: maps and ACL patterns are looked up in"
                                + " their hash tables and trees each time.");
                    }
                }));
        r.register(new Keyword("tune.peers.max-updates-at-once", GLOBAL, "tune.peers.max-updates-at-once <number>",
                "How many updates a peer session sends per table in one pass before it lets the others run (default 200).", c -> {
                    if (c.atMost(1)) {
                        if (c.args().isEmpty() || Units.atoi(c.args().get(0)) <= 0) {
                            c.lineError("'tune.peers.max-updates-at-once' expects an integer argument greater than 0.");
                            return;
                        }
                        c.global().peersMaxUpdates = Units.atoi(c.args().get(0));
                    }
                }));
        for (String k : new String[] {"tune.pool-high-fd-ratio", "tune.pool-low-fd-ratio"}) {
            r.register(new Keyword(k, GLOBAL, k + " <0..100>",
                    noEffectDoc("Sluice does not size its idle server connections by a share of the file descriptors; pool-purge-delay"
                            + " closes them"),
                    c -> {
                        if (!c.atMost(1)) {
                            return;
                        }
                        int v = c.args().isEmpty() ? -1 : Units.atoi(c.args().get(0));
                        if (v < 0 || v > 100) {
                            c.lineError("'" + k + "' expects an integer argument between 0 and 100.");
                            return;
                        }
                        c.warning(NO_EFFECT + "Sluice does not size its idle server connections by a share of the file descriptors;"
                                + " pool-purge-delay closes them.");
                    }));
        }
        r.register(new Keyword("tune.quic.frontend.conn-tx-buffers.limit", GLOBAL, "tune.quic.frontend.conn-tx-buffers.limit <number>",
                noEffectDoc("Netty's QUIC codec (quiche) manages the transmit buffers of each connection itself"), c -> {
                    if (c.atMost(1)) {
                        if (c.args().isEmpty() || Units.atoi(c.args().get(0)) < 1) {
                            c.lineError("'tune.quic.frontend.conn-tx-buffers.limit' expects a positive integer.");
                            return;
                        }
                        c.warning(NO_EFFECT + "Netty's QUIC codec (quiche) manages the transmit buffers of each connection itself.");
                    }
                }));
        r.register(new Keyword("expose-experimental-directives", GLOBAL, "expose-experimental-directives",
                "Allow HAProxy's experimental keywords on the following lines (tune.fd.edge-triggered).", c -> {
                    if (c.atMost(0)) {
                        c.global().experimental = true;
                    }
                }));
    }

    private static void lua(KeywordRegistry r) {
        String why = "Sluice does not run Lua ('lua-load' is refused)";
        r.register(new Keyword("tune.lua.forced-yield", GLOBAL, "tune.lua.forced-yield <number>", noEffectDoc(why), c -> {
            String a = c.args().isEmpty() ? "" : c.args().get(0);
            if (!a.isEmpty() && !a.matches("\\s*[-+]?\\d+")) {
                c.lineError("tune.lua.forced-yield: invalid number");
                return;
            }
            c.warning(NO_EFFECT + why + ".");
        }));
        r.register(new Keyword("tune.lua.maxmem", GLOBAL, "tune.lua.maxmem <MB>", noEffectDoc(why), c -> {
            String a = c.args().isEmpty() ? "" : c.args().get(0);
            if (a.isEmpty()) {
                c.lineError("'tune.lua.maxmem' expects an integer argument (Lua memory size in MB).");
                return;
            }
            int bad = firstNonNumber(a);
            if (bad >= 0) {
                c.lineError("tune.lua.maxmem: invalid number " + a + " (error at '" + a.charAt(bad) + "')");
                return;
            }
            c.warning(NO_EFFECT + why + ".");
        }));
        for (String k : new String[] {"tune.lua.session-timeout", "tune.lua.service-timeout", "tune.lua.task-timeout"}) {
            r.register(new Keyword(k, GLOBAL, k + " <time>", noEffectDoc(why), c -> {
                String a = c.args().isEmpty() ? "" : c.args().get(0);
                try {
                    Units.parseTimeErr(a, 1);
                } catch (Units.BadTime e) {
                    c.lineError(e.overflow() ? "timer overflow in argument <" + a + "> to <" + k + "> (maximum value is 2147483647 ms or"
                            + " ~24.8 days)" : k + ": invalid timeout");
                    return;
                }
                c.warning(NO_EFFECT + why + ".");
            }));
        }
    }

    private static void vars(KeywordRegistry r) {
        for (String scope : new String[] {"global", "proc", "reqres", "sess", "txn"}) {
            String k = "tune.vars." + scope + "-max-size";
            r.register(new Keyword(k, GLOBAL, k + " <size>", noEffectDoc("Sluice does not account the memory its variables take"), c -> {
                String a = c.args().isEmpty() ? "" : c.args().get(0);
                if (!a.isEmpty() && !a.matches("\\s*[-+]?\\d+")) {
                    c.lineError(k + ": '" + a + "' is an invalid size");
                    return;
                }
                if (!a.isEmpty() && Units.atol(a) != 0) {
                    c.warning(NO_EFFECT + "Sluice does not account the memory its variables take.");
                }
            }));
        }
    }

    // ------------------------------------------------------------------ helpers

    @FunctionalInterface
    private interface LongSetter {
        void set(KeywordContext c, long value);
    }

    private static String noEffectDoc(String why) {
        return "Accepted for compatibility; has no effect (warning): " + why + ".";
    }

    /** HAProxy's integer keywords: at most one argument, which must be there, read with atol. */
    private static void integer(KeywordRegistry r, String name, String description, LongSetter setter) {
        r.register(new Keyword(name, GLOBAL, name + " <number>", description, c -> {
            if (c.atMost(1) && requireInt(c)) {
                setter.set(c, Units.atol(c.args().get(0)));
            }
        }));
    }

    /**
     * An integer keyword without effect: HAProxy's checks, then the warning ({@code onlyIfSet}: not for 0, HAProxy's "not
     * set"); {@code once}: HAProxy refuses to see it twice.
     */
    private static void ignoredInt(KeywordRegistry r, String name, boolean once, boolean onlyIfSet, String why) {
        LongSetter warn = (c, v) -> {
            if (v != 0 || !onlyIfSet) {
                c.warning(NO_EFFECT + why + ".");
            }
        };
        String doc = noEffectDoc(why + (onlyIfSet ? " (0 gives no warning)" : ""));
        if (once) {
            once(r, name, doc, warn);
        } else {
            integer(r, name, doc, warn);
        }
    }

    /** The same, for the keywords HAProxy refuses to see twice ("already specified. Continuing.": the first one stays). */
    private static void once(KeywordRegistry r, String name, String description, LongSetter setter) {
        r.register(new Keyword(name, GLOBAL, name + " <number>", description, c -> {
            if (!c.atMost(1)) {
                return;
            }
            if (!c.global().seenOnce.add(name)) {
                c.lineWarning("'" + name + "' already specified. Continuing.");
                return;
            }
            if (requireInt(c)) {
                setter.set(c, Units.atol(c.args().get(0)));
            }
        }));
    }

    private static boolean requireInt(KeywordContext c) {
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("'" + c.keyword() + "' expects an integer argument.");
            return false;
        }
        return true;
    }

    private static void onOff(KeywordRegistry r, String name, boolean sluiceValue, String description, String why) {
        r.register(new Keyword(name, GLOBAL, name + " on|off", description, c -> {
            Boolean v = onOffValue(c);
            if (v != null && v != sluiceValue) {
                c.warning(NO_EFFECT + why + ".");
            }
        }));
    }

    /** on/off as HAProxy reads it (null after an error). */
    private static Boolean onOffValue(KeywordContext c) {
        if (!c.atMost(1)) {
            return null;
        }
        String a = c.args().isEmpty() ? "" : c.args().get(0);
        return switch (a) {
            case "on" -> Boolean.TRUE;
            case "off" -> Boolean.FALSE;
            default -> {
                c.lineError("'" + c.keyword() + "' expects either 'on' or 'off' but got '" + a + "'.");
                yield null;
            }
        };
    }

    private static int firstNonNumber(String a) {
        int i = a.startsWith("-") || a.startsWith("+") ? 1 : 0;
        for (; i < a.length(); i++) {
            if (!Character.isDigit(a.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    private static long clamp(long v) {
        return Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }
}
