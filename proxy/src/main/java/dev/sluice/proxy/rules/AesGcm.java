package dev.sluice.proxy.rules;

import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code aes_gcm_dec(<bits>,<nonce>,<key>,<aead_tag>)}, as HAProxy 2.6's ssl_sample.c: the sample is AES-GCM ciphertext
 * decrypted with a 128, 192 or 256-bit key; nonce, key and tag are base64 (a string, checked when the configuration is
 * read) or the name of a variable holding base64; the plaintext is binary; no sample when a variable is missing or not
 * base64, or the tag does not authenticate.
 */
final class AesGcm {
    private AesGcm() {
    }

    static void register() {
        Converters.def("aes_gcm_dec", 4, 4, a -> {
            int bits;
            try {
                bits = Integer.parseInt(a.get(0));
            } catch (NumberFormatException e) {
                bits = 0;
            }
            if (bits != 128 && bits != 192 && bits != 256) {
                throw new IllegalArgumentException("key size must be 128, 192 or 256 (bits).");
            }
            int keyBytes = bits / 8;
            Vars.Ref<byte[]> nonce = arg(a, 1, "nonce");
            Vars.Ref<byte[]> key = arg(a, 2, "key");
            Vars.Ref<byte[]> tag = arg(a, 3, "aead_tag");
            return (t, v) -> {
                byte[] n = nonce.get(t);
                byte[] k = key.get(t);
                byte[] g = tag.get(t);
                return n == null || k == null || g == null ? null : decrypt(Samples.bytes(v), n, k, g, keyBytes);
            };
        });
    }

    private static Vars.Ref<byte[]> arg(List<String> a, int i, String what) {
        Vars.Ref<byte[]> r = Vars.Ref.of(a.get(i), Samples::base64);
        if (!r.valid()) {
            throw new IllegalArgumentException("failed to parse " + what + " : argument needs to be base64 encoded, and can either be a"
                    + " string or a variable");
        }
        return r;
    }

    /** OpenSSL reads the cipher's key length from the key given: a longer one is cut, a shorter one fails here. */
    static byte[] decrypt(byte[] cipherText, byte[] nonce, byte[] key, byte[] tag, int keyBytes) {
        if (key.length < keyBytes || nonce.length == 0 || tag.length == 0 || tag.length > 16) {
            return null;
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(Arrays.copyOf(key, keyBytes), "AES"), new GCMParameterSpec(tag.length * 8, nonce));
            byte[] in = Arrays.copyOf(cipherText, cipherText.length + tag.length);
            System.arraycopy(tag, 0, in, cipherText.length, tag.length);
            return c.doFinal(in);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return null;
        }
    }
}
