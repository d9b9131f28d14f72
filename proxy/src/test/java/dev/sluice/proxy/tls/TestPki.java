package dev.sluice.proxy.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1BitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Certificates and keys made for the tests with Bouncy Castle (nothing is committed): RSA 2048 and EC
 * P-256 key pairs, a self-signed CA, leaves with DNS names, and the PEM forms HAProxy users have: PKCS#1,
 * SEC1 (with its EC PARAMETERS block, as {@code openssl ecparam -genkey} writes), PKCS#8, encrypted ones.
 */
final class TestPki {
    private TestPki() {
    }

    /** Only to encrypt keys (the JDK lacks OpenSSL's key derivation); never registered globally. */
    private static final java.security.Provider BC = new org.bouncycastle.jce.provider.BouncyCastleProvider();

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A key pair with its certificate. */
    record Issued(KeyPair keys, X509Certificate cert) {
        PrivateKey key() {
            return keys.getPrivate();
        }
    }

    static KeyPair rsa() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048, new SecureRandom());
            return g.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static KeyPair ec() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
            return g.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Issued ca(String cn, KeyPair kp) {
        try {
            X500Name name = new X500Name("CN=" + cn + ",O=Sluice tests");
            Instant now = Instant.now();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(SERIAL.incrementAndGet()),
                    Date.from(now.minus(1, ChronoUnit.DAYS)), Date.from(now.plus(30, ChronoUnit.DAYS)), name, kp.getPublic());
            JcaX509ExtensionUtils u = new JcaX509ExtensionUtils();
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            b.addExtension(Extension.subjectKeyIdentifier, false, u.createSubjectKeyIdentifier(kp.getPublic()));
            return new Issued(kp, new JcaX509CertificateConverter().getCertificate(b.build(signer(kp.getPrivate()))));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A leaf for {@code cn} with {@code dnsNames} as DNS subject alternative names, signed by {@code ca}. */
    static Issued leaf(Issued ca, KeyPair kp, String cn, String... dnsNames) {
        try {
            Instant now = Instant.now();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.cert(), BigInteger.valueOf(SERIAL.incrementAndGet()),
                    Date.from(now.minus(1, ChronoUnit.DAYS)), Date.from(now.plus(30, ChronoUnit.DAYS)),
                    new X500Name("CN=" + cn + ",O=Sluice tests"), kp.getPublic());
            JcaX509ExtensionUtils u = new JcaX509ExtensionUtils();
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false,
                    new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            b.addExtension(Extension.authorityKeyIdentifier, false, u.createAuthorityKeyIdentifier(ca.cert()));
            if (dnsNames.length > 0) {
                GeneralName[] names = new GeneralName[dnsNames.length];
                for (int i = 0; i < dnsNames.length; i++) {
                    names[i] = new GeneralName(GeneralName.dNSName, dnsNames[i]);
                }
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            }
            return new Issued(kp, new JcaX509CertificateConverter().getCertificate(b.build(signer(ca.key()))));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ContentSigner signer(PrivateKey key) throws Exception {
        return new JcaContentSignerBuilder(key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA").build(key);
    }

    // ------------------------------------------------------------------ PEM forms

    static String pem(Object o) {
        try {
            StringWriter w = new StringWriter();
            try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
                pw.writeObject(o);
            }
            return w.toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String cert(X509Certificate c) {
        return pem(c);
    }

    /** PKCS#1 {@code RSA PRIVATE KEY}. */
    static String pkcs1(PrivateKey rsa) {
        String s;
        try {
            s = pem(new JcaMiscPEMGenerator(rsa));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        if (!s.startsWith("-----BEGIN RSA PRIVATE KEY-----")) {
            throw new IllegalStateException("not PKCS#1: " + s.lines().findFirst().orElse(""));
        }
        return s;
    }

    /**
     * SEC1 {@code EC PRIVATE KEY} with the curve and the public key inside, preceded by the
     * {@code EC PARAMETERS} block, as {@code openssl ecparam -genkey -name prime256v1} writes it.
     */
    static String sec1(KeyPair ec) {
        try {
            PrivateKeyInfo info = PrivateKeyInfo.getInstance(ec.getPrivate().getEncoded());
            ASN1ObjectIdentifier curve = ASN1ObjectIdentifier.getInstance(info.getPrivateKeyAlgorithm().getParameters());
            ASN1BitString pub = SubjectPublicKeyInfo.getInstance(((ECPublicKey) ec.getPublic()).getEncoded()).getPublicKeyData();
            org.bouncycastle.asn1.sec.ECPrivateKey sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256,
                    ((ECPrivateKey) ec.getPrivate()).getS(), new org.bouncycastle.asn1.DERBitString(pub.getBytes()), curve);
            return pem(new PemObject("EC PARAMETERS", curve.getEncoded())) + pem(new PemObject("EC PRIVATE KEY", sec1.getEncoded()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** PKCS#8 {@code PRIVATE KEY}. */
    static String pkcs8(PrivateKey k) {
        try {
            return pem(new JcaPKCS8Generator(k, null));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** PKCS#8 {@code ENCRYPTED PRIVATE KEY}. */
    static String encryptedPkcs8(PrivateKey k) {
        try {
            return pem(new JcaPKCS8Generator(k,
                    new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC).setProvider(BC).setPassword("secret".toCharArray()).build()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** PKCS#1 with {@code Proc-Type: 4,ENCRYPTED}. */
    static String encryptedPkcs1(PrivateKey rsa) {
        try {
            return pem(new JcaMiscPEMGenerator(rsa, new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(BC).build("secret".toCharArray())));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path write(Path dir, String name, String... parts) {
        try {
            Path p = dir.resolve(name);
            Files.writeString(p, String.join("", parts), StandardCharsets.US_ASCII);
            return p;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
