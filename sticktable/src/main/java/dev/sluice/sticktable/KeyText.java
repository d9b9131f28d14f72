package dev.sluice.sticktable;

/**
 * Text forms of keys as HAProxy reads and prints them: strict dotted-quad IPv4 and RFC 4291 IPv6
 * literals (no host names, brackets or zone ids: the CLI must not resolve names or silently store
 * {@code 0.0.0.0}), IPv6 printed like glibc's {@code inet_ntop}, strings escaped like {@code dump_text},
 * binary as upper-case hex like {@code dump_binary}. Stateless.
 */
final class KeyText {
    private static final char[] HEX_UPPER = "0123456789ABCDEF".toCharArray();

    private KeyText() {
    }

    /** Four network-order bytes, or null when {@code s} is not a dotted quad. */
    static byte[] parseIpv4(String s) {
        byte[] out = new byte[4];
        int part = 0;
        int i = 0;
        int n = s.length();
        while (part < 4) {
            int start = i;
            int v = 0;
            while (i < n && i - start < 4 && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                v = v * 10 + (s.charAt(i) - '0');
                i++;
            }
            int len = i - start;
            if (len == 0 || len > 3 || v > 255 || (len > 1 && s.charAt(start) == '0')) {
                return null;
            }
            out[part++] = (byte) v;
            if (part < 4) {
                if (i >= n || s.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
        }
        return i == n ? out : null;
    }

    /**
     * HAProxy 2.6's {@code inetaddr_host}, which its CLI uses for {@code ip} table keys: up to four
     * dot-separated groups, each worth the number its last three digits (at most) make, added at its byte
     * position with carries ({@code 1.1.1.300} is {@code 1.1.2.44}); a group stops at the first non-digit,
     * missing groups are 0, so {@code 10} is {@code 10.0.0.0}, {@code 1.2.3.4x} is {@code 1.2.3.4} and
     * {@code abc} is {@code 0.0.0.0}. Never fails.
     */
    static int parseIpv4Lenient(String s) {
        int value = 0;
        int shift = 24;
        int i = 0;
        int n = s.length();
        for (;;) {
            int start = i;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
            }
            int group = 0;
            for (int d = Math.max(start, i - 3); d < i; d++) {
                group = group * 10 + (s.charAt(d) - '0');
            }
            value += group << shift;
            if (shift == 0 || i >= n || s.charAt(i) != '.') {
                return value;
            }
            shift -= 8;
            i++;
        }
    }

    /** Sixteen network-order bytes, or null when {@code s} is not an IPv6 literal. */
    static byte[] parseIpv6(String s) {
        int dbl = s.indexOf("::");
        if (s.isEmpty() || (dbl >= 0 && s.indexOf("::", dbl + 1) >= 0)) {
            return null;
        }
        int[] head = new int[10];
        int[] tail = new int[10];
        int nh;
        int nt = 0;
        if (dbl < 0) {
            nh = groups(s, head, true);
            if (nh != 8) {
                return null;
            }
        } else {
            String a = s.substring(0, dbl);
            String b = s.substring(dbl + 2);
            nh = a.isEmpty() ? 0 : groups(a, head, false);
            nt = b.isEmpty() ? 0 : groups(b, tail, true);
            if (nh < 0 || nt < 0 || nh + nt > 7) {
                return null;
            }
        }
        if (nh < 0) {
            return null;
        }
        int[] words = new int[8];
        System.arraycopy(head, 0, words, 0, nh);
        System.arraycopy(tail, 0, words, 8 - nt, nt);
        byte[] out = new byte[16];
        for (int w = 0; w < 8; w++) {
            out[2 * w] = (byte) (words[w] >>> 8);
            out[2 * w + 1] = (byte) words[w];
        }
        return out;
    }

    /** Parses colon-separated hex groups (the last may be a dotted quad if allowed); returns the count or -1. */
    private static int groups(String s, int[] out, boolean ipv4Last) {
        String[] parts = s.split(":", -1);
        int n = 0;
        for (int p = 0; p < parts.length; p++) {
            String g = parts[p];
            if (ipv4Last && p == parts.length - 1 && g.indexOf('.') >= 0) {
                byte[] v4 = parseIpv4(g);
                if (v4 == null || n + 2 > 8) {
                    return -1;
                }
                out[n++] = (v4[0] & 0xFF) << 8 | (v4[1] & 0xFF);
                out[n++] = (v4[2] & 0xFF) << 8 | (v4[3] & 0xFF);
                continue;
            }
            if (g.isEmpty() || g.length() > 4 || n >= 8) {
                return -1;
            }
            int v = 0;
            for (int i = 0; i < g.length(); i++) {
                int d = Character.digit(g.charAt(i), 16);
                if (d < 0) {
                    return -1;
                }
                v = v << 4 | d;
            }
            out[n++] = v;
        }
        return n;
    }

    static void appendIpv4(StringBuilder sb, StickKey k, int from) {
        sb.append(k.byteAt(from)).append('.').append(k.byteAt(from + 1)).append('.')
                .append(k.byteAt(from + 2)).append('.').append(k.byteAt(from + 3));
    }

    /** glibc {@code inet_ntop(AF_INET6)}: longest run (first on ties) of two or more zero words as "::". */
    static void appendIpv6(StringBuilder sb, StickKey k) {
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = k.byteAt(2 * i) << 8 | k.byteAt(2 * i + 1);
        }
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i < 8; i++) {
            if (w[i] == 0) {
                if (curBase < 0) {
                    curBase = i;
                    curLen = 1;
                } else {
                    curLen++;
                }
            } else if (curBase >= 0) {
                if (curLen > bestLen) {
                    bestBase = curBase;
                    bestLen = curLen;
                }
                curBase = -1;
            }
        }
        if (curBase >= 0 && curLen > bestLen) {
            bestBase = curBase;
            bestLen = curLen;
        }
        if (bestLen < 2) {
            bestBase = -1;
        }
        for (int i = 0; i < 8; i++) {
            if (bestBase >= 0 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && w[5] == 0xffff))) {
                appendIpv4(sb, k, 12);
                return;
            }
            sb.append(Integer.toHexString(w[i]));
        }
        if (bestBase >= 0 && bestBase + bestLen == 8) {
            sb.append(':');
        }
    }

    /**
     * HAProxy's {@code dump_text}: printable ASCII as is, except space, {@code =} and backslash, which are
     * escaped with a backslash like tab, LF, CR and ESC ({@code \t \n \r \e}); other bytes as {@code \xHH}.
     * Stops at a NUL byte, as the C string it prints would.
     */
    static void appendText(StringBuilder sb, StickKey k) {
        for (int i = 0; i < k.length(); i++) {
            int c = k.byteAt(i);
            if (c == 0) {
                return;
            }
            if (c > 0x20 && c < 0x7F && c != '\\' && c != '=') {
                sb.append((char) c);
            } else if (c == ' ' || c == '=' || c == '\\') {
                sb.append('\\').append((char) c);
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c == 0x1B) {
                sb.append("\\e");
            } else {
                sb.append("\\x").append(HEX_UPPER[c >>> 4]).append(HEX_UPPER[c & 0xF]);
            }
        }
    }

    /** HAProxy's {@code dump_binary}: every byte as two upper-case hex digits. */
    static void appendHex(StringBuilder sb, StickKey k) {
        for (int i = 0; i < k.length(); i++) {
            int c = k.byteAt(i);
            sb.append(HEX_UPPER[c >>> 4]).append(HEX_UPPER[c & 0xF]);
        }
    }

    /** A key as {@code show table} prints it after {@code key=}. */
    static String format(KeyType type, StickKey k) {
        StringBuilder sb = new StringBuilder();
        append(sb, type, k);
        return sb.toString();
    }

    static void append(StringBuilder sb, KeyType type, StickKey k) {
        switch (type) {
            case IP -> appendIpv4(sb, k, 0);
            case IPV6 -> appendIpv6(sb, k);
            case INTEGER -> sb.append(Integer.toUnsignedString(k.int32()));
            case STRING -> appendText(sb, k);
            case BINARY -> appendHex(sb, k);
        }
    }
}
