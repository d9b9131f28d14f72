package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.TlsVersion;
import dev.sluice.config.model.Verify;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The TLS options of a QUIC bind that are a warning: only those that would make its handshake differ from HAProxy's (QUIC
 * is TLS 1.3: 'ciphers', version bounds allowing 1.3 and the cipher preference change nothing there, in HAProxy either).
 */
class QuicTlsOptionsTest {

    private static BindTls tls(String ciphers, String suites, TlsVersion min, TlsVersion max, String curves, boolean preferClient) {
        return new BindTls(List.of("/x.pem"), List.of("h3"), ciphers, suites, min, max, null, Verify.NONE, true, false, curves, preferClient);
    }

    @Test
    void onlyWhatWouldDifferIsAWarning() {
        // Mozilla's intermediate profile through ssl-default-bind-*: nothing that applies to TLS 1.3 differs
        assertThat(QuicTlsContext.ignoredOptions(tls("ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES128-GCM-SHA256",
                "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256", TlsVersion.TLSV12, null, null, true))).isNull();
        assertThat(QuicTlsContext.ignoredOptions(tls(null, null, null, null, null, false))).isNull();
        assertThat(QuicTlsContext.ignoredOptions(tls(null, "TLS_AES_256_GCM_SHA384", null, null, null, false)))
                .isEqualTo("'ciphersuites' does not apply to QUIC binds (QUIC always runs TLS 1.3 with BoringSSL's suites and groups)");
        assertThat(QuicTlsContext.ignoredOptions(tls(null, null, null, TlsVersion.TLSV12, "P-256", false)))
                .isEqualTo("'curves' and a maximum version below TLSv1.3 do not apply to QUIC binds (QUIC always runs TLS 1.3 with"
                        + " BoringSSL's suites and groups)");
    }
}
