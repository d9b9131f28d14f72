package dev.sluice.proxy.tls;

import static dev.sluice.proxy.tls.Fixtures.A;
import static dev.sluice.proxy.tls.Fixtures.CA;
import static dev.sluice.proxy.tls.Fixtures.DEFAULT;
import static dev.sluice.proxy.tls.Fixtures.STRANGER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.model.TlsTune;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What completes a {@code crt} file, from the global section: {@code issuers-chain-path} adds the issuer chain to a
 * certificate given alone, {@code ssl-load-extra-files} decides whether {@code <crt>.key} and bundles are looked for,
 * {@code ssl-load-extra-del-ext} names the companions without {@code .crt}.
 */
class CertFilesTest {
    @TempDir
    Path dir;

    private CertFiles files(String issuers, Set<String> extra, boolean delExt, List<String> warnings) {
        return CertFiles.of(new TlsTune(0, issuers, extra, delExt), warnings::add);
    }

    @Test
    void theIssuersDirectoryCompletesACertificateGivenAlone() throws Exception {
        Path issuers = Files.createDirectories(dir.resolve("issuers"));
        TestPki.write(issuers, "ca.pem", TestPki.cert(CA.cert()));
        Files.writeString(issuers.resolve("README"), "not a certificate\n");
        List<String> warnings = new ArrayList<>();
        CertFiles f = files(issuers.toString(), TlsTune.ALL_EXTRA_FILES, false, warnings);
        assertThat(warnings).containsExactly("unable to load issuers-chain " + issuers.resolve("README") + " : pem certificate not found.");

        Path alone = TestPki.write(dir, "site.pem", TestPki.cert(DEFAULT.cert()), TestPki.pkcs8(DEFAULT.key()));
        assertThat(PemLoader.loadCertifiedKey(alone, f).chain()).containsExactly(DEFAULT.cert(), CA.cert());
        // a certificate with its chain keeps it; one from another issuer finds nothing
        Path chained = TestPki.write(dir, "chained.pem", TestPki.cert(A.cert()), TestPki.cert(CA.cert()), TestPki.pkcs8(A.key()));
        assertThat(PemLoader.loadCertifiedKey(chained, f).chain()).containsExactly(A.cert(), CA.cert());
        Path stranger = TestPki.write(dir, "stranger.pem", TestPki.cert(STRANGER.cert()), TestPki.pkcs8(STRANGER.key()));
        assertThat(PemLoader.loadCertifiedKey(stranger, f).chain()).containsExactly(STRANGER.cert());
        // without the directory, nothing is added
        assertThat(PemLoader.loadCertifiedKey(alone).chain()).containsExactly(DEFAULT.cert());
    }

    @Test
    void keyFilesFollowSslLoadExtraFiles() {
        Path crt = TestPki.write(dir, "site.crt", TestPki.cert(DEFAULT.cert()));
        TestPki.write(dir, "site.crt.key", TestPki.pkcs8(DEFAULT.key()));
        assertThat(PemLoader.loadCertifiedKey(crt, files(null, TlsTune.ALL_EXTRA_FILES, false, new ArrayList<>())).key()).isNotNull();
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(crt, files(null, Set.of("ocsp"), false, new ArrayList<>())))
                .hasMessageContaining("no private key in the file (and 'ssl-load-extra-files' does not include 'key')");
    }

    @Test
    void delExtNamesTheKeyWithoutCrt() {
        Path crt = TestPki.write(dir, "site.crt", TestPki.cert(DEFAULT.cert()));
        TestPki.write(dir, "site.key", TestPki.pkcs8(DEFAULT.key()));
        CertifiedKey ck = PemLoader.loadCertifiedKey(crt, files(null, TlsTune.ALL_EXTRA_FILES, true, new ArrayList<>()));
        assertThat(ck.leaf()).isEqualTo(DEFAULT.cert());
        assertThatThrownBy(() -> PemLoader.loadCertifiedKey(crt)).hasMessageContaining("site.crt.key");
    }

    @Test
    void aMissingFileMayNameABundle() {
        TestPki.write(dir, "site.pem.rsa", TestPki.cert(DEFAULT.cert()), TestPki.pkcs8(DEFAULT.key()));
        TestPki.write(dir, "site.pem.ecdsa", TestPki.cert(A.cert()), TestPki.pkcs8(A.key()));
        List<CertifiedKey> bundle = PemLoader.loadCrt(dir.resolve("site.pem"), CertFiles.DEFAULT);
        assertThat(bundle).extracting(CertifiedKey::leaf).containsExactly(DEFAULT.cert(), A.cert());
        assertThatThrownBy(() -> PemLoader.loadCrt(dir.resolve("site.pem"), files(null, Set.of("key"), false, new ArrayList<>())))
                .hasMessageContaining("No such file or directory");
    }
}
