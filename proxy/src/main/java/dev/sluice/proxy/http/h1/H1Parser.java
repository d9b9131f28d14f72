package dev.sluice.proxy.http.h1;

import static dev.sluice.proxy.http.h1.FieldLines.CR;
import static dev.sluice.proxy.http.h1.FieldLines.LF;
import static dev.sluice.proxy.http.h1.FieldLines.isSpace;
import static dev.sluice.proxy.http.h1.FramingFields.TE_CHUNKED;
import static dev.sluice.proxy.http.h1.FramingFields.TE_INVALID;
import static dev.sluice.proxy.http.h1.FramingFields.TE_NONE;
import static dev.sluice.proxy.http.h1.FramingFields.TE_NOT_CHUNKED;
import static dev.sluice.proxy.http.h1.FramingFields.TE_OTHER_THEN_CHUNKED;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HtxSize;
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
 * as retained slices of the input, never copied. The hop-by-hop fields stay in the model as HAProxy's HTX keeps
 * them: only the close and keep-alive tokens leave {@code connection} (and the field when nothing is left), what they
 * and {@code upgrade} meant is kept in this parser's per-message flags; {@code transfer-encoding} is read and removed
 * (the writers frame bodies themselves). Framing follows HAProxy's rules (checked against HAProxy 2.6 row by row in the regtests' MalformedHttp1Test).
 * After each complete request the parser pauses until {@link #resume()}, so pipelined requests wait their
 * turn. One instance per connection, used only on that connection's event loop.
 * <p>Here: the state machine, the start lines and the framing decisions. Its parts: {@link FieldLines} (field lines
 * of heads and trailers), {@link RequestTarget} (Host and the request target), {@link ConnectionFields} (the
 * Connection fields), {@link FramingFields} (Transfer-Encoding and Content-Length), {@link ChunkedBody} (a chunked
 * body and its trailers).
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

    private enum State { HEAD, LENGTH, CHUNKED, UNTIL_CLOSE, PAUSED, ERROR }

    private static final AsciiString POST = AsciiString.cached("POST");
    private static final AsciiString PUT = AsciiString.cached("PUT");

    private final boolean request;
    private final H1Limits limits;
    private final Sink sink;
    private final FieldLines fieldLines;
    private final ConnectionFields connection = new ConnectionFields();
    private final ChunkedBody chunkedBody;
    private State state = State.HEAD;
    private long remaining;
    /** While looking for the end of a head: where the scan resumes and where the current line began (relative). */
    private int scanOffset;
    private int lineStartOffset;
    private boolean firstLineSeen;

    // per message flags (the hop-by-hop fields' are the ConnectionFields')
    private boolean closeAfter;
    private HttpVersion version;
    /** Response parsing: whether the request was HEAD (no body whatever the fields say) or CONNECT. */
    private boolean expectHeadResponse;
    private boolean expectConnectResponse;
    /** Where the message part being parsed starts in the input, for {@link #messageStart()}. */
    private int messageStart;
    /** The head being framed, measured as HAProxy's HTX ({@link HtxSize}); what framing changes of it. */
    private int headSize;
    private final int[] lengthField = new int[1];

    public H1Parser(boolean request, H1Limits limits, Sink sink) {
        this.request = request;
        this.limits = limits;
        this.sink = sink;
        this.fieldLines = new FieldLines(this, request, limits);
        this.chunkedBody = new ChunkedBody(this, sink, fieldLines, request, limits);
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
        return connection.closeWanted();
    }

    /** The message asked to keep the connection ({@code Connection: keep-alive}), meaningful for HTTP/1.0. */
    public boolean keepAliveWanted() {
        return connection.keepAliveWanted();
    }

    /** The framing forces a close after this exchange (both C-L and T-E, or T-E on HTTP/1.0). */
    public boolean closeAfter() {
        return closeAfter;
    }

    /** {@code Connection: upgrade} with an {@code Upgrade} field: the protocol asked for, else null. */
    public AsciiString upgradeProtocol() {
        return connection.upgradeProtocol();
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
                case CHUNKED -> {
                    chunkedBody.parse(in);
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

    /** Ends the message: the parser waits for the next head (a request's after {@link #resume()}). */
    void end(HttpFields trailerFields) {
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

    void messageStart(int start) {
        messageStart = start;
    }

    /** Rejects the message: the status is for a request, a response's is always 502. */
    void fail(int status, String reason, int offset) {
        state = State.ERROR;
        sink.onError(new H1Error(request ? status : 502, reason, offset));
    }

    private boolean fail(H1Error error) {
        fail(error.status(), error.reason(), error.offset());
        return false;
    }

    // ------------------------------------------------------------------ head

    /** Returns true when a head was parsed (state moved on), false when more input is needed or on error. */
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
        while (p < n && FieldLines.TOKEN[b[p] & 0xff]) {
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
        if (!fieldLines.parse(b, p, n, fields)) {
            return false;
        }
        version = v;
        headSize = HtxSize.HEAD + method.length() + target.length() + 8 + fieldLines.bytes();
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
        if (!fieldLines.parse(b, p, n, fields)) {
            return false;
        }
        version = v;
        headSize = HtxSize.HEAD + 8 + 3 + (re - rs) + fieldLines.bytes();
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

    // ------------------------------------------------------------------ framing

    private void resetFlags() {
        connection.reset();
        closeAfter = false;
    }

    private boolean requestFraming(RequestHead head) {
        HttpFields f = head.fields();
        resetFlags();
        H1Error refused = RequestTarget.checkHost(head);
        if (refused == null) {
            refused = RequestTarget.checkTarget(head);
        }
        if (refused != null) {
            return fail(refused);
        }
        headSize += connection.read(f);
        int te = FramingFields.transferEncoding(f);
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
                    lengthRemoved(f, cl);
                    closeAfter = true;
                }
                head.chunkedEnd(true);
                if (http10) {
                    closeAfter = true;
                }
                head.bodyStreamed();
                state = State.CHUNKED;
                chunkedBody.start();
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
        if (head.hasBody() && !head.isConnect()) {
            headSize += connection.bodyCancelsUpgrade(f);
        }
        head.upgrade(upgradeProtocol());
        head.htxSize(headSize);
        if (connection.webSocketKeyMissing(f, false)) {
            fail(400, "websocket upgrade without a sec-websocket-key", 0);
            return false;
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

    /** {@link FramingFields#contentLength}, its change of the head's HTX size counted. */
    private long contentLength(HttpFields f) {
        lengthField[0] = 0;
        long cl = FramingFields.contentLength(f, lengthField);
        headSize += lengthField[0];
        return cl;
    }

    /**
     * Content-Length goes with Transfer-Encoding, as in HAProxy, which removes it from its HTX too ({@code cl}: its
     * value, -1 when there was none, -2 when invalid; the head was measured with the one field left).
     */
    private void lengthRemoved(HttpFields f, long cl) {
        int i = f.indexOf(HeaderNames.CONTENT_LENGTH);
        if (cl >= 0 && i >= 0) {
            headSize -= HeaderNames.CONTENT_LENGTH.length() + f.value(i).length();
        }
        f.removeAll(HeaderNames.CONTENT_LENGTH);
    }

    private boolean responseFraming(ResponseHead head) {
        HttpFields f = head.fields();
        resetFlags();
        int status = head.status();
        headSize += connection.read(f);
        int te = FramingFields.transferEncoding(f);
        long cl = contentLength(f);
        head.htxSize(headSize);
        if (te == TE_INVALID || cl == -2 && te == TE_NONE) {
            fail(502, te == TE_INVALID ? "invalid transfer-encoding" : "invalid content-length", 0);
            return false;
        }
        if (connection.webSocketKeyMissing(f, true)) {
            fail(502, "websocket upgrade without a sec-websocket-accept", 0);
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
                lengthRemoved(f, cl);
                closeAfter = true;
            }
            if (te == TE_OTHER_THEN_CHUNKED) {
                // the codings before chunked stay in the content: tell the client about them
                closeAfter = true;
            }
            head.chunkedEnd(true);
            head.htxSize(headSize);
            head.bodyStreamed();
            state = State.CHUNKED;
            chunkedBody.start();
        } else if (te == TE_NOT_CHUNKED) {
            lengthRemoved(f, cl);
            head.htxSize(headSize);
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
}
