package dev.sluice.regtests;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A raw HTTP/2 client for malformed-request tests: writes frames byte by byte (HPACK literals without
 * indexing or Huffman, so any name or value can be sent, valid or not) and reads frames back.
 */
final class H2RawClient implements AutoCloseable {
    static final int DATA = 0;
    static final int HEADERS = 1;
    static final int RST_STREAM = 3;
    static final int SETTINGS = 4;
    static final int PING = 6;
    static final int GOAWAY = 7;

    /** A received frame. */
    record Frame(int type, int flags, int stream, byte[] payload) {
        int errorCode() {
            int off = type == GOAWAY ? 4 : 0;
            return (payload[off] & 0xff) << 24 | (payload[off + 1] & 0xff) << 16 | (payload[off + 2] & 0xff) << 8 | payload[off + 3] & 0xff;
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);

    H2RawClient(int port) {
        try {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout(5000);
            out = socket.getOutputStream();
            in = new DataInputStream(socket.getInputStream());
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            frame(SETTINGS, 0, 0, new byte[0]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void frame(int type, int flags, int stream, byte[] payload) {
        try {
            byte[] h = {(byte) (payload.length >> 16), (byte) (payload.length >> 8), (byte) payload.length, (byte) type, (byte) flags,
                    (byte) (stream >> 24), (byte) (stream >> 16), (byte) (stream >> 8), (byte) stream};
            out.write(h);
            out.write(payload);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** HEADERS with END_HEADERS (and END_STREAM when {@code end}); fields as name, value pairs in order. */
    void headers(int stream, boolean end, List<String[]> fields) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String[] f : fields) {
            b.write(0); // literal header field without indexing, new name
            literal(b, f[0]);
            literal(b, f[1]);
        }
        frame(HEADERS, 0x4 | (end ? 0x1 : 0), stream, b.toByteArray());
    }

    private static void literal(ByteArrayOutputStream b, String s) {
        byte[] v = s.getBytes(StandardCharsets.ISO_8859_1);
        // 7-bit prefix integer, no Huffman
        int n = v.length;
        if (n < 127) {
            b.write(n);
        } else {
            b.write(127);
            n -= 127;
            while (n >= 128) {
                b.write(n % 128 + 128);
                n /= 128;
            }
            b.write(n);
        }
        b.write(v, 0, v.length);
    }

    void data(int stream, boolean end, byte[] payload) {
        frame(DATA, end ? 0x1 : 0, stream, payload);
    }

    Frame read() {
        try {
            int len = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7fffffff;
            byte[] p = new byte[len];
            in.readFully(p);
            return new Frame(type, flags, stream, p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first RST_STREAM or HEADERS of {@code stream}, or a GOAWAY; acknowledges SETTINGS and answers PINGs on the way. */
    Frame awaitStream(int stream) {
        while (true) {
            Frame f = read();
            if (f.type() == SETTINGS && (f.flags() & 1) == 0) {
                frame(SETTINGS, 1, 0, new byte[0]);
            } else if (f.type() == GOAWAY || f.stream() == stream && (f.type() == RST_STREAM || f.type() == HEADERS)) {
                return f;
            }
        }
    }

    /** Decodes a HEADERS frame's block (the decoder keeps the connection's dynamic table). */
    Http2Headers decode(Frame f) {
        ByteBuf buf = Unpooled.wrappedBuffer(f.payload());
        try {
            return decoder.decodeHeaders(f.stream(), buf);
        } catch (Http2Exception e) {
            throw new IllegalStateException(e);
        } finally {
            buf.release();
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
