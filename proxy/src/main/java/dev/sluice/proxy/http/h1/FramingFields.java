package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;

/**
 * The fields that frame a body, read with HAProxy's rules: Transfer-Encoding (read and removed; chunked must come
 * last and once) and Content-Length (every value, lists included, must be the same number; one field stays, where
 * the first was). What the parser makes of them, with the method or status, is {@link H1Parser}'s.
 */
final class FramingFields {
    private FramingFields() {
    }

    private static final AsciiString CHUNKED = AsciiString.cached("chunked");

    /** Result of reading the Transfer-Encoding fields. */
    static final int TE_NONE = 0;
    static final int TE_CHUNKED = 1;
    static final int TE_OTHER_THEN_CHUNKED = 2;
    static final int TE_NOT_CHUNKED = 3;
    static final int TE_INVALID = -1;

    /** Reads and removes Transfer-Encoding; one of the TE_ constants. */
    static int transferEncoding(HttpFields f) {
        int i = f.indexOf(HeaderNames.TRANSFER_ENCODING);
        if (i < 0) {
            return TE_NONE;
        }
        boolean chunked = false;
        boolean other = false;
        boolean afterChunked = false;
        boolean invalid = false;
        while (i >= 0) {
            AsciiString v = f.value(i);
            int count = 0;
            int n = v.length();
            int p = 0;
            while (p < n) {
                while (p < n && (v.byteAt(p) == ' ' || v.byteAt(p) == '\t')) {
                    p++;
                }
                int s = p;
                while (p < n && v.byteAt(p) != ',') {
                    p++;
                }
                int e = p;
                while (e > s && (v.byteAt(e - 1) == ' ' || v.byteAt(e - 1) == '\t')) {
                    e--;
                }
                p++;
                if (e == s) {
                    continue;
                }
                count++;
                AsciiString tok = v.subSequence(s, e, false);
                if (tok.contentEqualsIgnoreCase(CHUNKED)) {
                    if (chunked) {
                        invalid = true;
                    }
                    chunked = true;
                } else {
                    if (chunked) {
                        afterChunked = true;
                    }
                    other = true;
                }
            }
            if (count == 0) {
                invalid = true;
            }
            f.remove(i);
            i = f.indexOf(HeaderNames.TRANSFER_ENCODING, i);
        }
        if (invalid) {
            return TE_INVALID;
        }
        if (!chunked || afterChunked) {
            return TE_NOT_CHUNKED;
        }
        return other ? TE_OTHER_THEN_CHUNKED : TE_CHUNKED;
    }

    /**
     * Reads every Content-Length value (lists included): all must be the same valid number. Leaves one
     * field, where the first one was, its value the last number of that field as it came ("2, 2" becomes "2", "003"
     * stays). Returns the length, -1 when absent, -2 when invalid. {@code htx[0]} gets what this changes in the head's
     * HTX size: HAProxy keeps the same field.
     */
    static long contentLength(HttpFields f, int[] htx) {
        int i = f.indexOf(HeaderNames.CONTENT_LENGTH);
        if (i < 0) {
            return -1;
        }
        long len = -1;
        int first = i;
        int raw = 0;
        // the last number of the first field, as it came: what HAProxy keeps (h1_parse_cont_len_header)
        int keptStart = 0;
        int keptEnd = 0;
        while (i >= 0) {
            AsciiString v = f.value(i);
            int n = v.length();
            raw += HeaderNames.CONTENT_LENGTH.length() + n;
            int p = 0;
            boolean any = false;
            while (p <= n) {
                while (p < n && (v.byteAt(p) == ' ' || v.byteAt(p) == '\t')) {
                    p++;
                }
                int s = p;
                long val = 0;
                while (p < n && v.byteAt(p) >= '0' && v.byteAt(p) <= '9') {
                    if (val > (Long.MAX_VALUE - 9) / 10) {
                        return -2;
                    }
                    val = val * 10 + (v.byteAt(p) - '0');
                    p++;
                }
                if (p == s) {
                    return -2;
                }
                if (i == first) {
                    keptStart = s;
                    keptEnd = p;
                }
                while (p < n && (v.byteAt(p) == ' ' || v.byteAt(p) == '\t')) {
                    p++;
                }
                if (p < n && v.byteAt(p) != ',') {
                    return -2;
                }
                if (len >= 0 && val != len) {
                    return -2;
                }
                len = val;
                any = true;
                if (p >= n) {
                    break;
                }
                p++; // the comma: an element must follow
                if (p >= n) {
                    return -2;
                }
            }
            if (!any) {
                return -2;
            }
            i = f.indexOf(HeaderNames.CONTENT_LENGTH, i + 1);
        }
        // the first field stays where it came, its value its last number (a list becomes one number), the others go
        AsciiString first0 = f.value(first);
        AsciiString value = keptStart == 0 && keptEnd == first0.length() ? first0 : first0.subSequence(keptStart, keptEnd, false);
        f.setValue(first, value);
        for (i = f.indexOf(HeaderNames.CONTENT_LENGTH, first + 1); i >= 0; i = f.indexOf(HeaderNames.CONTENT_LENGTH, i)) {
            f.remove(i);
        }
        htx[0] = HeaderNames.CONTENT_LENGTH.length() + value.length() - raw;
        return len;
    }
}
