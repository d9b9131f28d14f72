package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/**
 * The strict, incremental HTTP/1.x parser: the one choke point where HTTP/1 requests and responses are
 * validated and turned into the protocol-neutral model. A head is copied once into a byte array and its
 * fields become {@link AsciiString} views over it (names lower-cased in place); body bytes are handed on
 * as retained slices of the input, never copied. Hop-by-hop fields ({@code connection}, {@code keep-alive},
 * {@code proxy-connection}, {@code transfer-encoding}, {@code upgrade}, a {@code te} other than
 * "trailers", and fields listed in {@code connection}) are removed from the model; what they meant is kept
 * in this parser's per-message flags. Framing follows HAProxy's rules (checked against HAProxy 2.6 row by row in the regtests' MalformedHttp1Test).
 * After each complete request the parser pauses until {@link #resume()}, so pipelined requests wait their
 * turn. One instance per connection, used only on that connection's event loop.
 */
public final class H1Parser {

    /** Receives what the parser finds, in order: a head, body chunks, the end (with trailers), or an error. */
    public interface Sink {
        void onHead(MessageHead head);

        /** A piece of body; ownership of the buffer passes to the sink. */
        void onBody(ByteBuf data);

        /** The end of a message; trailers may be null. */
        void onEnd(HttpFields trailers);

        void onError(H1Error error);
    }

    private enum State { HEAD, LENGTH, CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_END, TRAILERS, UNTIL_CLOSE, PAUSED, ERROR }

    private static final byte CR = '\r';
    private static final byte LF = '\n';
    private static final AsciiString CHUNKED = AsciiString.cached("chunked");
    private static final AsciiString CLOSE = AsciiString.cached("close");
    private static final AsciiString KEEP_ALIVE_TOKEN = AsciiString.cached("keep-alive");
    private static final AsciiString UPGRADE_TOKEN = AsciiString.cached("upgrade");
    private static final AsciiString TRAILERS = AsciiString.cached("trailers");
    private static final AsciiString POST = AsciiString.cached("POST");
    private static final AsciiString PUT = AsciiString.cached("PUT");
    private static final boolean[] TOKEN = new boolean[256];
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

    private final boolean request;
    private final H1Limits limits;
    private final Sink sink;
    private State state = State.HEAD;
    private long remaining;
    /** While looking for the end of a head: where the scan resumes and where the current line began (relative). */
    private int scanOffset;
    private int lineStartOffset;
    private boolean firstLineSeen;

    // per message flags
    private boolean closeWanted;
    private boolean keepAliveWanted;
    private boolean upgradeWanted;
    private boolean closeAfter;
    private AsciiString upgradeProtocol;
    private HttpVersion version;
    /** Response parsing: whether the request was HEAD (no body whatever the fields say) or CONNECT. */
    private boolean expectHeadResponse;
    private boolean expectConnectResponse;
    private HttpFields trailers;

    public H1Parser(boolean request, H1Limits limits, Sink sink) {
        this.request = request;
        this.limits = limits;
        this.sink = sink;
    }

    /** Response parsing: the request this response answers (HEAD and CONNECT change the framing). */
    public void expectResponseTo(boolean head, boolean connect) {
        this.expectHeadResponse = head;
        this.expectConnectResponse = connect;
    }

    /** Whether the parser waits for {@link #resume()} after a complete message. */
    public boolean paused() {
        return state == State.PAUSED;
    }

    public boolean failed() {
        return state == State.ERROR;
    }

    /** Whether no message is in progress (between messages, or paused after one). */
    public boolean idle() {
        return state == State.PAUSED || (state == State.HEAD && scanOffset == 0);
    }

    public boolean inBody() {
        return state != State.HEAD && state != State.PAUSED && state != State.ERROR;
    }

    /** Allows the next message to be parsed. */
    public void resume() {
        if (state == State.PAUSED) {
            state = State.HEAD;
        }
    }

    /** The message asked to close the connection after it ({@code Connection: close}). */
    public boolean closeWanted() {
        return closeWanted;
    }

    /** The message asked to keep the connection ({@code Connection: keep-alive}), meaningful for HTTP/1.0. */
    public boolean keepAliveWanted() {
        return keepAliveWanted;
    }

    /** The framing forces a close after this exchange (both C-L and T-E, or T-E on HTTP/1.0). */
    public boolean closeAfter() {
        return closeAfter;
    }

    /** {@code Connection: upgrade} with an {@code Upgrade} field: the protocol asked for, else null. */
    public AsciiString upgradeProtocol() {
        return upgradeWanted ? upgradeProtocol : null;
    }

    public HttpVersion version() {
        return version;
    }

    /**
     * Parses as much of {@code in} as possible. Stops at the end of the input, after a complete message
     * (a request also pauses the parser), or on an error: bytes after a complete response are left for
     * the next call. Consumed bytes are skipped in {@code in}.
     */
    public void parse(ByteBuf in) {
        while (true) {
            switch (state) {
                case HEAD -> {
                    if (!parseHead(in)) {
                        return;
                    }
                }
                case LENGTH -> {
                    int n = (int) Math.min(remaining, in.readableBytes());
                    if (n > 0) {
                        remaining -= n;
                        sink.onBody(in.readRetainedSlice(n));
                    }
                    if (remaining > 0) {
                        return;
                    }
                    end(null);
                    return;
                }
                case UNTIL_CLOSE -> {
                    if (in.isReadable()) {
                        sink.onBody(in.readRetainedSlice(in.readableBytes()));
                    }
                    return;
                }
                case CHUNK_SIZE -> {
                    if (!parseChunkSize(in)) {
                        return;
                    }
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(remaining, in.readableBytes());
                    if (n > 0) {
                        remaining -= n;
                        sink.onBody(in.readRetainedSlice(n));
                    }
                    if (remaining > 0) {
                        return;
                    }
                    state = State.CHUNK_DATA_END;
                }
                case CHUNK_DATA_END -> {
                    if (!parseChunkEnd(in)) {
                        return;
                    }
                }
                case TRAILERS -> {
                    parseTrailers(in);
                    return;
                }
                case PAUSED, ERROR -> {
                    return;
                }
                default -> throw new IllegalStateException(state.name());
            }
        }
    }

    /**
     * The input ended (the peer closed). Completes a close-delimited body; anything else in progress is an
     * error. Returns true when a message was completed by this call.
     */
    public boolean inputClosed() {
        if (state == State.UNTIL_CLOSE) {
            end(null);
            return true;
        }
        if (state != State.HEAD && state != State.PAUSED && state != State.ERROR || (state == State.HEAD && scanOffset > 0)) {
            fail(request ? 400 : 502, "truncated message", 0);
        }
        return false;
    }

    private void end(HttpFields trailerFields) {
        state = request ? State.PAUSED : State.HEAD;
        sink.onEnd(trailerFields);
    }

    /**
     * Where the bytes of the message part being parsed start in the buffer given to {@link #parse} (the head,
     * or the chunk line), for {@code show errors}; error offsets count from there. Valid during the call
     * that reports the error.
     */
    public int messageStart() {
        return messageStart;
    }

    private void fail(int status, String reason, int offset) {
        state = State.ERROR;
        sink.onError(new H1Error(request ? status : 502, reason, offset));
    }

    // ------------------------------------------------------------------ head

    /** Returns true when a head was parsed (state moved on), false when more input is needed or on error. */
    private int messageStart;

    private boolean parseHead(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        messageStart = start;
        if (scanOffset == 0) {
            // RFC 9112 2.2: ignore empty lines received before a request line
            while (start < end && (in.getByte(start) == CR || in.getByte(start) == LF)) {
                start++;
            }
            in.readerIndex(start);
            lineStartOffset = 0;
            firstLineSeen = false;
        }
        int limit = Math.min(end, start + limits.maxHeadBytes());
        int pos = start + scanOffset;
        while (pos < limit) {
            int lf = in.indexOf(pos, limit, LF);
            if (lf < 0) {
                pos = limit;
                break;
            }
            int lineStart = start + lineStartOffset;
            int lineLen = lf - lineStart;
            if (lineLen == 0 || (lineLen == 1 && in.getByte(lineStart) == CR)) {
                if (!firstLineSeen) {
                    fail(400, "empty request line", lineStart - start);
                    return false;
                }
                int headLen = lf + 1 - start;
                byte[] b = new byte[headLen];
                in.readBytes(b);
                scanOffset = 0;
                lineStartOffset = 0;
                return request ? requestHead(b) : responseHead(b);
            }
            firstLineSeen = true;
            lineStartOffset = lf + 1 - start;
            pos = lf + 1;
        }
        scanOffset = pos - start;
        if (end - start >= limits.maxHeadBytes()) {
            if (request) {
                // HAProxy 2.6 answers 400 here; 3.1 answers 414 for the request line and 431 for the head (commit
                // bc967758a "mux-h1: Return 414 or 431 when appropriate", issue #1309): Sluice keeps the newer answer
                fail(firstLineSeen ? 431 : 414, firstLineSeen ? "request head too large" : "request line too long", limits.maxHeadBytes());
            } else {
                fail(502, "response head too large", limits.maxHeadBytes());
            }
        }
        return false;
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t';
    }

    /** Parses {@code HTTP/<digit>.<digit>} at {@code p}; returns the version or null. */
    private static HttpVersion httpVersion(byte[] b, int p, int n) {
        if (p + 8 > n || b[p] != 'H' || b[p + 1] != 'T' || b[p + 2] != 'T' || b[p + 3] != 'P' || b[p + 4] != '/' || b[p + 6] != '.') {
            return null;
        }
        byte major = b[p + 5];
        byte minor = b[p + 7];
        if (major != '1' || minor < '0' || minor > '9') {
            return null;
        }
        return minor == '0' ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
    }

    private static AsciiString method(byte[] b, int s, int len) {
        if (len == 3 && b[s] == 'G' && b[s + 1] == 'E' && b[s + 2] == 'T') {
            return RequestHead.GET;
        }
        if (len == 4 && b[s] == 'P' && b[s + 1] == 'O' && b[s + 2] == 'S' && b[s + 3] == 'T') {
            return POST;
        }
        if (len == 4 && b[s] == 'H' && b[s + 1] == 'E' && b[s + 2] == 'A' && b[s + 3] == 'D') {
            return RequestHead.HEAD;
        }
        if (len == 3 && b[s] == 'P' && b[s + 1] == 'U' && b[s + 2] == 'T') {
            return PUT;
        }
        return new AsciiString(b, s, len, false);
    }

    private boolean requestHead(byte[] b) {
        int n = b.length;
        int p = 0;
        int ms = p;
        while (p < n && TOKEN[b[p] & 0xff]) {
            p++;
        }
        if (p == ms || p >= n || !isSpace(b[p])) {
            fail(400, "invalid method", p);
            return false;
        }
        AsciiString method = method(b, ms, p - ms);
        while (p < n && isSpace(b[p])) {
            p++;
        }
        int ts = p;
        while (p < n) {
            int c = b[p] & 0xff;
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                break;
            }
            if (c < 0x20 || c == 0x7f || (c > 0x7f || c == '#') && !limits.acceptInvalid()) {
                fail(400, "forbidden character in request target", p);
                return false;
            }
            p++;
        }
        if (p == ts || p >= n || !isSpace(b[p])) {
            fail(400, p == ts ? "missing request target" : "missing HTTP version (HTTP/0.9 is not supported)", p);
            return false;
        }
        AsciiString target = new AsciiString(b, ts, p - ts, false);
        while (p < n && isSpace(b[p])) {
            p++;
        }
        HttpVersion v = httpVersion(b, p, n);
        if (v == null) {
            fail(400, "invalid HTTP version", p);
            return false;
        }
        p += 8;
        if (p < n && b[p] == CR) {
            p++;
        }
        if (p >= n || b[p] != LF) {
            fail(400, "invalid request line", p);
            return false;
        }
        p++;
        HttpFields fields = new HttpFields();
        if (!parseFields(b, p, n, fields)) {
            return false;
        }
        version = v;
        RequestHead head = new RequestHead(method, target, v, fields);
        if (!requestFraming(head)) {
            return false;
        }
        sink.onHead(head);
        return true;
    }

    private boolean responseHead(byte[] b) {
        int n = b.length;
        HttpVersion v = httpVersion(b, 0, n);
        if (v == null || n < 12 || !isSpace(b[8])) {
            fail(502, "invalid status line", 0);
            return false;
        }
        int p = 9;
        while (p < n && isSpace(b[p])) {
            p++;
        }
        if (p + 3 > n || !digit(b[p]) || !digit(b[p + 1]) || !digit(b[p + 2])) {
            // the offset of the first byte that is not a digit, as HAProxy reports it
            int bad = p;
            while (bad < p + 3 && bad < n && digit(b[bad])) {
                bad++;
            }
            fail(502, "invalid status code", bad);
            return false;
        }
        int status = (b[p] - '0') * 100 + (b[p + 1] - '0') * 10 + (b[p + 2] - '0');
        p += 3;
        if (status < 100) {
            fail(502, "invalid status code", p);
            return false;
        }
        int rs = p;
        int re;
        if (p < n && isSpace(b[p])) {
            rs = ++p;
            while (p < n && b[p] != LF) {
                if (b[p] == 0) {
                    fail(502, "NUL in reason phrase", p);
                    return false;
                }
                p++;
            }
            re = p > rs && b[p - 1] == CR ? p - 1 : p;
        } else {
            if (p < n && b[p] == CR) {
                p++;
            }
            re = rs;
        }
        if (p >= n || b[p] != LF) {
            fail(502, "invalid status line", p);
            return false;
        }
        p++;
        HttpFields fields = new HttpFields();
        if (!parseFields(b, p, n, fields)) {
            return false;
        }
        version = v;
        ResponseHead head = new ResponseHead(v, status, new AsciiString(b, rs, re - rs, false), fields);
        if (!responseFraming(head)) {
            return false;
        }
        sink.onHead(head);
        return true;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** Parses header lines from {@code p} to the empty line that ends the head. */
    private boolean parseFields(byte[] b, int p, int n, HttpFields fields) {
        int valueStartOfLast = -1;
        while (p < n) {
            byte c = b[p];
            if (c == LF || (c == CR && p + 1 < n && b[p + 1] == LF)) {
                return true;
            }
            if (isSpace(c)) {
                // obs-fold: the line continues the previous value; fold the line break into spaces
                if (fields.size() == 0) {
                    fail(request ? 400 : 502, "continuation line without a field", p);
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
                fail(request ? 400 : 502, p == ns ? "empty or invalid field name" : "invalid character in field name", p);
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
                fail(request ? 400 : 502, "too many fields", ns);
                return false;
            }
            fields.add(name, new AsciiString(b, vs, ve - vs, false));
            valueStartOfLast = vs;
            p = lf + 1;
        }
        return true;
    }

    /** Finds the LF ending the line at {@code p}, rejecting NUL and bare CR on the way; -1 on error. */
    private int lineEnd(byte[] b, int p, int n) {
        for (int i = p; i < n; i++) {
            byte c = b[i];
            if (c == LF) {
                return i;
            }
            if (c == 0) {
                fail(request ? 400 : 502, "NUL character in field value", i);
                return -1;
            }
            if (c == CR && (i + 1 >= n || b[i + 1] != LF)) {
                fail(request ? 400 : 502, "bare CR in field value", i);
                return -1;
            }
        }
        fail(request ? 400 : 502, "unterminated line", n);
        return -1;
    }

    private static int trimEnd(byte[] b, int s, int lf) {
        int e = lf;
        while (e > s && (b[e - 1] == CR || isSpace(b[e - 1]))) {
            e--;
        }
        return e;
    }

    // ------------------------------------------------------------------ framing

    private void resetFlags() {
        closeWanted = false;
        keepAliveWanted = false;
        upgradeWanted = false;
        closeAfter = false;
        upgradeProtocol = null;
    }

    /**
     * Reads and removes the hop-by-hop fields: Connection (and what it lists), Keep-Alive,
     * Proxy-Connection, Upgrade (remembered), TE unless it announces "trailers" (then kept as "trailers").
     */
    private void hopByHop(HttpFields f) {
        int i;
        while ((i = f.indexOf(HeaderNames.CONNECTION)) >= 0) {
            // removed before its tokens are read: removing what it lists shifts the fields before it
            AsciiString v = f.value(i);
            f.remove(i);
            forEachToken(v, (s, e) -> {
                if (CLOSE.contentEqualsIgnoreCase(v.subSequence(s, e, false))) {
                    closeWanted = true;
                } else if (KEEP_ALIVE_TOKEN.contentEqualsIgnoreCase(v.subSequence(s, e, false))) {
                    keepAliveWanted = true;
                } else if (UPGRADE_TOKEN.contentEqualsIgnoreCase(v.subSequence(s, e, false))) {
                    upgradeWanted = true;
                } else {
                    AsciiString listed = v.subSequence(s, e, true).toLowerCase();
                    if (!isEssential(listed)) {
                        f.removeAll(listed);
                    }
                }
            });
        }
        f.removeAll(HeaderNames.KEEP_ALIVE);
        f.removeAll(HeaderNames.PROXY_CONNECTION);
        int u = f.indexOf(HeaderNames.UPGRADE);
        if (u >= 0) {
            upgradeProtocol = f.value(u);
            f.removeAll(HeaderNames.UPGRADE);
        }
        int te = f.indexOf(HeaderNames.TE);
        while (te >= 0) {
            if (announcesTrailers(f.value(te))) {
                f.setValue(te, TRAILERS);
                te = f.indexOf(HeaderNames.TE, te + 1);
            } else {
                f.remove(te);
                te = f.indexOf(HeaderNames.TE, te);
            }
        }
    }

    /**
     * HAProxy's rule for a TE field, each field on its own: the first occurrence of "trailers" (case-sensitive,
     * anywhere in the value) ends the value or is followed by a comma; the field is then kept as "trailers"
     * alone, else dropped. So "deflate, trailers" and "trailers, deflate" become "trailers", while "Trailers",
     * "trailers;q=0.5" and "trailers ,x" are dropped.
     */
    static boolean announcesTrailers(AsciiString v) {
        int i = v.indexOf(TRAILERS, 0);
        if (i < 0) {
            return false;
        }
        int after = i + TRAILERS.length();
        return after == v.length() || v.byteAt(after) == ',';
    }

    private static boolean isEssential(AsciiString name) {
        return name.contentEquals(HeaderNames.HOST) || name.contentEquals(HeaderNames.CONTENT_LENGTH)
                || name.contentEquals(HeaderNames.TRANSFER_ENCODING) || name.contentEquals(HeaderNames.UPGRADE)
                || name.contentEquals(HeaderNames.CONNECTION);
    }

    @FunctionalInterface
    private interface TokenVisitor {
        void token(int start, int end);
    }

    /** Calls {@code v} for each non-empty comma-separated element of {@code s}, trimmed ({@link HttpFields#nextElement}). */
    private static void forEachToken(AsciiString s, TokenVisitor v) {
        for (long e = HttpFields.nextElement(s, 0); e >= 0; e = HttpFields.nextElement(s, (int) e)) {
            v.token((int) (e >>> 32), (int) e);
        }
    }

    /** Result of reading the Transfer-Encoding fields. */
    private static final int TE_NONE = 0;
    private static final int TE_CHUNKED = 1;
    private static final int TE_OTHER_THEN_CHUNKED = 2;
    private static final int TE_NOT_CHUNKED = 3;
    private static final int TE_INVALID = -1;

    /** Reads and removes Transfer-Encoding; one of the TE_ constants. */
    private static int transferEncoding(HttpFields f) {
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
     * normalised field. Returns the length, -1 when absent, -2 when invalid.
     */
    private static long contentLength(HttpFields f) {
        int i = f.indexOf(HeaderNames.CONTENT_LENGTH);
        if (i < 0) {
            return -1;
        }
        long len = -1;
        int first = i;
        while (i >= 0) {
            AsciiString v = f.value(i);
            int n = v.length();
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
        f.removeAll(HeaderNames.CONTENT_LENGTH);
        f.add(HeaderNames.CONTENT_LENGTH, first >= 0 && len >= 0 ? AsciiString.of(Long.toString(len)) : AsciiString.EMPTY_STRING);
        return len;
    }

    private boolean requestFraming(RequestHead head) {
        HttpFields f = head.fields();
        resetFlags();
        if (!hostChecks(head)) {
            return false;
        }
        if (!targetChecks(head)) {
            return false;
        }
        hopByHop(f);
        head.upgrade(upgradeProtocol());
        int te = transferEncoding(f);
        long cl = contentLength(f);
        boolean http10 = head.version() == HttpVersion.HTTP_1_0;
        switch (te) {
            case TE_INVALID -> {
                fail(400, "invalid transfer-encoding", 0);
                return false;
            }
            case TE_NOT_CHUNKED -> {
                fail(400, "transfer-encoding without chunked last", 0);
                return false;
            }
            case TE_OTHER_THEN_CHUNKED -> {
                fail(422, "unsupported transfer-coding before chunked", 0);
                return false;
            }
            case TE_CHUNKED -> {
                if (cl != -1) {
                    f.removeAll(HeaderNames.CONTENT_LENGTH);
                    closeAfter = true;
                }
                if (http10) {
                    closeAfter = true;
                }
                head.bodyStreamed();
                state = State.CHUNK_SIZE;
                remaining = 0;
            }
            default -> {
                if (cl == -2) {
                    fail(400, "invalid content-length", 0);
                    return false;
                }
                if (cl > 0) {
                    head.bodyLength(cl);
                    state = State.LENGTH;
                    remaining = cl;
                } else {
                    if (cl == 0) {
                        head.bodyLength(0);
                    } else {
                        head.bodyNone();
                    }
                    state = State.PAUSED;
                }
            }
        }
        if (http10 && head.hasBody() && (head.method().contentEquals(RequestHead.GET) || head.isHead()
                || head.method().contentEquals(RequestHead.DELETE))) {
            fail(413, "HTTP/1.0 GET, HEAD or DELETE with a body", 0);
            return false;
        }
        if (state == State.PAUSED) {
            // no body: the message is complete once its head is delivered
            sink.onHead(head);
            end(null);
            return false;
        }
        return true;
    }

    /** Several Host fields must agree (duplicates merged); forbidden characters are rejected. */
    private boolean hostChecks(RequestHead head) {
        HttpFields f = head.fields();
        int i = f.indexOf(HeaderNames.HOST);
        if (i < 0) {
            return true;
        }
        AsciiString host = f.value(i);
        int j = f.indexOf(HeaderNames.HOST, i + 1);
        while (j >= 0) {
            if (!f.value(j).contentEqualsIgnoreCase(host)) {
                fail(400, "several different Host fields", 0);
                return false;
            }
            f.remove(j);
            j = f.indexOf(HeaderNames.HOST, j);
        }
        if (!validAuthority(host)) {
            fail(400, "forbidden character in Host", 0);
            return false;
        }
        return true;
    }

    static boolean validAuthority(AsciiString a) {
        for (int k = 0; k < a.length(); k++) {
            int c = a.byteAt(k) & 0xff;
            if (c <= 0x20 || c >= 0x7f || c == '/' || c == '?' || c == '#' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    /** Request-target form rules: origin, absolute (authority must match Host), authority, asterisk. */
    private boolean targetChecks(RequestHead head) {
        AsciiString t = head.target();
        boolean connect = head.isConnect();
        if (connect) {
            int colon = t.lastIndexOf(":");
            if (t.byteAt(0) == '/' || colon < 0 || colon == t.length() - 1 || !validAuthority(t) || !digits(t, colon + 1)) {
                fail(400, "CONNECT needs an authority with a port", 0);
                return false;
            }
            return true;
        }
        byte c0 = t.byteAt(0);
        if (c0 == '/') {
            return true;
        }
        if (c0 == '*' && t.length() == 1) {
            if (!head.method().contentEquals(RequestHead.OPTIONS)) {
                fail(400, "'*' target on a method other than OPTIONS", 0);
                return false;
            }
            return true;
        }
        int schemeEnd = t.indexOf("://", 0);
        if (schemeEnd <= 0) {
            fail(400, "authority-form target on a method other than CONNECT", 0);
            return false;
        }
        for (int k = 0; k < schemeEnd; k++) {
            byte ch = t.byteAt(k);
            boolean ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (k > 0 && ((ch >= '0' && ch <= '9') || ch == '+' || ch == '-'
                    || ch == '.'));
            if (!ok) {
                fail(400, "invalid scheme in absolute-form target", k);
                return false;
            }
        }
        int as = schemeEnd + 3;
        int ae = as;
        while (ae < t.length() && t.byteAt(ae) != '/' && t.byteAt(ae) != '?') {
            ae++;
        }
        AsciiString authority = t.subSequence(as, ae, false);
        if (authority.isEmpty() || !validAuthority(authority)) {
            fail(400, "invalid authority in absolute-form target", as);
            return false;
        }
        AsciiString host = head.fields().get(HeaderNames.HOST);
        if (host != null && !sameAuthority(t.subSequence(0, schemeEnd, false), authority, host)) {
            fail(400, "absolute-form authority differs from Host", as);
            return false;
        }
        return true;
    }

    /** Whether {@code s} holds only digits from {@code from} to its end (an IPv6 literal's ']' is not one). */
    private static boolean digits(AsciiString s, int from) {
        for (int k = from; k < s.length(); k++) {
            if (!digit(s.byteAt(k))) {
                return false;
            }
        }
        return true;
    }

    /** Compares two authorities, ignoring case and the scheme's default port. */
    private static boolean sameAuthority(AsciiString scheme, AsciiString a, AsciiString b) {
        return stripDefaultPort(scheme, a).contentEqualsIgnoreCase(stripDefaultPort(scheme, b));
    }

    private static AsciiString stripDefaultPort(AsciiString scheme, AsciiString a) {
        int colon = a.lastIndexOf(":");
        if (colon < 0 || a.indexOf(']', colon) >= 0) {
            return a;
        }
        AsciiString port = a.subSequence(colon + 1, a.length(), false);
        if (port.isEmpty() || (port.contentEquals("80") && scheme.contentEqualsIgnoreCase("http"))
                || (port.contentEquals("443") && scheme.contentEqualsIgnoreCase("https"))) {
            return a.subSequence(0, colon, false);
        }
        return a;
    }

    private boolean responseFraming(ResponseHead head) {
        HttpFields f = head.fields();
        resetFlags();
        int status = head.status();
        hopByHop(f);
        int te = transferEncoding(f);
        long cl = contentLength(f);
        if (te == TE_INVALID || cl == -2 && te == TE_NONE) {
            fail(502, te == TE_INVALID ? "invalid transfer-encoding" : "invalid content-length", 0);
            return false;
        }
        if (head.isInterim()) {
            head.bodyNone();
            f.removeAll(HeaderNames.CONTENT_LENGTH);
            state = State.HEAD;
            return true;
        }
        if (status == 101 || (expectConnectResponse && status >= 200 && status < 300)) {
            head.bodyNone();
            state = State.PAUSED;
            return true;
        }
        if (expectHeadResponse || status == 204 || status == 304) {
            head.bodyNone();
            if (status == 204) {
                f.removeAll(HeaderNames.CONTENT_LENGTH);
            }
            state = State.HEAD;
            sink.onHead(head);
            end(null);
            return false;
        }
        if (te == TE_CHUNKED || te == TE_OTHER_THEN_CHUNKED) {
            if (cl != -1) {
                f.removeAll(HeaderNames.CONTENT_LENGTH);
                closeAfter = true;
            }
            if (te == TE_OTHER_THEN_CHUNKED) {
                // the codings before chunked stay in the content: tell the client about them
                closeAfter = true;
            }
            head.bodyStreamed();
            state = State.CHUNK_SIZE;
            remaining = 0;
        } else if (te == TE_NOT_CHUNKED) {
            f.removeAll(HeaderNames.CONTENT_LENGTH);
            head.bodyUntilClose();
            state = State.UNTIL_CLOSE;
        } else if (cl >= 0) {
            head.bodyLength(cl);
            if (cl == 0) {
                state = State.HEAD;
                sink.onHead(head);
                end(null);
                return false;
            }
            state = State.LENGTH;
            remaining = cl;
        } else {
            head.bodyUntilClose();
            state = State.UNTIL_CLOSE;
        }
        return true;
    }

    // ------------------------------------------------------------------ chunks

    /** Parses {@code <hex>[;ext]CRLF}; returns false when more input is needed or on error. */
    private boolean parseChunkSize(ByteBuf in) {
        int start = in.readerIndex();
        messageStart = start;
        int end = in.writerIndex();
        int lf = in.indexOf(start, Math.min(end, start + 1024), LF);
        if (lf < 0) {
            if (end - start >= 1024) {
                fail(400, "chunk size line too long", 0);
            }
            return false;
        }
        long size = 0;
        int p = start;
        int digits = 0;
        while (p < lf) {
            int c = in.getByte(p);
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                break;
            }
            if (++digits > 15) {
                fail(400, "chunk size too large", p - start);
                return false;
            }
            size = size * 16 + d;
            p++;
        }
        if (digits == 0) {
            fail(400, "invalid chunk size", 0);
            return false;
        }
        while (p < lf && (in.getByte(p) == ' ' || in.getByte(p) == '\t')) {
            p++;
        }
        if (p < lf && in.getByte(p) == ';') {
            // chunk extensions are ignored, but must not hide control characters
            for (int k = p; k < lf; k++) {
                byte c = in.getByte(k);
                if (c == 0 || (c == CR && k != lf - 1)) {
                    fail(400, "invalid chunk extension", k - start);
                    return false;
                }
            }
        } else if (p < lf && !(p == lf - 1 && in.getByte(p) == CR)) {
            fail(400, "invalid chunk size", p - start);
            return false;
        }
        in.readerIndex(lf + 1);
        if (size == 0) {
            trailers = null;
            state = State.TRAILERS;
        } else {
            remaining = size;
            state = State.CHUNK_DATA;
        }
        return true;
    }

    private boolean parseChunkEnd(ByteBuf in) {
        int r = in.readerIndex();
        if (!in.isReadable()) {
            return false;
        }
        byte c = in.getByte(r);
        if (c == LF) {
            in.skipBytes(1);
        } else if (c == CR) {
            if (in.readableBytes() < 2) {
                return false;
            }
            if (in.getByte(r + 1) != LF) {
                fail(400, "missing CRLF after chunk data", 0);
                return false;
            }
            in.skipBytes(2);
        } else {
            fail(400, "missing CRLF after chunk data", 0);
            return false;
        }
        state = State.CHUNK_SIZE;
        return true;
    }

    /** Reads trailer lines up to the empty line, then ends the message; otherwise waits for input or fails. */
    private void parseTrailers(ByteBuf in) {
        int start = in.readerIndex();
        messageStart = start;
        int end = in.writerIndex();
        int limit = Math.min(end, start + limits.maxHeadBytes());
        int p = start;
        while (p < limit) {
            int lf = in.indexOf(p, limit, LF);
            if (lf < 0) {
                break;
            }
            int len = lf - p;
            if (len == 0 || (len == 1 && in.getByte(p) == CR)) {
                int total = lf + 1 - start;
                HttpFields t = null;
                if (p > start) {
                    byte[] b = new byte[total];
                    in.getBytes(start, b);
                    t = new HttpFields(4);
                    if (!parseFields(b, 0, b.length, t)) {
                        return;
                    }
                }
                in.readerIndex(lf + 1);
                end(t);
                return;
            }
            p = lf + 1;
        }
        if (end - start >= limits.maxHeadBytes()) {
            fail(request ? 431 : 502, "trailers too large", 0);
        }
    }
}
