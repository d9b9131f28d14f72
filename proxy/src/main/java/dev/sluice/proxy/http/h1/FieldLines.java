package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;

/**
 * The field lines of a head or of a chunked body's trailers, scanned in the head's byte array: names checked and
 * lower-cased in place, values trimmed, obs-fold joined to the previous value, NUL and bare CR refused, at most
 * {@link H1Limits#maxFields()} fields. Names and values become {@link AsciiString} views over the array. Errors go
 * to the parser (400 for a request, 502 for a response). One per {@link H1Parser}.
 */
final class FieldLines {
    static final byte CR = '\r';
    static final byte LF = '\n';
    /** Token characters (RFC 9110 5.6.2): methods and field names. */
    static final boolean[] TOKEN = new boolean[256];
    /** Field-name characters with accept-unsafe-violations-in-http-request: any visible byte but ':'. */
    private static final boolean[] LAX_NAME = new boolean[256];

    static {
        for (int c = 0x21; c < 256; c++) {
            LAX_NAME[c] = c != ':' && c != 0x7f;
        }
    }

    static {
        for (int c = 0; c < 256; c++) {
            TOKEN[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }

    private final H1Parser parser;
    private final boolean request;
    private final H1Limits limits;
    /** The names and values of the fields the last {@link #parse} found, summed (HAProxy's HTX measure of them). */
    private int bytes;

    FieldLines(H1Parser parser, boolean request, H1Limits limits) {
        this.parser = parser;
        this.request = request;
        this.limits = limits;
    }

    static boolean isSpace(byte c) {
        return c == ' ' || c == '\t';
    }

    /** Parses header lines from {@code p} to the empty line that ends the head; false after an error. */
    boolean parse(byte[] b, int p, int n, HttpFields fields) {
        int valueStartOfLast = -1;
        bytes = 0;
        while (p < n) {
            byte c = b[p];
            if (c == LF || (c == CR && p + 1 < n && b[p + 1] == LF)) {
                return true;
            }
            if (isSpace(c)) {
                // obs-fold: the line continues the previous value; fold the line break into spaces
                if (fields.size() == 0) {
                    parser.fail(request ? 400 : 502, "continuation line without a field", p);
                    return false;
                }
                int lf = lineEnd(b, p, n);
                if (lf < 0) {
                    return false;
                }
                for (int i = valueStartOfLast; i < p; i++) {
                    if (b[i] == CR || b[i] == LF) {
                        b[i] = ' ';
                    }
                }
                int ve = trimEnd(b, valueStartOfLast, lf);
                // a first line without value: the value starts after the fold, as in HAProxy
                int vs = valueStartOfLast;
                while (vs < ve && isSpace(b[vs])) {
                    vs++;
                }
                bytes += ve - vs - fields.value(fields.size() - 1).length();
                fields.setValue(fields.size() - 1, new AsciiString(b, vs, ve - vs, false));
                p = lf + 1;
                continue;
            }
            int ns = p;
            boolean[] nameChars = request && limits.acceptInvalid() ? LAX_NAME : TOKEN;
            while (p < n && nameChars[b[p] & 0xff]) {
                byte ch = b[p];
                if (ch >= 'A' && ch <= 'Z') {
                    b[p] = (byte) (ch + 32);
                }
                p++;
            }
            if (p == ns || p >= n || b[p] != ':') {
                parser.fail(request ? 400 : 502, p == ns ? "empty or invalid field name" : "invalid character in field name", p);
                return false;
            }
            AsciiString name = new AsciiString(b, ns, p - ns, false);
            p++;
            while (p < n && isSpace(b[p])) {
                p++;
            }
            int vs = p;
            int lf = lineEnd(b, p, n);
            if (lf < 0) {
                return false;
            }
            int ve = trimEnd(b, vs, lf);
            if (fields.size() >= limits.maxFields()) {
                parser.fail(request ? 400 : 502, "too many fields", ns);
                return false;
            }
            fields.add(name, new AsciiString(b, vs, ve - vs, false));
            bytes += name.length() + ve - vs;
            valueStartOfLast = vs;
            p = lf + 1;
        }
        return true;
    }

    /** The names and values of the fields of the last {@link #parse}, summed. */
    int bytes() {
        return bytes;
    }

    /** Finds the LF ending the line at {@code p}, rejecting NUL and bare CR on the way; -1 on error. */
    private int lineEnd(byte[] b, int p, int n) {
        for (int i = p; i < n; i++) {
            byte c = b[i];
            if (c == LF) {
                return i;
            }
            if (c == 0) {
                parser.fail(request ? 400 : 502, "NUL character in field value", i);
                return -1;
            }
            if (c == CR && (i + 1 >= n || b[i + 1] != LF)) {
                parser.fail(request ? 400 : 502, "bare CR in field value", i);
                return -1;
            }
        }
        parser.fail(request ? 400 : 502, "unterminated line", n);
        return -1;
    }

    private static int trimEnd(byte[] b, int s, int lf) {
        int e = lf;
        while (e > s && (b[e - 1] == CR || isSpace(b[e - 1]))) {
            e--;
        }
        return e;
    }
}
