package dev.sluice.proxy.tls;

import static dev.sluice.proxy.tls.Fixtures.A;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static dev.sluice.proxy.tls.Fixtures.DEFAULT;
import static dev.sluice.proxy.tls.Fixtures.WILD;
import static dev.sluice.proxy.tls.Fixtures.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.TlsVersion;
import dev.sluice.config.model.Verify;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server contexts of a bind, through real handshakes over loopback: SNI selection (exact, wildcard,
 * default, strict-sni), ALPN, versions, ciphers, curves, client certificates.
 */
class ServerTlsContextTest {
    @TempDir
    static Path dir;
    static Path defaultPem;
    static Path aPem;
    static Path wildPem;
    static Path caPem;

    @BeforeAll
    static void files() {
        assertThat(OpenSsl.isAvailable()).as("BoringSSL must load here: %s", OpenSsl.unavailabilityCause()).isTrue();
        defaultPem = Fixtures.combined(dir, "default.pem", DEFAULT);
        aPem = TestPki.write(dir, "a.pem", TestPki.cert(A.cert()), TestPki.sec1(A.keys()));
        wildPem = TestPki.write(dir, "wild.pem", TestPki.pkcs1(WILD.key()), TestPki.cert(WILD.cert()));
        caPem = Fixtures.caFile(dir);
    }

    private BindTls sni;

    @BeforeEach
    void setUp() {
        sni = Fixtures.bind(defaultPem, aPem, wildPem);
    }

    // ------------------------------------------------------------------ SNI

    @Test
    void rsaCertificatesAreSignedByTheSystemsOpenSsl() throws Exception {
        assumeTrue(SystemRsa.INSTANCE != null, "libcrypto.so.3 (Debian package libssl3) does not load here");
        ServerTlsContext tls = Fixtures.serverContext(sni);
        SslContext client = Fixtures.client().build();
        try (Loopback lb = new Loopback(tls)) {
            long before = RsaKeyMethod.SIGNATURES.sum();
            assertThat(lb.connect(client, "x.wild.example.com").peerCertificate()).isEqualTo(WILD.cert());
            assertThat(lb.connect(client, "unknown.example.org").peerCertificate()).isEqualTo(DEFAULT.cert());
            assertThat(RsaKeyMethod.SIGNATURES.sum() - before).isEqualTo(2);
            // an EC certificate stays BoringSSL's
            assertThat(lb.connect(client, "a.example.com").peerCertificate()).isEqualTo(A.cert());
            assertThat(RsaKeyMethod.SIGNATURES.sum() - before).isEqualTo(2);
        }
    }

    @Test
    void sniPicksExactWildcardOrDefault() throws Exception {
        ServerTlsContext tls = Fixtures.serverContext(sni);
        assertThat(tls.selectsBySni()).isTrue();
        SslContext client = Fixtures.client().build();
        try (Loopback lb = new Loopback(tls)) {
            Loopback.Result exact = lb.connect(client, "a.example.com");
            assertThat(exact.ok()).as("%s", exact.clientFailure()).isTrue();
            assertThat(exact.peerCertificate()).isEqualTo(A.cert());
            assertThat(exact.server().sni()).isEqualTo("a.example.com");
            assertThat(exact.client().sni()).isEqualTo("a.example.com");

            assertThat(lb.connect(client, "alias.example.com").peerCertificate()).isEqualTo(A.cert());
            assertThat(lb.connect(client, "x.wild.example.com").peerCertificate()).isEqualTo(WILD.cert());
            // a wildcard covers one label only; the CN of a certificate with SANs is indexed too
            assertThat(lb.connect(client, "y.x.wild.example.com").peerCertificate()).isEqualTo(DEFAULT.cert());
            assertThat(lb.connect(client, "cn-only.example.net").peerCertificate()).isEqualTo(WILD.cert());
            Loopback.Result unknown = lb.connect(client, "unknown.example.org");
            assertThat(unknown.peerCertificate()).isEqualTo(DEFAULT.cert());
            assertThat(unknown.server().sni()).isEqualTo("unknown.example.org");
            // an IP literal is not sent as SNI
            Loopback.Result none = lb.connect(client, "127.0.0.1");
            assertThat(none.peerCertificate()).isEqualTo(DEFAULT.cert());
            assertThat(none.server().sni()).isNull();
        }
    }

    @Test
    void mappingIsCaseInsensitiveAndFirstDeclaredWins() {
        Path aAgain = Fixtures.combined(dir, "a-again.pem", TestPki.leaf(Fixtures.CA, TestPki.ec(), "a.example.com", "a.example.com"));
        ServerTlsContext tls = Fixtures.serverContext(Fixtures.bind(defaultPem, aPem, aAgain, wildPem));
        assertThat(tls.certificateOf(tls.contextFor("A.Example.COM")).leaf()).isEqualTo(A.cert());
        assertThat(tls.certificateOf(tls.contextFor("q.WILD.example.com")).leaf()).isEqualTo(WILD.cert());
        assertThat(tls.certificateOf(tls.contextFor(null)).leaf()).isEqualTo(DEFAULT.cert());
        assertThat(tls.certificates()).hasSize(4);
    }

    @Test
    void strictSniRefusesUnknownNames() throws Exception {
        ServerTlsContext tls = Fixtures.serverContext(with(sni, "strictSni", true));
        assertThat(tls.contextFor("unknown.example.org")).isNull();
        SslContext client = Fixtures.client().build();
        try (Loopback lb = new Loopback(tls)) {
            Loopback.Result unknown = lb.connect(client, "unknown.example.org");
            assertThat(unknown.ok()).isFalse();
            assertThat(unknown.clientFailure()).isInstanceOf(SSLException.class);
            assertThat(unknown.clientFailure().getMessage()).containsIgnoringCase("unrecognized");
            assertThat(unknown.serverOutcome()).isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
            assertThat(((Throwable) unknown.serverOutcome()).getMessage()).contains("unknown.example.org");

            assertThat(lb.connect(client, "127.0.0.1").ok()).isFalse();
            Loopback.Result known = lb.connect(client, "x.wild.example.com");
            assertThat(known.ok()).isTrue();
            assertThat(known.peerCertificate()).isEqualTo(WILD.cert());
        }
    }

    @Test
    void strictSniWithOneCertificate() throws Exception {
        ServerTlsContext tls = Fixtures.serverContext(with(Fixtures.bind(aPem), "strictSni", true));
        assertThat(tls.selectsBySni()).isTrue();
        SslContext client = Fixtures.client().build();
        try (Loopback lb = new Loopback(tls)) {
            assertThat(lb.connect(client, "a.example.com").ok()).isTrue();
            assertThat(lb.connect(client, "b.example.com").ok()).isFalse();
        }
    }

    @Test
    void oneCertificateGivesAPlainSslHandler() throws Exception {
        ServerTlsContext tls = Fixtures.serverContext(Fixtures.bind(aPem));
        assertThat(tls.selectsBySni()).isFalse();
        ChannelHandler h = tls.newHandler(ByteBufAllocator.DEFAULT);
        try {
            assertThat(h).isInstanceOf(SslHandler.class);
        } finally {
            ReferenceCountUtil.release(((SslHandler) h).engine());
        }
        assertThat(Fixtures.serverContext(sni).newHandler(ByteBufAllocator.DEFAULT)).isInstanceOf(SniHandler.class);
        try (Loopback lb = new Loopback(tls)) {
            // SNI is still reported without the selector, from the session
            Loopback.Result r = lb.connect(Fixtures.client().build(), "whatever.example.com");
            assertThat(r.peerCertificate()).isEqualTo(A.cert());
            assertThat(r.server().sni()).isEqualTo("whatever.example.com");
        }
    }

    // ------------------------------------------------------------------ ALPN

    @Test
    void alpnPrefersTheServersOrder() throws Exception {
        ServerTlsContext tls = Fixtures.serverContext(sni);
        try (Loopback lb = new Loopback(tls)) {
            Loopback.Result both = lb.connect(Fixtures.client("http/1.1", "h2").build(), "a.example.com");
            assertThat(both.server().alpn()).isEqualTo("h2");
            assertThat(both.client().alpn()).isEqualTo("h2");
            Loopback.Result h1 = lb.connect(Fixtures.client("http/1.1").build(), "a.example.com");
            assertThat(h1.server().alpn()).isEqualTo("http/1.1");
            Loopback.Result none = lb.connect(Fixtures.client().build(), "a.example.com");
            assertThat(none.ok()).isTrue();
            assertThat(none.server().alpn()).isNull();
            Loopback.Result other = lb.connect(Fixtures.client("spdy/3").build(), "a.example.com");
            assertThat(other.ok()).isTrue();
            assertThat(other.server().alpn()).isNull();
        }
    }

    @Test
    void alpnFromTheBind() throws Exception {
        ServerTlsContext tls = Fixtures.serverContext(with(Fixtures.bind(aPem), "alpn", List.of("http/1.1")));
        try (Loopback lb = new Loopback(tls)) {
            assertThat(lb.connect(Fixtures.client("h2", "http/1.1").build(), "a.example.com").server().alpn()).isEqualTo("http/1.1");
        }
    }

    // ------------------------------------------------------------------ versions, ciphers, curves

    @Test
    void versionBounds() throws Exception {
        SslContext client = Fixtures.client().build();
        SslContext client12 = Fixtures.client().protocols("TLSv1.2").build();
        try (Loopback lb = new Loopback(Fixtures.serverContext(Fixtures.bind(aPem)))) {
            assertThat(lb.connect(client, "a.example.com").server().protocol()).isEqualTo("TLSv1.3");
            assertThat(lb.connect(client12, "a.example.com").server().protocol()).isEqualTo("TLSv1.2");
        }
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(Fixtures.bind(aPem), "max", TlsVersion.TLSV12)))) {
            assertThat(lb.connect(client, "a.example.com").client().protocol()).isEqualTo("TLSv1.2");
        }
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(Fixtures.bind(aPem), "min", TlsVersion.TLSV13)))) {
            assertThat(lb.connect(client, "a.example.com").server().protocol()).isEqualTo("TLSv1.3");
            Loopback.Result refused = lb.connect(client12, "a.example.com");
            assertThat(refused.ok()).isFalse();
            assertThat(refused.serverOutcome()).isInstanceOf(Throwable.class);
        }
    }

    @Test
    void minAboveMaxIsAnError() {
        BindTls t = with(with(Fixtures.bind(aPem), "min", TlsVersion.TLSV13), "max", TlsVersion.TLSV12);
        assertThatThrownBy(() -> Fixtures.serverContext(t)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ssl-min-ver TLSv1.3 is above ssl-max-ver TLSv1.2");
    }

    @Test
    void cipherListInOpenSslSyntax() throws Exception {
        BindTls t = with(with(Fixtures.bind(defaultPem), "ciphers", "ECDHE+AESGCM:!AES128"), "max", TlsVersion.TLSV12);
        try (Loopback lb = new Loopback(Fixtures.serverContext(t))) {
            assertThat(lb.connect(Fixtures.client().build(), "x").server().cipher()).isEqualTo("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
        }
        // TLS 1.3 stays available when a TLS 1.2 list is given
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(Fixtures.bind(defaultPem), "ciphers", "ECDHE-RSA-AES256-GCM-SHA384")))) {
            assertThat(lb.connect(Fixtures.client().build(), "x").server().protocol()).isEqualTo("TLSv1.3");
        }
        assertThat(TlsProvider.expand("ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"))
                .containsExactly("ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384");
    }

    @Test
    void unknownCipherIsAnError() {
        assertThatThrownBy(() -> Fixtures.serverContext(with(Fixtures.bind(aPem), "ciphers", "NOT-A-CIPHER")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'ciphers'").hasMessageContaining("NOT-A-CIPHER");
        assertThatThrownBy(() -> Fixtures.serverContext(with(Fixtures.bind(aPem), "ciphersuites", "TLS_NOPE")))
                .hasMessageContaining("unknown TLS 1.3 cipher suite 'TLS_NOPE'");
    }

    @Test
    void cipherKeywordsAndUnknownNames() throws Exception {
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(with(Fixtures.bind(defaultPem), "ciphers", "HIGH:!aNULL:!PSK"), "max",
                TlsVersion.TLSV12)))) {
            assertThat(lb.connect(Fixtures.client().build(), "x").server().cipher()).startsWith("TLS_ECDHE_RSA_WITH_");
        }
        List<String> warnings = new java.util.ArrayList<>();
        ServerTlsContext.build(with(Fixtures.bind(aPem), "ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-TYPO-AES128:!MD5"), Fixtures.global(),
                TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).containsExactly("'ciphers' : ignoring cipher name(s) BoringSSL cannot use: ECDHE-TYPO-AES128");
    }

    /** A hardening list found in real configurations (Mozilla's "intermediate" of old), which HAProxy with OpenSSL accepts. */
    static final String HARDENED = "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:"
            + "ECDHE-RSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-SHA384:"
            + "ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256";

    @Test
    void finiteFieldDheSuitesOfCommonListsAreLeftOutWithANoticeOnly() throws Exception {
        // Mozilla's intermediate profile ends with two DHE suites, which OpenSSL has and BoringSSL dropped: OpenSSL skips
        // a name it lacks without a word, so this is no warning ('zero-warning' would refuse the configuration)
        List<String> warnings = new java.util.ArrayList<>();
        ServerTlsContext.build(with(Fixtures.bind(defaultPem), "ciphers",
                "ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384"), Fixtures.global(),
                TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).containsExactly(TlsProvider.NOTICE + "'ciphers' : leaving out the finite-field DHE cipher(s) BoringSSL "
                + "does not have: DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384");
        // beside another name BoringSSL cannot use, that one is still a warning
        warnings.clear();
        ServerTlsContext.build(with(Fixtures.bind(defaultPem), "ciphers", "ECDHE-RSA-AES128-GCM-SHA256:EDH-RSA-DES-CBC3-SHA:TYPO-CIPHER"),
                Fixtures.global(), TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).containsExactly(TlsProvider.NOTICE + "'ciphers' : leaving out the finite-field DHE cipher(s) BoringSSL "
                + "does not have: EDH-RSA-DES-CBC3-SHA", "'ciphers' : ignoring cipher name(s) BoringSSL cannot use: TYPO-CIPHER");
    }

    @Test
    void namesBoringSslCannotUseAreLeftOutWithAWarning() throws Exception {
        // BoringSSL does not know the three CBC-SHA384/ECDSA-SHA256 suites; it knows ECDHE-RSA-AES128-SHA256 but keeps it out
        // of ALL, and Netty refuses any list naming it ("failed to set cipher suite")
        List<String> warnings = new java.util.ArrayList<>();
        ServerTlsContext ctx = ServerTlsContext.build(with(with(Fixtures.bind(defaultPem), "ciphers", HARDENED), "max", TlsVersion.TLSV12),
                Fixtures.global(), TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).containsExactly("'ciphers' : ignoring cipher name(s) BoringSSL cannot use: "
                + "ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256");
        // what is left is used, in the list's order: the first RSA suite of it
        try (Loopback lb = new Loopback(ctx)) {
            assertThat(lb.connect(Fixtures.client().build(), "x").server().cipher()).isEqualTo("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
        }
        // a CBC suite BoringSSL can use stays
        warnings.clear();
        ServerTlsContext.build(with(Fixtures.bind(defaultPem), "ciphers", "ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES128-SHA256"), Fixtures.global(),
                TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).containsExactly("'ciphers' : ignoring cipher name(s) BoringSSL cannot use: ECDHE-RSA-AES128-SHA256");
        // what a keyword selects is filtered without a word, a removal is never reported
        warnings.clear();
        ServerTlsContext.build(with(Fixtures.bind(defaultPem), "ciphers", "ALL:!ECDHE-RSA-AES256-SHA384:!aNULL"), Fixtures.global(),
                TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).isEmpty();
    }

    @Test
    void aListWithNothingBoringSslCanUseIsAnError() {
        assertThatThrownBy(() -> Fixtures.serverContext(with(Fixtures.bind(defaultPem), "ciphers", "ECDHE-RSA-AES128-SHA256")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'ciphers' : 'ECDHE-RSA-AES128-SHA256' selects no cipher BoringSSL can use");
        assertThatThrownBy(() -> Fixtures.serverContext(with(Fixtures.bind(defaultPem), "ciphers", "ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA256")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("selects no cipher");
    }

    @Test
    void ciphersuitesAreAWarningWithBoringSsl() {
        List<String> warnings = new java.util.ArrayList<>();
        ServerTlsContext.build(with(Fixtures.bind(aPem), "ciphersuites", "TLS_AES_256_GCM_SHA384"), Fixtures.global(), TlsProvider.detect(),
                new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).singleElement().asString().contains("'ciphersuites' has no effect with BoringSSL");
        // what BoringSSL offers anyway, in any order: nothing to warn about
        warnings.clear();
        ServerTlsContext.build(with(Fixtures.bind(aPem), "ciphersuites", "TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256"),
                Fixtures.global(), TlsProvider.detect(), new SessionTicketKeys(new java.security.SecureRandom()), warnings::add);
        assertThat(warnings).isEmpty();
    }

    @Test
    void preferClientCiphers() throws Exception {
        BindTls t = with(with(Fixtures.bind(defaultPem), "ciphers", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"), "max",
                TlsVersion.TLSV12);
        SslContext client = Fixtures.client()
                .ciphers(List.of("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")).protocols("TLSv1.2")
                .build();
        try (Loopback lb = new Loopback(Fixtures.serverContext(t))) {
            assertThat(lb.connect(client, "x").server().cipher()).isEqualTo("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        }
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(t, "preferClientCiphers", true)))) {
            assertThat(lb.connect(client, "x").server().cipher()).isEqualTo("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
        }
    }

    @Test
    void curves() throws Exception {
        SslContext p384Client = Fixtures.client().option(io.netty.handler.ssl.OpenSslContextOption.GROUPS, new String[] {"P-384"}).build();
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(Fixtures.bind(aPem), "curves", "X25519:P-256")))) {
            assertThat(lb.connect(Fixtures.client().build(), "a.example.com").ok()).isTrue();
            assertThat(lb.connect(p384Client, "a.example.com").ok()).isFalse();
        }
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(Fixtures.bind(aPem), "curves", "P-384")))) {
            assertThat(lb.connect(p384Client, "a.example.com").ok()).isTrue();
        }
        assertThatThrownBy(() -> Fixtures.serverContext(with(Fixtures.bind(aPem), "curves", "P-999")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'curves' : unsupported curve list 'P-999'");
    }

    // ------------------------------------------------------------------ client certificates

    @Test
    void clientCertificateRequired() throws Exception {
        BindTls t = with(with(Fixtures.bind(aPem), "verify", Verify.REQUIRED), "caFile", caPem.toString());
        SslContext withCert = Fixtures.client().keyManager(Fixtures.CLIENT.key(), Fixtures.CLIENT.cert()).build();
        SslContext strangerCert = Fixtures.client().keyManager(Fixtures.STRANGER.key(), Fixtures.STRANGER.cert()).build();
        try (Loopback lb = new Loopback(Fixtures.serverContext(t))) {
            assertThat(lb.connect(withCert, "a.example.com").ok()).isTrue();
            // with TLS 1.3 the client learns of the refusal after its Finished: the server side tells
            assertThat(lb.connect(Fixtures.client().build(), "a.example.com").serverOutcome()).isInstanceOf(Throwable.class);
            assertThat(lb.connect(strangerCert, "a.example.com").serverOutcome()).isInstanceOf(Throwable.class);
        }
        try (Loopback lb = new Loopback(Fixtures.serverContext(with(t, "verify", Verify.OPTIONAL)))) {
            assertThat(lb.connect(Fixtures.client().build(), "a.example.com").serverOutcome()).isInstanceOf(TlsSession.class);
            assertThat(lb.connect(withCert, "a.example.com").serverOutcome()).isInstanceOf(TlsSession.class);
        }
    }

    @Test
    void sessionKeepsBothCertificatesForTheFetches() throws Exception {
        BindTls t = with(with(Fixtures.bind(aPem), "verify", Verify.OPTIONAL), "caFile", caPem.toString());
        SslContext withCert = Fixtures.client().keyManager(Fixtures.CLIENT.key(), Fixtures.CLIENT.cert(), Fixtures.CA.cert()).build();
        SslContext strangerCert = Fixtures.client().keyManager(Fixtures.STRANGER.key(), Fixtures.STRANGER.cert()).build();
        try (Loopback lb = new Loopback(Fixtures.serverContext(t))) {
            TlsSession s = (TlsSession) lb.connect(withCert, "a.example.com").serverOutcome();
            assertThat(s.certs().peerChain()).hasSize(2);
            assertThat(s.certs().peer().dn(false, "CN", 1, null)).isEqualTo("client.test");
            assertThat(s.certs().peer().der()).isEqualTo(Fixtures.CLIENT.cert().getEncoded());
            assertThat(s.certs().peer().dn(true, null, 0, "rfc2253")).isEqualTo("O=Sluice tests,CN=Sluice Test CA");
            assertThat(s.certs().local().dn(false, "CN", 1, null)).isEqualTo("a.example.com");
            assertThat(s.certs().local().keyAlgorithm()).isEqualTo("id-ecPublicKey");
            assertThat(s.cipherBits()).isIn(128, 256);
            TlsSession none = (TlsSession) lb.connect(Fixtures.client().build(), "a.example.com").serverOutcome();
            assertThat(none.certs().peerChain()).isEmpty();
            assertThat(none.certs().peer()).isNull();
            // a client whose certificate is not from the CAs the server names sends none (Netty's client picks by issuer); one
            // that sends it anyway is refused (regtests: ClientCertTest with openssl s_client)
            Object stranger = lb.connect(strangerCert, "a.example.com").serverOutcome();
            assertThat(stranger instanceof TlsSession ts ? ts.certs().peerChain().length : 0).isZero();
        }
    }

    @Test
    void verifyWithoutCaFileIsAnError() {
        assertThatThrownBy(() -> Fixtures.serverContext(with(Fixtures.bind(aPem), "verify", Verify.REQUIRED)))
                .hasMessage("verify is enabled but no CA file specified ('ca-file')");
        assertThatThrownBy(() -> Fixtures.serverContext(with(with(Fixtures.bind(aPem), "verify", Verify.OPTIONAL), "caFile",
                dir.resolve("missing-ca.pem").toString()))).hasMessageContaining("missing-ca.pem").hasMessageContaining("No such file");
    }
}
