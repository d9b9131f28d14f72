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

    /**
     * Milliseconds for {@code s}, the argument of {@code owner} ({@code expire}, or a rate type for its
     * period); errors use HAProxy's wording, plus the list of units.
     */
    static long parseTimeMillis(String s, String owner) {
        int i = digits(s);
        if (i == 0) {
            throw new StickTableConfigException(unexpected(s.isEmpty() ? "" : s.substring(0, 1), owner));
        }
        long v;
        try {
            v = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new StickTableConfigException(overflow(s, owner));
        }
        String unit = s.substring(i);
        long ms = switch (unit) {
            case "", "ms" -> v;
            case "us" -> v / 1000 + (v % 1000 == 0 ? 0 : 1);
            case "s" -> mul(s, owner, v, 1000L);
            case "m" -> mul(s, owner, v, 60_000L);
            case "h" -> mul(s, owner, v, 3_600_000L);
            case "d" -> mul(s, owner, v, 86_400_000L);
            default -> throw new StickTableConfigException(unexpected(unit.substring(0, 1), owner));
        };
        if (ms > MAX_TIME_MS) {
            throw new StickTableConfigException(overflow(s, owner));
        }
        return ms;
    }

    /** A count with an optional k/m/g suffix (powers of 1024), the argument of {@code owner}. */
    static long parseSize(String s, String owner) {
        int i = digits(s);
        String rest = s.substring(i);
        boolean suffix = rest.length() >= 1 && "kKmMgG".indexOf(rest.charAt(0)) >= 0;
        int bad = i == 0 ? 0 : rest.isEmpty() ? -1 : !suffix ? i : rest.length() > 1 ? i + 1 : -1;
        if (bad >= 0) {
            throw new StickTableConfigException(s.isEmpty() ? "missing value in argument of '" + owner + "'"
                    : "unexpected character '" + s.charAt(bad) + "' in argument of '" + owner + "' (suffixes are k, m, g)");
        }
        long v;
        try {
            v = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new StickTableConfigException("value '" + s + "' of '" + owner + "' is too large");
        }
        return switch (rest.toLowerCase(Locale.ROOT)) {
            case "k" -> mulSize(s, owner, v, 1024L);
            case "m" -> mulSize(s, owner, v, 1024L * 1024);
            case "g" -> mulSize(s, owner, v, 1024L * 1024 * 1024);
            default -> v;
        };
    }

    private static String unexpected(String c, String owner) {
        return c.isEmpty() ? "missing value in argument of '" + owner + "'"
                : "unexpected character '" + c + "' in argument of '" + owner + "' (units are us, ms, s, m, h, d)";
    }

    private static String overflow(String s, String owner) {
        return "timer overflow in argument <" + s + "> to <" + owner + ">, maximum value is 2147483647 ms (~24.8 days)";
    }

    private static long mul(String s, String owner, long v, long f) {
        try {
            return Math.multiplyExact(v, f);
        } catch (ArithmeticException e) {
            throw new StickTableConfigException(overflow(s, owner));
        }
    }

    private static long mulSize(String s, String owner, long v, long f) {
        try {
            return Math.multiplyExact(v, f);
        } catch (ArithmeticException e) {
            throw new StickTableConfigException("value '" + s + "' of '" + owner + "' is too large");
        }
    }

    private static int digits(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }
}
