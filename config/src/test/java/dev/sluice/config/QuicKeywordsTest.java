package dev.sluice.config;

import static dev.sluice.config.Configs.FRONTEND_LINE;
import static dev.sluice.config.Configs.GLOBAL_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.frontendOf;
import static dev.sluice.config.Configs.inFrontend;
import static dev.sluice.config.Configs.inGlobal;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static dev.sluice.config.Configs.warnings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.BindQuic;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.QuicTune;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code bind quic4@/quic6@}, the QUIC bind options and the {@code tune.quic.*} globals. */
class QuicKeywordsTest {

    @Test
    void quicBindsParseWithTlsAndDefaultAlpnH3() {
        Bind b = frontendOf("bind quic4@127.0.0.1:8443 ssl crt /x.pem").binds().getFirst();
        assertThat(b.address()).isEqualTo(new ListenAddress.Quic("127.0.0.1", 8443));
        assertThat(b.isQuic()).isTrue();
        assertThat(b.tls().certificates()).containsExactly("/x.pem");
        assertThat(b.tls().alpn()).containsExactly("h3");
        assertThat(b.quic()).isEqualTo(BindQuic.DEFAULT);
        assertThat(b.proto()).isNull();
    }

    @Test
    void wildcardsAndIpv6() {
        assertThat(frontendOf("bind quic4@:443 ssl crt /x.pem alpn h3").binds().getFirst().address())
                .isEqualTo(new ListenAddress.Quic("0.0.0.0", 443));
        assertThat(frontendOf("bind quic6@:443 ssl crt /x.pem").binds().getFirst().address())
                .isEqualTo(new ListenAddress.Quic("::", 443));
        ListenAddress a = frontendOf("bind quic6@[::1]:8443 ssl crt /x.pem").binds().getFirst().address();
        assertThat(a).isEqualTo(new ListenAddress.Quic("::1", 8443)).hasToString("quic6@[::1]:8443");
        assertThat(new ListenAddress.Quic("0.0.0.0", 443)).hasToString("quic4@0.0.0.0:443");
    }

    @Test
    void quicOptions() {
        Bind b = frontendOf("bind quic4@:443 ssl crt /x.pem alpn h3 quic-force-retry quic-cc-algo bbr").binds().getFirst();
        assertThat(b.quic()).isEqualTo(new BindQuic(true, BindQuic.CongestionControl.BBR));
        assertThat(frontendOf("bind quic4@:443 ssl crt /x.pem quic-cc-algo newreno").binds().getFirst().quic().congestionControl())
                .isEqualTo(BindQuic.CongestionControl.NEWRENO);
    }

    /**
     * {@code allow-0rtt}: early data on a QUIC bind; on a TLS bind over TCP a warning says why it is not taken; without ssl it is
     * accepted and unused, as HAProxy does.
     */
    @Test
    void allow0rtt() {
        assertThat(frontendOf("bind quic4@:443 ssl crt /x.pem allow-0rtt").binds().getFirst().tls().earlyData()).isTrue();
        assertThat(frontendOf("bind quic4@:443 ssl crt /x.pem").binds().getFirst().tls().earlyData()).isFalse();
        assertThat(frontendOf("bind :80 allow-0rtt").binds().getFirst().tls()).isNull();
        var r = parse(inFrontend("bind :443,:8443 ssl crt /x.pem allow-0rtt"));
        assertThat(r.ok()).isTrue();
        assertThat(warnings(r)).extracting(d -> d.message()).containsExactly(
                "'bind' : 'allow-0rtt' is ignored on ':443': Sluice takes TLS 1.3 early data on QUIC binds only (Netty's TLS over TCP,"
                        + " BoringSSL through netty-tcnative or the JDK's engine, has no server-side early data); clients fall back to"
                        + " a full handshake.",
                "'bind' : 'allow-0rtt' is ignored on ':8443': Sluice takes TLS 1.3 early data on QUIC binds only (Netty's TLS over TCP,"
                        + " BoringSSL through netty-tcnative or the JDK's engine, has no server-side early data); clients fall back to"
                        + " a full handshake.");
    }

    @Test
    void aWindowSizeOnTheAlgorithmIsAWarning() {
        var r = parse(inFrontend("bind quic4@:443 ssl crt /x.pem quic-cc-algo cubic(8m)"));
        assertThat(r.ok()).isTrue();
        assertThat(warnings(r)).singleElement().satisfies(d -> assertThat(d.message()).contains("window size in 'cubic(8m)' is ignored"));
    }

    @Test
    void theTcpBindsDefaultAlpnDoesNotReachAQuicBind() {
        var c = valid(inFrontend("bind quic4@:443 ssl crt /x.pem\nbind :443 ssl crt /x.pem"));
        var binds = c.proxy("fe").orElseThrow().binds();
        assertThat(binds.get(0).tls().alpn()).containsExactly("h3");
        assertThat(binds.get(1).tls().alpn()).containsExactly("h2", "http/1.1");
        assertThat(binds.get(1).quic()).isNull();
    }

    @ParameterizedTest(name = "bind {0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "quic4@:443                       => QUIC bind 'quic4@:443' needs 'ssl crt <pem>': QUIC always runs TLS 1.3.",
            "`quic4@:443 ssl crt /x.pem alpn h2` => QUIC bind 'quic4@:443' speaks HTTP/3 only: its 'alpn' must include 'h3' (not 'h2').",
            "`quic4@:443 ssl crt /x.pem proto h2` => 'proto' does not apply to QUIC bind 'quic4@:443': it always speaks HTTP/3.",
            "`:443 quic-force-retry`           => 'quic-force-retry' only applies to QUIC binds (quic4@ or quic6@), not to ':443'.",
            "`quic4@:443 ssl crt /x.pem quic-cc-algo`      => 'quic-cc-algo' expects an argument (cubic, newreno or bbr).",
            "`quic4@:443 ssl crt /x.pem quic-cc-algo vegas` => 'quic-cc-algo' : unknown algorithm 'vegas' (expected cubic, newreno or bbr).",
            "`quic4@:443 ssl crt /x.pem quic-cc-algo nocc`  => 'quic-cc-algo nocc' is not supported by Sluice: Netty's QUIC codec offers cubic, newreno and bbr.",
            "`quic4@:443 ssl crt /x.pem quic-socket connection` => bind option 'quic-socket' is not supported by Sluice yet: QUIC socket ownership (connections share their listener's socket)",
            "quic4@[::1]:443                  => address '::1' does not match its family prefix 'quic4@'",
            "quic6@127.0.0.1:443              => address '127.0.0.1' does not match its family prefix 'quic6@'",
            "quic4@localhost:443              => 'localhost' is not an IP address (bind takes IP addresses, '*' or nothing)",
            "quic4@127.0.0.1                  => missing port in address '127.0.0.1'",
    })
    void rejected(String line, String message) {
        assertThat(assertSingleError(parse(inFrontend("bind " + line)), FRONTEND_LINE, message).message()).isEqualTo("'bind' : " + message);
    }

    @Test
    void aStatsSocketCannotBeQuic() {
        assertSingleError(parse(inGlobal("stats socket quic4@127.0.0.1:9999")), GLOBAL_LINE, "a stats socket cannot listen on QUIC");
    }

    @Test
    void tuneQuicDefaults() {
        assertThat(valid(inFrontend("bind :81")).global().quic()).isEqualTo(QuicTune.DEFAULT);
        assertThat(QuicTune.DEFAULT.maxIdleTimeoutMs()).isEqualTo(30_000);
        assertThat(QuicTune.DEFAULT.maxStreamsBidi()).isEqualTo(100);
        assertThat(QuicTune.DEFAULT.retryThreshold()).isEqualTo(100);
    }

    @Test
    void tuneQuicKeywords() {
        QuicTune q = valid(inGlobal("""
                tune.quic.frontend.max-idle-timeout 8s
                tune.quic.frontend.max-streams-bidi 32
                tune.quic.frontend.max-data 2m
                tune.quic.frontend.stream-data 64k
                tune.quic.cc-hystart off
                tune.quic.retry-threshold 5
                tune.quic.socket-owner listener
                cluster-secret s3cr3t
                """)).global().quic();
        assertThat(q).isEqualTo(new QuicTune(8000, 32, 2L << 20, 64L << 10, false, 5, "s3cr3t"));
    }

    @Test
    void altSvcOption() {
        var fe = frontendOf("bind quic4@:443 ssl crt /x.pem\noption h3-alt-svc");
        assertThat(fe.http().h3AltSvcMaxAge()).isEqualTo(86_400);
        assertThat(frontendOf("bind quic4@:443 ssl crt /x.pem\noption h3-alt-svc ma 60").http().h3AltSvcMaxAge()).isEqualTo(60);
        assertThat(frontendOf("bind quic4@:443 ssl crt /x.pem").http().h3AltSvcMaxAge()).isEqualTo(-1);
        assertThat(frontendOf("bind quic4@:443 ssl crt /x.pem\noption h3-alt-svc\nno option h3-alt-svc").http().h3AltSvcMaxAge()).isEqualTo(-1);
        var r = parse(inFrontend("option h3-alt-svc"));
        assertThat(r.ok()).isTrue();
        assertThat(warnings(r)).singleElement().satisfies(d -> assertThat(d.message()).contains("'option h3-alt-svc' has no effect"));
        assertSingleError(parse(inFrontend("bind quic4@:443 ssl crt /x.pem\noption h3-alt-svc max-age 5")), FRONTEND_LINE + 1,
                "unexpected argument 'max-age'");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "tune.quic.frontend.max-idle-timeout soon => ",
            "tune.quic.frontend.max-streams-bidi 0    => ",
            "tune.quic.frontend.max-data 12           => '12' is out of range (1k to 4g).",
            "tune.quic.frontend.stream-data 8x        => unexpected suffix 'x'",
            "tune.quic.cc-hystart maybe               => expects 'on' or 'off', not 'maybe'.",
            "tune.quic.socket-owner connection        => 'tune.quic.socket-owner connection' is not supported by Sluice: QUIC connections share their listener's socket.",
            "tune.quic.frontend.conn-tx-buffers.limit 0 => 'tune.quic.frontend.conn-tx-buffers.limit' expects a positive integer.",
    })
    void rejectedTuning(String line, String message) {
        assertSingleError(parse(inGlobal(line)), GLOBAL_LINE, message == null ? "" : message);
    }
}
