package dev.sluice.proxy.http;

import io.netty.util.AsciiString;

/**
 * The syntax of {@code Cookie}, {@code Set-Cookie} and {@code Set-Cookie2} field values as HAProxy 2.6 reads it, the
 * one scanner of the proxy: the sample fetches ({@link #find}, over the comma-separated {@link #element}s of a field),
 * and the walks that read and rewrite a whole field value in place, cookie after cookie ({@link Cursor}: capture
 * cookie, persistence cookies).
 * <p>
 * A cookie is {@code name=value}: spaces and tabs around the name, the {@code =} and the value are not part of them; a
 * value ends at the first {@code ;} or {@code ,} outside a quoted string; a name ends at {@code =} or {@code ;}, and at
 * {@code ,} where a field is a list of cookies (request {@code Cookie}, {@code Set-Cookie2}; a {@code Set-Cookie} has
 * one cookie and its attributes, and its {@code Expires} may hold a comma). A part without {@code =} is no cookie, nor
 * is one whose name starts with {@code $} (an RFC 2109 attribute of the cookie before it) in a request.
 * <p>
 * Positions are indexes in the array given, so a caller passes the array behind an {@link AsciiString} view (its
 * {@link AsciiString#array()} from {@link AsciiString#arrayOffset()}) and gets views back without copying. Stateless
 * and allocation-free but for {@link Cursor}.
 */
public final class Cookies {
    public static final AsciiString COOKIE = AsciiString.cached("cookie");
    public static final AsciiString SET_COOKIE = AsciiString.cached("set-cookie");
    public static final AsciiString SET_COOKIE2 = AsciiString.cached("set-cookie2");

    private Cookies() {
    }

    /** SP or HTAB: the spaces around names, {@code =} and values (HAProxy's HTTP_IS_SPHT). */
    public static boolean spht(byte c) {
        return c == ' ' || c == '\t';
    }

    /** SP, HTAB, CR or LF: what surrounds a field element (HTTP_IS_LWS). */
    private static boolean lws(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    /** The first index from {@code s} that is not a space or tab, or {@code e}. */
    public static int skipSpaces(byte[] b, int s, int e) {
        while (s < e && spht(b[s])) {
            s++;
        }
        return s;
    }

    /** The end of a cookie value from {@code s}: the first ',' or ';' outside a quoted string, or {@code e}. */
    public static int valueEnd(byte[] b, int s, int e) {
        boolean quoted = false;
        boolean pair = false;
        for (; s < e; s++) {
            byte c = b[s];
            if (pair) {
                pair = false;
            } else if (quoted) {
                if (c == '\\') {
                    pair = true;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',' || c == ';') {
                return s;
            }
        }
        return s;
    }

    /** The end of a field element from {@code s}: the first ',' outside a quoted string, or {@code e}. */
    public static int elementEnd(byte[] b, int s, int e) {
        boolean quoted = false;
        boolean pair = false;
        for (; s < e; s++) {
            byte c = b[s];
            if (pair) {
                pair = false;
            } else if (quoted) {
                if (c == '\\') {
                    pair = true;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                return s;
            }
        }
        return s;
    }

    /** {@link #elementEnd(byte[], int, int)} in a field value: HAProxy's http_find_hdr_value_end. */
    public static int elementEnd(AsciiString v, int s, int e) {
        int off = v.arrayOffset();
        return elementEnd(v.array(), off + s, off + e) - off;
    }

    /** {@code from} and {@code to} in one long, as {@link #element} and {@link #find} return them. */
    public static long pack(int from, int to) {
        return (long) from << 32 | to & 0xFFFFFFFFL;
    }

    public static int from(long packed) {
        return (int) (packed >>> 32);
    }

    public static int to(long packed) {
        return (int) packed;
    }

    // ------------------------------------------------------------------ elements and sample values

    /**
     * The comma-separated element of a field value {@code b[.., end)} that starts at {@code p}, without the spaces
     * around it: HAProxy's values of a field found with http_find_header(..., 0), empty ones included ({@code "a=1,"}
     * has two elements). Packed (see {@link #pack}); the next element starts at {@link #nextElement}.
     */
    public static long element(byte[] b, int p, int end) {
        int s = p;
        while (s < end && lws(b[s])) {
            s++;
        }
        int e = elementEnd(b, s, end);
        while (e > s && lws(b[e - 1])) {
            e--;
        }
        return pack(s, e);
    }

    /** Where the element after the one ending at {@code to} (as {@link #element} gave it) starts; past {@code end} when none. */
    public static int nextElement(byte[] b, int to, int end) {
        while (to < end && lws(b[to])) {
            to++;
        }
        return to + 1;
    }

    /**
     * The next cookie named {@code name} (any cookie when it is empty) in {@code b[from, end)}, an element: its value's
     * bounds packed (see {@link #pack}), or -1. The search goes on from {@link #afterValue}. HAProxy's
     * http_extract_cookie_value: {@code list} for a list of cookies (a request's), else only the first cookie of the
     * element is looked at, parts without {@code =} or starting with {@code $} before it skipped; a part is only read
     * when {@code name.length + 1} bytes remain after its start, spaces included ({@code "a="} is no cookie {@code a}).
     */
    public static long find(byte[] b, int from, int end, byte[] name, boolean list) {
        int n = name.length;
        for (int attBeg = from; attBeg + n + 1 < end;) {
            attBeg = skipSpaces(b, attBeg, end);
            int equal = attBeg;
            int attEnd = attBeg;
            while (equal < end) {
                byte c = b[equal];
                if (c == '=' || c == ';' || list && c == ',') {
                    break;
                }
                equal++;
                if (!spht(c)) {
                    attEnd = equal;
                }
            }
            int next;
            if (equal < end && b[equal] == '=') {
                int valBeg = skipSpaces(b, equal + 1, end);
                next = valueEnd(b, valBeg, end);
                int valEnd = next;
                while (valEnd > valBeg && spht(b[valEnd - 1])) {
                    valEnd--;
                }
                if (b[attBeg] != '$' && (n == 0 || attEnd - attBeg == n && regionEquals(b, attBeg, name))) {
                    return pack(valBeg, valEnd);
                }
                if (b[attBeg] != '$' && !list) {
                    // a Set-Cookie names its cookie in its first part only
                    return -1;
                }
            } else {
                next = equal;
            }
            attBeg = next + 1;
        }
        return -1;
    }

    /** Where {@link #find} goes on after the value that ends at {@code valEnd}, in an element ending at {@code end}. */
    public static int afterValue(byte[] b, int valEnd, int end) {
        return skipSpaces(b, valEnd, end) + 1;
    }

    private static boolean regionEquals(byte[] b, int at, byte[] what) {
        for (int k = 0; k < what.length; k++) {
            if (b[at + k] != what[k]) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ walks that rewrite

    /**
     * One cookie of a whole field value being walked and rewritten in place (HAProxy's http_manage_client_side_cookies
     * and http_manage_server_side_cookies): where its name, {@code =}, value and delimiter are. {@link #read} the cookie
     * after {@code next}, from the start of the value with {@code first}; {@link #strip} moves the bytes so that no space
     * is left around its {@code =}. When there is no {@code =}, {@code equal}, {@code valBeg}, {@code valEnd} and
     * {@code next} are the delimiter (or the end). One per walk, on the walking thread.
     */
    public static final class Cursor {
        /** The name: {@code [attBeg, attEnd)}. */
        public int attBeg;
        public int attEnd;
        /** The {@code =}, or the delimiter when there is none. */
        public int equal;
        /** The value: {@code [valBeg, valEnd)}. */
        public int valBeg;
        public int valEnd;
        /** The delimiter after the value (';' or ','), or the end of the field value. */
        public int next;

        /**
         * Reads the cookie that starts at {@code prev} (the value's start when {@code first}, else the delimiter of the
         * cookie before) in {@code b[.., end)}; {@code commaEndsName}: a list of cookies (Cookie, Set-Cookie2).
         */
        public void read(byte[] b, int prev, int end, boolean first, boolean commaEndsName) {
            attBeg = skipSpaces(b, first ? prev : prev + 1, end);
            equal = attBeg;
            attEnd = attBeg;
            while (equal < end) {
                byte c = b[equal];
                if (c == '=' || c == ';' || commaEndsName && c == ',') {
                    break;
                }
                equal++;
                if (!spht(c)) {
                    attEnd = equal;
                }
            }
            if (equal < end && b[equal] == '=') {
                valBeg = skipSpaces(b, equal + 1, end);
                next = valueEnd(b, valBeg, end);
                valEnd = next;
                while (valEnd > valBeg && spht(b[valEnd - 1])) {
                    valEnd--;
                }
            } else {
                valBeg = valEnd = next = equal;
            }
        }

        /** Whether the cookie has an {@code =} (a part without one is no cookie). */
        public boolean hasEqual() {
            return valBeg != equal;
        }

        /** Whether the name starts with {@code $}: an attribute of the cookie before it, in a request. */
        public boolean isAttribute(byte[] b, int end) {
            return attBeg < end && b[attBeg] == '$';
        }

        /** Whether the name is {@code name}. */
        public boolean named(byte[] b, byte[] name) {
            return attEnd - attBeg == name.length && regionEquals(b, attBeg, name);
        }

        /**
         * Removes the spaces around the {@code =} of a cookie that has one, moving the rest of {@code b[.., end)} (and
         * this cursor's positions) back; returns the new end.
         */
        public int strip(byte[] b, int end) {
            if (attEnd == equal && valBeg <= equal + 1) {
                return end;
            }
            int delta = 0;
            if (attEnd != equal) {
                System.arraycopy(b, equal, b, attEnd, end - equal);
                delta = attEnd - equal;
                equal += delta;
                valBeg += delta;
            }
            if (valBeg > equal + 1) {
                System.arraycopy(b, valBeg, b, equal + 1, end + delta - valBeg);
                int after = equal + 1 - valBeg;
                valBeg += after;
                delta += after;
            }
            valEnd += delta;
            next += delta;
            return end + delta;
        }
    }
}
