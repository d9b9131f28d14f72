package dev.sluice.proxy.rules;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ACL match methods ({@code -m str|beg|end|sub|reg|found|len|int|ip|dom|dir|bool|bin}) and the compilation
 * of their patterns into a predicate over samples. Patterns are prepared once (sets, compiled regexes,
 * parsed networks and ranges). {@code BIN} patterns are hex strings compared with the sample's bytes; {@code VER}
 * is no {@code -m} method but the default of the {@code req.ssl_ver} ACL: integers written as dotted versions
 * ({@code 3.1}, ranges {@code 3.1:3.3}).
 */
public enum Match {
    STR, BEG, END, SUB, REG, FOUND, LEN, INT, IP, DOM, DIR, BOOL, BIN, VER;

    public static Match of(String m) {
        if (m.equals("ver")) {
            return null;
        }
        try {
            return valueOf(m.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Compiles {@code patterns}; throws {@link IllegalArgumentException} for a bad pattern. */
    public Predicate<Object> compile(List<String> patterns, boolean ignoreCase) {
        switch (this) {
            case FOUND -> {
                return v -> true;
            }
            case BOOL -> {
                return Samples::bool;
            }
            case INT, LEN -> {
                List<long[]> ranges = new ArrayList<>();
                for (int i = 0; i < patterns.size(); i++) {
                    String p = patterns.get(i);
                    String op = p;
                    if (List.of("eq", "ne", "lt", "le", "gt", "ge").contains(op)) {
                        if (i + 1 >= patterns.size()) {
                            throw new IllegalArgumentException("missing value after operator '" + op + "'");
                        }
                        long n = number(patterns.get(++i));
                        ranges.add(switch (op) {
                            case "eq" -> new long[] {n, n, 0};
                            case "ne" -> new long[] {n, n, 1};
                            case "lt" -> new long[] {Long.MIN_VALUE, n - 1, 0};
                            case "le" -> new long[] {Long.MIN_VALUE, n, 0};
                            case "gt" -> new long[] {n + 1, Long.MAX_VALUE, 0};
                            default -> new long[] {n, Long.MAX_VALUE, 0};
                        });
                    } else {
                        int colon = p.indexOf(':');
                        if (colon < 0) {
                            long n = number(p);
                            ranges.add(new long[] {n, n, 0});
                        } else {
                            long lo = colon == 0 ? Long.MIN_VALUE : number(p.substring(0, colon));
                            long hi = colon == p.length() - 1 ? Long.MAX_VALUE : number(p.substring(colon + 1));
                            ranges.add(new long[] {lo, hi, 0});
                        }
                    }
                }
                boolean len = this == LEN;
                return v -> {
                    Long x = len ? (Long) (long) lengthOf(v) : Samples.integer(v);
                    if (x == null) {
                        return false;
                    }
                    for (long[] r : ranges) {
                        boolean in = x >= r[0] && x <= r[1];
                        if (r[2] == 1 ? !in : in) {
                            return true;
                        }
                    }
                    return false;
                };
            }
            case BIN -> {
                byte[][] bins = new byte[patterns.size()][];
                for (int i = 0; i < bins.length; i++) {
                    bins[i] = hex(patterns.get(i));
                }
                return v -> {
                    for (byte[] b : bins) {
                        if (sameBytes(v, b)) {
                            return true;
                        }
                    }
                    return false;
                };
            }
            case VER -> {
                long[][] ranges = new long[patterns.size()][];
                for (int i = 0; i < ranges.length; i++) {
                    ranges[i] = dottedRange(patterns.get(i));
                }
                return v -> {
                    Long x = Samples.integer(v);
                    if (x == null) {
                        return false;
                    }
                    for (long[] r : ranges) {
                        if (x >= r[0] && x <= r[1]) {
                            return true;
                        }
                    }
                    return false;
                };
            }
            case IP -> {
                List<Network> nets = new ArrayList<>();
                for (String p : patterns) {
                    nets.add(Network.parse(p));
                }
                return v -> {
                    InetAddress a = Samples.ip(v);
                    if (a == null) {
                        return false;
                    }
                    for (Network n : nets) {
                        if (n.contains(a)) {
                            return true;
                        }
                    }
                    return false;
                };
            }
            case REG -> {
                List<Pattern> res = new ArrayList<>();
                for (String p : patterns) {
                    res.add(Pattern.compile(p, ignoreCase ? Pattern.CASE_INSENSITIVE : 0));
                }
                // one matcher per pattern and thread, reset for each sample: no Matcher made per test
                List<ThreadLocal<Matcher>> matchers = new ArrayList<>();
                for (Pattern r : res) {
                    matchers.add(ThreadLocal.withInitial(() -> r.matcher("")));
                }
                @SuppressWarnings("unchecked")
                ThreadLocal<Matcher>[] ms = matchers.toArray(new ThreadLocal[0]);
                return v -> {
                    CharSequence s = Samples.str(v);
                    if (s == null) {
                        return false;
                    }
                    for (ThreadLocal<Matcher> tl : ms) {
                        Matcher m = tl.get().reset(s);
                        boolean found = m.find();
                        // not keeping the sample (a view of a request head) past the test
                        m.reset("");
                        if (found) {
                            return true;
                        }
                    }
                    return false;
                };
            }
            case STR -> {
                Set<String> set = new HashSet<>();
                for (String p : patterns) {
                    set.add(ignoreCase ? p.toLowerCase(Locale.ROOT) : p);
                }
                if (set.size() <= SMALL) {
                    // a few patterns: compared in place, no string made from the sample
                    String[] few = set.toArray(new String[0]);
                    return v -> {
                        CharSequence s = Samples.str(v);
                        if (s == null) {
                            return false;
                        }
                        for (String p : few) {
                            if (s.length() == p.length() && regionMatches(s, 0, p, ignoreCase)) {
                                return true;
                            }
                        }
                        return false;
                    };
                }
                return v -> {
                    CharSequence s = Samples.str(v);
                    if (s == null) {
                        return false;
                    }
                    String k = s.toString();
                    return set.contains(ignoreCase ? k.toLowerCase(Locale.ROOT) : k);
                };
            }
            default -> {
                List<String> ps = new ArrayList<>();
                for (String p : patterns) {
                    ps.add(ignoreCase ? p.toLowerCase(Locale.ROOT) : p);
                }
                Match m = this;
                if (this == DOM || this == DIR) {
                    String delims = this == DOM ? "/?.:" : "/?";
                    // the patterns without the delimiters around them, once; one that is nothing but delimiters never matches
                    List<String> words = new ArrayList<>();
                    for (String p : ps) {
                        int a = 0;
                        int b = p.length();
                        while (a < b && delims.indexOf(p.charAt(a)) >= 0) {
                            a++;
                        }
                        while (b > a && delims.indexOf(p.charAt(b - 1)) >= 0) {
                            b--;
                        }
                        if (a < b) {
                            words.add(p.substring(a, b));
                        }
                    }
                    String[] ws = words.toArray(new String[0]);
                    return v -> {
                        CharSequence cs = Samples.str(v);
                        if (cs == null) {
                            return false;
                        }
                        for (String w : ws) {
                            if (delimited(cs, w, delims, ignoreCase)) {
                                return true;
                            }
                        }
                        return false;
                    };
                }
                // beg, end, sub
                String[] ps2 = ps.toArray(new String[0]);
                return v -> {
                    CharSequence cs = Samples.str(v);
                    if (cs == null) {
                        return false;
                    }
                    for (String p : ps2) {
                        if (m.inPlace(cs, p, ignoreCase)) {
                            return true;
                        }
                    }
                    return false;
                };
            }
        }
    }

    /** Up to this many {@code str} patterns are compared one by one instead of through a hash set. */
    private static final int SMALL = 8;

    /** {@code beg}, {@code end} and {@code sub} on the sample as it is (no string made from it). */
    private boolean inPlace(CharSequence s, String p, boolean ignoreCase) {
        int n = s.length();
        int k = p.length();
        if (k > n) {
            return false;
        }
        return switch (this) {
            case BEG -> regionMatches(s, 0, p, ignoreCase);
            case END -> regionMatches(s, n - k, p, ignoreCase);
            default -> {
                for (int i = 0; i + k <= n; i++) {
                    if (regionMatches(s, i, p, ignoreCase)) {
                        yield true;
                    }
                }
                yield false;
            }
        };
    }

    /** Whether {@code s} holds {@code p} at {@code at}; with {@code ignoreCase}, {@code p} is lower case already. */
    private static boolean regionMatches(CharSequence s, int at, String p, boolean ignoreCase) {
        for (int i = 0; i < p.length(); i++) {
            char c = s.charAt(at + i);
            char q = p.charAt(i);
            if (c != q && !(ignoreCase && (c >= 'A' && c <= 'Z' ? c + 32 == q : c >= 0x80 && Character.toLowerCase(c) == q))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code word} appears in {@code s} as a whole element between delimiters: HAProxy's {@code match_word},
     * with "/?" for dir and "/?.:" for dom ({@code word} is the pattern without the delimiters around it, lower case
     * already with {@code ignoreCase}). Compared in place.
     */
    private static boolean delimited(CharSequence s, String word, String delims, boolean ignoreCase) {
        int n = s.length();
        int k = word.length();
        for (int i = 0; i + k <= n; i++) {
            if ((i == 0 || delims.indexOf(s.charAt(i - 1)) >= 0) && (i + k == n || delims.indexOf(s.charAt(i + k)) >= 0)
                    && regionMatches(s, i, word, ignoreCase)) {
                return true;
            }
        }
        return false;
    }

    /** A {@code -m bin} pattern: hex digits, two per byte (HAProxy's parse_binary and its messages). */
    private static byte[] hex(String p) {
        if (p.length() % 2 != 0) {
            throw new IllegalArgumentException("an even number of hex digit is expected");
        }
        byte[] out = new byte[p.length() / 2];
        for (int i = 0; i < p.length(); i++) {
            int d = Character.digit(p.charAt(i), 16);
            if (d < 0 || p.charAt(i) > 0x7f) {
                throw new IllegalArgumentException("an hex digit is expected (found '" + p.charAt(i) + "')");
            }
            out[i / 2] = (byte) (out[i / 2] << 4 | d);
        }
        return out;
    }

    /** Whether sample {@code v} is exactly the bytes {@code b} (a string sample's characters read as ISO-8859-1). */
    private static boolean sameBytes(Object v, byte[] b) {
        if (v instanceof byte[] a) {
            return Arrays.equals(a, b);
        }
        if (v instanceof ByteBufChars c) {
            return c.contentEquals(b);
        }
        CharSequence s = Samples.str(v);
        if (s == null || s.length() != b.length) {
            return false;
        }
        for (int i = 0; i < b.length; i++) {
            if (s.charAt(i) != (b[i] & 0xff)) {
                return false;
            }
        }
        return true;
    }

    /**
     * A {@code req.ssl_ver} pattern, HAProxy's pat_parse_dotted_ver: {@code major[.minor]} is {@code major << 16 | minor},
     * alone or as a range with {@code :} or {@code -} ({@code 3.1:}, {@code :3.3}, {@code 3.1-3.3}).
     */
    private static long[] dottedRange(String p) {
        int sep = 0;
        while (sep < p.length() && p.charAt(sep) != ':' && p.charAt(sep) != '-') {
            sep++;
        }
        if (sep == p.length() && sep > 0) {
            long v = dotted(p, "'" + p + "' is not a dotted number");
            return new long[] {v, v};
        }
        String bad = "'" + p + "' is not a valid dotted number range";
        if (sep == 0 && p.length() > 1) {
            return new long[] {Long.MIN_VALUE, dotted(p.substring(1), bad)};
        }
        if (sep == p.length() - 1) {
            return new long[] {dotted(p.substring(0, sep), bad), Long.MAX_VALUE};
        }
        long lo = dotted(p.substring(0, sep), bad);
        long hi = dotted(p.substring(sep + 1), bad);
        if (lo > hi) {
            throw new IllegalArgumentException(bad);
        }
        return new long[] {lo, hi};
    }

    /** {@code major[.minor]}, each below 65536 (strl2llrc_dotted). */
    private static long dotted(String s, String error) {
        int dot = s.indexOf('.');
        try {
            long major = Long.parseLong(dot < 0 ? s : s.substring(0, dot));
            long minor = dot < 0 ? 0 : Long.parseLong(s.substring(dot + 1));
            if (major < 65536 && minor < 65536) {
                return major << 16 | minor & 0xffff;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(error);
    }

    private static int lengthOf(Object v) {
        if (v instanceof byte[] b) {
            return b.length;
        }
        CharSequence s = Samples.str(v);
        return s == null ? 0 : s.length();
    }

    private static long number(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + s + "' is not a number");
        }
    }
}
