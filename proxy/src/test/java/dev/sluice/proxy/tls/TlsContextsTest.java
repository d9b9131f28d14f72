package dev.sluice.proxy.tls;

import static dev.sluice.proxy.tls.Fixtures.A;
import static dev.sluice.proxy.tls.Fixtures.DEFAULT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry the runtime uses: {@code -c} diagnostics with file and line, one build per distinct
 * settings, warnings, and the JDK fallback.
 */
class TlsContextsTest {
    @TempDir
    static Path dir;
    static Path good;
    static Path ca;

    @BeforeAll
    static void files() {
        good = Fixtures.combined(dir, "good.pem", A);
        ca = Fixtures.caFile(dir);
    }

    /** Line 9 onwards is the frontend, line 15 onwards the backend. */
    private static Config config(String binds, String servers) {
        return Fixtures.parse("""
                global
                    tune.ssl.cachesize 100
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                """ + binds + """
                    default_backend be
                backend be
                """ + servers);
    }

    @Test
    void prepareReportsEveryUnusableLineWithItsPlace() {
        Path missing = dir.resolve("missing.pem");
        Config cfg = config("""
                    bind 127.0.0.1:8443 ssl crt %s
                    bind 127.0.0.1:8444 ssl crt %s
                    bind 127.0.0.1:8445 ssl crt %s ciphers NOPE-NOPE
                """.formatted(good, missing, good), """
                    server s1 127.0.0.1:9443 ssl verify required ca-file %s
                    server s2 127.0.0.1:9444 ssl verify required ca-file %s/missing-ca.pem
                    server s3 127.0.0.1:9446
                """.formatted(ca, dir));
        TlsContexts tls = Fixtures.contexts(cfg.global());
        List<String> problems = tls.prepare(cfg);
        assertThat(problems).containsExactly(
                "test.cfg:10: error: 'bind 127.0.0.1:8444' in proxy 'fe' : unable to load certificate from '" + missing
                        + "': No such file or directory",
                "test.cfg:11: error: 'bind 127.0.0.1:8445' in proxy 'fe' : 'ciphers' : '" + "NOPE-NOPE' selects no cipher",
                "test.cfg:15: error: 'server be/s2' : unable to load CA file '" + dir + "/missing-ca.pem': No such file or directory");
        Proxy fe = cfg.proxy("fe").orElseThrow();
        TlsConfigException e = org.junit.jupiter.api.Assertions.assertThrows(TlsConfigException.class,
                () -> tls.forBind("fe", fe.binds().get(1)));
        assertThat(e.where()).isEqualTo(new SourceRef("test.cfg", 10));
        assertThat(e.subject()).isEqualTo("'bind 127.0.0.1:8444' in proxy 'fe'");
        assertThat(e.reason()).contains("missing.pem");
        assertThat(tls.forBind("fe", fe.binds().get(0)).certificates()).hasSize(1);
    }

    @Test
    void oneBuildPerDistinctSettings() {
        Config cfg = config("""
                    bind 127.0.0.1:8443 ssl crt %s
                    bind 127.0.0.2:8443 ssl crt %s
                    bind 127.0.0.3:8443 ssl crt %s alpn http/1.1
                """.formatted(good, good, good), """
                    server s1 127.0.0.1:9443 ssl verify none
                    server s2 127.0.0.2:9443 ssl verify none
                    server s3 127.0.0.2:9443 ssl verify none alpn h2
                """);
        TlsContexts tls = Fixtures.contexts(cfg.global());
        assertThat(tls.prepare(cfg)).isEmpty();
        Proxy fe = cfg.proxy("fe").orElseThrow();
        Proxy be = cfg.proxy("be").orElseThrow();
        List<Bind> b = fe.binds();
        assertThat(tls.forBind("fe", b.get(0))).isSameAs(tls.forBind("fe", b.get(1))).isNotSameAs(tls.forBind("fe", b.get(2)));
        List<Server> s = be.servers();
        assertThat(tls.forServer("be", s.get(0))).isSameAs(tls.forServer("be", s.get(1))).isNotSameAs(tls.forServer("be", s.get(2)));
        assertThatThrownBy(() -> tls.forServer("be", new Server(new SourceRef("x", 1), "plain", "127.0.0.1", 80, 1)))
                .isInstanceOf(IllegalArgumentException.class);
        tls.close();
    }

    @Test
    void warningsCarryTheLine() {
        Config cfg = config("""
                    bind 127.0.0.1:8443 ssl crt %s ciphersuites TLS_AES_128_GCM_SHA256 ciphers ECDHE-ECDSA-AES128-GCM-SHA256:TYPO-CIPHER
                """.formatted(good), "");
        TlsContexts tls = Fixtures.contexts(cfg.global());
        assertThat(tls.prepare(cfg)).isEmpty();
        assertThat(tls.providerWarning()).isNull();
        assertThat(tls.warnings()).containsExactly(
                "test.cfg:9: warning: 'bind 127.0.0.1:8443' in proxy 'fe' : 'ciphersuites' has no effect with BoringSSL, which always offers "
                        + "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256",
                "test.cfg:9: warning: 'bind 127.0.0.1:8443' in proxy 'fe' : 'ciphers' : ignoring cipher name(s) BoringSSL cannot use: TYPO-CIPHER");
    }

    @Test
    void jdkFallbackWorksAndSaysSoOnce() throws Exception {
        Path aPem = Fixtures.combined(dir, "a.pem", A);
        Path defaultPem = Fixtures.combined(dir, "default.pem", DEFAULT);
        Config cfg = config("""
                    bind 127.0.0.1:8443 ssl crt %s crt %s curves P-256:X25519 ciphers ECDHE-RSA-AES128-GCM-SHA256:HIGH no-tls-tickets
                """.formatted(defaultPem, aPem), """
                    server s1 127.0.0.1:9443 ssl verify required ca-file %s alpn h2,http/1.1
                """.formatted(ca));
        TlsContexts tls = new TlsContexts(cfg.global(), TlsProvider.jdk("TLS: test fallback"), new SessionTicketKeys(new SecureRandom()));
        assertThat(tls.prepare(cfg)).isEmpty();
        assertThat(tls.provider().sslProvider()).isEqualTo(SslProvider.JDK);
        assertThat(tls.providerWarning()).isEqualTo("TLS: test fallback");
        assertThat(tls.warnings()).first().isEqualTo("TLS: test fallback");
        assertThat(tls.warnings()).filteredOn(w -> w.equals("TLS: test fallback")).hasSize(1);
        assertThat(tls.warnings()).anyMatch(w -> w.contains("the JDK provider ignores HIGH"));

        ServerTlsContext server = tls.forBind("fe", cfg.proxy("fe").orElseThrow().binds().get(0));
        ClientTlsContext client = tls.forServer("be", cfg.proxy("be").orElseThrow().servers().get(0));
        try (Loopback lb = new Loopback(server)) {
            Loopback.Result r = lb.connect(alloc -> client.newHandler(alloc, "a.example.com", lb.address()));
            assertThat(r.ok()).as("%s", r.clientFailure()).isTrue();
            assertThat(r.peerCertificate()).isEqualTo(A.cert());
            assertThat(r.server().alpn()).isEqualTo("h2");
            assertThat(r.server().sni()).isEqualTo("a.example.com");
            assertThat(r.client().alpn()).isEqualTo("h2");
            assertThat(lb.connect(alloc -> client.newHandler(alloc, "nothere.example.org", lb.address())).ok()).isFalse();
        }
    }

    @Test
    void exceptionFormat() {
        TlsConfigException e = new TlsConfigException(new SourceRef("a.cfg", 3), "'server be/s1'", "why", null);
        assertThat(e.diagnostic()).isEqualTo("a.cfg:3: error: 'server be/s1' : why");
    }
}
