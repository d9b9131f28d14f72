package dev.sluice.sticktable;

import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * Turns samples and CLI text into keys of a table's type, applying HAProxy's casts: truncation of
 * strings, zero-padding of binary keys, the low 32 bits of integers, IPv4/IPv6 mapping. Stateless; used
 * through {@link StickTable}'s {@code keyOf...} and {@code parseKey} methods.
 */
final class TableKeys {
    private TableKeys() {
    }

    static StickKey ofString(StickTableSpec spec, CharSequence s) {
        return switch (spec.keyType()) {
            case STRING -> StickKey.string(s, spec.keyLength());
            case BINARY -> StickKey.binary(StickKey.textBytes(s), spec.keyLength());
            default -> parse(spec, s.toString());
        };
    }

    static StickKey ofBytes(StickTableSpec spec, byte[] b) {
        return switch (spec.keyType()) {
            case STRING -> StickKey.string(b, spec.keyLength());
            case BINARY -> StickKey.binary(b, spec.keyLength());
            case IP, INTEGER -> b.length == 4 ? StickKey.ipv4(b) : null;
            case IPV6 -> b.length == 16 ? StickKey.ipv6(b) : null;
        };
    }

    static StickKey ofInteger(StickTableSpec spec, long v) {
        return switch (spec.keyType()) {
            case INTEGER -> StickKey.integer(v);
            case IP -> StickKey.ipv4((int) v);
            case IPV6 -> ofAddressBytes(spec, StickKey.ipv4((int) v).bytes());
            case STRING -> StickKey.string(Long.toString(v), spec.keyLength());
            case BINARY -> {
                byte[] b = new byte[8];
                for (int i = 0; i < 8; i++) {
                    b[i] = (byte) (v >>> (56 - 8 * i));
                }
                yield StickKey.binary(b, spec.keyLength());
            }
        };
    }

    static StickKey ofAddress(StickTableSpec spec, InetAddress a) {
        byte[] b = a.getAddress();
        return switch (spec.keyType()) {
            case IP, IPV6 -> ofAddressBytes(spec, b);
            case STRING -> StickKey.string(KeyText.format(b.length == 4 ? KeyType.IP : KeyType.IPV6,
                    b.length == 4 ? StickKey.ipv4(b) : StickKey.ipv6(b)), spec.keyLength());
            case INTEGER, BINARY -> a instanceof Inet4Address ? ofBytes(spec, b) : null;
        };
    }

    private static StickKey ofAddressBytes(StickTableSpec spec, byte[] b) {
        if (spec.keyType() == KeyType.IP) {
            if (b.length == 4) {
                return StickKey.ipv4(b);
            }
            for (int i = 0; i < 10; i++) {
                if (b[i] != 0) {
                    return null;
                }
            }
            return (b[10] & b[11] & 0xFF) == 0xFF ? StickKey.ipv4(new byte[] {b[12], b[13], b[14], b[15]}) : null;
        }
        if (b.length == 16) {
            return StickKey.ipv6(b);
        }
        byte[] m = new byte[16];
        m[10] = (byte) 0xFF;
        m[11] = (byte) 0xFF;
        System.arraycopy(b, 0, m, 12, 4);
        return StickKey.ipv6(m);
    }

    static StickKey parse(StickTableSpec spec, String text) {
        return switch (spec.keyType()) {
            case IP -> {
                byte[] b = KeyText.parseIpv4(text);
                yield b == null ? null : StickKey.ipv4(b);
            }
            case IPV6 -> {
                byte[] b = KeyText.parseIpv6(text);
                yield b == null ? null : StickKey.ipv6(b);
            }
            case INTEGER -> {
                long v = parseUnsigned32(text);
                yield v < 0 ? null : StickKey.integer(v);
            }
            case STRING -> StickKey.string(text, spec.keyLength());
            case BINARY -> null;
        };
    }

    /**
     * A key typed on the admin socket, read as HAProxy 2.6 reads it: {@code ip} keys with its lenient
     * {@code inetaddr_host} (never invalid), {@code ipv6} keys with {@code inet_pton} (null when invalid),
     * {@code integer} keys with {@code strtoul} (leading blanks and a sign allowed, digits up to the first
     * other character; null without any digit or beyond 2^32 - 1), strings truncated to {@code len}; null
     * for binary tables, which the CLI cannot address.
     */
    static StickKey parseCli(StickTableSpec spec, String text) {
        return switch (spec.keyType()) {
            case IP -> StickKey.ipv4(KeyText.parseIpv4Lenient(text));
            case IPV6 -> {
                byte[] b = KeyText.parseIpv6(text);
                yield b == null ? null : StickKey.ipv6(b);
            }
            case INTEGER -> {
                long v = strtoul32(text);
                yield v < 0 ? null : StickKey.integer(v);
            }
            case STRING -> StickKey.string(text, spec.keyLength());
            case BINARY -> null;
        };
    }

    /**
     * C's {@code strtoul(s, &end, 10)} on a 64-bit system with HAProxy's checks: the value when some digit
     * was read and it fits in 32 bits, else -1. A minus sign negates modulo 2^64, so any non-zero negative
     * number is out of range.
     */
    static long strtoul32(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && isCSpace(s.charAt(i))) {
            i++;
        }
        boolean neg = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        int start = i;
        long v = 0;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            if (v <= 0xFFFF_FFFFL) {
                v = v * 10 + (s.charAt(i) - '0');
            }
            i++;
        }
        if (i == start || v > 0xFFFF_FFFFL || (neg && v != 0)) {
            return -1;
        }
        return v;
    }

    private static boolean isCSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /** A decimal in [0, 2^32), or -1 (strict: digits only). */
    private static long parseUnsigned32(String s) {
        if (s.isEmpty() || s.length() > 10) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v > 0xFFFF_FFFFL ? -1 : v;
    }
}
