package dev.sluice.proxy.fcgi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The FastCGI 1.0 record layer, the writing side: record headers and the records a web server sends (BEGIN_REQUEST,
 * PARAMS with their name-value pairs, STDIN, ABORT_REQUEST, GET_VALUES). A record carries at most 65535 content bytes;
 * longer contents are split over several records. Stateless.
 */
public final class FcgiRecords {
    private FcgiRecords() {
    }

    public static final int VERSION = 1;
    public static final int HEADER_SIZE = 8;
    public static final int MAX_CONTENT = 65535;

    public static final int BEGIN_REQUEST = 1;
    public static final int ABORT_REQUEST = 2;
    public static final int END_REQUEST = 3;
    public static final int PARAMS = 4;
    public static final int STDIN = 5;
    public static final int STDOUT = 6;
    public static final int STDERR = 7;
    public static final int DATA = 8;
    public static final int GET_VALUES = 9;
    public static final int GET_VALUES_RESULT = 10;
    public static final int UNKNOWN_TYPE = 11;

    public static final int ROLE_RESPONDER = 1;
    public static final int FLAG_KEEP_CONN = 1;

    /** END_REQUEST protocol statuses. */
    public static final int REQUEST_COMPLETE = 0;
    public static final int CANT_MPX_CONN = 1;
    public static final int OVERLOADED = 2;
    public static final int UNKNOWN_ROLE = 3;

    /** The highest request id a connection can use: HAProxy 2.6 keeps them in 15 bits. */
    public static final int MAX_ID = 0x7fff;

    /**
     * The request id after {@code maxId}, the highest used on a connection (-1 for none), as HAProxy 2.6 gives them: odd
     * ones, 1, 3, 5..., never one used before on the connection; -1 once past {@link #MAX_ID} (the connection takes no
     * other request).
     */
    public static int nextId(int maxId) {
        int id = (maxId + 1) | 1;
        return id > MAX_ID ? -1 : id;
    }

    /** A record header: version, type, request id, content length, padding length, reserved. */
    public static void header(ByteBuf out, int type, int id, int contentLength, int padding) {
        out.writeByte(VERSION).writeByte(type).writeShort(id).writeShort(contentLength).writeByte(padding).writeByte(0);
    }

    /** BEGIN_REQUEST for the responder role, asking the application to keep the connection when {@code keepConn}. */
    public static ByteBuf beginRequest(ByteBufAllocator alloc, int id, boolean keepConn) {
        ByteBuf out = alloc.buffer(HEADER_SIZE + 8);
        header(out, BEGIN_REQUEST, id, 8, 0);
        out.writeShort(ROLE_RESPONDER).writeByte(keepConn ? FLAG_KEEP_CONN : 0).writeZero(5);
        return out;
    }

    /** ABORT_REQUEST for request {@code id}. */
    public static ByteBuf abortRequest(ByteBufAllocator alloc, int id) {
        ByteBuf out = alloc.buffer(HEADER_SIZE);
        header(out, ABORT_REQUEST, id, 0, 0);
        return out;
    }

    /** GET_VALUES (request id 0) asking for FCGI_MAX_REQS and FCGI_MPXS_CONNS, with empty values, as HAProxy asks. */
    public static ByteBuf getValues(ByteBufAllocator alloc) {
        ByteBuf body = alloc.buffer(64);
        try {
            pair(body, bytes("FCGI_MAX_REQS"), new byte[0]);
            pair(body, bytes("FCGI_MPXS_CONNS"), new byte[0]);
            ByteBuf out = alloc.buffer(HEADER_SIZE + body.readableBytes());
            header(out, GET_VALUES, 0, body.readableBytes(), 0);
            out.writeBytes(body);
            return out;
        } finally {
            body.release();
        }
    }

    /**
     * The PARAMS stream of request {@code id}: the name-value pairs ({@code name}s already in their final form), split
     * into records of at most 65535 bytes, then the empty PARAMS record that ends the stream.
     */
    public static ByteBuf params(ByteBufAllocator alloc, int id, List<String[]> pairs) {
        ByteBuf body = alloc.buffer(1024);
        ByteBuf out = null;
        try {
            for (String[] p : pairs) {
                pair(body, bytes(p[0]), p[1].getBytes(StandardCharsets.ISO_8859_1));
            }
            out = alloc.buffer(body.readableBytes() + HEADER_SIZE * (2 + body.readableBytes() / MAX_CONTENT));
            stream(out, PARAMS, id, body);
            header(out, PARAMS, id, 0, 0);
            return out;
        } finally {
            body.release();
        }
    }

    /** STDIN records carrying {@code data} (released), split at 65535 bytes; nothing for an empty buffer. */
    public static ByteBuf stdin(ByteBufAllocator alloc, int id, ByteBuf data) {
        try {
            ByteBuf out = alloc.buffer(data.readableBytes() + HEADER_SIZE * (1 + data.readableBytes() / MAX_CONTENT));
            stream(out, STDIN, id, data);
            return out;
        } finally {
            data.release();
        }
    }

    /** The empty STDIN record that ends the request body. */
    public static ByteBuf stdinEnd(ByteBufAllocator alloc, int id) {
        ByteBuf out = alloc.buffer(HEADER_SIZE);
        header(out, STDIN, id, 0, 0);
        return out;
    }

    /** Writes {@code data}'s readable bytes as records of {@code type}, 65535 bytes at most each. */
    private static void stream(ByteBuf out, int type, int id, ByteBuf data) {
        while (data.isReadable()) {
            int n = Math.min(MAX_CONTENT, data.readableBytes());
            header(out, type, id, n, 0);
            out.writeBytes(data, n);
        }
    }

    /** A name-value pair: each length on one byte below 128, else on four with the high bit set. */
    static void pair(ByteBuf out, byte[] name, byte[] value) {
        length(out, name.length);
        length(out, value.length);
        out.writeBytes(name).writeBytes(value);
    }

    private static void length(ByteBuf out, int n) {
        if (n < 128) {
            out.writeByte(n);
        } else {
            out.writeInt(n | 0x80000000);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Reads the name-value pairs of a PARAMS or GET_VALUES(_RESULT) content; throws {@link IllegalArgumentException}
     * when a length runs past the end.
     */
    public static java.util.Map<String, String> readPairs(ByteBuf in) {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        while (in.isReadable()) {
            int n = readLength(in);
            int v = readLength(in);
            if (n < 0 || v < 0 || in.readableBytes() < (long) n + v) {
                throw new IllegalArgumentException("truncated name-value pair");
            }
            String name = in.readCharSequence(n, StandardCharsets.ISO_8859_1).toString();
            String value = in.readCharSequence(v, StandardCharsets.ISO_8859_1).toString();
            out.put(name, value);
        }
        return out;
    }

    private static int readLength(ByteBuf in) {
        if (!in.isReadable()) {
            return -1;
        }
        int b = in.getUnsignedByte(in.readerIndex());
        if (b < 128) {
            in.skipBytes(1);
            return b;
        }
        if (in.readableBytes() < 4) {
            return -1;
        }
        return in.readInt() & 0x7fffffff;
    }
}
