package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.util.Arrays;

/**
 * Turns an {@code errorfile} (a raw HTTP/1 response) into a head and a body with the HTTP/1 parser, so
 * it is sent like any other response: through the client's protocol, with a content-length that
 * matches the body. Used at start-up only.
 */
public final class ErrorPageParser {
    private ErrorPageParser() {
    }

    /** A parsed page; the head is a template to copy for each use. */
    public record Page(ResponseHead head, byte[] body) {
    }

    /** Parses {@code raw}; throws {@link IllegalArgumentException} when it is not a valid response. */
    public static Page parse(byte[] raw) {
        ResponseHead[] head = new ResponseHead[1];
        String[] err = new String[1];
        H1Parser p = new H1Parser(false, H1Limits.DEFAULT, new H1Parser.Sink() {
            @Override
            public void onHead(MessageHead h) {
                if (head[0] == null) {
                    head[0] = (ResponseHead) h;
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
                err[0] = error.reason();
            }
        });
        ByteBuf in = Unpooled.wrappedBuffer(raw);
        try {
            p.expectResponseTo(true, false);
            p.parse(in);
        } finally {
            in.release();
        }
        if (err[0] != null || head[0] == null) {
            throw new IllegalArgumentException(err[0] != null ? err[0] : "incomplete response head");
        }
        int headLen = headLength(raw);
        byte[] body = Arrays.copyOfRange(raw, headLen, raw.length);
        ResponseHead h = head[0];
        h.fields().set(HeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(body.length)));
        h.bodyLength(body.length);
        return new Page(h, body);
    }

    private static int headLength(byte[] raw) {
        for (int i = 0; i + 1 < raw.length; i++) {
            if (raw[i] == '\n' && raw[i + 1] == '\n') {
                return i + 2;
            }
            if (raw[i] == '\n' && i + 2 < raw.length && raw[i + 1] == '\r' && raw[i + 2] == '\n') {
                return i + 3;
            }
        }
        return raw.length;
    }
}
