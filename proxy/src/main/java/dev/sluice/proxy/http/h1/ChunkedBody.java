package dev.sluice.proxy.http.h1;

import static dev.sluice.proxy.http.h1.FieldLines.CR;
import static dev.sluice.proxy.http.h1.FieldLines.LF;

import dev.sluice.proxy.http.HttpFields;
import io.netty.buffer.ByteBuf;

/**
 * A chunked body, decoded as it arrives: chunk-size lines (hex, at most 15 digits, extensions ignored but checked
 * for control characters), the chunks' data handed to the sink as retained slices of the input, the CRLF after
 * each, and the trailer fields after the last chunk, which end the message. One per {@link H1Parser}, which hands
 * its input here while the body lasts.
 */
final class ChunkedBody {
    private enum Step { SIZE, DATA, DATA_END, TRAILERS }

    /** The longest chunk-size line (with its extensions). */
    private static final int MAX_SIZE_LINE = 1024;

    private final H1Parser parser;
    private final H1Parser.Sink sink;
    private final FieldLines fieldLines;
    private final boolean request;
    private final H1Limits limits;
    private Step step = Step.SIZE;
    /** The bytes of the current chunk not received yet. */
    private long remaining;

    ChunkedBody(H1Parser parser, H1Parser.Sink sink, FieldLines fieldLines, boolean request, H1Limits limits) {
        this.parser = parser;
        this.sink = sink;
        this.fieldLines = fieldLines;
        this.request = request;
        this.limits = limits;
    }

    /** A chunked body starts after the head just parsed. */
    void start() {
        step = Step.SIZE;
        remaining = 0;
    }

    /** Decodes until more input is needed, an error, or the end of the trailers (which ends the message). */
    void parse(ByteBuf in) {
        while (true) {
            switch (step) {
                case SIZE -> {
                    if (!parseChunkSize(in)) {
                        return;
                    }
                }
                case DATA -> {
                    int n = (int) Math.min(remaining, in.readableBytes());
                    if (n > 0) {
                        remaining -= n;
                        sink.onBody(in.readRetainedSlice(n));
                    }
                    if (remaining > 0) {
                        return;
                    }
                    step = Step.DATA_END;
                }
                case DATA_END -> {
                    if (!parseChunkEnd(in)) {
                        return;
                    }
                }
                case TRAILERS -> {
                    parseTrailers(in);
                    return;
                }
                default -> throw new IllegalStateException(step.name());
            }
        }
    }

    /** Parses {@code <hex>[;ext]CRLF}; returns false when more input is needed or on error. */
    private boolean parseChunkSize(ByteBuf in) {
        int start = in.readerIndex();
        parser.messageStart(start);
        int end = in.writerIndex();
        int lf = in.indexOf(start, Math.min(end, start + MAX_SIZE_LINE), LF);
        if (lf < 0) {
            if (end - start >= MAX_SIZE_LINE) {
                parser.fail(400, "chunk size line too long", 0);
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
                parser.fail(400, "chunk size too large", p - start);
                return false;
            }
            size = size * 16 + d;
            p++;
        }
        if (digits == 0) {
            parser.fail(400, "invalid chunk size", 0);
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
                    parser.fail(400, "invalid chunk extension", k - start);
                    return false;
                }
            }
        } else if (p < lf && !(p == lf - 1 && in.getByte(p) == CR)) {
            parser.fail(400, "invalid chunk size", p - start);
            return false;
        }
        in.readerIndex(lf + 1);
        if (size == 0) {
            step = Step.TRAILERS;
        } else {
            remaining = size;
            step = Step.DATA;
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
                parser.fail(400, "missing CRLF after chunk data", 0);
                return false;
            }
            in.skipBytes(2);
        } else {
            parser.fail(400, "missing CRLF after chunk data", 0);
            return false;
        }
        step = Step.SIZE;
        return true;
    }

    /** Reads trailer lines up to the empty line, then ends the message; otherwise waits for input or fails. */
    private void parseTrailers(ByteBuf in) {
        int start = in.readerIndex();
        parser.messageStart(start);
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
                    if (!fieldLines.parse(b, 0, b.length, t)) {
                        return;
                    }
                }
                in.readerIndex(lf + 1);
                parser.end(t);
                return;
            }
            p = lf + 1;
        }
        if (end - start >= limits.maxHeadBytes()) {
            parser.fail(request ? 431 : 502, "trailers too large", 0);
        }
    }
}
