package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Random;
import javax.crypto.Cipher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** RSA signatures and decryption by the system's OpenSSL 3, checked against the JDK's for every scheme TLS uses. */
class RsaKeyMethodTest {
    private static KeyPair pair;
    private static RsaKeyMethod method;
    private static final byte[] MESSAGE = new byte[130];

    @BeforeAll
    static void setUp() throws Exception {
        assumeTrue(SystemRsa.INSTANCE != null, "libcrypto.so.3 (Debian package libssl3) does not load here");
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        pair = g.generateKeyPair();
        method = new RsaKeyMethod(SystemRsa.INSTANCE, (RSAPrivateCrtKey) pair.getPrivate());
        new Random(1).nextBytes(MESSAGE);
    }

    @Test
    void theLibraryIsOpenSsl3() {
        assertThat(SystemRsa.INSTANCE.version()).startsWith("OpenSSL 3.");
        assertThat(TlsProvider.detect().rsaSigner()).isEqualTo(SystemRsa.INSTANCE.version());
    }

    @Test
    void pssSignaturesVerifyWithTheJdk() throws Exception {
        int[][] schemes = {{0x0804, 256}, {0x0805, 384}, {0x0806, 512}};
        for (int[] s : schemes) {
            String md = "SHA-" + s[1];
            Signature v = Signature.getInstance("RSASSA-PSS");
            v.setParameter(new PSSParameterSpec(md, "MGF1", new MGF1ParameterSpec(md), s[1] / 8, 1));
            v.initVerify(pair.getPublic());
            v.update(MESSAGE);
            assertThat(v.verify(method.sign(null, s[0], MESSAGE))).as(md).isTrue();
        }
    }

    @Test
    void pkcs1SignaturesAreTheJdksBytes() throws Exception {
        String[][] schemes = {{"0201", "SHA1withRSA"}, {"0401", "SHA256withRSA"}, {"0501", "SHA384withRSA"}, {"0601", "SHA512withRSA"}};
        for (String[] s : schemes) {
            Signature j = Signature.getInstance(s[1]);
            j.initSign(pair.getPrivate());
            j.update(MESSAGE);
            // PKCS#1 v1.5 is deterministic: the same bytes
            assertThat(method.sign(null, Integer.parseInt(s[0], 16), MESSAGE)).as(s[1]).isEqualTo(j.sign());
        }
    }

    @Test
    void md5Sha1IsPkcs1OverBothDigests() throws Exception {
        byte[] sig = method.sign(null, 0xff01, MESSAGE);
        Cipher c = Cipher.getInstance("RSA/ECB/NoPadding");
        c.init(Cipher.ENCRYPT_MODE, pair.getPublic());
        byte[] em = c.doFinal(sig);
        byte[] digests = new byte[36];
        System.arraycopy(MessageDigest.getInstance("MD5").digest(MESSAGE), 0, digests, 0, 16);
        System.arraycopy(MessageDigest.getInstance("SHA-1").digest(MESSAGE), 0, digests, 16, 20);
        byte[] tail = java.util.Arrays.copyOfRange(em, em.length - 36, em.length);
        assertThat(tail).isEqualTo(digests);
        assertThat(em[0]).isEqualTo((byte) 0);
        assertThat(em[1]).isEqualTo((byte) 1);
    }

    @Test
    void rawDecryptionInvertsTheJdksRawEncryption() throws Exception {
        RSAPublicKey pub = (RSAPublicKey) pair.getPublic();
        byte[] plain = new byte[256];
        new Random(2).nextBytes(plain);
        plain[0] = 0;
        byte[] enc = new BigInteger(1, plain).modPow(pub.getPublicExponent(), pub.getModulus()).toByteArray();
        byte[] fixed = new byte[256];
        System.arraycopy(enc, Math.max(0, enc.length - 256), fixed, Math.max(0, 256 - enc.length), Math.min(256, enc.length));
        assertThat(method.decrypt(null, fixed)).isEqualTo(plain);
    }

    @Test
    void anUnknownSchemeIsRefused() {
        assertThatThrownBy(() -> method.sign(null, 0x0403, MESSAGE)).isInstanceOf(GeneralSecurityException.class).hasMessageContaining("0x403");
    }
}
