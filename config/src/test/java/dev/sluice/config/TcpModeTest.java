package dev.sluice.config;

import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.proxy;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyOptions;
import dev.sluice.config.model.Timeouts;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code mode tcp} in the configuration: the default mode, HAProxy 2.6's mode pairing errors, its warnings about HTTP
 * settings of TCP proxies and layer-6 fetches of HTTP proxies, the half-close timeouts and the splice options. Every
 * message here was checked against {@code haproxy -c} 2.6.12 (the regression test {@code TcpConfigCheckTest} runs
 * such configurations through both).
 */
class TcpModeTest {

    /** Lines 1-4: defaults without mode, every timeout set. */
    private static final String HEAD = """
            defaults
                timeout client 5s
                timeout server 5s
                timeout connect 5s
            """;

    private static List<String> messages(ConfigParser.Result r) {
        return r.diagnostics().stream().map(d -> d.line() + " " + d.severity().name().toLowerCase() + " " + d.message()).toList();
    }

    @Test
    void aProxyWithoutModeIsTcpAndMayUseAnHttpBackend() {
        Config c = valid(HEAD + """
                frontend fe
                    bind :80
                    default_backend be
                backend be
                    mode http
                    server s1 127.0.0.1:80
                listen l
                    mode tcp
                    bind :81
                    server s1 127.0.0.1:81
                """);
        assertThat(proxy(c, "fe").mode()).isEqualTo(Mode.TCP);
        assertThat(proxy(c, "be").mode()).isEqualTo(Mode.HTTP);
        assertThat(proxy(c, "l").mode()).isEqualTo(Mode.TCP);
    }

    @Test
    void anHttpFrontendCannotUseATcpBackend() {
        var r = parse(HEAD + """
                frontend fe_http
                    mode http
                    bind :80
                    use_backend be_tcp if { path /x }
                    default_backend be_tcp
                listen l_http
                    mode http
                    bind :81
                    use_backend be_tcp if { path /y }
                    server s1 127.0.0.1:9
                backend be_tcp
                    server s1 127.0.0.1:9
                """);
        assertThat(messages(r)).containsExactlyInAnyOrder(
                "9 error http frontend 'fe_http' (test.cfg:5) tries to use incompatible tcp backend 'be_tcp' (test.cfg:15) as its default"
                        + " backend (see 'mode').",
                "8 error http frontend 'fe_http' (test.cfg:5) tries to use incompatible tcp backend 'be_tcp' (test.cfg:15) in a 'use_backend'"
                        + " rule (see 'mode').",
                "13 error http proxy 'l_http' (test.cfg:10) tries to use incompatible tcp backend 'be_tcp' (test.cfg:15) in a 'use_backend'"
                        + " rule (see 'mode').");
    }

    @Test
    void httpSettingsOfATcpProxyAreWarnedAboutAndIgnored() {
        var r = parse("global\n    log stdout format raw local0\n" + HEAD.replace("defaults\n", "defaults\n    log global\n") + """
                listen l1
                    mode tcp
                    bind :80
                    http-request deny if { path /x }
                    http-response set-header a b
                    http-after-response set-header a b
                    redirect prefix /x
                    option forwardfor
                    option http-ignore-probes
                    option prefer-last-server
                    option accept-invalid-http-request
                    option http-use-proxy-header
                    option http-server-close
                    timeout http-request 5s
                    option httplog
                    cookie SRV insert
                    stats enable
                    capture cookie A len 10
                    monitor-uri /m
                    balance uri
                    server s1 127.0.0.1:9 cookie a
                """);
        assertThat(messages(r)).containsExactlyInAnyOrder(
                "8 warning cookie will be ignored for proxy 'l1' (needs 'mode http').",
                "8 warning monitor-uri will be ignored for proxy 'l1' (needs 'mode http').",
                "27 warning Layer 7 hash not possible for proxy 'l1' (needs 'mode http'). Falling back to round robin.",
                "22 warning 'option httplog' not usable with proxy 'l1' (needs 'mode http'). Falling back to 'option tcplog'.",
                "8 warning 'stats' statement ignored for proxy 'l1' as it requires HTTP mode.",
                "8 warning 'capture' statement ignored for proxy 'l1' as it requires HTTP mode.",
                "8 warning 'http-request' rules ignored for proxy 'l1' as they require HTTP mode.",
                "8 warning 'http-response' rules ignored for proxy 'l1' as they require HTTP mode.",
                "8 warning 'http-after-response' rules ignored for proxy 'l1' as they require HTTP mode.",
                "8 warning 'redirect' rules ignored for proxy 'l1' as they require HTTP mode.",
                "8 warning 'option forwardfor' ignored for proxy 'l1' as it requires HTTP mode.",
                "8 warning 'option http-ignore-probes' ignored for proxy 'l1' as it requires HTTP mode.",
                "8 warning 'option prefer-last-server' ignored for proxy 'l1' as it requires HTTP mode.",
                "8 warning 'option accept-invalid-http-request' ignored for proxy 'l1' as it requires HTTP mode.",
                "8 warning 'option http-use-proxy-header' ignored for proxy 'l1' as it requires HTTP mode.",
                "28 warning proxy 'l1' : ignoring cookie for server 's1' as HTTP mode is disabled.");
        Proxy l1 = proxy(r.config() == null ? parseIgnoringErrors(r) : r.config(), "l1");
        assertThat(l1.balance().algorithm()).isEqualTo(Balance.Algorithm.ROUNDROBIN);
        assertThat(l1.logging().format()).isEqualTo(LogFormats.parse(LogFormats.TCPLOG));
        assertThat(l1.logging().formatWhere()).isNull();
    }

    private static Config parseIgnoringErrors(ConfigParser.Result r) {
        throw new AssertionError("unexpected errors: " + r.diagnostics());
    }

    @Test
    void optionHttplogOfDefaultsFallsBackInTcpFrontendsOnlyAtTheOptionsLine() {
        var r = parse("""
                global
                    log stdout format raw local0
                defaults
                    mode tcp
                    log global
                    option httplog
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend ft
                    bind :80
                    default_backend bt
                backend bt
                    server s1 127.0.0.1:9
                frontend ft2
                    bind :81
                    option tcplog
                    default_backend bt
                """);
        assertThat(messages(r)).containsExactly(
                "6 warning 'option httplog' not usable with frontend 'ft' (needs 'mode http'). Falling back to 'option tcplog'.");
    }

    @Test
    void switchModeHttpKeepsTheHttpRulesOfATcpFrontend() {
        var r = parse(HEAD + """
                frontend ft
                    mode tcp
                    bind :80
                    tcp-request content switch-mode http
                    http-request deny if { path /x }
                    option forwardfor
                    default_backend bh
                backend bh
                    mode http
                    server s1 127.0.0.1:9
                """);
        assertThat(r.diagnostics()).isEmpty();
    }

    @Test
    void layer6FetchesOfAnHttpProxyAreWarnedAbout() {
        var r = parse(HEAD + """
                frontend fh
                    mode http
                    bind :80
                    tcp-request content reject if { req.len gt 0 }
                    use_backend bh if { req.ssl_sni foo } || REQ_CONTENT
                    http-request deny if RDP_COOKIE
                    http-request deny if { path /x }
                    default_backend bh
                backend bh
                    mode http
                    stick-table type ip size 1k
                    stick on src if { req.len gt 0 }
                    server s1 127.0.0.1:9
                """);
        assertThat(messages(r)).containsExactlyInAnyOrder(
                "8 warning Proxy 'fh': L6 sample fetches ignored on HTTP proxies (declared at test.cfg:8).",
                "9 warning Proxy 'fh': L6 sample fetches ignored on HTTP proxies (declared at test.cfg:9).",
                "10 warning Proxy 'fh': L6 sample fetches ignored on HTTP proxies (declared at test.cfg:10).",
                "10 warning a 'http-request' rule placed after a 'use_backend' rule will still be processed before.",
                "11 warning a 'http-request' rule placed after a 'use_backend' rule will still be processed before.",
                "16 warning Proxy 'bh': L6 sample fetches ignored on HTTP proxies (declared at test.cfg:16).");
    }

    @Test
    void halfCloseTimeoutsAreTakenOnTheirSideAndWarnedAboutOnTheOther() {
        var r = parse(HEAD + """
                    timeout client-fin 1s
                    timeout server-fin 2s
                listen l
                    bind :80
                    server s1 127.0.0.1:9
                backend b1
                    timeout client-fin 3s
                    timeout server-fin 4s
                    server s1 127.0.0.1:9
                frontend f1
                    bind :81
                    timeout server-fin 5s
                    timeout client-fin 6s
                    default_backend b1
                """);
        assertThat(messages(r)).containsExactly(
                "11 warning 'timeout client-fin' will be ignored because backend 'b1' has no frontend capability",
                "16 warning 'timeout server-fin' will be ignored because frontend 'f1' has no backend capability");
        Timeouts l = proxy(r.config(), "l").timeouts();
        assertThat(List.of(l.clientFin(), l.serverFin())).containsExactly(1000L, 2000L);
        Timeouts b1 = proxy(r.config(), "b1").timeouts();
        assertThat(List.of(b1.clientFin(), b1.serverFin())).containsExactly(1000L, 4000L);
        Timeouts f1 = proxy(r.config(), "f1").timeouts();
        assertThat(List.of(f1.clientFin(), f1.serverFin())).containsExactly(6000L, 2000L);
    }

    @Test
    void spliceOptionsAndGlobalSettings() {
        Config c = valid("""
                global
                    nosplice
                    tune.pipesize 65536
                """ + HEAD + """
                    option splice-auto
                listen l
                    bind :80
                    option splice-request
                    no option splice-auto
                    server s1 127.0.0.1:9
                listen l2
                    bind :81
                    option splice-response
                    server s1 127.0.0.1:9
                """);
        assertThat(proxy(c, "l").options().splice()).containsExactly(ProxyOptions.Splice.REQUEST);
        assertThat(proxy(c, "l2").options().splice()).isEqualTo(Set.of(ProxyOptions.Splice.AUTO, ProxyOptions.Splice.RESPONSE));
        assertThat(c.global().tune().noSplice()).isTrue();
        assertThat(c.global().tune().pipesize()).isEqualTo(65536);
        assertThat(valid("global\n    tune.pipesize 64k\n").global().tune().pipesize()).isEqualTo(64);
        assertThat(messages(parse("global\n    tune.pipesize\n    nosplice x\n"))).containsExactly(
                "2 error 'tune.pipesize' expects an integer argument.",
                "3 error 'nosplice' cannot handle unexpected argument 'x'.");
    }

    @Test
    void modeKeywordErrorsAreHaproxys() {
        assertThat(messages(parse("defaults\n    mode ftp\n"))).containsExactly("2 error unknown proxy mode 'ftp'.");
        assertThat(parse("defaults\n    mode health\n").diagnostics()).extracting(Diagnostic::line, Diagnostic::message)
                .containsExactly(tuple(2, "'mode' : mode health was removed from HAProxy 2.4; use monitor-uri instead."));
    }
}
