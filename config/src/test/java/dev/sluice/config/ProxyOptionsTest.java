package dev.sluice.config;

import static dev.sluice.config.Configs.backendOf;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The options of {@link dev.sluice.config.model.ProxyOptions}, their defaults and how defaults sections pass them on. */
class ProxyOptionsTest {

    @Test
    void preferLastServer() {
        assertThat(backendOf("").options().preferLastServer()).isFalse();
        assertThat(backendOf("option prefer-last-server").options().preferLastServer()).isTrue();
        var c = Configs.valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    option prefer-last-server\n") + """
                frontend fe
                    bind :8080
                    default_backend a
                backend a
                backend b
                    no option prefer-last-server
                """);
        assertThat(Configs.proxy(c, "a").options().preferLastServer()).isTrue();
        assertThat(Configs.proxy(c, "b").options().preferLastServer()).isFalse();
        assertThat(Configs.proxy(c, "fe").options().preferLastServer()).isFalse();
    }

    @Test
    void fullconnAndMinconnAsHaproxy() {
        assertThat(backendOf("").options().fullconn()).isZero();
        assertThat(backendOf("fullconn 100").options().fullconn()).isEqualTo(100);
        var servers = backendOf("""
                server s1 127.0.0.1:80 minconn 10 maxconn 50
                server s2 127.0.0.1:80 minconn 60 maxconn 50
                server s3 127.0.0.1:80 minconn 7
                server s4 127.0.0.1:80 maxconn 9
                server s5 127.0.0.1:80
                """).servers();
        // a minconn above maxconn becomes the maxconn; no minconn: a static limit (minconn = maxconn)
        assertThat(servers).extracting(s -> s.minconn() + "/" + s.maxconn()).containsExactly("10/50", "60/60", "7/7", "9/9", "0/0");
        var r = Configs.parse(Configs.inFrontend("fullconn 10"));
        assertThat(r.ok()).isTrue();
        assertThat(Configs.warnings(r)).singleElement().satisfies(d -> assertThat(d.message())
                .isEqualTo("'fullconn' ignored because frontend 'fe' has no backend capability. Maybe you want 'maxconn' instead ?"));
        Configs.assertSingleError(Configs.parse(Configs.inBackend("fullconn")), Configs.BACKEND_LINE, "'fullconn' expects an integer argument.");
        Configs.assertSingleError(Configs.parse(Configs.inBackend("fullconn x")), Configs.BACKEND_LINE, "'fullconn' expects an integer argument.");
        Configs.assertSingleError(Configs.parse(Configs.inBackend("server s1 127.0.0.1:80 minconn x")), Configs.BACKEND_LINE,
                "'minconn' expects a non-negative integer (got 'x').");
    }

    @Test
    void socketStats() {
        assertThat(Configs.frontendOf("").options().socketStats()).isFalse();
        assertThat(Configs.frontendOf("option socket-stats").options().socketStats()).isTrue();
        assertThat(Configs.frontendOf("option socket-stats\nno option socket-stats").options().socketStats()).isFalse();
        var c = Configs.valid(Configs.DEFAULTS.replace("defaults\n", "defaults\n    option socket-stats\n") + """
                frontend fe
                    bind :8080
                    default_backend be
                backend be
                """);
        // from defaults to frontends; a backend has no listener
        assertThat(Configs.proxy(c, "fe").options().socketStats()).isTrue();
        assertThat(Configs.proxy(c, "be").options().socketStats()).isFalse();
        Configs.assertSingleError(Configs.parse(Configs.inBackend("option socket-stats")), Configs.BACKEND_LINE,
                "'option socket-stats' is not allowed in 'backend' section");
    }

    @Test
    void abortOnClose() {
        assertThat(backendOf("").options().abortOnClose()).isFalse();
        assertThat(backendOf("option abortonclose").options().abortOnClose()).isTrue();
        assertThat(backendOf("option abortonclose\nno option abortonclose").options().abortOnClose()).isFalse();
        Configs.assertSingleError(Configs.parse(Configs.inFrontend("option abortonclose")), Configs.FRONTEND_LINE,
                "'option abortonclose' is not allowed in 'frontend' section");
    }

    @Test
    void contStatsIsAFrontendOption() {
        assertThat(Configs.frontendOf("option contstats").options().contStats()).isTrue();
        assertThat(Configs.frontendOf("").options().contStats()).isFalse();
        Configs.assertSingleError(Configs.parse(Configs.inBackend("option contstats")), Configs.BACKEND_LINE,
                "'option contstats' is not allowed in 'backend' section");
    }

    @Test
    void httpIgnoreProbesIsAFrontendOption() {
        assertThat(Configs.frontendOf("option http-ignore-probes").options().ignoreProbes()).isTrue();
        assertThat(Configs.frontendOf("option http-ignore-probes\nno option http-ignore-probes").options().ignoreProbes()).isFalse();
        assertThat(backendOf("").options().ignoreProbes()).isFalse();
    }

    @Test
    void restrictHeaderNamesTakesHaproxysThreeWords() {
        assertThat(Configs.frontendOf("option http-restrict-req-hdr-names delete").options().headerNames())
                .isEqualTo(dev.sluice.config.model.ProxyOptions.HeaderNames.DELETE);
        assertThat(backendOf("option http-restrict-req-hdr-names reject").options().headerNames())
                .isEqualTo(dev.sluice.config.model.ProxyOptions.HeaderNames.REJECT);
        assertThat(backendOf("").options().headerNames()).isNull();
        Configs.assertSingleError(Configs.parse(Configs.inBackend("option http-restrict-req-hdr-names drop")), Configs.BACKEND_LINE,
                "invalid parameter 'drop'. option 'http-restrict-req-hdr-names' expects 'preserve', 'reject' or 'delete' option.");
        Configs.assertSingleError(Configs.parse(Configs.inBackend("option http-restrict-req-hdr-names")), Configs.BACKEND_LINE,
                "missing parameter. option 'http-restrict-req-hdr-names' expects 'preserve', 'reject' or 'delete' option.");
    }

    @Test
    void dispatchAndTransparentOnlyWithoutABalanceAlgorithm() {
        assertThat(backendOf("dispatch 10.0.0.1:80").options().dispatch()).isEqualTo("10.0.0.1:80");
        assertThat(backendOf("dispatch [::1]:80").options().dispatch()).isEqualTo("[::1]:80");
        assertThat(backendOf("option transparent").options().transparent()).isTrue();
        // dispatch wins over transparent, as in HAProxy (a balance line makes both idle: DispatchTest)
        assertThat(backendOf("dispatch 10.0.0.1:80\noption transparent").options().transparent()).isFalse();
        Configs.assertSingleError(Configs.parse(Configs.inBackend("dispatch 10.0.0.1")), Configs.BACKEND_LINE, "missing port number: '10.0.0.1'");
    }
}
