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
    static final int WINDOW_UPDATE = 8;
    static final int CONTINUATION = 9;

    static final int PROTOCOL_ERROR = 1;
    static final int STREAM_CLOSED = 5;
    static final int COMPRESSION_ERROR = 9;
    static final int ENHANCE_YOUR_CALM = 11;

    /** A received frame. */
    record Frame(int type, int flags, int stream, byte[] payload) {
        int errorCode() {
            int off = type == GOAWAY ? 4 : 0;
            return (payload[off] & 0xff) << 24 | (payload[off + 1] & 0xff) << 16 | (payload[off + 2] & 0xff) << 8 | payload[off + 3] & 0xff;
        }

        /** A GOAWAY's last stream id. */
        int lastStreamId() {
            return ((payload[0] & 0x7f) << 24 | (payload[1] & 0xff) << 16 | (payload[2] & 0xff) << 8 | payload[3] & 0xff);
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);

    H2RawClient(int port) {
        this(port, 0);
    }

    /** With {@code receiveBuffer} > 0, a receive buffer that small (a client that hardly reads). */
    H2RawClient(int port, int receiveBuffer) {
        try {
            socket = new Socket();
            if (receiveBuffer > 0) {
                socket.setReceiveBufferSize(receiveBuffer);
            }
            socket.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
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
        send(encode(type, flags, stream, payload));
    }

    /** Writes bytes as they are (several frames in one write). */
    void send(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One frame's bytes. */
    static byte[] encode(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >> 16);
        f[1] = (byte) (payload.length >> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (stream >> 24);
        f[6] = (byte) (stream >> 16);
        f[7] = (byte) (stream >> 8);
        f[8] = (byte) stream;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    /** Frames one after the other. */
    static byte[] concat(byte[]... frames) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] f : frames) {
            b.writeBytes(f);
        }
        return b.toByteArray();
    }

    /** A four-byte big-endian payload (RST_STREAM error code, WINDOW_UPDATE increment). */
    static byte[] int32(long v) {
        return new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v};
    }

    /** HEADERS with END_HEADERS (and END_STREAM when {@code end}); fields as name, value pairs in order. */
    void headers(int stream, boolean end, List<String[]> fields) {
        send(headersFrame(stream, end, fields));
    }

    static byte[] headersFrame(int stream, boolean end, List<String[]> fields) {
        return encode(HEADERS, 0x4 | (end ? 0x1 : 0), stream, block(fields));
    }

    /** A header block of literal fields without indexing. */
    static byte[] block(List<String[]> fields) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String[] f : fields) {
            b.write(0); // literal header field without indexing, new name
            literal(b, f[0]);
            literal(b, f[1]);
        }
        return b.toByteArray();
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

    /**
     * Reads until a GOAWAY (returned), or until the connection ends or stays silent for the read timeout
     * (null); acknowledges nothing.
     */
    Frame awaitGoAway() {
        try {
            while (true) {
                Frame f = read();
                if (f.type() == GOAWAY) {
                    return f;
                }
            }
        } catch (UncheckedIOException e) {
            return null;
        }
    }

    /** Reads and drops frames until the connection ends or stays silent for {@code millis}; true when it ended. */
    boolean drain(int millis) {
        try {
            socket.setSoTimeout(millis);
            while (true) {
                read();
            }
        } catch (UncheckedIOException e) {
            return !(e.getCause() instanceof java.net.SocketTimeoutException);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The DATA of {@code stream} up to END_STREAM; other frames are dropped. */
    byte[] body(int stream) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            Frame f = read();
            if (f.type() == DATA && f.stream() == stream) {
                b.writeBytes(f.payload());
                if ((f.flags() & 1) != 0) {
                    return b.toByteArray();
                }
            } else if (f.type() == RST_STREAM && f.stream() == stream) {
                throw new IllegalStateException("stream " + stream + " reset with " + f.errorCode());
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
