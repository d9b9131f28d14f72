package dev.sluice.regtests;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away PKI made when a test runs (Bouncy Castle, nothing committed): a CA, and leaves signed by it
 * or self-signed, written as HAProxy wants them (certificate then key in one PEM file) beside the CA's
 * certificate. EC P-256 keys: quick to make.
 */
final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /**
     * A certificate with its key. {@code pem} holds both (a {@code crt} for bind or server lines);
     * {@code certFile} and {@code keyFile} hold one each.
     */
    record Issued(X509Certificate cert, PrivateKey key, Path pem, Path certFile, Path keyFile) {
    }

    private final Path dir;
    private final KeyPair caKeys;
    private final X500Name caName;
    private final X509Certificate ca;
    private final Path caFile;

    /** A new CA named {@code name}, its files in a new temporary directory. */
    TestPki(String name) {
        try {
            this.dir = Files.createTempDirectory("sluice-pki");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.caKeys = keys();
        this.caName = new X500Name("CN=" + name);
        this.ca = sign(caName, caKeys, caName, caKeys.getPrivate(), true);
        this.caFile = write(name + "-ca.pem", pem(ca));
    }

    /** A client-side TLS context trusting this CA only (for Java clients in tests). */
    javax.net.ssl.SSLContext clientContext() {
        try {
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setCertificateEntry("ca", ca);
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            javax.net.ssl.SSLContext c = javax.net.ssl.SSLContext.getInstance("TLS");
            c.init(null, tmf.getTrustManagers(), null);
            return c;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A server-side TLS context presenting {@code leaf} with this CA's certificate after it (for Java servers in tests). */
    javax.net.ssl.SSLContext serverContext(Issued leaf) {
        try {
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("leaf", leaf.key(), new char[0], new java.security.cert.Certificate[] {leaf.cert(), ca});
            javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, new char[0]);
            javax.net.ssl.SSLContext c = javax.net.ssl.SSLContext.getInstance("TLS");
            c.init(kmf.getKeyManagers(), null, null);
            return c;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The CA certificate, for {@code ca-file} and {@code curl --cacert}. */
    Path caFile() {
        return caFile;
    }

    Path dir() {
        return dir;
    }

    /** A server certificate for {@code cn} (also its DNS name) and any other DNS names, signed by this CA. */
    Issued leaf(String cn, String... moreNames) {
        KeyPair kp = keys();
        String[] names = new String[moreNames.length + 1];
        names[0] = cn;
        System.arraycopy(moreNames, 0, names, 1, moreNames.length);
        X509Certificate c = sign(new X500Name("CN=" + cn), kp, caName, caKeys.getPrivate(), false,
                names);
        return files(cn, c, kp);
    }

    /** A self-signed certificate for {@code cn}, outside this CA. */
    Issued selfSigned(String cn) {
        KeyPair kp = keys();
        X509Certificate c = sign(new X500Name("CN=" + cn), kp, new X500Name("CN=" + cn), kp.getPrivate(), false, cn);
        return files(cn + "-self", c, kp);
    }

    private Issued files(String base, X509Certificate c, KeyPair kp) {
        Path certFile = write(base + ".crt", pem(c));
        Path keyFile = write(base + ".key", pkcs8(kp.getPrivate()));
        Path both = write(base + ".pem", pem(c) + pkcs8(kp.getPrivate()));
        return new Issued(c, kp.getPrivate(), both, certFile, keyFile);
    }

    /** Writes a file in this PKI's directory. */
    Path write(String name, String content) {
        try {
            return Files.writeString(dir.resolve(name), content, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static KeyPair keys() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, X500Name issuer, PrivateKey issuerKey, boolean ca,
            String... dnsNames) {
        try {
            Instant now = Instant.now();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                    Date.from(now.minus(1, ChronoUnit.DAYS)), Date.from(now.plus(30, ChronoUnit.DAYS)), subject, subjectKeys.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
            if (ca) {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
                b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
                GeneralName[] names = new GeneralName[dnsNames.length];
                for (int i = 0; i < dnsNames.length; i++) {
                    names[i] = new GeneralName(GeneralName.dNSName, dnsNames[i]);
                }
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            }
            return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code PRIVATE KEY} (PKCS#8): the form every TLS library reads. */
    private static String pkcs8(PrivateKey k) {
        try {
            return pem(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(k, null));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(Object o) {
        try {
            StringWriter w = new StringWriter();
            try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
                pw.writeObject(o);
            }
            return w.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
