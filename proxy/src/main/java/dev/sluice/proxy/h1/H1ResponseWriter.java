package dev.sluice.proxy.h1;

import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.h1.ErrorResponses;
import dev.sluice.proxy.http.h1.H1Encoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;

/**
 * The response side of an HTTP/1 client connection: status line and fields ({@link H1Encoder}), the body's framing
 * toward the client (chunked for a streamed body to an HTTP/1.1 client, else delimited by the close), the
 * Connection field that says whether the connection stays, interim responses (HTTP/1.1 clients only), the bytes sent
 * (for the log), and the error pages of requests that never became a stream. Writes are flushed once per read or
 * response ({@link #flush}). Whether the connection must close is the connection's decision, given with each final
 * head. One per {@link H1ClientConnection}, on its event loop.
 */
final class H1ResponseWriter {
    private ChannelHandlerContext ctx;
    private HttpVersion requestVersion;
    private boolean keepAlive;
    private boolean headSent;
    private boolean chunked;
    private boolean chunkWritten;
    /** Something was written since the last flush. */
    private boolean dirty;
    private long bytesOut;

    void attach(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** A request arrived: its response is written for its version, and its bytes are counted from zero. */
    void request(HttpVersion version) {
        requestVersion = version;
        headSent = false;
        bytesOut = 0;
    }

    /** The exchange is over: no response head is out for the next request yet. */
    void nextRequest() {
        headSent = false;
    }

    /** Whether the current response's final head went out. */
    boolean headSent() {
        return headSent;
    }

    /** Whether the final head told the client the connection stays. */
    boolean keepAlive() {
        return keepAlive;
    }

    long bytesOut() {
        return bytesOut;
    }

    /**
     * Decides framing and persistence for a final response head ({@code tokens}: those of its Connection fields, a
     * close one closing the connection as in HAProxy's h1_set_cli_conn_mode); returns the extra framing line.
     */
    private byte[] finalFraming(ResponseHead h, boolean close, int tokens) {
        if ((tokens & H1Encoder.CLOSE_TOKEN) != 0) {
            close = true;
        }
        byte[] framing = null;
        chunked = false;
        chunkWritten = false;
        switch (h.body()) {
            case STREAMED -> {
                // chunked whenever the response goes out as HTTP/1.1, to an HTTP/1.0 client too, as HAProxy's mux_h1
                // (its H1_MF_VER_11 is the response's); an HTTP/1.0 response ends with the connection
                if (h.version() != HttpVersion.HTTP_1_0) {
                    chunked = true;
                    framing = H1Encoder.TE_CHUNKED;
                } else {
                    close = true;
                }
            }
            case UNTIL_CLOSE -> close = true;
            default -> {
            }
        }
        keepAlive = !close;
        headSent = true;
        return framing;
    }

    /**
     * The Connection line the proxy adds after the fields (HAProxy's h1_update_res_conn_value): none when the
     * response's own Connection has an upgrade token; else, for a connection that closes, close when the response goes
     * out as HTTP/1.1 (an HTTP/1.0 one closes by default); for one kept, keep-alive when the response (an HTTP/1.0
     * server's, relayed as such) or the request is HTTP/1.0.
     */
    private byte[] connectionLine(int tokens, ResponseHead h) {
        if ((tokens & H1Encoder.UPGRADE_TOKEN) != 0) {
            return null;
        }
        boolean http10 = h.version() == HttpVersion.HTTP_1_0;
        if (!keepAlive) {
            return http10 ? null : H1Encoder.CONNECTION_CLOSE;
        }
        return http10 || requestVersion == HttpVersion.HTTP_1_0 ? H1Encoder.CONNECTION_KEEP_ALIVE : null;
    }

    /** A 1xx response before the final one: HTTP/1.0 clients do not get it. */
    void interim(ResponseHead head) {
        if (requestVersion == HttpVersion.HTTP_1_1) {
            ctx.write(H1Encoder.response(ctx.alloc(), head, null, null, 0));
            dirty = true;
        }
    }

    /** The final head of a relayed response; {@code close}: the connection closes after it whatever its framing. */
    void head(ResponseHead head, boolean close) {
        int tokens = H1Encoder.connectionTokens(head.fields());
        byte[] framing = finalFraming(head, close, tokens);
        // a switch of protocols goes with the server's own Connection and Upgrade fields, as HAProxy's tunnel mode
        byte[] conn = head.status() == 101 && head.upgrade() != null ? null : connectionLine(tokens, head);
        ByteBuf out = H1Encoder.response(ctx.alloc(), head, framing, conn, 0);
        bytesOut += out.readableBytes();
        ctx.write(out);
        dirty = true;
    }

    void body(ByteBuf data) {
        int n = data.readableBytes();
        if (n == 0) {
            data.release();
            return;
        }
        if (chunked) {
            ctx.write(H1Encoder.chunkHeader(ctx.alloc(), n, chunkWritten));
            chunkWritten = true;
        }
        bytesOut += n;
        ctx.write(data);
        dirty = true;
    }

    /** The end of the response's body: the last chunk and the trailers when chunked. */
    void end(HttpFields trailers) {
        if (chunked) {
            ctx.write(H1Encoder.lastChunk(ctx.alloc(), chunkWritten, trailers));
            dirty = true;
        }
    }

    /** A whole response the proxy made (an error page, a rule's reply); {@code headRequest}: without its body. */
    void generated(ResponseHead head, byte[] body, boolean close, boolean headRequest) {
        int tokens = H1Encoder.connectionTokens(head.fields());
        byte[] framing = finalFraming(head, close, tokens);
        int bodyLen = headRequest ? 0 : body.length;
        ByteBuf out = H1Encoder.response(ctx.alloc(), head, framing, connectionLine(tokens, head), bodyLen);
        if (bodyLen > 0) {
            out.writeBytes(body);
        }
        bytesOut += out.readableBytes();
        ctx.write(out);
        dirty = true;
    }

    /** Tunnelled bytes (after a 101 or a CONNECT). */
    void raw(ByteBuf data) {
        bytesOut += data.readableBytes();
        ctx.write(data);
        dirty = true;
    }

    void flush() {
        if (dirty) {
            dirty = false;
            ctx.flush();
        }
    }

    /** The caller flushes what was written itself (closing after the response). */
    void flushedByCaller() {
        dirty = false;
    }

    /**
     * The answer to a request refused before it became a stream (400, 408, 414, 431...), with
     * {@code Connection: close}: the frontend's errorfile page for the status, else the built-in one; null when the
     * errorfile says to close without an answer.
     */
    ByteBuf errorPage(GeneratedResponse r, ErrorResponses pages) {
        if (pages.closes(r.status())) {
            return null;
        }
        ResponseHead custom = pages.head(r.status());
        if (custom != null) {
            byte[] body = pages.body(r.status());
            ByteBuf out = H1Encoder.response(ctx.alloc(), custom, null, H1Encoder.CONNECTION_CLOSE, body.length);
            out.writeBytes(body);
            return out;
        }
        return Unpooled.wrappedBuffer(r.raw());
    }
}
