package dev.sluice.proxy.http;

/**
 * HAProxy 2.6's measure of an HTTP message, what its {@code %U}, {@code %B} and bin/bout count: not the bytes on the
 * wire but the data of the HTX blocks the message became. A start line is {@link #START_LINE} bytes (its
 * {@code struct htx_sl}) plus its three parts without separators; a field is its name plus its value (trimmed, no
 * ": " nor CRLF); the end of the headers is one byte ({@link #EOH}), the end of an HTTP/1 chunked message's trailers
 * one too; body data counts as it is, without chunk framing. So an HTTP/1 head of {@code n} fields measures its wire
 * length minus {@code 4n} plus 15. Pure functions; the codecs add the same numbers as they parse.
 */
public final class HtxSize {
    /** {@code sizeof(struct htx_sl)}: flags, method or status, the three lengths. */
    public static final int START_LINE = 20;
    /** The end-of-headers block (and the end-of-trailers one). */
    public static final int EOH = 1;
    /** What a start line and the end of headers add to the parts and fields. */
    public static final int HEAD = START_LINE + EOH;

    private HtxSize() {
    }

    /** The sum of the names and values of {@code f}. */
    public static int fields(HttpFields f) {
        int n = 0;
        for (int i = 0; i < f.size(); i++) {
            n += f.name(i).length() + f.value(i).length();
        }
        return n;
    }

    /** A head measured from its model (a head the proxy made, or one no codec measured): HTTP/1.1 text as HTX. */
    static int head(MessageHead h) {
        int sl;
        if (h instanceof RequestHead r) {
            sl = r.method().length() + r.target().length() + 8;
        } else {
            ResponseHead r = (ResponseHead) h;
            sl = 8 + 3 + r.reason().length();
        }
        return HEAD + sl + fields(h.fields());
    }

    /**
     * What the end of message {@code h} (null: no head known) adds: the end-of-trailers block and the trailers, when
     * there is one of them.
     */
    public static int end(MessageHead h, HttpFields trailers) {
        boolean any = trailers != null && trailers.size() > 0;
        if (!any && (h == null || !h.chunkedEnd())) {
            return 0;
        }
        return EOH + (any ? fields(trailers) : 0);
    }

    /** The decimal digits of {@code n} (a content-length HAProxy rewrites to its number). */
    public static int digits(long n) {
        int d = 1;
        while (n >= 10) {
            n /= 10;
            d++;
        }
        return d;
    }
}
