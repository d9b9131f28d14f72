package dev.sluice.proxy.rules;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code jwt_verify(<alg>,<key>)}, as HAProxy 2.6's jwt.c: 1 when the token's signature is right, 0 when it is not, -1 for
 * an unknown algorithm, -2 for RSASSA-PSS (not managed), -3 for a token that is not three base64url parts (two for
 * "none"), -5 when the key names no public key loaded. HS256/384/512 take the key as the HMAC secret; RS and ES take it
 * as the path of a PEM public key ({@code BEGIN PUBLIC KEY}), loaded when the configuration is read (a path given as a
 * variable must be one the configuration loaded). ES signatures are in JWS's form, r and s side by side, made DER for the
 * verifier as HAProxy 2.6.12 does (a DER signature does not verify, an odd-length one is no token). The alg and the key
 * may be variables.
 */
final class JwtVerify {
    private JwtVerify() {
    }

    /** The public keys loaded by path (HAProxy's jwt_cert_tree), replaced when a configuration loads the file again. */
    private static final Map<String, PublicKey> KEYS = new ConcurrentHashMap<>();

    static void register() {
        Converters.def("jwt_verify", 2, 2, a -> {
            Vars.Ref<String> alg = Vars.Ref.of(a.get(0), x -> x);
            Vars.Ref<String> key = Vars.Ref.of(a.get(1), x -> x);
            if (alg.var() == null) {
                String name = alg.fixed();
                if (parse(name) == null) {
                    throw new IllegalArgumentException("unknown JWT algorithm: " + name);
                }
                if (name.startsWith("P")) {
                    throw new IllegalArgumentException("RSASSA-PSS JWS signing not managed yet");
                }
            }
            if (key.var() == null) {
                load(key.fixed());
            }
            return (t, v) -> {
                String algName = alg.get(t);
                String k = key.get(t);
                return algName == null || k == null ? null : (Object) (long) verify(Samples.bytes(v), algName, k);
            };
        });
    }

    /** jwt_tree_load_cert: a PEM public key (RSA or EC) for RS* and ES*; a file that is none is left out, silently. */
    static void load(String path) {
        try {
            String pem = Files.readString(Path.of(path), StandardCharsets.ISO_8859_1);
            int begin = pem.indexOf("-----BEGIN PUBLIC KEY-----");
            int end = pem.indexOf("-----END PUBLIC KEY-----", begin + 1);
            if (begin < 0 || end < 0) {
                return;
            }
            byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 26, end));
            for (String type : new String[] {"RSA", "EC"}) {
                try {
                    KEYS.put(path, KeyFactory.getInstance(type).generatePublic(new X509EncodedKeySpec(der)));
                    return;
                } catch (GeneralSecurityException e) {
                    // the other type
                }
            }
        } catch (IOException | RuntimeException e) {
            // HAProxy ignores it too: the key is unknown when a token comes (-5)
        }
    }

    /** jwt_parse_alg: the JDK's name of the algorithm ("none" for none), null when unknown. */
    static String parse(String alg) {
        if (alg.length() < 5) {
            return alg.equals("none") ? "none" : null;
        }
        String bits = alg.substring(1);
        String size = bits.equals("S256") ? "256" : bits.equals("S384") ? "384" : bits.equals("S512") ? "512" : null;
        if (size == null) {
            return null;
        }
        return switch (alg.charAt(0)) {
            case 'H' -> "HmacSHA" + size;
            case 'R' -> "SHA" + size + "withRSA";
            case 'E' -> "SHA" + size + "withECDSA";
            case 'P' -> "PSS";
            default -> null;
        };
    }

    static int verify(byte[] token, String alg, String key) {
        String jdk = parse(alg);
        if (jdk == null) {
            return -1;
        }
        int dot1 = indexOf(token, 0);
        int dot2 = dot1 < 0 ? -1 : indexOf(token, dot1 + 1);
        if (dot2 >= 0 && indexOf(token, dot2 + 1) >= 0) {
            return -3;
        }
        if (dot2 < 0 && (!jdk.equals("none") || dot1 < 0)) {
            return -3;
        }
        int sigFrom = dot2 < 0 ? token.length : dot2 + 1;
        if (jdk.equals("none")) {
            return sigFrom == token.length ? 1 : 0;
        }
        if (sigFrom == token.length) {
            return -3;
        }
        byte[] sig = Samples.base64url(new String(token, sigFrom, token.length - sigFrom, StandardCharsets.ISO_8859_1));
        if (sig == null) {
            return -3;
        }
        byte[] signed = java.util.Arrays.copyOf(token, dot2);
        try {
            if (jdk.startsWith("Hmac")) {
                Mac m = Mac.getInstance(jdk);
                byte[] k = key.getBytes(StandardCharsets.ISO_8859_1);
                m.init(new SecretKeySpec(k.length == 0 ? new byte[1] : k, jdk));
                return MessageDigest.isEqual(m.doFinal(signed), sig) ? 1 : 0;
            }
            if (jdk.equals("PSS")) {
                return -2;
            }
            PublicKey pk = KEYS.get(key);
            if (pk == null) {
                return -5;
            }
            if (jdk.endsWith("ECDSA")) {
                // JOSE's r||s, made DER for the verifier as HAProxy's convert_ecdsa_sig does (an odd length is no token)
                if (sig.length % 2 != 0) {
                    return -3;
                }
                sig = der(sig);
            }
            Signature s = Signature.getInstance(jdk);
            s.initVerify(pk);
            s.update(signed);
            return s.verify(sig) ? 1 : 0;
        } catch (GeneralSecurityException | RuntimeException e) {
            return 0;
        }
    }

    /** An ECDSA signature from r and s side by side (each half, big-endian) to DER: SEQUENCE { INTEGER r, INTEGER s }. */
    static byte[] der(byte[] jose) {
        int half = jose.length / 2;
        byte[] r = new java.math.BigInteger(1, java.util.Arrays.copyOfRange(jose, 0, half)).toByteArray();
        byte[] s = new java.math.BigInteger(1, java.util.Arrays.copyOfRange(jose, half, jose.length)).toByteArray();
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        tlv(body, 0x02, r);
        tlv(body, 0x02, s);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        tlv(out, 0x30, body.toByteArray());
        return out.toByteArray();
    }

    private static void tlv(java.io.ByteArrayOutputStream out, int tag, byte[] value) {
        out.write(tag);
        if (value.length < 0x80) {
            out.write(value.length);
        } else if (value.length < 0x100) {
            out.write(0x81);
            out.write(value.length);
        } else {
            out.write(0x82);
            out.write(value.length >> 8);
            out.write(value.length & 0xff);
        }
        out.write(value, 0, value.length);
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == '.') {
                return i;
            }
        }
        return -1;
    }
}
