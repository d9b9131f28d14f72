package dev.sluice.proxy.tls;

import static dev.sluice.proxy.tls.Fixtures.A;
import static dev.sluice.proxy.tls.Fixtures.CA;
import static dev.sluice.proxy.tls.Fixtures.DEFAULT;
import static dev.sluice.proxy.tls.Fixtures.WILD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every PEM form a {@code crt} file may take, and every way it can be wrong, with the message naming the file. */
class PemLoaderTest {
    @TempDir
    Path dir;

    @Test
    void rsaPkcs1CertificateThenKey() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(DEFAULT.cert()), TestPki.pkcs1(DEFAULT.key()));
        CertifiedKey ck = PemLoader.loadCertifiedKey(f);
        assertThat(ck.key()).isInstanceOf(RSAPrivateKey.class);
        assertThat(ck.chain()).containsExactly(DEFAULT.cert());
        assertThat(ck.source()).isEqualTo(f);
    }

    @Test
    void keyBeforeCertificate() {
        Path f = TestPki.write(dir, "site.pem", TestPki.pkcs1(DEFAULT.key()), TestPki.cert(DEFAULT.cert()), TestPki.cert(CA.cert()));
        CertifiedKey ck = PemLoader.loadCertifiedKey(f);
        assertThat(ck.leaf()).isEqualTo(DEFAULT.cert());
        assertThat(ck.chain()).containsExactly(DEFAULT.cert(), CA.cert());
    }

    @Test
    void ecSec1WithParametersBlock() {
        String sec1 = TestPki.sec1(A.keys());
        assertThat(sec1).startsWith("-----BEGIN EC PARAMETERS-----").contains("-----BEGIN EC PRIVATE KEY-----");
        Path f = TestPki.write(dir, "ec.pem", TestPki.cert(A.cert()), sec1);
        CertifiedKey ck = PemLoader.loadCertifiedKey(f);
        assertThat(ck.key()).isInstanceOf(ECPrivateKey.class);
        assertThat(((ECPrivateKey) ck.key()).getS()).isEqualTo(((ECPrivateKey) A.key()).getS());
    }

    @Test
    void pkcs8RsaAndEc() {
        Path rsa = TestPki.write(dir, "rsa.pem", TestPki.pkcs8(DEFAULT.key()), TestPki.cert(DEFAULT.cert()));
        Path ec = TestPki.write(dir, "ec.pem", TestPki.cert(A.cert()), TestPki.pkcs8(A.key()));
        assertThat(TestPki.pkcs8(A.key())).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(PemLoader.loadCertifiedKey(rsa).key()).isInstanceOf(RSAPrivateKey.class);
        assertThat(PemLoader.loadCertifiedKey(ec).key()).isInstanceOf(ECPrivateKey.class);
    }

    @Test
    void chainKeepsFileOrderAfterTheLeaf() {
        Path f = TestPki.write(dir, "chain.pem", TestPki.cert(WILD.cert()), TestPki.pkcs8(WILD.key()), TestPki.cert(CA.cert()));
        assertThat(PemLoader.loadCertifiedKey(f).chain()).containsExactly(WILD.cert(), CA.cert());
    }

    @Test
    void keyFromCompanionKeyFile() {
        Path f = TestPki.write(dir, "site.crt", TestPki.cert(A.cert()));
        TestPki.write(dir, "site.crt.key", TestPki.sec1(A.keys()));
        CertifiedKey ck = PemLoader.loadCertifiedKey(f);
        assertThat(ck.leaf()).isEqualTo(A.cert());
        assertThat(ck.key()).isInstanceOf(ECPrivateKey.class);
    }

    @Test
    void keyInTheFileWinsOverCompanion() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()), TestPki.pkcs8(A.key()));
        TestPki.write(dir, "site.pem.key", "garbage that would fail\n");
        assertThat(PemLoader.loadCertifiedKey(f).leaf()).isEqualTo(A.cert());
    }

    @Test
    void otherBlocksAreIgnored() {
        String dh = "-----BEGIN DH PARAMETERS-----\nMAYCAQACAQI=\n-----END DH PARAMETERS-----\n";
        Path f = TestPki.write(dir, "site.pem", "subject=CN = default.test\n", TestPki.cert(DEFAULT.cert()), dh, TestPki.pkcs1(DEFAULT.key()));
        assertThat(PemLoader.loadCertifiedKey(f).leaf()).isEqualTo(DEFAULT.cert());
    }

    @Test
    void namesAreSansThenCommonName() {
        Path f = Fixtures.combined(dir, "w.pem", WILD);
        assertThat(PemLoader.loadCertifiedKey(f).names()).containsExactly("*.wild.example.com", "cn-only.example.net");
        assertThat(PemLoader.loadCertifiedKey(Fixtures.combined(dir, "a.pem", A)).names())
                .containsExactly("a.example.com", "alias.example.com");
    }

    // ------------------------------------------------------------------ errors

    @Test
    void missingFile() {
        Path f = dir.resolve("nope.pem");
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unable to load certificate from '" + f + "': No such file or directory");
    }

    @Test
    void noKeyAnywhere() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + f + "'").hasMessageContaining("no private key in the file")
                .hasMessageContaining("'" + f + ".key'");
    }

    @Test
    void emptyCompanionKeyFile() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()));
        Path k = TestPki.write(dir, "site.pem.key", TestPki.cert(CA.cert()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessage("unable to load private key from '" + k + "': no private key found in the file");
    }

    @Test
    void encryptedPkcs8() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()), TestPki.encryptedPkcs8(A.key()));
        assertThat(TestPki.encryptedPkcs8(A.key())).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessageStartingWith("unable to load certificate from '" + f + "': ")
                .hasMessageContaining("the private key is encrypted");
    }

    @Test
    void encryptedPkcs1InCompanion() throws Exception {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(DEFAULT.cert()));
        Path k = TestPki.write(dir, "site.pem.key", TestPki.encryptedPkcs1(DEFAULT.key()));
        assertThat(Files.readString(k)).contains("Proc-Type: 4,ENCRYPTED");
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessageStartingWith("unable to load private key from '" + k + "': ")
                .hasMessageContaining("encrypted");
    }

    @Test
    void keyOfAnotherCertificate() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()), TestPki.pkcs8(Fixtures.CLIENT.key()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessageStartingWith("unable to load certificate from '" + f + "': ")
                .hasMessageContaining("does not match the certificate (").hasMessageContaining("CN=a.example.com");
    }

    @Test
    void rsaKeyForEcCertificate() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()), TestPki.pkcs1(DEFAULT.key()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessageContaining("does not match");
    }

    @Test
    void companionKeyThatDoesNotMatchIsNamed() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()));
        Path k = TestPki.write(dir, "site.pem.key", TestPki.pkcs8(DEFAULT.key()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessageContaining("the private key from '" + k + "' does not match");
    }

    @Test
    void serverCertificateMustComeFirst() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(CA.cert()), TestPki.cert(DEFAULT.cert()), TestPki.pkcs1(DEFAULT.key()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessageContaining("matches certificate #2")
                .hasMessageContaining("must come before its chain");
    }

    @Test
    void twoKeys() {
        Path f = TestPki.write(dir, "site.pem", TestPki.cert(A.cert()), TestPki.pkcs8(A.key()), TestPki.pkcs1(DEFAULT.key()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessage("unable to load certificate from '" + f
                + "': the file holds 2 private keys (expected one)");
    }

    @Test
    void keyWithoutCertificate() {
        Path f = TestPki.write(dir, "key.pem", TestPki.pkcs8(A.key()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessage("unable to load certificate from '" + f
                + "': no certificate found in the file");
    }

    @Test
    void notPemAtAll() {
        Path f = TestPki.write(dir, "empty.pem", "hello\n");
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).hasMessageContaining("no certificate found");
    }

    @Test
    void corruptBase64() {
        Path f = TestPki.write(dir, "bad.pem", "-----BEGIN CERTIFICATE-----\nMIIB!!!notbase64\n-----END CERTIFICATE-----\n");
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unable to load certificate").hasMessageContaining("'" + f + "'");
    }

    @Test
    void truncatedCertificate() {
        String pem = TestPki.cert(A.cert());
        String cut = pem.substring(0, pem.length() / 2) + "\n-----END CERTIFICATE-----\n";
        Path f = TestPki.write(dir, "cut.pem", cut, TestPki.pkcs8(A.key()));
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unable to load certificate").hasMessageContaining("'" + f + "'");
    }

    @Test
    void caBundle() {
        Path f = TestPki.write(dir, "bundle.pem", TestPki.cert(CA.cert()), TestPki.cert(Fixtures.OTHER_CA.cert()));
        assertThat(PemLoader.loadCertificates(f)).containsExactly(CA.cert(), Fixtures.OTHER_CA.cert());
        Path empty = TestPki.write(dir, "none.pem", TestPki.pkcs8(A.key()));
        assertThatThrownBy(() -> PemLoader.loadCertificates(empty)).hasMessage("unable to load CA file '" + empty
                + "': no certificate found in the file");
        Path missing = dir.resolve("missing-ca.pem");
        assertThatThrownBy(() -> PemLoader.loadCertificates(missing)).hasMessage("unable to load CA file '" + missing
                + "': No such file or directory");
    }

    // ------------------------------------------------------------------ directories

    @Test
    void directoryInLexicalOrderWithoutCompanions() throws Exception {
        Path d = Files.createDirectory(dir.resolve("certs"));
        Fixtures.combined(d, "b-wild.pem", WILD);
        TestPki.write(d, "a-site.pem", TestPki.cert(A.cert()));
        TestPki.write(d, "a-site.pem.key", TestPki.sec1(A.keys()));
        Fixtures.combined(d, "C-default.pem", DEFAULT);
        for (String companion : List.of("a-site.pem.ocsp", "a-site.pem.issuer", "a-site.pem.sctl", "a-site.pem.ckch", "z.key")) {
            TestPki.write(d, companion, "not a certificate\n");
        }
        TestPki.write(d, ".hidden.pem", "not a certificate\n");
        Files.createDirectory(d.resolve("sub"));

        assertThat(PemLoader.certificateFiles(d)).extracting(p -> p.getFileName().toString())
                .containsExactly("C-default.pem", "a-site.pem", "b-wild.pem");
        List<CertifiedKey> loaded = PemLoader.loadCrt(d);
        assertThat(loaded).extracting(CertifiedKey::leaf).containsExactly(DEFAULT.cert(), A.cert(), WILD.cert());
    }

    @Test
    void directoryWithOnlyCompanions() throws Exception {
        Path d = Files.createDirectory(dir.resolve("empty"));
        TestPki.write(d, "x.key", TestPki.pkcs8(A.key()));
        assertThatThrownBy(() -> PemLoader.loadCrt(d)).hasMessage("unable to load certificates from directory '" + d
                + "': no certificate file in it");
    }

    @Test
    void directoryWithABadFileNamesTheFile() throws Exception {
        Path d = Files.createDirectory(dir.resolve("certs"));
        Fixtures.combined(d, "a.pem", A);
        Path bad = TestPki.write(d, "b.pem", TestPki.cert(DEFAULT.cert()));
        assertThatThrownBy(() -> PemLoader.loadCrt(d)).hasMessageContaining("'" + bad + "'");
    }

    @Test
    void singleFileThroughLoadCrt() {
        Path f = Fixtures.combined(dir, "one.pem", A);
        assertThat(PemLoader.loadCrt(f)).hasSize(1);
        assertThat(PemLoader.isCompanion("x.pem.ocsp")).isTrue();
        assertThat(PemLoader.isCompanion("x.pem")).isFalse();
    }
}
