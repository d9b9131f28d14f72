package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fingerprint that tells whether a reload may keep TLS contexts: any change of their files changes it. */
class TlsFilesTest {
    @TempDir
    Path dir;

    @Test
    void aCertificateItsCompanionsItsDirectoryAndTheCaFileCount() throws Exception {
        Path crt = Files.writeString(dir.resolve("site.pem"), "cert");
        Path ca = Files.writeString(dir.resolve("ca.crt"), "ca");
        String before = TlsFiles.fingerprint(List.of(crt.toString()), ca.toString());
        assertThat(TlsFiles.fingerprint(List.of(crt.toString()), ca.toString())).isEqualTo(before);
        // a companion key file appears
        Files.writeString(dir.resolve("site.pem.key"), "key");
        String withKey = TlsFiles.fingerprint(List.of(crt.toString()), ca.toString());
        assertThat(withKey).isNotEqualTo(before);
        // the certificate is replaced by another file
        Path other = Files.writeString(dir.resolve("new.pem"), "other cert");
        Files.move(other, crt, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThat(TlsFiles.fingerprint(List.of(crt.toString()), ca.toString())).isNotEqualTo(withKey);
        // a directory of certificates: a file added
        String whole = TlsFiles.fingerprint(List.of(dir.toString()), null);
        Files.writeString(dir.resolve("more.pem"), "more");
        assertThat(TlsFiles.fingerprint(List.of(dir.toString()), null)).isNotEqualTo(whole);
        // the CA file changes
        String now = TlsFiles.fingerprint(List.of(crt.toString()), ca.toString());
        Files.writeString(ca, "another ca");
        assertThat(TlsFiles.fingerprint(List.of(crt.toString()), ca.toString())).isNotEqualTo(now);
        assertThat(TlsFiles.fingerprint(List.of(dir.resolve("gone.pem").toString()), null)).contains("missing");
    }
}
