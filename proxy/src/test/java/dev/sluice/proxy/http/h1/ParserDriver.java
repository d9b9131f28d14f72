package dev.sluice.proxy.http.h1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * Feeds an {@link H1Parser} the way a connection does: new bytes are appended to one accumulating input
 * buffer whose unconsumed bytes stay for the next call. {@link #close()} releases the input and checks
 * that nothing still holds it (every body slice was released by the sink).
 */
public final class ParserDriver implements AutoCloseable {
    public final RecordingSink sink = new RecordingSink();
    final H1Parser parser;
    final ByteBuf in;
    /** Resume the parser by itself after each complete request (pipelining as a connection does it). */
    boolean autoResume;

    ParserDriver(boolean request, H1Limits limits, ByteBufAllocator alloc) {
        this.parser = new H1Parser(request, limits, sink);
        this.in = alloc.buffer(256);
    }

    static ParserDriver request() {
        return new ParserDriver(true, H1Limits.DEFAULT, UnpooledByteBufAllocator.DEFAULT);
    }

    static ParserDriver response() {
        return new ParserDriver(false, H1Limits.DEFAULT, UnpooledByteBufAllocator.DEFAULT);
    }

    public static ParserDriver pooled(boolean request) {
        return new ParserDriver(request, H1Limits.DEFAULT, PooledByteBufAllocator.DEFAULT);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    ParserDriver feed(String s) {
        return feed(bytes(s));
    }

    ParserDriver feed(byte[] b) {
        return feed(b, 0, b.length);
    }

    ParserDriver feed(byte[] b, int off, int len) {
        in.writeBytes(b, off, len);
        parser.parse(in);
        while (autoResume && parser.paused()) {
            parser.resume();
            parser.parse(in);
        }
        return this;
    }

    /** What the parser left unconsumed. */
    String remaining() {
        return in.toString(StandardCharsets.ISO_8859_1);
    }

    /** The unconsumed input at {@link #close()}. */
    String leftover;

    @Override
    public void close() {
        leftover = remaining();
        in.release();
        assertThat(in.refCnt()).as("input still referenced: a body slice leaked").isZero();
    }

    /** Parses {@code raw} as one piece and returns the driver closed. */
    public static ParserDriver parseRequest(String raw) {
        ParserDriver d = request();
        try (d) {
            d.feed(raw);
        }
        return d;
    }

    public static ParserDriver parseResponse(String raw) {
        ParserDriver d = response();
        try (d) {
            d.feed(raw);
        }
        return d;
    }

    static ParserDriver parseResponseTo(boolean head, boolean connect, String raw) {
        ParserDriver d = response();
        try (d) {
            d.parser.expectResponseTo(head, connect);
            d.feed(raw);
        }
        return d;
    }

    static ByteBuf wrap(String s) {
        return Unpooled.wrappedBuffer(bytes(s));
    }
}
