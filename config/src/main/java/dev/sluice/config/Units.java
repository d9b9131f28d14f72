package dev.sluice.config;

import java.util.Locale;

/**
 * HAProxy's numeric units. A time is a non-negative integer with an optional unit {@code us ms s m h d}
 * (a bare number is milliseconds; microseconds round up to the next millisecond); a size is an integer
 * with an optional {@code k m g} suffix in powers of 1024.
 */
public final class Units {
    private Units() {
    }

    /** Parses a time into milliseconds; throws {@link IllegalArgumentException} with a readable reason. */
    public static long parseTimeMillis(String s) {
        int i = digits(s);
        if (i == 0) {
            throw new IllegalArgumentException("'" + s + "' is not a time: expected a number with an optional unit (us, ms, s, m, h, d)");
        }
        long v;
        try {
            v = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("time value '" + s + "' is too large");
        }
        String unit = s.substring(i);
        long ms = switch (unit) {
            case "", "ms" -> v;
            case "us" -> v / 1000 + (v % 1000 == 0 ? 0 : 1);
            case "s" -> mul(s, v, 1000L);
            case "m" -> mul(s, v, 60_000L);
            case "h" -> mul(s, v, 3_600_000L);
            case "d" -> mul(s, v, 86_400_000L);
            default -> throw new IllegalArgumentException("unexpected character '" + unit.charAt(0) + "' in time value '" + s
                    + "': units are us, ms, s, m, h, d");
        };
        if (ms > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("time value '" + s + "' is too large (maximum is 2147483647 ms, about 24.8 days)");
        }
        return ms;
    }

    /** Parses a size into bytes (or entries, for table sizes). */
    public static long parseSize(String s) {
        int i = digits(s);
        if (i == 0) {
            throw new IllegalArgumentException("'" + s + "' is not a size: expected a number with an optional k, m or g suffix");
        }
        long v;
        try {
            v = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size value '" + s + "' is too large");
        }
        String unit = s.substring(i);
        return switch (unit.toLowerCase(Locale.ROOT)) {
            case "" -> v;
            case "k" -> mul(s, v, 1024L);
            case "m" -> mul(s, v, 1024L * 1024);
            case "g" -> mul(s, v, 1024L * 1024 * 1024);
            default -> throw new IllegalArgumentException("unexpected suffix '" + unit + "' in size value '" + s + "': use k, m or g");
        };
    }

    /** Parses a non-negative decimal integer no greater than {@code max}. */
    public static int parseInt(String s, String what, int min, int max) {
        int i = digits(s);
        boolean neg = s.startsWith("-") && s.length() > 1 && digits(s.substring(1)) == s.length() - 1;
        if ((i == 0 || i != s.length()) && !neg) {
            throw new IllegalArgumentException(what + " expects an integer, not '" + s + "'");
        }
        long v;
        try {
            v = Long.parseLong(s);
        } catch (NumberFormatException e) {
            v = Long.MAX_VALUE;
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(what + " must be between " + min + " and " + max + " (got " + s + ")");
        }
        return (int) v;
    }

    private static int digits(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    private static long mul(String s, long v, long f) {
        try {
            return Math.multiplyExact(v, f);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("value '" + s + "' is too large");
        }
    }
}
