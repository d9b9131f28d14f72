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

    /**
     * C's {@code atol}, which HAProxy uses for most numeric keywords: leading spaces, an optional sign and the digits that
     * follow; 0 when there are none ("x" is 0), saturated at the long range instead of overflowing.
     */
    public static long atol(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            int d = s.charAt(i) - '0';
            v = v > (Long.MAX_VALUE - d) / 10 ? Long.MAX_VALUE : v * 10 + d;
            i++;
        }
        return negative ? -v : v;
    }

    /** C's {@code atoi}: {@link #atol} truncated to an int as a 64-bit C library does it. */
    public static int atoi(String s) {
        return (int) atol(s);
    }

    /**
     * HAProxy's {@code parse_time_err}: a number and an optional unit ({@code us ms s m h d}), the bare number in
     * {@code unitMs} milliseconds (1000 for keywords counted in seconds). Returns the value in milliseconds, or throws
     * with the character where reading stopped ({@link BadTime#at}), or {@link BadTime#OVERFLOW} past 2^31-1 ms.
     */
    public static long parseTimeErr(String s, long unitMs) {
        int i = digits(s);
        if (i == 0) {
            throw new BadTime(s.isEmpty() ? 0 : s.charAt(0));
        }
        long v = Long.parseLong(s.substring(0, Math.min(i, 18)));
        String unit = s.substring(i);
        double ms = switch (unit) {
            case "" -> v * (double) unitMs;
            case "us" -> Math.ceil(v / 1000.0);
            case "ms" -> v;
            case "s" -> v * 1000.0;
            case "m" -> v * 60_000.0;
            case "h" -> v * 3_600_000.0;
            case "d" -> v * 86_400_000.0;
            default -> throw new BadTime(unit.charAt(unit.charAt(0) == 'm' || unit.charAt(0) == 'u' ? Math.min(1, unit.length() - 1) : 0));
        };
        if (ms > Integer.MAX_VALUE) {
            throw new BadTime(BadTime.OVERFLOW);
        }
        return (long) ms;
    }

    /** A time {@link #parseTimeErr} could not read: the character where it stopped, or {@link #OVERFLOW}. */
    public static final class BadTime extends IllegalArgumentException {
        public static final char OVERFLOW = '\uffff';
        private final char at;

        BadTime(char at) {
            super(at == OVERFLOW ? "overflow" : "unexpected character '" + at + "'");
            this.at = at;
        }

        public char at() {
            return at;
        }

        public boolean overflow() {
            return at == OVERFLOW;
        }
    }

    /** What {@link #strtol} read: the value, and where it stopped. */
    public record Strtol(long value, int end) {
    }

    /**
     * {@code strtol(s + from, &end, 0)}: blanks, a sign, then {@code 0x} and hexadecimal digits, a leading {@code 0} and
     * octal ones, or decimal ones; the end is {@code from} when no digit was read (C's "no conversion").
     */
    public static Strtol strtol(String s, int from) {
        int i = from;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean minus = false;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            minus = s.charAt(i) == '-';
            i++;
        }
        int radix = 10;
        if (s.startsWith("0x", i) || s.startsWith("0X", i)) {
            if (i + 2 < s.length() && Character.digit(s.charAt(i + 2), 16) >= 0) {
                radix = 16;
                i += 2;
            }
        } else if (s.startsWith("0", i)) {
            radix = 8;
        }
        int digits = i;
        long v = 0;
        while (i < s.length() && Character.digit(s.charAt(i), radix) >= 0) {
            v = v * radix + Character.digit(s.charAt(i), radix);
            i++;
        }
        return i == digits ? new Strtol(0, from) : new Strtol(minus ? -v : v, i);
    }
}
