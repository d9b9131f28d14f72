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
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cleartext HTTP/2 (prior knowledge) test origin that writes its answers frame by frame (HPACK literals
 * without indexing, see {@link H2RawClient}), so that it can send what a correct server never would:
 * upper-case names, no {@code :status}, a body not matching its content-length, a body on a 204, trailers.
 * It records each request (decoded header block, body, trailers) and hands it to a {@link Handler}. One
 * virtual thread per connection; it acknowledges SETTINGS and PING and gives back every DATA byte at once.
 */
final class H2RawOrigin implements AutoCloseable {

    /** A received request; {@code trailers} is null when there were none. */
    record Request(int stream, Http2Headers headers, byte[] body, Http2Headers trailers, int connection) {
        String header(String name) {
            CharSequence v = headers.get(name);
            return v == null ? null : v.toString();
        }
    }

    /** Writes frames to one connection. */
    static final class Writer {
        private final OutputStream out;

        Writer(OutputStream out) {
            this.out = out;
        }

        synchronized void send(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            send(H2RawClient.encode(type, flags, stream, payload));
        }

        /** HEADERS with END_HEADERS; fields as name, value pairs, sent as they are. */
        void headers(int stream, boolean end, String... kv) throws IOException {
            send(H2RawClient.headersFrame(stream, end, Origin.headers(kv)));
        }

        void data(int stream, boolean end, byte[] payload) throws IOException {
            frame(H2RawClient.DATA, end ? 1 : 0, stream, payload);
        }
    }

    /** Answers a request (or does not). */
    @FunctionalInterface
    interface Handler {
        void handle(Request r, Writer w) throws IOException;
    }

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final List<Socket> open = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger connections = new AtomicInteger();
    /** When each connection ended (System.nanoTime()), by connection number. */
    private final Map<Integer, Long> ended = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Handler handler;

    H2RawOrigin(Handler handler) throws IOException {
        this.handler = handler;
        this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        threads.submit(this::acceptLoop);
    }

    /** 200 with {@code body} and a content-length. */
    static Handler ok(byte[] body) {
        return (r, w) -> {
            w.headers(r.stream(), false, ":status", "200", "content-length", Integer.toString(body.length));
            w.data(r.stream(), true, body);
        };
    }

    int port() {
        return server.getLocalPort();
    }

    void handler(Handler h) {
        this.handler = h;
    }

    List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    int connections() {
        return connections.get();
    }

    /** Connections (by number) the peer closed, and when (System.nanoTime()). */
    Map<Integer, Long> ended() {
        return Map.copyOf(ended);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                int id = connections.incrementAndGet();
                open.add(s);
                threads.submit(() -> serve(s, id));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s, int connection) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            Writer w = new Writer(s.getOutputStream());
            in.readFully(new byte[24]);
            w.frame(H2RawClient.SETTINGS, 0, 0, new byte[0]);
            DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
            Map<Integer, Http2Headers> heads = new HashMap<>();
            Map<Integer, ByteArrayOutputStream> bodies = new HashMap<>();
            while (true) {
                int len = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7fffffff;
                byte[] p = new byte[len];
                in.readFully(p);
                boolean end = (flags & 1) != 0;
                switch (type) {
                    case H2RawClient.SETTINGS -> {
                        if ((flags & 1) == 0) {
                            w.frame(H2RawClient.SETTINGS, 1, 0, new byte[0]);
                        }
                    }
                    case H2RawClient.PING -> {
                        if ((flags & 1) == 0) {
                            w.frame(H2RawClient.PING, 1, 0, p);
                        }
                    }
                    case H2RawClient.HEADERS -> {
                        Http2Headers h = decode(decoder, stream, headerBlock(flags, p));
                        Http2Headers trailers = null;
                        if (heads.containsKey(stream)) {
                            trailers = h;
                        } else {
                            heads.put(stream, h);
                            bodies.put(stream, new ByteArrayOutputStream());
                        }
                        if (end) {
                            answer(w, new Request(stream, heads.remove(stream), bodies.remove(stream).toByteArray(), trailers, connection));
                        }
                    }
                    case H2RawClient.DATA -> {
                        ByteArrayOutputStream b = bodies.get(stream);
                        if (b != null) {
                            int pad = (flags & 0x8) != 0 ? (p[0] & 0xff) + 1 : 0;
                            b.write(p, pad == 0 ? 0 : 1, len - pad);
                        }
                        if (len > 0) {
                            w.send(H2RawClient.concat(H2RawClient.encode(H2RawClient.WINDOW_UPDATE, 0, 0, H2RawClient.int32(len)),
                                    H2RawClient.encode(H2RawClient.WINDOW_UPDATE, 0, stream, H2RawClient.int32(len))));
                        }
                        if (end && b != null) {
                            answer(w, new Request(stream, heads.remove(stream), bodies.remove(stream).toByteArray(), null, connection));
                        }
                    }
                    case H2RawClient.RST_STREAM -> {
                        heads.remove(stream);
                        bodies.remove(stream);
                    }
                    case H2RawClient.GOAWAY -> {
                        return;
                    }
                    default -> {
                        // WINDOW_UPDATE, PRIORITY, ...: nothing to do
                    }
                }
            }
        } catch (IOException e) {
            // the peer closed
        } finally {
            ended.put(connection, System.nanoTime());
        }
    }

    /** A HEADERS payload without its padding and priority fields. */
    private static byte[] headerBlock(int flags, byte[] p) {
        int start = 0;
        int end = p.length;
        if ((flags & 0x8) != 0) {
            end -= p[0] & 0xff;
            start = 1;
        }
        if ((flags & 0x20) != 0) {
            start += 5;
        }
        return java.util.Arrays.copyOfRange(p, start, end);
    }

    private static Http2Headers decode(DefaultHttp2HeadersDecoder decoder, int stream, byte[] block) throws IOException {
        ByteBuf buf = Unpooled.wrappedBuffer(block);
        try {
            return decoder.decodeHeaders(stream, buf);
        } catch (Http2Exception e) {
            throw new IOException(e);
        } finally {
            buf.release();
        }
    }

    private void answer(Writer w, Request r) throws IOException {
        requests.add(r);
        handler.handle(r, w);
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        synchronized (open) {
            for (Socket s : open) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
        threads.shutdownNow();
    }
}
