package dev.sluice.proxy.rules;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/** Conversions between sample types, following HAProxy's casts. */
public final class Samples {
    private Samples() {
    }

    /** The string form of a sample, or null. */
    public static CharSequence str(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof CharSequence s) {
            return s;
        }
        if (v instanceof InetAddress a) {
            return Network.format(a);
        }
        if (v instanceof byte[] b) {
            // HAProxy's c_bin2str: a binary sample read as a string ends at its first NUL byte
            int n = 0;
            while (n < b.length && b[n] != 0) {
                n++;
            }
            return new String(b, 0, n, StandardCharsets.ISO_8859_1);
        }
        if (v instanceof Boolean b) {
            return b ? "1" : "0";
        }
        return v.toString();
    }

    /** The integer form of a sample, or null when it is not a number. */
    public static Long integer(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof Integer i) {
            return (long) i;
        }
        if (v instanceof Boolean b) {
            return b ? 1L : 0L;
        }
        CharSequence s = str(v);
        return parseLong(s);
    }

    /** A decimal integer at the start of {@code s} (HAProxy's strl2ic semantics: leading digits), or null. */
    static Long parseLong(CharSequence s) {
        int i = 0;
        int n = s.length();
        while (i < n && s.charAt(i) == ' ') {
            i++;
        }
        boolean neg = false;
        if (i < n && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        int start = i;
        long v = 0;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            v = v * 10 + (s.charAt(i) - '0');
            i++;
        }
        if (i == start) {
            return null;
        }
        return neg ? -v : v;
    }

    public static boolean bool(Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        Long l = integer(v);
        return l != null ? l != 0 : v != null && str(v).length() > 0;
    }

    public static byte[] bytes(Object v) {
        if (v instanceof byte[] b) {
            return b;
        }
        CharSequence s = str(v);
        if (s == null) {
            return null;
        }
        byte[] out = new byte[s.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) s.charAt(i);
        }
        return out;
    }

    /** An address sample: an IP, or a string holding one. */
    public static InetAddress ip(Object v) {
        if (v instanceof InetAddress a) {
            return a;
        }
        CharSequence s = str(v);
        return s == null ? null : dev.sluice.config.Addresses.literal(s.toString());
    }

    /** HAProxy's base64dec: null where it fails (a length not a multiple of four, a character out of the alphabet, bad padding). */
    static byte[] base64(String s) {
        if (s.length() % 4 != 0) {
            return null;
        }
        try {
            return java.util.Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** HAProxy's base64urldec as jwt.c uses it: no padding, a length that is not 1 modulo 4; null where it fails. */
    static byte[] base64url(String s) {
        if (s.length() % 4 == 1 || s.indexOf('=') >= 0) {
            return null;
        }
        try {
            return java.util.Base64.getUrlDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
