package dev.sluice.proxy.rules;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code json_query(<json_path>[,int])}, {@code jwt_header_query([<json_path>[,int]])} and
 * {@code jwt_payload_query(...)}, as HAProxy 2.6 computes them with its bundled mjson: the same tokenizer (its number
 * syntax, a depth of 20, a document that must be complete), the same path walk ({@code $}, {@code .key} with
 * backslash-escaped characters, {@code [index]}), the same answers (a number as C's {@code %g} prints it, or with
 * {@code int} an integer read as {@code strtoll(.., 0)} within the 53-bit range; true and false as booleans; a string
 * unescaped, a "backslash u00XX" escape only; no sample for null, arrays, objects or nothing found). The JWT converters query
 * the base64url-decoded first or second dot-separated part of the token (without a path, HAProxy 2.6 gives no sample).
 */
final class JsonQuery {
    private JsonQuery() {
    }

    static final int TOK_INVALID = 0;
    static final int TOK_KEY = 1;
    static final int TOK_STRING = 11;
    static final int TOK_NUMBER = 12;
    static final int TOK_TRUE = 13;
    static final int TOK_FALSE = 14;
    static final int TOK_NULL = 15;
    private static final int MAX_DEPTH = 20;
    private static final int INVALID = -1;
    /** JSON_INT_MAX: the largest integer RFC 7159 calls interoperable. */
    private static final long INT_MAX = (1L << 53) - 1;
    /** What HAProxy's trash buffer holds (tune.bufsize): a longer unescaped string gives no sample. */
    private static final int OUT_MAX = 16384;

    static void register() {
        Converters.def("json_query", 1, 2, a -> {
            if (a.get(0).isEmpty()) {
                throw new IllegalArgumentException("json_path must not be empty");
            }
            boolean integer = outputInt(a);
            String path = a.get(0);
            return (t, v) -> query(Samples.bytes(v), path, integer);
        });
        Converters.def("jwt_header_query", 0, 2, a -> jwt(a, 0));
        Converters.def("jwt_payload_query", 0, 2, a -> jwt(a, 1));
    }

    private static boolean outputInt(List<String> a) {
        if (a.size() < 2 || a.get(1).isEmpty()) {
            return false;
        }
        if (!a.get(1).equals("int")) {
            throw new IllegalArgumentException("output_type only supports \"int\" as argument");
        }
        return true;
    }

    private static Converter jwt(List<String> a, int member) {
        boolean integer = outputInt(a);
        String path = a.isEmpty() || a.get(0).isEmpty() ? null : a.get(0);
        return (t, v) -> {
            byte[] decoded = jwtMember(Samples.bytes(v), member);
            if (decoded == null) {
                return null;
            }
            // without a path HAProxy 2.6 sets the decoded part as the sample but answers 0 (retval is never set on that
            // path): no sample, whatever its documentation says
            return path == null ? null : query(decoded, path, integer);
        };
    }

    /**
     * jwt_tokenize then base64urldec: the part before the first dot (member 0, the whole token without one), or between
     * the first and the second (member 1, the rest without a second dot; nothing without a first); null when it does
     * not decode.
     */
    static byte[] jwtMember(byte[] token, int member) {
        int from = 0;
        for (int m = 0; m < member; m++) {
            int dot = indexOf(token, (byte) '.', from);
            if (dot < 0) {
                return null;
            }
            from = dot + 1;
        }
        int end = indexOf(token, (byte) '.', from);
        return Samples.base64url(new String(token, from, (end < 0 ? token.length : end) - from, StandardCharsets.ISO_8859_1));
    }

    private static int indexOf(byte[] b, byte c, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** sample_conv_json_query on {@code json}. */
    static Object query(byte[] json, String path, boolean integer) {
        long found = find(json, path);
        int tok = (int) (found >>> 56);
        int off = (int) (found >>> 28) & 0xFFFFFFF;
        int len = (int) found & 0xFFFFFFF;
        switch (tok) {
            case TOK_NUMBER -> {
                if (integer) {
                    long n = strtoll(json, off, off + len);
                    return n < -INT_MAX || n > INT_MAX ? null : (Object) n;
                }
                return percentG(strtod(json, off, json.length)[0]);
            }
            case TOK_TRUE -> {
                return Boolean.TRUE;
            }
            case TOK_FALSE -> {
                return Boolean.FALSE;
            }
            case TOK_STRING -> {
                return unescape(json, off + 1, len - 2);
            }
            default -> {
                return null;
            }
        }
    }

    /** mjson_find: the token the path names, packed as (token type, offset, length), or 0 for none. */
    static long find(byte[] s, String path) {
        if (path.isEmpty() || path.charAt(0) != '$') {
            return 0;
        }
        Walk w = new Walk(path);
        if (parse(s, w) < 0 || w.tok == TOK_INVALID) {
            return 0;
        }
        return (long) w.tok << 56 | (long) w.off << 28 | w.len;
    }

    /** mjson_get_cb's state. */
    private static final class Walk {
        final String path;
        int pos = 1;
        int d1;
        int d2;
        int i1;
        int i2;
        int obj = -1;
        int tok = TOK_INVALID;
        int off;
        int len;

        Walk(String path) {
            this.path = path;
        }

        /** The path's character at {@code i}, 0 past its end (a C string). */
        int p(int i) {
            return i < path.length() ? path.charAt(i) : 0;
        }

        /** The callback: true to stop the parse. */
        boolean on(int t, byte[] s, int o, int l) {
            if (tok != TOK_INVALID) {
                return true;
            }
            if (t == '{') {
                if (p(pos) == 0 && d1 == d2) {
                    obj = o;
                }
                d1++;
            } else if (t == '[') {
                if (d1 == d2 && p(pos) == '[') {
                    i1 = 0;
                    i2 = (int) strtod(path.getBytes(StandardCharsets.ISO_8859_1), pos + 1, path.length())[0];
                    if (i1 == i2) {
                        d2++;
                        pos += 3;
                    }
                }
                if (p(pos) == 0 && d1 == d2) {
                    obj = o;
                }
                d1++;
            } else if (t == ',') {
                if (d1 == d2 + 1) {
                    i1++;
                    if (i1 == i2) {
                        while (p(pos) != ']') {
                            pos++;
                        }
                        pos++;
                        d2++;
                    }
                }
            } else if (t == TOK_KEY && d1 == d2 + 1 && p(pos) == '.' && s[o] == '"' && s[o + l - 1] == '"'
                    && keyLength(pos + 1) == l - 2 && keyEquals(s, o + 1, pos + 1, l - 2)) {
                d2++;
                pos += keyChars(pos + 1) + 1;
            } else if (t == TOK_KEY && d1 == d2) {
                return true;
            } else if (t == '}' || t == ']') {
                d1--;
                if (p(pos) == 0 && d1 == d2 && obj != -1) {
                    tok = t - 2;
                    off = obj;
                    len = o - obj + 1;
                    return true;
                }
            } else if (t > 10 && t < 20) {
                if (d1 == d2 && p(pos) == 0) {
                    tok = t;
                    off = o;
                    len = l;
                    return true;
                }
            }
            return false;
        }

        /** plen1: the path key's length, a backslash and the character after it counting one. */
        private int keyLength(int i) {
            int n = 0;
            while (p(i) != 0 && p(i) != '.' && p(i) != '[') {
                n++;
                i += p(i) == '\\' ? 2 : 1;
            }
            return n;
        }

        /** plen2: the characters the path key spans. */
        private int keyChars(int i) {
            int start = i;
            while (p(i) != 0 && p(i) != '.' && p(i) != '[') {
                i += p(i) == '\\' ? 2 : 1;
            }
            return i - start;
        }

        /** kcmp: the document's key against the path's, backslashes in the path skipped. */
        private boolean keyEquals(byte[] s, int a, int b, int n) {
            for (int i = b, j = 0; j < n; i++, j++) {
                if (p(i) == '\\') {
                    i++;
                }
                if ((s[a + j] & 0xff) != p(i)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** mjson(): the tokenizer, calling {@code w} for each token; the offset after the document, or negative. */
    private static int parse(byte[] s, Walk w) {
        final int value = 0;
        final int key = 1;
        final int colon = 2;
        final int commaOrEnd = 3;
        int expecting = value;
        int[] nesting = new int[MAX_DEPTH];
        int[] depth = {0};
        int len = s.length;
        for (int i = 0; i < len; i++) {
            int start = i;
            int c = s[i] & 0xff;
            int tok = c;
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                continue;
            }
            switch (expecting) {
                case value -> {
                    if (c == '{' || c == '[') {
                        if (depth[0] >= MAX_DEPTH) {
                            return INVALID;
                        }
                        nesting[depth[0]++] = c;
                        if (c == '{') {
                            expecting = key;
                        }
                        break;
                    } else if (c == ']' && depth[0] > 0) {
                        int r = close(c, nesting, depth, s, w, start, i);
                        if (r != GO_ON) {
                            return r;
                        }
                    } else if (c == 't' && i + 3 < len && matches(s, i, "true")) {
                        i += 3;
                        tok = TOK_TRUE;
                    } else if (c == 'n' && i + 3 < len && matches(s, i, "null")) {
                        i += 3;
                        tok = TOK_NULL;
                    } else if (c == 'f' && i + 4 < len && matches(s, i, "false")) {
                        i += 4;
                        tok = TOK_FALSE;
                    } else if (c == '-' || c >= '0' && c <= '9') {
                        i += (int) strtod(s, i, len)[1] - i - 1;
                        tok = TOK_NUMBER;
                    } else if (c == '"') {
                        int n = passString(s, i + 1, len);
                        if (n < 0) {
                            return n;
                        }
                        i += n + 1;
                        tok = TOK_STRING;
                    } else {
                        return INVALID;
                    }
                    if (depth[0] == 0) {
                        w.on(tok, s, start, i - start + 1);
                        return i + 1;
                    }
                    expecting = commaOrEnd;
                }
                case key -> {
                    if (c == '"') {
                        int n = passString(s, i + 1, len);
                        if (n < 0) {
                            return n;
                        }
                        i += n + 1;
                        tok = TOK_KEY;
                        expecting = colon;
                    } else if (c == '}') {
                        int r = close(c, nesting, depth, s, w, start, i);
                        if (r != GO_ON) {
                            return r;
                        }
                        expecting = commaOrEnd;
                    } else {
                        return INVALID;
                    }
                }
                case colon -> {
                    if (c != ':') {
                        return INVALID;
                    }
                    expecting = value;
                }
                default -> {
                    if (depth[0] <= 0) {
                        return INVALID;
                    }
                    if (c == ',') {
                        expecting = nesting[depth[0] - 1] == '{' ? key : value;
                    } else if (c == ']' || c == '}') {
                        int r = close(c, nesting, depth, s, w, start, i);
                        if (r != GO_ON) {
                            return r;
                        }
                    } else {
                        return INVALID;
                    }
                }
            }
            if (w.on(tok, s, start, i - start + 1)) {
                return i + 1;
            }
        }
        return INVALID;
    }

    /** What {@link #close} answers when the parse goes on. */
    private static final int GO_ON = Integer.MIN_VALUE;

    /**
     * mjson's MJSONEOO: {@code c} at {@code i} closes the innermost container ({@code depth[0]} deep): INVALID when it
     * does not match it, the offset after the document when it was the outermost (the callback told), else {@link #GO_ON}.
     */
    private static int close(int c, int[] nesting, int[] depth, byte[] s, Walk w, int start, int i) {
        if (c != nesting[depth[0] - 1] + 2) {
            return INVALID;
        }
        if (--depth[0] == 0) {
            w.on(c, s, start, i - start + 1);
            return i + 1;
        }
        return GO_ON;
    }

    private static boolean matches(byte[] s, int i, String word) {
        for (int k = 0; k < word.length(); k++) {
            if (s[i + k] != word.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** mjson_pass_string: the offset of the closing quote from {@code from}, or negative. */
    private static int passString(byte[] s, int from, int len) {
        for (int i = 0; from + i < len; i++) {
            int c = s[from + i];
            if (c == '\\' && from + i + 1 < len && escape(s[from + i + 1], true) != 0) {
                i++;
            } else if (c == 0) {
                return INVALID;
            } else if (c == '"') {
                return i;
            }
        }
        return INVALID;
    }

    private static final String RAW = "\b\f\n\r\t\\\"";
    private static final String ESCAPED = "bfnrt\\\"";

    /** mjson_esc: the escape letter of a raw character ({@code toEscape}), or the raw character of a letter; 0 for none. */
    private static int escape(int c, boolean toEscape) {
        String from = toEscape ? RAW : ESCAPED;
        int i = from.indexOf(c);
        return i < 0 || c == 0 ? 0 : (toEscape ? ESCAPED : RAW).charAt(i);
    }

    /** mjson_unescape of a string token's content; null where HAProxy's gives -1. */
    private static String unescape(byte[] s, int off, int len) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < len && out.length() < OUT_MAX; i++) {
            int c = s[off + i] & 0xff;
            if (c == '\\' && i + 5 < len && s[off + i + 1] == 'u') {
                if (s[off + i + 2] != '0' || s[off + i + 3] != '0') {
                    return null;
                }
                out.append((char) (nibble(s[off + i + 4]) << 4 | nibble(s[off + i + 5])));
                i += 5;
            } else if (c == '\\' && i + 1 < len) {
                int r = escape(s[off + i + 1], false);
                if (r == 0) {
                    return null;
                }
                out.append((char) r);
                i++;
            } else {
                out.append((char) c);
            }
        }
        return out.length() >= OUT_MAX ? null : out.toString();
    }

    /** mjson_unhex_nimble's digit: 0-9, A-F, and anything else as a lower-case letter. */
    private static int nibble(int c) {
        return (c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - '7' : c - 'W') & 0xf;
    }

    /** mystrtod: {value, end offset}; the end is {@code from} when no number was read. */
    static double[] strtod(byte[] s, int from, int len) {
        int p = from;
        int a = from;
        double d = 0;
        int sign = 1;
        if (at(s, p, len) == '-') {
            sign = -1;
            p++;
        } else if (at(s, p, len) == '+') {
            p++;
        }
        if (digit(at(s, p, len))) {
            d = at(s, p++, len) - '0';
            while (digit(at(s, p, len))) {
                d = d * 10 + (at(s, p++, len) - '0');
            }
            a = p;
        } else if (at(s, p, len) != '.') {
            return new double[] {d, a};
        }
        d *= sign;
        if (at(s, p, len) == '.') {
            double f = 0;
            double base = 0.1;
            p++;
            while (digit(at(s, p, len))) {
                f += base * (at(s, p++, len) - '0');
                base /= 10;
            }
            d += f * sign;
            a = p;
        }
        if (at(s, p, len) == 'E' || at(s, p, len) == 'e') {
            int e = 0;
            boolean neg = false;
            p++;
            if (at(s, p, len) == '-') {
                p++;
                neg = true;
            }
            if (at(s, p, len) == '+') {
                p++;
            }
            while (digit(at(s, p, len))) {
                e = e * 10 + at(s, p++, len) - '0';
            }
            for (int i = 0; i < (neg ? 0 : e); i++) {
                d *= 10;
            }
            for (int i = 0; i < (neg ? e : 0); i++) {
                d /= 10;
            }
            a = p;
        } else if (p > from && !digit(at(s, p - 1, len))) {
            a = from;
        }
        return new double[] {d, a};
    }

    private static int at(byte[] s, int i, int len) {
        return i < len ? s[i] & 0xff : 0;
    }

    private static boolean digit(int c) {
        return c >= '0' && c <= '9';
    }

    /** C's strtoll(token, NULL, 0): blanks, a sign, 0x for hexadecimal, 0 for octal, the digits that follow; saturated. */
    static long strtoll(byte[] s, int from, int end) {
        int i = from;
        while (i < end && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r')) {
            i++;
        }
        boolean neg = false;
        if (i < end && (s[i] == '-' || s[i] == '+')) {
            neg = s[i] == '-';
            i++;
        }
        int base = 10;
        if (i + 1 < end && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') && i + 2 < end && Character.digit(s[i + 2], 16) >= 0) {
            base = 16;
            i += 2;
        } else if (i < end && s[i] == '0') {
            base = 8;
        }
        BigDecimal v = BigDecimal.ZERO;
        for (; i < end && Character.digit(s[i], base) >= 0; i++) {
            v = v.multiply(BigDecimal.valueOf(base)).add(BigDecimal.valueOf(Character.digit(s[i], base)));
        }
        v = neg ? v.negate() : v;
        return v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 ? Long.MAX_VALUE
                : v.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0 ? Long.MIN_VALUE : v.longValue();
    }

    /** C's printf("%g"): six significant digits, the exponent form below 1e-4 or from 1e6, no trailing zeros. */
    static String percentG(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal b = new BigDecimal(d).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exp = b.precision() - b.scale() - 1;
        if (exp < -4 || exp >= 6) {
            BigDecimal mantissa = b.movePointLeft(exp).stripTrailingZeros();
            String m = mantissa.scale() <= 0 ? mantissa.toBigInteger().toString() : mantissa.toPlainString();
            return m + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
        }
        b = b.stripTrailingZeros();
        return b.scale() <= 0 ? b.toBigInteger().toString() : b.toPlainString();
    }
}
