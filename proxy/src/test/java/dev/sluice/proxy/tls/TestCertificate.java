package dev.sluice.proxy.tls;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * A server certificate for tests outside this package (an EC P-256 leaf for {@code cn}, signed by the test CA, made
 * with {@link TestPki}): its key and certificate for a test's own TLS engine, or one PEM file for a {@code crt}.
 */
public record TestCertificate(PrivateKey key, X509Certificate cert) {

    public static TestCertificate of(String cn) {
        TestPki.Issued i = TestPki.leaf(Fixtures.CA, TestPki.ec(), cn, cn);
        return new TestCertificate(i.key(), i.cert());
    }

    /** The certificate then its PKCS#8 key, in {@code dir/name}, as {@code bind ... ssl crt} takes them. */
    public Path pem(Path dir, String name) {
        return TestPki.write(dir, name, TestPki.cert(cert), TestPki.pkcs8(key));
    }
}
