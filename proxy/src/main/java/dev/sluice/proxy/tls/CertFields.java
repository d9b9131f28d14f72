package dev.sluice.proxy.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.TBSCertificate;

/**
 * The fields of one X.509 certificate as HAProxy 2.6's ssl_c_* / ssl_f_* fetches give them (ssl_utils.c, ssl_sample.c),
 * read from the certificate's own DER (its TBSCertificate), so that what OpenSSL keeps raw stays raw: the serial's
 * magnitude bytes, the validity dates as encoded ({@code YYMMDDhhmmssZ}), the names' attribute values as their bytes. Made
 * on first use per connection ({@link TlsSession}); immutable.
 */
public final class CertFields {
    /** One attribute of a name: its OID, the DER tag and content of its value, the whole value's DER, its RDN's index. */
    record Ava(String oid, int tag, byte[] value, byte[] der, int set) {
        /** OpenSSL's short name of the attribute type, its dotted OID when OpenSSL has none here. */
        String shortName() {
            String sn = DN_NAMES.get(oid);
            return sn != null ? sn : oid;
        }
    }

    private final X509Certificate cert;
    private final byte[] serial;
    private final String sigAlgOid;
    private final List<Ava> issuer;
    private final byte[] notBefore;
    private final int notBeforeTag;
    private final byte[] notAfter;
    private final int notAfterTag;
    private final List<Ava> subject;
    private final String keyAlgOid;

    private CertFields(X509Certificate cert) {
        this.cert = cert;
        try {
            // Bouncy Castle keeps what it parsed: the attribute values' bytes and RDN order, the validity as encoded
            TBSCertificate tbs = TBSCertificate.getInstance(cert.getTBSCertificate());
            serial = magnitude(tbs.getSerialNumber().getValue());
            sigAlgOid = tbs.getSignature().getAlgorithm().getId();
            issuer = name(tbs.getIssuer());
            byte[] from = der(tbs.getStartDate().toASN1Primitive());
            notBeforeTag = from[0] & 0xFF;
            notBefore = content(from);
            byte[] to = der(tbs.getEndDate().toASN1Primitive());
            notAfterTag = to[0] & 0xFF;
            notAfter = content(to);
            subject = name(tbs.getSubject());
            keyAlgOid = tbs.getSubjectPublicKeyInfo().getAlgorithm().getAlgorithm().getId();
        } catch (CertificateEncodingException | IOException | RuntimeException e) {
            throw new IllegalArgumentException("unreadable certificate: " + e.getMessage(), e);
        }
    }

    /** The fields of {@code cert}; throws {@link IllegalArgumentException} when its DER cannot be read. */
    public static CertFields of(X509Certificate cert) {
        return new CertFields(cert);
    }

    /** The certificate's DER ({@code ssl_c_der}). */
    public byte[] der() {
        try {
            return cert.getEncoded();
        } catch (CertificateEncodingException e) {
            return null;
        }
    }

    /** The SHA-1 digest of the DER ({@code ssl_c_sha1}). */
    public byte[] sha1() {
        byte[] der = der();
        if (der == null) {
            return null;
        }
        try {
            return MessageDigest.getInstance("SHA-1").digest(der);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The serial number's bytes as OpenSSL keeps them: the magnitude, big-endian, without a sign byte ({@code ssl_c_serial}). */
    public byte[] serial() {
        return serial.clone();
    }

    /** The X.509 version, 1 to 3 ({@code ssl_c_version}). */
    public long version() {
        return cert.getVersion();
    }

    /** The signature algorithm by OpenSSL's short name ({@code ssl_c_sig_alg}: {@code RSA-SHA256}, {@code ecdsa-with-SHA256}). */
    public String signatureAlgorithm() {
        String sn = SIG_NAMES.get(sigAlgOid);
        return sn != null ? sn : cert.getSigAlgName();
    }

    /** The public key's algorithm by OpenSSL's short name ({@code ssl_c_key_alg}: {@code rsaEncryption}, {@code id-ecPublicKey}). */
    public String keyAlgorithm() {
        String sn = KEY_NAMES.get(keyAlgOid);
        return sn != null ? sn : keyAlgOid;
    }

    /** notBefore as ssl_sock_get_time writes it ({@code YYMMDDhhmmssZ}); null when HAProxy gives no sample. */
    public String notBefore() {
        return time(notBeforeTag, notBefore);
    }

    /** notAfter, as {@link #notBefore}. */
    public String notAfter() {
        return time(notAfterTag, notAfter);
    }

    /**
     * The subject ({@code issuer} false) or issuer name as {@code ssl_c_s_dn([entry[,occ[,format]]])} gives it: an entry's
     * value when {@code entry} is not empty ({@code occ}: its occurrence, from 1, negative from the end), else the
     * {@code rfc2253} form when asked, else HAProxy's {@code /C=FR/O=x/CN=y}. Null when there is nothing to give.
     */
    public String dn(boolean issuerName, String entry, int occ, String format) {
        List<Ava> name = issuerName ? issuer : subject;
        if (entry != null && !entry.isEmpty()) {
            return entry(name, entry, occ);
        }
        if (format != null && !format.isEmpty()) {
            return format.equals("rfc2253") ? rfc2253(name) : null;
        }
        return oneline(name);
    }

    // ------------------------------------------------------------------ HAProxy's formats

    /** ssl_sock_get_time: a UTCTime as encoded (years 50-99 give nothing), a GeneralizedTime of 20xx without its century. */
    static String time(int tag, byte[] v) {
        if (tag == 0x18) {
            if (v.length < 12 || v[0] != '2' || v[1] != '0') {
                return null;
            }
            return new String(v, 2, v.length - 2, StandardCharsets.ISO_8859_1);
        }
        if (tag == 0x17) {
            if (v.length < 10 || v[0] >= '5') {
                return null;
            }
            return new String(v, StandardCharsets.ISO_8859_1);
        }
        return null;
    }

    /** ssl_sock_get_dn_oneline: {@code /SN=value} for each attribute in order, values as their bytes. */
    static String oneline(List<Ava> name) {
        if (name.isEmpty()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (Ava a : name) {
            sb.append('/').append(a.shortName()).append('=').append(new String(a.value(), StandardCharsets.ISO_8859_1));
        }
        return sb.toString();
    }

    /** ssl_sock_get_dn_entry: the value of the {@code pos}-th attribute named {@code entry} (any case), from the end when negative. */
    static String entry(List<Ava> name, String entry, int pos) {
        int cur = 0;
        int n = name.size();
        for (int i = 0; i < n; i++) {
            Ava a = name.get(pos < 0 ? n - 1 - i : i);
            if (!a.shortName().equalsIgnoreCase(entry)) {
                continue;
            }
            cur += pos < 0 ? -1 : 1;
            if (cur == pos) {
                return new String(a.value(), StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    /**
     * X509_NAME_print_ex with XN_FLAG_RFC2253: the attributes last first, {@code ,} between RDNs and {@code +} inside one,
     * short names, values converted to UTF-8 and escaped (RFC 2253's specials, control and non-ASCII bytes as {@code \XX}),
     * the values of unknown attributes and of non-string types as {@code #} and their DER in hex.
     */
    static String rfc2253(List<Ava> name) {
        StringBuilder sb = new StringBuilder();
        int prev = -1;
        for (int i = name.size() - 1; i >= 0; i--) {
            Ava a = name.get(i);
            if (prev != -1) {
                sb.append(prev == a.set() ? '+' : ',');
            }
            prev = a.set();
            String sn = DN_NAMES.get(a.oid());
            sb.append(sn != null ? sn : a.oid()).append('=');
            int width = sn == null ? -1 : charWidth(a.tag());
            if (width < 0) {
                sb.append('#');
                for (byte b : a.der()) {
                    sb.append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
                }
                continue;
            }
            escape(sb, a.value(), width);
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** OpenSSL's tag2nbyte: the bytes per character of a string type (0: UTF-8), -1 for what is dumped. */
    private static int charWidth(int tag) {
        return switch (tag) {
            case 0x0C -> 0;
            case 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1A -> 1;
            case 0x1C -> 4;
            case 0x1E -> 2;
            default -> -1;
        };
    }

    /** do_buf with ESC_2253, ESC_CTRL, ESC_MSB and UTF8_CONVERT (UTF-8 itself read a byte per character, as OpenSSL does). */
    private static void escape(StringBuilder sb, byte[] v, int width) {
        int step = width == 0 ? 1 : width;
        for (int p = 0; p + step <= v.length; p += step) {
            int c = 0;
            for (int k = 0; k < step; k++) {
                c = (c << 8) | (v[p + k] & 0xFF);
            }
            boolean first = p == 0;
            boolean last = p + step >= v.length;
            if (width == 0 || c < 0x80) {
                escapeByte(sb, c, first && !last, last);
            } else if (Character.isValidCodePoint(c)) {
                byte[] utf8 = new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8);
                for (byte b : utf8) {
                    escapeByte(sb, b & 0xFF, false, false);
                }
            }
        }
    }

    private static void escapeByte(StringBuilder sb, int c, boolean first, boolean last) {
        if (c > 0x7F || c < 0x20 || c == 0x7F) {
            sb.append('\\').append(HEX[c >> 4]).append(HEX[c & 0xF]);
        } else if (",+\"\\<>;".indexOf(c) >= 0 || first && (c == ' ' || c == '#') || last && c == ' ') {
            sb.append('\\').append((char) c);
        } else {
            sb.append((char) c);
        }
    }

    // ------------------------------------------------------------------ DER

    /** The attributes of a name (RDNs in order, each RDN's attributes in order). */
    static List<Ava> name(X500Name n) throws IOException {
        List<Ava> out = new ArrayList<>();
        RDN[] rdns = n.getRDNs();
        for (int set = 0; set < rdns.length; set++) {
            for (AttributeTypeAndValue atv : rdns[set].getTypesAndValues()) {
                byte[] der = der(atv.getValue().toASN1Primitive());
                out.add(new Ava(atv.getType().getId(), der[0] & 0xFF, content(der), der, set));
            }
        }
        return out;
    }

    /** An element's encoding as parsed (definite lengths, nothing re-sorted). */
    private static byte[] der(ASN1Primitive p) throws IOException {
        return p.getEncoded(ASN1Encoding.DL);
    }

    /** The content of a single-byte-tag element: its encoding without tag and length. */
    private static byte[] content(byte[] der) {
        int len = der[1] & 0xFF;
        int header = len < 0x80 ? 2 : 2 + (len & 0x7F);
        return Arrays.copyOfRange(der, header, der.length);
    }

    /** The serial as OpenSSL keeps it: the magnitude, big-endian, without a sign byte. */
    private static byte[] magnitude(BigInteger serial) {
        byte[] mag = serial.abs().toByteArray();
        return mag.length > 1 && mag[0] == 0 ? Arrays.copyOfRange(mag, 1, mag.length) : mag;
    }

    // ------------------------------------------------------------------ OpenSSL's short names

    /** Name attribute types (objects.txt). */
    static final Map<String, String> DN_NAMES = Map.ofEntries(
            Map.entry("2.5.4.3", "CN"), Map.entry("2.5.4.4", "SN"), Map.entry("2.5.4.5", "serialNumber"), Map.entry("2.5.4.6", "C"),
            Map.entry("2.5.4.7", "L"), Map.entry("2.5.4.8", "ST"), Map.entry("2.5.4.9", "street"), Map.entry("2.5.4.10", "O"),
            Map.entry("2.5.4.11", "OU"), Map.entry("2.5.4.12", "title"), Map.entry("2.5.4.13", "description"),
            Map.entry("2.5.4.14", "searchGuide"), Map.entry("2.5.4.15", "businessCategory"), Map.entry("2.5.4.16", "postalAddress"),
            Map.entry("2.5.4.17", "postalCode"), Map.entry("2.5.4.18", "postOfficeBox"), Map.entry("2.5.4.20", "telephoneNumber"),
            Map.entry("2.5.4.41", "name"), Map.entry("2.5.4.42", "GN"), Map.entry("2.5.4.43", "initials"),
            Map.entry("2.5.4.44", "generationQualifier"), Map.entry("2.5.4.45", "x500UniqueIdentifier"),
            Map.entry("2.5.4.46", "dnQualifier"), Map.entry("2.5.4.65", "pseudonym"), Map.entry("2.5.4.72", "role"),
            Map.entry("2.5.4.97", "organizationIdentifier"), Map.entry("1.2.840.113549.1.9.1", "emailAddress"),
            Map.entry("1.2.840.113549.1.9.2", "unstructuredName"), Map.entry("0.9.2342.19200300.100.1.1", "UID"),
            Map.entry("0.9.2342.19200300.100.1.25", "DC"), Map.entry("1.3.6.1.4.1.311.60.2.1.1", "jurisdictionL"),
            Map.entry("1.3.6.1.4.1.311.60.2.1.2", "jurisdictionST"), Map.entry("1.3.6.1.4.1.311.60.2.1.3", "jurisdictionC"));

    /** Signature algorithms. */
    static final Map<String, String> SIG_NAMES = Map.ofEntries(
            Map.entry("1.2.840.10045.4.1", "ecdsa-with-SHA1"), Map.entry("1.2.840.10045.4.3.1", "ecdsa-with-SHA224"),
            Map.entry("1.2.840.10045.4.3.2", "ecdsa-with-SHA256"), Map.entry("1.2.840.10045.4.3.3", "ecdsa-with-SHA384"),
            Map.entry("1.2.840.10045.4.3.4", "ecdsa-with-SHA512"), Map.entry("1.2.840.113549.1.1.4", "RSA-MD5"),
            Map.entry("1.2.840.113549.1.1.5", "RSA-SHA1"), Map.entry("1.2.840.113549.1.1.10", "RSASSA-PSS"),
            Map.entry("1.2.840.113549.1.1.11", "RSA-SHA256"), Map.entry("1.2.840.113549.1.1.12", "RSA-SHA384"),
            Map.entry("1.2.840.113549.1.1.13", "RSA-SHA512"), Map.entry("1.2.840.113549.1.1.14", "RSA-SHA224"),
            Map.entry("1.2.840.10040.4.3", "DSA-SHA1"), Map.entry("2.16.840.1.101.3.4.3.2", "dsa_with_SHA256"),
            Map.entry("1.3.101.112", "ED25519"), Map.entry("1.3.101.113", "ED448"));

    /** Public key algorithms. */
    static final Map<String, String> KEY_NAMES = Map.of(
            "1.2.840.113549.1.1.1", "rsaEncryption", "1.2.840.113549.1.1.10", "RSASSA-PSS", "1.2.840.10045.2.1", "id-ecPublicKey",
            "1.2.840.10040.4.1", "DSA", "1.3.101.110", "X25519", "1.3.101.111", "X448", "1.3.101.112", "ED25519", "1.3.101.113", "ED448");
}
