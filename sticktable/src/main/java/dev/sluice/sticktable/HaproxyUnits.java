package dev.sluice.sticktable;

import java.util.Locale;

/**
 * HAProxy's time and size units, as the config module reads them (kept here too because the config
 * module depends on this one, not the reverse): a time is a non-negative integer with an optional unit
 * {@code us ms s m h d} (bare = milliseconds, microseconds round up), at most 2147483647 ms; a size takes
 * an optional {@code k m g} suffix in powers of 1024. Stateless.
 */
final class HaproxyUnits {
    /** HAProxy keeps times in 32-bit signed ticks. */
    static final long MAX_TIME_MS = Integer.MAX_VALUE;

    private HaproxyUnits() {
    }

    /** Milliseconds for {@code s}; {@code what} names the value in error messages. */
    static long parseTimeMillis(String s, String what) {
        int i = digits(s);
        if (i == 0) {
            throw new StickTableConfigException(what + " '" + s + "' is not a time: expected a number with an optional unit (us, ms, s, m, h, d)");
        }
        long v;
        try {
            v = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new StickTableConfigException(overflow(what, s));
        }
        String unit = s.substring(i);
        long ms = switch (unit) {
            case "", "ms" -> v;
            case "us" -> v / 1000 + (v % 1000 == 0 ? 0 : 1);
            case "s" -> mul(what, s, v, 1000L);
            case "m" -> mul(what, s, v, 60_000L);
            case "h" -> mul(what, s, v, 3_600_000L);
            case "d" -> mul(what, s, v, 86_400_000L);
            default -> throw new StickTableConfigException("unexpected character '" + unit.charAt(0) + "' in " + what + " '" + s
                    + "' (units are us, ms, s, m, h, d)");
        };
        if (ms > MAX_TIME_MS) {
            throw new StickTableConfigException(overflow(what, s));
        }
        return ms;
    }

    /** A count with an optional k/m/g suffix (powers of 1024). */
    static long parseSize(String s, String what) {
        int i = digits(s);
        if (i == 0) {
            throw new StickTableConfigException(what + " '" + s + "' is not a size: expected a number with an optional k, m or g suffix");
        }
        long v;
        try {
            v = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new StickTableConfigException(what + " '" + s + "' is too large");
        }
        return switch (s.substring(i).toLowerCase(Locale.ROOT)) {
            case "" -> v;
            case "k" -> mul(what, s, v, 1024L);
            case "m" -> mul(what, s, v, 1024L * 1024);
            case "g" -> mul(what, s, v, 1024L * 1024 * 1024);
            default -> throw new StickTableConfigException("unexpected suffix '" + s.substring(i) + "' in " + what + " '" + s
                    + "' (use k, m or g)");
        };
    }

    private static String overflow(String what, String s) {
        return "timer overflow in " + what + " '" + s + "': the maximum is 2147483647 ms (~24.8 days)";
    }

    private static int digits(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    private static long mul(String what, String s, long v, long f) {
        try {
            return Math.multiplyExact(v, f);
        } catch (ArithmeticException e) {
            throw new StickTableConfigException(what + " '" + s + "' is too large");
        }
    }
}
