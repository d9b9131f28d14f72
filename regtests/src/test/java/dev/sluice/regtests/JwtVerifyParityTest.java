package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * {@code jwt_verify} against HAProxy 2.6 ({@link HaproxyParityTest#compare}): tokens signed here with HS256, RS256 and
 * ES256 (the ES one in JWS's form, r and s side by side, which 2.6.12 verifies, and in DER, which it does not), a tampered one, a wrong
 * secret, "none", a token of four parts, a key path the configuration did not load, RSASSA-PSS and an unknown algorithm
 * (the last three through variables, as the configuration refuses them as strings). The PEM keys are loaded because
 * the configuration names them.
 */
class JwtVerifyParityTest {
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    private static String b64(String s) {
        return URL.encodeToString(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static String pem(KeyPair k) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(
                k.getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n";
    }

    private static byte[] sign(String alg, PrivateKey k, String data) throws Exception {
        Signature s = Signature.getInstance(alg);
        s.initSign(k);
        s.update(data.getBytes(StandardCharsets.US_ASCII));
        return s.sign();
    }

    /** An ECDSA signature from DER to JOSE's r||s of 32 bytes each. */
    private static byte[] jose(byte[] der) {
        int rLen = der[3];
        byte[] r = java.util.Arrays.copyOfRange(der, 4, 4 + rLen);
        int sLen = der[5 + rLen];
        byte[] s = java.util.Arrays.copyOfRange(der, 6 + rLen, 6 + rLen + sLen);
        byte[] out = new byte[64];
        System.arraycopy(r, Math.max(0, r.length - 32), out, 32 - Math.min(32, r.length), Math.min(32, r.length));
        System.arraycopy(s, Math.max(0, s.length - 32), out, 64 - Math.min(32, s.length), Math.min(32, s.length));
        return out;
    }

    @Test
    void signaturesAreCheckedAsHaproxyChecksThem() throws Exception {
        Path dir = Files.createTempDirectory("jwt-keys");
        KeyPairGenerator rg = KeyPairGenerator.getInstance("RSA");
        rg.initialize(2048);
        KeyPair rsa = rg.generateKeyPair();
        KeyPairGenerator eg = KeyPairGenerator.getInstance("EC");
        eg.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair ec = eg.generateKeyPair();
        Path rsaPem = dir.resolve("rsa.pem");
        Path ecPem = dir.resolve("ec.pem");
        Files.writeString(rsaPem, pem(rsa));
        Files.writeString(ecPem, pem(ec));
        String claims = b64("{\"sub\":\"1\"}");
        String hs = b64("{\"alg\":\"HS256\"}") + "." + claims;
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec("s3cret".getBytes(StandardCharsets.US_ASCII), "HmacSHA256"));
        String hsToken = hs + "." + URL.encodeToString(mac.doFinal(hs.getBytes(StandardCharsets.US_ASCII)));
        String rs = b64("{\"alg\":\"RS256\"}") + "." + claims;
        String rsToken = rs + "." + URL.encodeToString(sign("SHA256withRSA", rsa.getPrivate(), rs));
        String es = b64("{\"alg\":\"ES256\"}") + "." + claims;
        byte[] der = sign("SHA256withECDSA", ec.getPrivate(), es);
        while (der.length % 2 != 0) {
            // an odd-length DER signature would be refused as a token (-3) before the check this case is about
            der = sign("SHA256withECDSA", ec.getPrivate(), es);
        }
        // {token, alg, key}
        List<String[]> cases = List.of(
                new String[] {hsToken, "HS256", "s3cret"},
                new String[] {hsToken, "HS256", "wrong"},
                new String[] {rsToken, "RS256", rsaPem.toString()},
                new String[] {rsToken.replace(claims, b64("{\"sub\":\"2\"}")), "RS256", rsaPem.toString()},
                new String[] {es + "." + URL.encodeToString(jose(der)), "ES256", ecPem.toString()},
                new String[] {es + "." + URL.encodeToString(der), "ES256", ecPem.toString()},
                new String[] {b64("{\"alg\":\"none\"}") + "." + claims + ".", "none", "x"},
                new String[] {hsToken + ".more", "HS256", "s3cret"},
                new String[] {rsToken, "RS256", dir.resolve("other.pem").toString()},
                new String[] {rsToken, "PS256", rsaPem.toString()},
                new String[] {rsToken, "XX256", rsaPem.toString()});
        String config = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:@FE@
                    http-request set-var(txn.alg) req.hdr(x-alg)
                    http-request set-var(txn.key) req.hdr(x-key)
                    http-request set-var(txn.rsa) str(x),jwt_verify(RS256,%s)
                    http-request set-var(txn.ec) str(x),jwt_verify(ES256,%s)
                    http-request return status 200 content-type text/plain lf-string "%%[req.hdr(x-jwt),jwt_verify(txn.alg,txn.key)] %%[req.hdr(x-jwt),jwt_verify(HS256,s3cret)]"
                """.formatted(rsaPem, ecPem);
        List<String> theirs = HaproxyParityTest.compareRecording(config, cases.stream().map(c -> c[1] + " " + c[2]).toList(), ports -> {
            List<String> seen = new ArrayList<>();
            for (String[] c : cases) {
                try (RawClient r = new RawClient(ports[0])) {
                    seen.add(r.send("GET / HTTP/1.1\r\nHost: x\r\nx-jwt: " + c[0] + "\r\nx-alg: " + c[1] + "\r\nx-key: " + c[2]
                            + "\r\nConnection: close\r\n\r\n").read().bodyText());
                }
            }
            return seen;
        });
        // the second column: the same tokens against HS256 and its secret (a signature that is no HMAC of them: 0)
        assertThat(theirs).containsExactly("1 1", "0 1", "1 0", "0 0", "1 0", "0 0", "1 -3", "-3 -3", "-5 0", "-2 0", "-1 0");
    }
}
