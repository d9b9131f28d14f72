package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import io.netty.buffer.ByteBuf;

/**
 * The HTTP/1 request head at the start of bytes a layer-4 stream holds, read without consuming them, as HAProxy 2.6
 * reads an HTTP request out of a TCP stream's buffer for its HTTP fetches ({@code req.proto_http}, {@code path},
 * {@code hdr()}... in a {@code mode tcp} proxy): a complete and valid head, or not there yet, or not HTTP.
 */
public final class RequestPeek implements H1Parser.Sink {
    /** What {@link #peek} found. */
    public enum Outcome {
        /** A complete, valid request head. */
        HEAD,
        /** The bytes may still become one. */
        INCOMPLETE,
        /** They cannot: not an HTTP/1 request. */
        INVALID
    }

    private RequestHead head;
    private boolean failed;

    private RequestPeek() {
    }

    /** The head, or null, with what was found in {@code out[0]}. */
    public static RequestHead peek(ByteBuf bytes, H1Limits limits, Outcome[] out) {
        RequestPeek p = new RequestPeek();
        H1Parser parser = new H1Parser(true, limits, p);
        parser.parse(bytes.duplicate());
        out[0] = p.head != null ? Outcome.HEAD : p.failed ? Outcome.INVALID : Outcome.INCOMPLETE;
        return p.head;
    }

    @Override
    public void onHead(MessageHead h) {
        if (head == null && h instanceof RequestHead r) {
            head = r;
        }
    }

    @Override
    public void onBody(ByteBuf data) {
        data.release();
    }

    @Override
    public void onEnd(HttpFields trailers) {
    }

    @Override
    public void onError(H1Error error) {
        failed = true;
    }
}
