package dev.sluice.config;

import static dev.sluice.config.Configs.GLOBAL_LINE;
import static dev.sluice.config.Configs.inGlobal;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Global;
import dev.sluice.config.model.H2Tune;
import dev.sluice.config.model.SocketTune;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every {@code tune.*} keyword of HAProxy 2.6's manual (section 3.2) is either applied by Sluice or accepted with a warning
 * that says why it has no effect: none is refused. The list below was made from the manual with
 * {@code zcat /usr/share/doc/haproxy/configuration.txt.gz | sed -n '/^3.2. Performance tuning/,/^3.3. Debugging/p' | grep -E
 * '^tune\.' | awk '{print $1}'}; the messages are those of {@code haproxy -c} 2.6.12.
 */
class TuneKeywordsTest {
    /** HAProxy 2.6's tune keywords, each with a value that asks for something. */
    static final Map<String, String> MANUAL = new LinkedHashMap<>();

    static {
        String[][] all = {
                {"tune.buffers.limit", "100"}, {"tune.buffers.reserve", "4"}, {"tune.bufsize", "32768"}, {"tune.comp.maxlevel", "6"},
                {"tune.fail-alloc", "10"}, {"tune.fd.edge-triggered", "off"}, {"tune.h2.header-table-size", "8192"},
                {"tune.h2.initial-window-size", "131072"}, {"tune.h2.max-concurrent-streams", "50"}, {"tune.h2.max-frame-size", "32768"},
                {"tune.http.cookielen", "100"}, {"tune.http.logurilen", "2048"}, {"tune.http.maxhdr", "200"},
                {"tune.idle-pool.shared", "on"}, {"tune.idletimer", "500"}, {"tune.listener.multi-queue", "off"},
                {"tune.lua.forced-yield", "1000"}, {"tune.lua.maxmem", "64"}, {"tune.lua.session-timeout", "2s"},
                {"tune.lua.service-timeout", "2s"}, {"tune.lua.task-timeout", "2s"}, {"tune.maxaccept", "32"},
                {"tune.maxpollevents", "100"}, {"tune.maxrewrite", "2048"}, {"tune.pattern.cache-size", "5000"},
                {"tune.peers.max-updates-at-once", "100"}, {"tune.pipesize", "131072"}, {"tune.pool-high-fd-ratio", "30"},
                {"tune.pool-low-fd-ratio", "10"}, {"tune.quic.frontend.conn-tx-buffers.limit", "20"},
                {"tune.quic.frontend.max-idle-timeout", "10s"}, {"tune.quic.frontend.max-streams-bidi", "50"},
                {"tune.quic.retry-threshold", "50"}, {"tune.rcvbuf.client", "65536"}, {"tune.rcvbuf.server", "65536"},
                {"tune.recv_enough", "5000"}, {"tune.runqueue-depth", "100"}, {"tune.sched.low-latency", "on"},
                {"tune.sndbuf.client", "65536"}, {"tune.sndbuf.server", "65536"}, {"tune.ssl.cachesize", "1000"},
                {"tune.ssl.capture-buffer-size", "128"}, {"tune.ssl.capture-cipherlist-size", "128"},
                {"tune.ssl.default-dh-param", "2048"}, {"tune.ssl.force-private-cache", ""}, {"tune.ssl.hard-maxrecord", "1400"},
                {"tune.ssl.keylog", "on"}, {"tune.ssl.lifetime", "60"}, {"tune.ssl.maxrecord", "1419"},
                {"tune.ssl.ssl-ctx-cache-size", "100"}, {"tune.vars.global-max-size", "1000"}, {"tune.vars.proc-max-size", "1000"},
                {"tune.vars.reqres-max-size", "1000"}, {"tune.vars.sess-max-size", "1000"}, {"tune.vars.txn-max-size", "1000"},
                {"tune.zlib.memlevel", "9"}, {"tune.zlib.windowsize", "12"},
        };
        for (String[] kv : all) {
            MANUAL.put(kv[0], kv[1]);
        }
    }

    /** What Sluice applies: the value changes what it does, without a warning. */
    static final Set<String> APPLIED = Set.of("tune.bufsize", "tune.comp.maxlevel", "tune.h2.header-table-size", "tune.h2.initial-window-size",
            "tune.h2.max-concurrent-streams", "tune.h2.max-frame-size", "tune.http.cookielen", "tune.http.logurilen", "tune.http.maxhdr",
            "tune.maxaccept", "tune.maxpollevents", "tune.maxrewrite", "tune.pipesize", "tune.quic.frontend.max-idle-timeout",
            "tune.quic.frontend.max-streams-bidi", "tune.quic.retry-threshold", "tune.rcvbuf.client", "tune.rcvbuf.server",
            "tune.sndbuf.client", "tune.sndbuf.server", "tune.ssl.cachesize", "tune.ssl.force-private-cache", "tune.ssl.hard-maxrecord",
            "tune.ssl.lifetime", "tune.peers.max-updates-at-once", "tune.ssl.capture-buffer-size");

    /** Applied, with HAProxy's warning that the keyword is deprecated. */
    static final Set<String> DEPRECATED = Set.of("tune.ssl.capture-cipherlist-size");

    /** Accepted with a warning that says why it changes nothing in Sluice. */
    static final Set<String> NO_EFFECT = Set.of("tune.buffers.limit", "tune.buffers.reserve", "tune.fail-alloc", "tune.fd.edge-triggered",
            "tune.idle-pool.shared", "tune.idletimer", "tune.listener.multi-queue", "tune.lua.forced-yield", "tune.lua.maxmem",
            "tune.lua.session-timeout", "tune.lua.service-timeout", "tune.lua.task-timeout", "tune.pattern.cache-size",
            "tune.pool-high-fd-ratio", "tune.pool-low-fd-ratio", "tune.quic.frontend.conn-tx-buffers.limit",
            "tune.recv_enough", "tune.runqueue-depth", "tune.sched.low-latency", "tune.ssl.default-dh-param", "tune.ssl.keylog", "tune.ssl.maxrecord",
            "tune.ssl.ssl-ctx-cache-size", "tune.vars.global-max-size", "tune.vars.proc-max-size", "tune.vars.reqres-max-size",
            "tune.vars.sess-max-size", "tune.vars.txn-max-size", "tune.zlib.memlevel", "tune.zlib.windowsize");

    @Test
    void everyKeywordOfTheManualIsAppliedOrWarnedAbout() {
        Set<String> classified = new HashSet<>(APPLIED);
        classified.addAll(NO_EFFECT);
        classified.addAll(DEPRECATED);
        assertThat(APPLIED).doesNotContainAnyElementsOf(NO_EFFECT);
        assertThat(classified).as("the inventory covers the manual's list, and only it").isEqualTo(MANUAL.keySet());
        KeywordRegistry registry = KeywordRegistry.standard();
        for (var e : MANUAL.entrySet()) {
            String kw = e.getKey();
            assertThat(registry.lookup(kw, null)).as("%s is registered", kw).isNotNull();
            String text = (kw.equals("tune.fd.edge-triggered") ? "expose-experimental-directives\n" : "") + kw + " " + e.getValue();
            ConfigParser.Result r = parse(inGlobal(text));
            assertThat(Configs.errors(r)).as("errors of %s", text).isEmpty();
            List<String> warnings = Configs.warnings(r).stream().map(Diagnostic::message).toList();
            if (APPLIED.contains(kw)) {
                assertThat(warnings).as("%s is applied: no warning", kw).isEmpty();
            } else if (DEPRECATED.contains(kw)) {
                assertThat(warnings).as("%s is deprecated", kw).singleElement().asString().contains("is deprecated");
            } else {
                assertThat(warnings).as("%s has no effect: a warning says why", kw)
                        .anySatisfy(w -> assertThat(w).startsWith("'" + kw + "' : " + TuneKeywords.NO_EFFECT));
            }
        }
    }

    @Test
    void theAppliedOnesReachTheModel() {
        Global g = valid(inGlobal("""
                tune.rcvbuf.client 65536
                tune.sndbuf.client 32768
                tune.rcvbuf.server 16384
                tune.sndbuf.server 8192
                tune.maxaccept -1
                tune.maxpollevents 50
                tune.h2.header-table-size 8192
                tune.h2.initial-window-size 131072
                tune.h2.max-concurrent-streams 0
                tune.h2.max-frame-size 32768
                tune.comp.maxlevel 9
                tune.http.logurilen 100
                tune.http.cookielen 10
                tune.ssl.hard-maxrecord 1400
                tune.ssl.lifetime 60
                tune.ssl.capture-buffer-size 96
                """)).global();
        assertThat(g.tls().captureSize()).isEqualTo(96);
        assertThat(parse(inGlobal("tune.ssl.capture-cipherlist-size 48")).config().global().tls().captureSize()).isEqualTo(48);
        assertThat(g.tune().sockets()).isEqualTo(new SocketTune(65536, 32768, 16384, 8192, -1, 50));
        assertThat(g.tune().h2()).isEqualTo(new H2Tune(8192, 131072, 0, 32768));
        assertThat(g.tune().compMaxLevel()).isEqualTo(9);
        assertThat(g.tune().logUriLen()).isEqualTo(101);
        assertThat(g.tune().cookieLen()).isEqualTo(11);
        assertThat(g.tls().maxRecord()).isEqualTo(1400);
        // as HAProxy: a number without unit is in seconds
        assertThat(g.sslLifetimeMs()).isEqualTo(60_000);
    }

    @Test
    void theDefaultsAreHaproxys() {
        Global g = valid(inGlobal("nbthread 1")).global();
        assertThat(g.tune().sockets()).isEqualTo(SocketTune.DEFAULT);
        assertThat(g.tune().h2()).isEqualTo(new H2Tune(4096, 65535, 100, 0));
        assertThat(g.tune().h2().effectiveMaxFrameSize(16384)).isEqualTo(16384);
        assertThat(new H2Tune(4096, 65535, 100, 0).effectiveMaxFrameSize(32768)).isEqualTo(32768);
        assertThat(new H2Tune(4096, 65535, 100, 20000).effectiveMaxFrameSize(32768)).isEqualTo(20000);
        assertThat(new H2Tune(4096, 65535, 100, 65536).effectiveMaxFrameSize(32768)).isEqualTo(32768);
        assertThat(g.tune().compMaxLevel()).isEqualTo(1);
        assertThat(g.tune().logUriLen()).isEqualTo(1024);
        assertThat(g.tune().cookieLen()).isEqualTo(64);
        assertThat(g.sslLifetimeMs()).isEqualTo(300_000);
    }

    @Test
    void valuesThatAskNothingGiveNoWarning() {
        valid(inGlobal("""
                tune.zlib.memlevel 8
                tune.zlib.windowsize 15
                tune.idle-pool.shared off
                tune.listener.multi-queue on
                tune.sched.low-latency off
                tune.ssl.keylog off
                tune.pattern.cache-size 0
                tune.fail-alloc 0
                tune.buffers.limit 0
                tune.ssl.maxrecord 0
                maxcompcpuusage 100
                maxcomprate 0
                maxzlibmem 0
                """));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "tune.buffers.limit => 'tune.buffers.limit' expects an integer argument.",
            "tune.buffers.limit 1 2 => 'tune.buffers.limit' cannot handle unexpected argument '2'.",
            "tune.comp.maxlevel x => 'tune.comp.maxlevel' expects a numeric value between 1 and 9",
            "tune.comp.maxlevel 10 => 'tune.comp.maxlevel' expects a numeric value between 1 and 9",
            "tune.fail-alloc 101 => 'tune.fail-alloc' expects a numeric value between 0 and 100.",
            "tune.fd.edge-triggered on => 'tune.fd.edge-triggered' directive is experimental, must be allowed via a global 'expose-experimental-directives'",
            "tune.h2.header-table-size 1 => 'tune.h2.header-table-size' expects a numeric value between 4096 and 65536.",
            "tune.h2.initial-window-size -1 => 'tune.h2.initial-window-size' expects a positive numeric value.",
            "tune.h2.max-concurrent-streams -1 => 'tune.h2.max-concurrent-streams' expects a positive numeric value.",
            "tune.h2.max-frame-size 1 => 'tune.h2.max-frame-size' expects a numeric value between 16384 and 16777215.",
            "tune.http.cookielen => 'tune.http.cookielen' expects an integer argument.",
            "tune.idle-pool.shared x => 'tune.idle-pool.shared' expects either 'on' or 'off' but got 'x'.",
            "tune.idle-pool.shared => 'tune.idle-pool.shared' expects either 'on' or 'off' but got ''.",
            "tune.idletimer => 'tune.idletimer' expects a timer value between 0 and 65535 ms.",
            "tune.idletimer x => unexpected character 'x' in argument to <tune.idletimer>.",
            "tune.idletimer 70000 => 'tune.idletimer' expects a timer value between 0 and 65535 ms.",
            "tune.lua.forced-yield x => tune.lua.forced-yield: invalid number",
            "tune.lua.maxmem => 'tune.lua.maxmem' expects an integer argument (Lua memory size in MB).",
            "tune.lua.maxmem x => tune.lua.maxmem: invalid number x (error at 'x')",
            "tune.lua.session-timeout => tune.lua.session-timeout: invalid timeout",
            "tune.lua.task-timeout x => tune.lua.task-timeout: invalid timeout",
            "tune.maxaccept => 'tune.maxaccept' expects an integer argument.",
            "tune.maxaccept 3000000000 => 'tune.maxaccept' expects -1 or an integer from 0 to INT_MAX.",
            "tune.pattern.cache-size => 'tune.pattern.cache-size' expects a positive numeric value",
            "tune.peers.max-updates-at-once x => 'tune.peers.max-updates-at-once' expects an integer argument greater than 0.",
            "tune.pool-high-fd-ratio => 'tune.pool-high-fd-ratio' expects an integer argument between 0 and 100.",
            "tune.quic.frontend.conn-tx-buffers.limit 0 => 'tune.quic.frontend.conn-tx-buffers.limit' expects a positive integer.",
            "tune.rcvbuf.client => 'tune.rcvbuf.client' expects an integer argument.",
            "tune.sched.low-latency 1 => 'tune.sched.low-latency' expects either 'on' or 'off' but got '1'.",
            "tune.ssl.cachesize => 'tune.ssl.cachesize' expects an integer argument.",
            "tune.ssl.default-dh-param x => 'tune.ssl.default-dh-param' expects a value >= 1024.",
            "tune.ssl.force-private-cache x => 'tune.ssl.force-private-cache' cannot handle unexpected argument 'x'.",
            "tune.ssl.keylog => 'tune.ssl.keylog' expects either 'on' or 'off' but got ''.",
            "tune.ssl.lifetime => 'tune.ssl.lifetime' expects ssl sessions <lifetime> in seconds as argument.",
            "tune.ssl.lifetime x => unexpected character 'x' in argument to <tune.ssl.lifetime>.",
            "tune.vars.txn-max-size x => tune.vars.txn-max-size: 'x' is an invalid size",
            "tune.zlib.memlevel 0 => 'tune.zlib.memlevel' expects a numeric value between 1 and 9.",
            "tune.zlib.windowsize 16 => 'tune.zlib.windowsize' expects a numeric value between 8 and 15.",
            "maxcompcpuusage => 'maxcompcpuusage' expects an integer argument between 0 and 100.",
            "maxcomprate => 'maxcomprate' expects an integer argument in kb/s.",
            "maxzlibmem => 'maxzlibmem' expects an integer argument.",
    })
    void errorsAreHaproxys(String line, String message) {
        var r = parse(inGlobal(line));
        assertThat(Configs.errors(r)).as(line).singleElement().satisfies(d -> {
            assertThat(d.line()).isEqualTo(GLOBAL_LINE);
            assertThat(d.message()).isEqualTo(message);
        });
    }

    @Test
    void atolReadsWhatHaproxyReads() {
        // HAProxy reads these with atol: "x" is 0, accepted
        valid(inGlobal("tune.rcvbuf.client x\ntune.maxaccept x"));
        var r = parse(inGlobal("tune.rcvbuf.client 100\ntune.rcvbuf.client 200"));
        assertThat(Configs.warnings(r)).extracting(Diagnostic::message).containsExactly("'tune.rcvbuf.client' already specified. Continuing.");
        assertThat(r.config().global().tune().sockets().clientRcvbuf()).isEqualTo(100);
    }

    @Test
    void aCookieCaptureLongerThanCookielenIsCutWithHaproxysWarning() {
        String frontend = Configs.DEFAULTS + "frontend fe\n    bind :8080\n    capture cookie sid len 100\n";
        var r = parse("global\n    nbthread 1\n" + frontend);
        assertThat(Configs.warnings(r)).extracting(Diagnostic::message).containsExactly("truncating capture length to 63 bytes for frontend 'fe'.");
        assertThat(Configs.proxy(r.config(), "fe").logging().captures().cookie().len()).isEqualTo(63);
        var longer = parse("global\n    tune.http.cookielen 200\n" + frontend);
        assertThat(Configs.warnings(longer)).isEmpty();
        assertThat(Configs.proxy(longer.config(), "fe").logging().captures().cookie().len()).isEqualTo(100);
    }

    @Test
    void theDeprecatedCipherlistSizeSaysSo() {
        var r = parse(inGlobal("tune.ssl.capture-cipherlist-size 128"));
        assertThat(Configs.warnings(r)).extracting(Diagnostic::message).first().isEqualTo("'tune.ssl.capture-cipherlist-size' is deprecated"
                + " and will be removed in version 2.7. Please use 'tune.ssl.capture-buffer-size' instead.");
    }
}
