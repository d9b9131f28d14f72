package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * OpenSSL's verification order as HAProxy's verify callback sees it (the regtest ClientCertIgnoreErrTest compares the
 * common cases with HAProxy 2.6; these are the ones openssl's command cannot make easily: dates in the future, both
 * certificates out of their period).
 */
class ClientCertVerifierTest {
    private static final Set<Integer> ALL = IntStream.rangeClosed(1, 94).boxed().collect(Collectors.toSet());
    private static final TestPki.Issued CLIENT = Fixtures.CLIENT;

    private static ClientCertVerifier verifier(Set<Integer> ca, Set<Integer> crt) {
        return new ClientCertVerifier(List.of(Fixtures.CA.cert()), ca, crt);
    }

    private static Date in(long days) {
        return Date.from(Instant.now().plus(days, ChronoUnit.DAYS));
    }

    @Test
    void aGoodChainHasNoError() throws Exception {
        assertThat(verifier(Set.of(), Set.of()).verify(new X509Certificate[] {CLIENT.cert()}, new Date())).isEqualTo(ClientCertVerifier.Result.OK);
        // the CA sent along changes nothing: the CA file's copy is found first
        assertThat(verifier(Set.of(), Set.of()).verify(new X509Certificate[] {CLIENT.cert(), Fixtures.CA.cert()}, new Date()))
                .isEqualTo(ClientCertVerifier.Result.OK);
    }

    @Test
    void periodsAreCheckedFromTheTopDown() throws Exception {
        // both the CA and the client's certificate: the CA's error comes first, ssl_c_verify is the client's (the last)
        assertThat(verifier(ALL, ALL).verify(new X509Certificate[] {CLIENT.cert()}, in(-2)))
                .isEqualTo(new ClientCertVerifier.Result(9, 9, 1, 9));
        assertThat(verifier(ALL, ALL).verify(new X509Certificate[] {CLIENT.cert()}, in(40)))
                .isEqualTo(new ClientCertVerifier.Result(10, 10, 1, 10));
        // the CA's error not ignored: the handshake fails on it, at depth 1
        assertThatThrownBy(() -> verifier(Set.of(), ALL).verify(new X509Certificate[] {CLIENT.cert()}, in(40)))
                .isInstanceOfSatisfying(ClientCertVerifier.Failure.class, f -> {
                    assertThat(f.error()).isEqualTo(10);
                    assertThat(f.onCa()).isTrue();
                });
    }

    @Test
    void anUnknownIssuerThenItsSignature() throws Exception {
        X509Certificate[] stranger = {Fixtures.STRANGER.cert()};
        assertThat(verifier(ALL, ALL).verify(stranger, new Date())).isEqualTo(new ClientCertVerifier.Result(20, 0, 0, 21));
        // 20 ignored, 21 not: the handshake fails on 21 (HAProxy 2.6 with crt-ignore-err 20)
        assertThatThrownBy(() -> verifier(Set.of(), Set.of(20)).verify(stranger, new Date()))
                .isInstanceOfSatisfying(ClientCertVerifier.Failure.class, f -> {
                    assertThat(f.error()).isEqualTo(21);
                    assertThat(f.onCa()).isFalse();
                });
        // the unknown root sent along: a CA error at depth 1
        assertThat(verifier(ALL, Set.of()).verify(new X509Certificate[] {Fixtures.STRANGER.cert(), Fixtures.OTHER_CA.cert()}, new Date()))
                .isEqualTo(new ClientCertVerifier.Result(0, 19, 1, 19));
    }

    @Test
    void aCaFileCertificateIsTrustedAsItIs() throws Exception {
        TestPki.Issued self = TestPki.ca("self", TestPki.ec());
        // in the file: trusted, but its key usages (a CA's: no digitalSignature) are not a TLS client's
        assertThat(new ClientCertVerifier(List.of(self.cert()), Set.of(), Set.of(26)).verify(new X509Certificate[] {self.cert()}, new Date()))
                .isEqualTo(new ClientCertVerifier.Result(26, 0, 0, 26));
        assertThatThrownBy(() -> new ClientCertVerifier(List.of(self.cert()), Set.of(), Set.of()).verify(new X509Certificate[] {self.cert()},
                new Date())).isInstanceOfSatisfying(ClientCertVerifier.Failure.class, f -> assertThat(f.error()).isEqualTo(26));
        // not in the file: self-signed at depth 0, and not fit for a TLS client (its key usages are a CA's)
        assertThat(verifier(ALL, ALL).verify(new X509Certificate[] {self.cert()}, new Date())).isEqualTo(new ClientCertVerifier.Result(18, 0, 0, 26));
    }

    @Test
    void aForgedSignatureIsCaughtAfterTheChainIsBuilt() throws Exception {
        // issuer name and authority key id of the CA, signed with another key: the CA is found, its signature check fails
        TestPki.Issued forger = new TestPki.Issued(new java.security.KeyPair(Fixtures.CA.cert().getPublicKey(), Fixtures.OTHER_CA.key()),
                Fixtures.CA.cert());
        X509Certificate forged = TestPki.leaf(forger, TestPki.ec(), "forged").cert();
        assertThat(verifier(Set.of(), Set.of(7)).verify(new X509Certificate[] {forged}, new Date())).isEqualTo(new ClientCertVerifier.Result(7, 0, 0, 7));
        assertThatThrownBy(() -> verifier(ALL, Set.of()).verify(new X509Certificate[] {forged}, new Date()))
                .isInstanceOfSatisfying(ClientCertVerifier.Failure.class, f -> assertThat(f.error()).isEqualTo(7));
    }
}
