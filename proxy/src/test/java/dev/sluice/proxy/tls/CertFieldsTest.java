package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERBMPString;
import org.bouncycastle.asn1.DERIA5String;
import org.bouncycastle.asn1.DERPrintableString;
import org.bouncycastle.asn1.DERUTF8String;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Time;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HAProxy 2.6's formats of certificate fields (ssl_utils.c): the one-line DN with raw values, entry selection by name
 * and occurrence, OpenSSL's RFC 2253 printing (reverse order, multi-valued RDNs, escapes, UTF-8 bytes escaped, unknown
 * attributes dumped), the serial's magnitude bytes and the dates as encoded. The expected RFC 2253 strings are what
 * {@code openssl x509 -noout -subject -nameopt RFC2253} (the same X509_NAME_print_ex) prints for these certificates.
 */
class CertFieldsTest {
    static final ASN1ObjectIdentifier C = new ASN1ObjectIdentifier("2.5.4.6");
    static final ASN1ObjectIdentifier O = new ASN1ObjectIdentifier("2.5.4.10");
    static final ASN1ObjectIdentifier OU = new ASN1ObjectIdentifier("2.5.4.11");
    static final ASN1ObjectIdentifier CN = new ASN1ObjectIdentifier("2.5.4.3");
    static final ASN1ObjectIdentifier EMAIL = new ASN1ObjectIdentifier("1.2.840.113549.1.9.1");
    static final ASN1ObjectIdentifier UNKNOWN = new ASN1ObjectIdentifier("1.2.3.4.5");

    static KeyPair keys;

    @BeforeAll
    static void keys() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        keys = g.generateKeyPair();
    }

    static RDN rdn(ASN1ObjectIdentifier type, ASN1Encodable value) {
        return new RDN(type, value);
    }

    static X509Certificate cert(X500Name subject, X500Name issuer, BigInteger serial, Date from, Date to) throws Exception {
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, serial, from, to, subject, keys.getPublic());
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
    }

    static X500Name rich() {
        RDN[] rdns = {
            rdn(C, new DERPrintableString("FR")),
            rdn(O, new DERUTF8String("Acme, Inc.")),
            new RDN(new AttributeTypeAndValue[] {new AttributeTypeAndValue(OU, new DERUTF8String("R&D")),
                new AttributeTypeAndValue(OU, new DERUTF8String("#ops "))}),
            rdn(OU, new DERUTF8String("Ünïcode")),
            rdn(OU, new DERBMPString("bmp é")),
            rdn(UNKNOWN, new DERUTF8String("x")),
            rdn(EMAIL, new DERIA5String("a+b@example.com")),
            rdn(CN, new DERUTF8String("client \"one\"; <1>")),
            rdn(CN, new DERUTF8String("second=cn")),
        };
        return new X500Name(rdns);
    }

    @Test
    void oneLineDnIsRawValuesInOrder() throws Exception {
        CertFields f = CertFields.of(cert(rich(), new X500Name("CN=Test CA,O=Acme"), BigInteger.TEN, new Date(0), new Date(1_000_000_000_000L)));
        String bmp = new String("bmp é".getBytes(StandardCharsets.UTF_16BE), StandardCharsets.ISO_8859_1);
        String utf8 = new String("Ünïcode".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        assertThat(f.dn(false, null, 1, null)).isEqualTo("/C=FR/O=Acme, Inc./OU=R&D/OU=#ops /OU=" + utf8 + "/OU=" + bmp
                + "/1.2.3.4.5=x/emailAddress=a+b@example.com/CN=client \"one\"; <1>/CN=second=cn");
        // BC encodes a name given as a string in the order written
        assertThat(f.dn(true, null, 1, null)).isEqualTo("/CN=Test CA/O=Acme");
        assertThat(f.dn(true, "", 0, "")).isEqualTo("/CN=Test CA/O=Acme");
    }

    @Test
    void entriesByNameAndOccurrence() throws Exception {
        CertFields f = CertFields.of(cert(rich(), new X500Name("CN=Test CA"), BigInteger.TEN, new Date(0), new Date(1_000_000_000_000L)));
        assertThat(f.dn(false, "CN", 1, null)).isEqualTo("client \"one\"; <1>");
        assertThat(f.dn(false, "cn", 2, null)).isEqualTo("second=cn");
        assertThat(f.dn(false, "CN", -1, null)).isEqualTo("second=cn");
        assertThat(f.dn(false, "CN", -2, null)).isEqualTo("client \"one\"; <1>");
        assertThat(f.dn(false, "CN", 3, null)).isNull();
        assertThat(f.dn(false, "CN", 0, null)).isNull();
        assertThat(f.dn(false, "OU", 2, null)).isEqualTo("#ops ");
        assertThat(f.dn(false, "emailAddress", 1, null)).isEqualTo("a+b@example.com");
        assertThat(f.dn(false, "1.2.3.4.5", 1, null)).isEqualTo("x");
        assertThat(f.dn(false, "L", 1, null)).isNull();
        // an entry wins over a format
        assertThat(f.dn(true, "CN", 1, "rfc2253")).isEqualTo("Test CA");
    }

    @Test
    void rfc2253AsOpenSslPrintsIt() throws Exception {
        X509Certificate cc = cert(rich(), new X500Name("CN=Test CA,O=Acme"), BigInteger.TEN, new Date(0), new Date(1_000_000_000_000L));
        CertFields f = CertFields.of(cc);
        assertThat(f.dn(false, null, 0, "rfc2253")).isEqualTo("CN=second=cn,CN=client \\\"one\\\"\\; \\<1\\>,emailAddress=a\\+b@example.com,"
                + "1.2.3.4.5=#0C0178,OU=bmp \\C3\\A9,OU=\\C3\\9Cn\\C3\\AFcode,OU=\\#ops\\ +OU=R&D,O=Acme\\, Inc.,C=FR");
        assertThat(f.dn(true, null, 0, "rfc2253")).isEqualTo("O=Acme,CN=Test CA");
    }

    @Test
    void serialIsTheMagnitudeWithoutSignByte() throws Exception {
        X500Name n = new X500Name("CN=x");
        assertThat(CertFields.of(cert(n, n, new BigInteger("0080ff", 16), new Date(0), new Date(1_000_000_000_000L))).serial())
                .isEqualTo(HexFormat.of().parseHex("80ff"));
        assertThat(CertFields.of(cert(n, n, BigInteger.ONE, new Date(0), new Date(1_000_000_000_000L))).serial()).isEqualTo(new byte[] {1});
    }

    @Test
    void datesAsEncodedYearsPast2049WithoutCentury() throws Exception {
        X500Name n = new X500Name("CN=x");
        Date from = Date.from(Instant.parse("2024-03-05T06:07:08Z"));
        Date to = Date.from(Instant.parse("2051-01-02T03:04:05Z"));
        CertFields f = CertFields.of(cert(n, n, BigInteger.TWO, from, to));
        assertThat(f.notBefore()).isEqualTo("240305060708Z");
        assertThat(f.notAfter()).isEqualTo("510102030405Z");
        // a UTCTime of 1950-1999 and a GeneralizedTime outside 20xx give nothing
        assertThat(CertFields.time(0x17, "991231235959Z".getBytes(StandardCharsets.US_ASCII))).isNull();
        assertThat(CertFields.time(0x18, "21000101000000Z".getBytes(StandardCharsets.US_ASCII))).isNull();
        assertThat(new Time(to).getTime()).startsWith("2051");
    }

    @Test
    void digestsAlgorithmsAndVersion() throws Exception {
        X500Name n = new X500Name("CN=x");
        X509Certificate c = cert(n, n, BigInteger.TWO, new Date(0), new Date(1_000_000_000_000L));
        CertFields f = CertFields.of(c);
        assertThat(f.der()).isEqualTo(c.getEncoded());
        assertThat(f.sha1()).isEqualTo(MessageDigest.getInstance("SHA-1").digest(c.getEncoded()));
        assertThat(f.signatureAlgorithm()).isEqualTo("ecdsa-with-SHA256");
        assertThat(f.keyAlgorithm()).isEqualTo("id-ecPublicKey");
        assertThat(f.version()).isEqualTo(3);
    }
}
