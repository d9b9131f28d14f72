package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * {@code aes_gcm_dec} against HAProxy 2.6 ({@link HaproxyParityTest#compare}): ciphertexts made here with the JDK, with
 * 128 and 256-bit keys, a 12-byte and a 16-byte nonce, a 16-byte and a 12-byte tag, the arguments as base64 strings or
 * as variables; a wrong tag and a variable that is not base64 give no sample.
 */
class AesGcmParityTest {
    private static final Base64.Encoder B64 = Base64.getEncoder();

    /** {ciphertext, tag} of {@code text}, base64. */
    private static String[] seal(String text, byte[] key, byte[] nonce, int tagBytes) throws Exception {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(tagBytes * 8, nonce));
        byte[] out = c.doFinal(text.getBytes(StandardCharsets.US_ASCII));
        return new String[] {B64.encodeToString(Arrays.copyOf(out, out.length - tagBytes)),
                B64.encodeToString(Arrays.copyOfRange(out, out.length - tagBytes, out.length))};
    }

    @Test
    void decryptionIsHaproxys() throws Exception {
        byte[] k128 = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        byte[] k256 = "0123456789abcdef0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
        byte[] n12 = "twelve bytes".getBytes(StandardCharsets.US_ASCII);
        byte[] n16 = "sixteen bytes!!!".getBytes(StandardCharsets.US_ASCII);
        String[] a = seal("hello sluice", k128, n12, 16);
        String[] b = seal("longer text, 256-bit key", k256, n16, 12);
        String config = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:@FE@
                    http-request set-var(txn.key) str(%s)
                    http-request set-var(txn.nonce) str(%s)
                    http-request set-var(txn.tag) req.hdr(x-tag)
                    http-request set-var(txn.bad) str(not-base64!)
                    http-request return status 200 content-type text/plain lf-string "a=%%[req.hdr(x-a),b64dec,aes_gcm_dec(128,%s,%s,%s)]|b=%%[req.hdr(x-b),b64dec,aes_gcm_dec(256,txn.nonce,txn.key,txn.tag)]|wrong=%%[req.hdr(x-a),b64dec,aes_gcm_dec(128,%s,%s,%s)]|badvar=%%[req.hdr(x-a),b64dec,aes_gcm_dec(128,%s,txn.bad,%s)]"
                """.formatted(B64.encodeToString(k256), B64.encodeToString(n16), B64.encodeToString(n12), B64.encodeToString(k128), a[1],
                B64.encodeToString(n12), B64.encodeToString(k128), B64.encodeToString(new byte[16]),
                B64.encodeToString(n12), a[1]);
        List<String> theirs = HaproxyParityTest.compareRecording(config, List.of("decrypt"), ports -> {
            try (RawClient c = new RawClient(ports[0])) {
                return List.of(c.send("GET / HTTP/1.1\r\nHost: x\r\nx-a: " + a[0] + "\r\nx-b: " + b[0] + "\r\nx-tag: " + b[1]
                        + "\r\nConnection: close\r\n\r\n").read().bodyText());
            }
        });
        assertThat(theirs).containsExactly("a=hello sluice|b=longer text, 256-bit key|wrong=|badvar=");
    }
}
