package dev.sluice.proxy.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The crypt(3) hash formats that {@code userlist} passwords use in practice: SHA-512 ({@code $6$}) and
 * SHA-256 ({@code $5$}) from Ulrich Drepper's public "Unix crypt using SHA-256 and SHA-512" specification
 * (default 5000 rounds, {@code rounds=} clamped to 1000..999999999, salt up to 16 characters), and
 * Poul-Henning Kamp's MD5 crypt ({@code $1$}, 1000 rounds, salt up to 8 characters). Stateless and
 * thread-safe.
 */
public final class Crypt {
    private Crypt() {
    }

    private static final String ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    /** Byte order of the SHA-512 result in its text form: triples, then one last byte. */
    private static final int[] ORDER_512 = {0, 21, 42, 22, 43, 1, 44, 2, 23, 3, 24, 45, 25, 46, 4, 47, 5, 26, 6, 27, 48, 28, 49, 7, 50, 8, 29,
        9, 30, 51, 31, 52, 10, 53, 11, 32, 12, 33, 54, 34, 55, 13, 56, 14, 35, 15, 36, 57, 37, 58, 16, 59, 17, 38, 18, 39, 60, 40, 61, 19, 62,
        20, 41};
    private static final int[] ORDER_256 = {0, 10, 20, 21, 1, 11, 12, 22, 2, 3, 13, 23, 24, 4, 14, 15, 25, 5, 6, 16, 26, 27, 7, 17, 18, 28, 8,
        9, 19, 29};
    private static final int[] ORDER_MD5 = {0, 6, 12, 1, 7, 13, 2, 8, 14, 3, 9, 15, 4, 10, 5};

    /** Whether {@code password} hashes to {@code hash} (compared in constant time); false for an unknown format. */
    public static boolean verify(byte[] password, String hash) {
        String computed = crypt(password, hash);
        return computed != null && MessageDigest.isEqual(computed.getBytes(StandardCharsets.US_ASCII),
                hash.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The crypt(3) hash of {@code password} with the method, rounds and salt of {@code setting} (a full hash
     * or just its {@code $id$[rounds=n$]salt} prefix); null when the method is not one of $1$, $5$, $6$.
     */
    public static String crypt(byte[] password, String setting) {
        if (setting.startsWith("$6$")) {
            return sha(password, setting, "SHA-512", 64, ORDER_512);
        }
        if (setting.startsWith("$5$")) {
            return sha(password, setting, "SHA-256", 32, ORDER_256);
        }
        if (setting.startsWith("$1$")) {
            return md5(password, setting);
        }
        return null;
    }

    private static MessageDigest digest(String algo) {
        try {
            return MessageDigest.getInstance(algo);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algo + " is part of every JDK", e);
        }
    }

    private static String sha(byte[] p, String setting, String algo, int len, int[] order) {
        String rest = setting.substring(3);
        int rounds = 5000;
        boolean customRounds = false;
        if (rest.startsWith("rounds=")) {
            int end = rest.indexOf('$');
            if (end < 0) {
                return null;
            }
            long r;
            try {
                r = Long.parseLong(rest.substring(7, end));
            } catch (NumberFormatException e) {
                return null;
            }
            rounds = (int) Math.max(1000, Math.min(999_999_999, r));
            customRounds = true;
            rest = rest.substring(end + 1);
        }
        int end = rest.indexOf('$');
        String saltText = end < 0 ? rest : rest.substring(0, end);
        if (saltText.length() > 16) {
            saltText = saltText.substring(0, 16);
        }
        byte[] s = saltText.getBytes(StandardCharsets.ISO_8859_1);
        MessageDigest md = digest(algo);

        // B = H(P S P)
        md.update(p);
        md.update(s);
        md.update(p);
        byte[] b = md.digest();
        // A = H(P S B-for-each-byte-of-P, then B or P for each bit of len(P))
        md.update(p);
        md.update(s);
        int cnt;
        for (cnt = p.length; cnt > len; cnt -= len) {
            md.update(b, 0, len);
        }
        md.update(b, 0, cnt);
        for (cnt = p.length; cnt > 0; cnt >>= 1) {
            if ((cnt & 1) != 0) {
                md.update(b, 0, len);
            } else {
                md.update(p);
            }
        }
        byte[] a = md.digest();
        // DP = H(P repeated len(P) times); P' = DP stretched to len(P)
        for (int i = 0; i < p.length; i++) {
            md.update(p);
        }
        byte[] pBytes = stretch(md.digest(), p.length);
        // DS = H(S repeated 16 + A[0] times); S' = DS cut to len(S)
        for (int i = 0; i < 16 + (a[0] & 0xff); i++) {
            md.update(s);
        }
        byte[] sBytes = stretch(md.digest(), s.length);
        byte[] c = a;
        for (int i = 0; i < rounds; i++) {
            if ((i & 1) != 0) {
                md.update(pBytes);
            } else {
                md.update(c, 0, len);
            }
            if (i % 3 != 0) {
                md.update(sBytes);
            }
            if (i % 7 != 0) {
                md.update(pBytes);
            }
            if ((i & 1) != 0) {
                md.update(c, 0, len);
            } else {
                md.update(pBytes);
            }
            c = md.digest();
        }
        StringBuilder out = new StringBuilder(setting.substring(0, 3));
        if (customRounds) {
            out.append("rounds=").append(rounds).append('$');
        }
        out.append(saltText).append('$');
        for (int i = 0; i + 2 < order.length; i += 3) {
            b64(out, (c[order[i]] & 0xff) << 16 | (c[order[i + 1]] & 0xff) << 8 | c[order[i + 2]] & 0xff, 4);
        }
        if (len == 64) {
            b64(out, c[63] & 0xff, 2);
        } else {
            b64(out, (c[31] & 0xff) << 8 | c[30] & 0xff, 3);
        }
        return out.toString();
    }

    /** {@code d} repeated (whole, then a head part) to {@code n} bytes. */
    private static byte[] stretch(byte[] d, int n) {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i += d.length) {
            System.arraycopy(d, 0, out, i, Math.min(d.length, n - i));
        }
        return out;
    }

    private static String md5(byte[] p, String setting) {
        String rest = setting.substring(3);
        int end = rest.indexOf('$');
        String saltText = end < 0 ? rest : rest.substring(0, end);
        if (saltText.length() > 8) {
            saltText = saltText.substring(0, 8);
        }
        byte[] s = saltText.getBytes(StandardCharsets.ISO_8859_1);
        MessageDigest md = digest("MD5");
        md.update(p);
        md.update(s);
        md.update(p);
        byte[] alt = md.digest();
        md.update(p);
        md.update("$1$".getBytes(StandardCharsets.US_ASCII));
        md.update(s);
        for (int n = p.length; n > 0; n -= 16) {
            md.update(alt, 0, Math.min(n, 16));
        }
        for (int i = p.length; i != 0; i >>>= 1) {
            if ((i & 1) != 0) {
                md.update((byte) 0);
            } else {
                md.update(p[0]);
            }
        }
        byte[] f = md.digest();
        for (int i = 0; i < 1000; i++) {
            if ((i & 1) != 0) {
                md.update(p);
            } else {
                md.update(f);
            }
            if (i % 3 != 0) {
                md.update(s);
            }
            if (i % 7 != 0) {
                md.update(p);
            }
            if ((i & 1) != 0) {
                md.update(f);
            } else {
                md.update(p);
            }
            f = md.digest();
        }
        StringBuilder out = new StringBuilder("$1$").append(saltText).append('$');
        for (int i = 0; i < ORDER_MD5.length; i += 3) {
            b64(out, (f[ORDER_MD5[i]] & 0xff) << 16 | (f[ORDER_MD5[i + 1]] & 0xff) << 8 | f[ORDER_MD5[i + 2]] & 0xff, 4);
        }
        b64(out, f[11] & 0xff, 2);
        return out.toString();
    }

    private static void b64(StringBuilder out, int w, int n) {
        for (int i = 0; i < n; i++) {
            out.append(ITOA64.charAt(w & 0x3f));
            w >>>= 6;
        }
    }
}
