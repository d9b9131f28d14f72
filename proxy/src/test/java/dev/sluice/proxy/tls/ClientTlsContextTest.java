package dev.sluice.proxy.tls;

import static dev.sluice.proxy.tls.Fixtures.A;
import static dev.sluice.proxy.tls.Fixtures.DEFAULT;
import static dev.sluice.proxy.tls.Fixtures.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.model.ServerTls;
import dev.sluice.config.model.TlsVersion;
import dev.sluice.config.model.Verify;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client contexts towards servers, against a real server on loopback that serves {@code default.test}
 * by default and {@code a.example.com} by SNI: verification (CA, name), ALPN, session reuse, client
 * certificates, versions.
 */
class ClientTlsContextTest {
    @TempDir
    static Path dir;
    static Path caPem;
    static Path otherCaPem;
    static Loopback server;
    static Loopback strangerServer;

    @BeforeAll
    static void start() throws Exception {
        caPem = Fixtures.caFile(dir);
        otherCaPem = Fixtures.otherCaFile(dir);
        server = new Loopback(Fixtures.serverContext(Fixtures.bind(Fixtures.combined(dir, "default.pem", DEFAULT),
                Fixtures.combined(dir, "a.pem", A))));
        strangerServer = new Loopback(Fixtures.serverContext(Fixtures.bind(Fixtures.combined(dir, "stranger.pem", Fixtures.STRANGER))));
    }

    @AfterAll
    static void stop() {
        server.close();
        strangerServer.close();
    }

    private static ClientTlsContext client(ServerTls t) {
        return ClientTlsContext.build(t, Fixtures.global(), TlsProvider.detect(), w -> {
        });
    }

    private static Loopback.Result connect(Loopback lb, ClientTlsContext c, String sni) throws Exception {
        return lb.connect(alloc -> c.newHandler(alloc, sni, lb.address()));
    }

    private static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append('\n');
        }
        return b.toString();
    }

    private static ServerTls required(String ca) {
        return Fixtures.server(Verify.REQUIRED, ca, List.of(), null, null, true);
    }

    @Test
    void verifyRequiredWithTheRightCa() throws Exception {
        ClientTlsContext c = client(required(caPem.toString()));
        Loopback.Result named = connect(server, c, "a.example.com");
        assertThat(named.ok()).as("%s", named.clientFailure()).isTrue();
        assertThat(named.peerCertificate()).isEqualTo(A.cert());
        assertThat(named.client().sni()).isEqualTo("a.example.com");
        assertThat(named.server().sni()).isEqualTo("a.example.com");
        // without SNI HAProxy checks the chain only, and no SNI is sent
        Loopback.Result anonymous = connect(server, c, null);
        assertThat(anonymous.ok()).isTrue();
        assertThat(anonymous.peerCertificate()).isEqualTo(DEFAULT.cert());
        assertThat(anonymous.server().sni()).isNull();
    }

    @Test
    void verifyRequiredFailsAgainstAnUnknownCa() throws Exception {
        ClientTlsContext c = client(required(otherCaPem.toString()));
        Loopback.Result named = connect(server, c, "a.example.com");
        assertThat(named.ok()).isFalse();
        assertThat(named.clientFailure()).isInstanceOf(SSLHandshakeException.class);
        assertThat(causes(named.clientFailure())).contains("unable to find valid certification path");
        assertThat(connect(server, c, null).ok()).isFalse();
        // and the system store does not know the test CA either
        assertThat(connect(server, client(required("@system-ca")), "a.example.com").ok()).isFalse();
        // the right CA for the stranger's certificate
        assertThat(connect(strangerServer, c, "a.example.com").ok()).isTrue();
    }

    @Test
    void verifyRequiredChecksTheSniAgainstTheCertificate() throws Exception {
        ClientTlsContext c = client(required(caPem.toString()));
        // the server answers with its default certificate (default.test), which does not cover the name sent
        Loopback.Result r = connect(server, c, "nothere.example.org");
        assertThat(r.ok()).isFalse();
        assertThat(r.clientFailure()).isInstanceOf(SSLHandshakeException.class);
        assertThat(causes(r.clientFailure())).contains("No subject alternative DNS name matching nothere.example.org");
    }

    @Test
    void verifyNoneAcceptsAnything() throws Exception {
        ClientTlsContext c = client(Fixtures.server(Verify.NONE, null, List.of(), null, null, true));
        assertThat(connect(strangerServer, c, "a.example.com").ok()).isTrue();
        assertThat(connect(server, c, "nothere.example.org").ok()).isTrue();
    }

    @Test
    void alpn() throws Exception {
        ClientTlsContext both = client(Fixtures.server(Verify.NONE, null, List.of("h2", "http/1.1"), null, null, true));
        assertThat(both.alpn()).containsExactly("h2", "http/1.1");
        Loopback.Result r = connect(server, both, "a.example.com");
        assertThat(r.client().alpn()).isEqualTo("h2");
        Loopback.Result h1 = connect(server, client(Fixtures.server(Verify.NONE, null, List.of("http/1.1"), null, null, true)), null);
        assertThat(h1.client().alpn()).isEqualTo("http/1.1");
        Loopback.Result none = connect(server, client(Fixtures.server(Verify.NONE, null, List.of(), null, null, true)), null);
        assertThat(none.client().alpn()).isNull();
    }

    @Test
    void aHealthCheckMayOfferOtherAlpnProtocols() throws Exception {
        ClientTlsContext none = client(Fixtures.server(Verify.NONE, null, List.of(), null, null, true));
        assertThat(none.offering(List.of())).isSameAs(none);
        ClientTlsContext h2 = none.offering(List.of("h2", "http/1.1"));
        // built once per list, whatever the TLS library (per-connection settings are ignored by OpenSSL's engine)
        assertThat(none.offering(List.of("h2", "http/1.1"))).isSameAs(h2);
        assertThat(h2.offering(List.of("h2", "http/1.1"))).isSameAs(h2);
        assertThat(connect(server, h2, null).client().alpn()).isEqualTo("h2");
        assertThat(connect(server, none.offering(List.of("http/1.1")), null).client().alpn()).isEqualTo("http/1.1");
        assertThat(connect(server, none, null).client().alpn()).isNull();
    }

    @Test
    void sessionReuse() throws Exception {
        ClientTlsContext c = client(required(caPem.toString()));
        assertThat(connect(server, c, "a.example.com").client().resumed()).isFalse();
        Loopback.Result again = connect(server, c, "a.example.com");
        assertThat(again.client().resumed()).isTrue();
        assertThat(again.server().resumed()).isTrue();
        // keyed by name: another SNI does not offer that session
        assertThat(connect(server, c, "alias.example.com").client().resumed()).isFalse();
        // without SNI the server address keys it
        connect(server, c, null);
        assertThat(connect(server, c, null).client().resumed()).isTrue();

        ClientTlsContext noReuse = client(Fixtures.server(Verify.REQUIRED, caPem.toString(), List.of(), null, null, false));
        connect(server, noReuse, "a.example.com");
        assertThat(connect(server, noReuse, "a.example.com").client().resumed()).isFalse();
    }

    @Test
    void clientCertificate() throws Exception {
        Path clientPem = TestPki.write(dir, "client.pem", TestPki.cert(Fixtures.CLIENT.cert()), TestPki.sec1(Fixtures.CLIENT.keys()));
        try (Loopback mtls = new Loopback(Fixtures.serverContext(with(with(Fixtures.bind(Fixtures.combined(dir, "a2.pem", A)), "verify",
                Verify.REQUIRED), "caFile", caPem.toString())))) {
            ClientTlsContext with = client(Fixtures.server(Verify.REQUIRED, caPem.toString(), List.of(), clientPem.toString(), null, true));
            Loopback.Result ok = connect(mtls, with, "a.example.com");
            assertThat(ok.serverOutcome()).isInstanceOf(TlsSession.class);
            ClientTlsContext without = client(required(caPem.toString()));
            assertThat(connect(mtls, without, "a.example.com").serverOutcome()).isInstanceOf(Throwable.class);
        }
    }

    @Test
    void anRsaClientCertificateIsSignedByTheSystemsOpenSsl() throws Exception {
        assumeTrue(SystemRsa.INSTANCE != null, "libcrypto.so.3 (Debian package libssl3) does not load here");
        TestPki.Issued rsaClient = TestPki.leaf(Fixtures.CA, TestPki.rsa(), "rsa-client.test");
        Path clientPem = TestPki.write(dir, "rsa-client.pem", TestPki.cert(rsaClient.cert()), TestPki.pkcs8(rsaClient.keys().getPrivate()));
        try (Loopback mtls = new Loopback(Fixtures.serverContext(with(with(Fixtures.bind(Fixtures.combined(dir, "a3.pem", A)), "verify",
                Verify.REQUIRED), "caFile", caPem.toString())))) {
            ClientTlsContext with = client(Fixtures.server(Verify.REQUIRED, caPem.toString(), List.of(), clientPem.toString(), null, true));
            long before = RsaKeyMethod.SIGNATURES.sum();
            assertThat(connect(mtls, with, "a.example.com").serverOutcome()).isInstanceOf(TlsSession.class);
            assertThat(RsaKeyMethod.SIGNATURES.sum() - before).isEqualTo(1);
        }
    }

    @Test
    void versions() throws Exception {
        ClientTlsContext tls12 = client(Fixtures.server(Verify.NONE, null, List.of(), null, TlsVersion.TLSV12, true));
        assertThat(connect(server, tls12, null).server().protocol()).isEqualTo("TLSv1.2");
        ClientTlsContext dflt = client(Fixtures.server(Verify.NONE, null, List.of(), null, null, true));
        assertThat(connect(server, dflt, null).server().protocol()).isEqualTo("TLSv1.3");
        ServerTls onlyOld = new ServerTls(Verify.NONE, null, null, List.of(), null, null, null, TlsVersion.TLSV10, TlsVersion.TLSV11, true);
        assertThat(connect(server, client(onlyOld), null).ok()).isFalse();
    }

    @Test
    void serverCiphersBoringSslCannotUseAreLeftOutWithAWarning() throws Exception {
        ServerTls t = new ServerTls(Verify.NONE, null, null, List.of(), null, ServerTlsContextTest.HARDENED, null, null, TlsVersion.TLSV12, true);
        List<String> warnings = new java.util.ArrayList<>();
        ClientTlsContext c = ClientTlsContext.build(t, Fixtures.global(), TlsProvider.detect(), warnings::add);
        assertThat(warnings).containsExactly("'ciphers' : ignoring cipher name(s) BoringSSL cannot use: "
                + "ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256");
        Loopback.Result r = connect(server, c, null);
        assertThat(r.ok()).as("%s", r.clientFailure()).isTrue();
        // the server picks by its own order among what the client offers: one of the RSA suites kept
        assertThat(r.server().cipher()).isIn("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        ServerTls nothing = new ServerTls(Verify.NONE, null, null, List.of(), null, "ECDHE-RSA-AES128-SHA256", null, null, null, true);
        assertThatThrownBy(() -> client(nothing)).hasMessage("'ciphers' : 'ECDHE-RSA-AES128-SHA256' selects no cipher BoringSSL can use");
    }

    @Test
    void buildErrors() throws Exception {
        assertThatThrownBy(() -> client(required(null))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("verify is enabled by default but no CA file specified.");
        Path missing = dir.resolve("nope-client.pem");
        assertThatThrownBy(() -> client(Fixtures.server(Verify.NONE, null, List.of(), missing.toString(), null, true)))
                .hasMessage("unable to load certificate from '" + missing + "': No such file or directory");
        Path d = Files.createDirectories(dir.resolve("client-dir"));
        assertThatThrownBy(() -> client(Fixtures.server(Verify.NONE, null, List.of(), d.toString(), null, true)))
                .hasMessageContaining("is a directory");
        assertThatThrownBy(() -> client(required("@nowhere"))).hasMessageContaining("unknown CA store '@nowhere'");
    }
}
