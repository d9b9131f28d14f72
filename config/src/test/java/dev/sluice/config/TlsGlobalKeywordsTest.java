package dev.sluice.config;

import static dev.sluice.config.Configs.GLOBAL_LINE;
import static dev.sluice.config.Configs.inGlobal;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Global;
import dev.sluice.config.model.TlsTune;
import dev.sluice.config.model.TlsVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The global TLS keywords, what HAProxy 2.6 takes and its messages (haproxy -c 2.6.12). */
class TlsGlobalKeywordsTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "ssl-default-bind-options => global statement 'ssl-default-bind-options' expects an option as an argument.",
            "ssl-default-bind-options strict-sni => unknown option 'strict-sni' on global statement 'ssl-default-bind-options'.",
            "ssl-default-bind-options alpn h2 => unknown option 'alpn' on global statement 'ssl-default-bind-options'.",
            "ssl-default-bind-options ssl-min-ver TLSv1.4 => 'TLSv1.4' : unknown ssl/tls version on global statement 'ssl-default-bind-options'.",
            "ssl-default-bind-options ssl-min-ver => 'ssl-min-ver' : missing the ssl/tls version on global statement 'ssl-default-bind-options'.",
            "ssl-default-server-options prefer-client-ciphers => unknown option 'prefer-client-ciphers' on global statement 'ssl-default-server-options'.",
            "ssl-default-server-options ca-file x => unknown option 'ca-file' on global statement 'ssl-default-server-options'.",
            "ssl-default-bind-ciphers => global statement 'ssl-default-bind-ciphers' expects a cipher suite as an argument.",
            "ssl-default-bind-ciphers a b => 'ssl-default-bind-ciphers' cannot handle unexpected argument 'b'.",
            "ssl-default-bind-curves => global statement 'ssl-default-bind-curves' expects a curves suite as an arguments.",
            "ssl-default-server-ciphersuites => global statement 'ssl-default-server-ciphersuites' expects a cipher suite as an argument.",
            "ssl-server-verify => 'ssl-server-verify' expects an integer argument.",
            "ssl-server-verify x => 'ssl-server-verify' expects 'none' or 'required' as argument.",
            "crt-base => global statement 'crt-base' expects a directory path as an argument.",
            "ssl-dh-param-file => 'ssl-dh-param-file' expects a file path as an argument.",
            "ssl-dh-param-file /nonexistent => 'ssl-dh-param-file': unable to load DH parameters from file </nonexistent>.",
            "ssl-load-extra-files => 'ssl-load-extra-files' expects one or multiple arguments (none, all, bundle, sctl, ocsp, issuer).",
            "ssl-load-extra-files foo => 'ssl-load-extra-files' expects one or multiple arguments (none, all, bundle, sctl, ocsp, issuer).",
            "ssl-load-extra-files key none => 'ssl-load-extra-files' 'none' and 'all' can be only used alone",
            "ssl-load-extra-files none key => 'ssl-load-extra-files' 'none' and 'all' can be only used alone",
            "issuers-chain-path => global statement 'issuers-chain-path' expects a directory path as an argument.",
            "issuers-chain-path /nonexistent => global statement 'issuers-chain-path' expects a directory path as an argument.",
            "issuers-chain-path /etc/hostname => global statement 'issuers-chain-path': /etc/hostname is not a directory.",
    })
    void errorsAreHaproxys(String line, String message) {
        var r = parse(inGlobal(line));
        assertThat(Configs.errors(r)).as(line).singleElement().satisfies(d -> {
            assertThat(d.line()).isEqualTo(GLOBAL_LINE);
            assertThat(d.message()).isEqualTo(message);
        });
    }

    @Test
    void theDefaultsHaproxyTakes() {
        valid(inGlobal("""
                ssl-default-bind-options prefer-client-ciphers no-sslv3 no-tlsv10 no-tlsv11 no-tls-tickets ssl-max-ver TLSv1.3
                ssl-default-server-options no-tls-tickets ssl-min-ver TLSv1.2 force-tlsv12
                ssl-default-bind-ciphers ECDHE-RSA-AES128-GCM-SHA256
                ssl-default-bind-ciphersuites TLS_AES_128_GCM_SHA256
                ssl-default-bind-curves X25519:P-256
                ssl-default-server-ciphers ECDHE-RSA-AES128-GCM-SHA256
                ssl-default-server-ciphersuites TLS_AES_128_GCM_SHA256
                """));
        var r = parse(inGlobal("crt-base /a\ncrt-base /b"));
        assertThat(Configs.errors(r)).extracting(Diagnostic::message).containsExactly("'crt-base' already specified.");
    }

    @Test
    void theDefaultsReachBindsAndServers() {
        var c = valid(inGlobal("ssl-default-bind-options ssl-min-ver TLSv1.2 no-tls-tickets\nssl-default-server-options ssl-max-ver TLSv1.2\n"
                + "ssl-server-verify none") + Configs.DEFAULTS + """
                frontend fe
                    bind :443 ssl crt /x.pem
                    default_backend be
                backend be
                    server s1 127.0.0.1:8443 ssl
                """);
        var bind = c.proxy("fe").orElseThrow().binds().get(0).tls();
        assertThat(bind.minVersion()).isEqualTo(TlsVersion.TLSV12);
        assertThat(bind.tickets()).isFalse();
        assertThat(c.proxy("be").orElseThrow().servers().get(0).tls().maxVersion()).isEqualTo(TlsVersion.TLSV12);
    }

    @Test
    void aBindBoundedOnOneSideOnly() {
        var c = valid(Configs.DEFAULTS + """
                frontend fe
                    bind :443 ssl crt /x.pem ssl-min-ver TLSv1.0
                    bind :444 ssl crt /x.pem ssl-max-ver TLSv1.2
                    bind :445 ssl crt /x.pem no-tlsv13
                """);
        var binds = c.proxy("fe").orElseThrow().binds();
        assertThat(binds.get(0).tls().minVersion()).isEqualTo(TlsVersion.TLSV10);
        assertThat(binds.get(0).tls().maxVersion()).isNull();
        assertThat(binds.get(1).tls().minVersion()).isNull();
        assertThat(binds.get(1).tls().maxVersion()).isEqualTo(TlsVersion.TLSV12);
        assertThat(binds.get(2).tls().maxVersion()).isEqualTo(TlsVersion.TLSV12);
        var r = parse(Configs.DEFAULTS + "frontend fe\n    bind :443 ssl crt /x.pem ssl-min-ver TLSv1.3 ssl-max-ver TLSv1.2\n");
        assertThat(Configs.errors(r)).extracting(Diagnostic::message).contains("'bind' : no TLS version is left enabled by the version options.");
    }

    @Test
    void filesAndCompanions() throws IOException {
        Path dh = Files.writeString(dir.resolve("dh.pem"), "-----BEGIN DH PARAMETERS-----\nMAgCAQACAQI=\n-----END DH PARAMETERS-----\n");
        var r = parse(inGlobal("ssl-dh-param-file " + dh + "\nissuers-chain-path " + dir + "/\nssl-load-extra-files key bundle\n"
                + "ssl-load-extra-del-ext"));
        assertThat(Configs.errors(r)).isEmpty();
        assertThat(Configs.warnings(r)).extracting(Diagnostic::message)
                .containsExactly("'ssl-dh-param-file' : has no effect in Sluice: BoringSSL offers no DHE key exchange (ECDHE is used).");
        Global g = r.config().global();
        assertThat(g.tls()).isEqualTo(new TlsTune(0, dir.toString(), Set.of("key", "bundle"), true));
        assertThat(valid(inGlobal("ssl-load-extra-files none")).global().tls().loadsKeyFiles()).isFalse();
        assertThat(valid(inGlobal("ssl-load-extra-files all")).global().tls().extraFiles()).isEqualTo(TlsTune.ALL_EXTRA_FILES);
    }
}
