package dev.sluice.proxy.http;

import io.netty.util.AsciiString;

/**
 * What requests and responses share: version, header fields and how the body is delimited. Mutable while
 * rules rewrite it; owned by one stream on one event loop.
 */
public abstract class MessageHead {
    /** How the body that follows a head is delimited, independent of the protocol that carries it. */
    public enum Body {
        /** No body at all. */
        NONE,
        /** Exactly {@link #contentLength()} bytes. */
        LENGTH,
        /** A body of unknown length that ends with an end-of-message mark (h1 chunked, h2/h3 END_STREAM). */
        STREAMED,
        /** A response body that ends when the server closes the connection (HTTP/1 only). */
        UNTIL_CLOSE
    }

    private HttpVersion version;
    private final HttpFields fields;
    private Body body = Body.NONE;
    private long contentLength = -1;
    private AsciiString upgrade;
    /** The head's size in HAProxy's HTX, as its codec received it ({@link HtxSize}); 0: not known, measured on demand. */
    private int htxSize;
    /** An HTTP/1 chunked message: its end adds HAProxy's end-of-trailers block even without trailers. */
    private boolean chunkedEnd;

    protected MessageHead(HttpVersion version, HttpFields fields) {
        this.version = version;
        this.fields = fields;
    }

    public HttpVersion version() {
        return version;
    }

    public void version(HttpVersion v) {
        this.version = v;
    }

    public HttpFields fields() {
        return fields;
    }

    public Body body() {
        return body;
    }

    /** The body length for {@link Body#LENGTH}, -1 otherwise. */
    public long contentLength() {
        return contentLength;
    }

    public void bodyNone() {
        body = Body.NONE;
        contentLength = -1;
    }

    public void bodyLength(long n) {
        body = Body.LENGTH;
        contentLength = n;
    }

    public void bodyStreamed() {
        body = Body.STREAMED;
        contentLength = -1;
    }

    public void bodyUntilClose() {
        body = Body.UNTIL_CLOSE;
        contentLength = -1;
    }

    /**
     * The protocol of an HTTP/1 upgrade ({@code Connection: upgrade} with {@code Upgrade: <protocol>}),
     * asked by a request or accepted by a 101 response; null otherwise.
     */
    public AsciiString upgrade() {
        return upgrade;
    }

    public void upgrade(AsciiString protocol) {
        this.upgrade = protocol;
    }

    public boolean hasBody() {
        return body != Body.NONE && !(body == Body.LENGTH && contentLength == 0);
    }

    /**
     * The size HAProxy 2.6 gives this head in its HTX (start line, fields, end of headers: see {@link HtxSize}), as
     * the codec that received it counted it; for a head made by the proxy, measured from its fields.
     */
    public int htxSize() {
        int n = htxSize;
        return n != 0 ? n : HtxSize.head(this);
    }

    /** Set by the codec that received the head, from what it parsed. */
    public void htxSize(int n) {
        this.htxSize = n;
    }

    /** Whether the message ends with HAProxy's end-of-trailers block even without trailers (HTTP/1 chunked). */
    public boolean chunkedEnd() {
        return chunkedEnd;
    }

    public void chunkedEnd(boolean b) {
        this.chunkedEnd = b;
    }
}
