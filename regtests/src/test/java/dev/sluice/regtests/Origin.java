package dev.sluice.regtests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test origin server on 127.0.0.1: reads HTTP/1.1 requests (fixed and chunked bodies), records what it
 * received, and answers through a {@link Handler} (by default 200 with a body naming the origin). Serves
 * keep-alive connections, one virtual thread each, and counts them.
 */
final class Origin implements AutoCloseable {

    /**
     * A received request, body included, and the trailers of a chunked body (empty without). {@code connection}
     * numbers the connection it came on (from 1).
     */
    record Request(String method, String target, String version, Http1.Head head, byte[] body, List<String[]> trailers, int connection) {
        String header(String name) {
            return head.get(name);
        }

        String sha256() {
            return Origin.sha256(body);
        }
    }

    /** Decides what the origin does with a request: write a response to {@code out}, or misbehave. */
    @FunctionalInterface
    interface Handler {
        /** Returns false to close the connection after handling. */
        boolean handle(Request r, OutputStream out) throws IOException;
    }

    private final String name;
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Socket> open = Collections.synchronizedList(new ArrayList<>());
    private volatile Handler handler;

    private Origin(String name, Handler handler) throws IOException {
        this(name, handler, InetAddress.getLoopbackAddress(), 0);
    }

    private Origin(String name, Handler handler, InetAddress bind, int port) throws IOException {
        this.name = name;
        this.handler = handler;
        this.server = new ServerSocket(port, 512, bind);
        threads.submit(this::acceptLoop);
    }

    /** An origin on a given loopback address and port (several on one port, as servers a DNS name gives). */
    static Origin startOn(String name, String address, int port) {
        try {
            Origin o = new Origin(name, null, InetAddress.getByName(address), port);
            o.handler = o::named;
            return o;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static Origin start(String name) {
        return start(name, null);
    }

    static Origin start(String name, Handler handler) {
        try {
            Origin o = new Origin(name, null);
            o.handler = handler != null ? handler : o::named;
            return o;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The default behaviour: 200, {@code x-origin: <name>}, body {@code origin <name>\n}. */
    boolean named(Request r, OutputStream out) throws IOException {
        respond(out, 200, "OK", headers("X-Origin", name), ("origin " + name + "\n").getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    /** Header list from name, value pairs. */
    static List<String[]> headers(String... kv) {
        List<String[]> l = new ArrayList<>();
        for (int i = 0; i < kv.length; i += 2) {
            l.add(new String[] {kv[i], kv[i + 1]});
        }
        return l;
    }

    static void respond(OutputStream out, int status, String reason, List<String[]> headers, byte[] body) throws IOException {
        StringBuilder sb = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n");
        for (String[] h : headers) {
            sb.append(h[0]).append(": ").append(h[1]).append("\r\n");
        }
        sb.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        // head and body in one write: one segment, so that the proxy reads the response whole (a test of how it
        // forwards a whole response must not depend on how the kernel split two writes)
        byte[] head = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        out.write(all);
        out.flush();
    }

    int port() {
        return server.getLocalPort();
    }

    String name() {
        return name;
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

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                // a head and a body written separately must not wait for a delayed ACK (Nagle)
                s.setTcpNoDelay(true);
                int id = connections.incrementAndGet();
                open.add(s);
                threads.submit(() -> serve(s, id));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s, int id) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (true) {
                Http1.Head h = Http1.readHead(in);
                if (h == null) {
                    return;
                }
                String[] line = h.startLine().split(" ", 3);
                byte[] body;
                List<String[]> trailers = new ArrayList<>();
                if (Http1.isChunked(h)) {
                    body = Http1.readChunked(in, trailers);
                } else if (h.has("content-length")) {
                    body = Http1.readFixed(in, Long.parseLong(h.get("content-length")));
                } else {
                    body = new byte[0];
                }
                Request r = new Request(line[0], line[1], line.length > 2 ? line[2] : "", h, body, trailers, id);
                requests.add(r);
                if (!handler.handle(r, out)) {
                    return;
                }
            }
        } catch (IOException e) {
            // the proxy closed or reset the connection: that ends this connection only
        } finally {
            open.remove(s);
        }
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        synchronized (open) {
            for (Socket s : open) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
        threads.shutdownNow();
    }
}
