package dev.sluice.regtests;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A FastCGI responder that multiplexes (php-fpm does not): it takes every request a connection carries at once, each
 * under its own request id, and answers each when the test lets it ({@link #release}), in any order, its records
 * interleaved with the other requests'. It answers FCGI_GET_VALUES with {@link #values} (nothing asked for is left out;
 * an empty map: no answer at all) and records what it sees: each connection, each request (its connection, id,
 * REQUEST_URI, FCGI_KEEP_CONN flag), ABORT_REQUEST records, and how many requests each connection carried at once
 * (from BEGIN_REQUEST to the END_REQUEST written, or the abort). One virtual thread per connection and per answer.
 */
final class FcgiOrigin implements AutoCloseable {

    /** A request as it began: on connection {@code connection} (1 for the first), with FastCGI request id {@code id}. */
    record Request(int connection, int id, String uri, boolean keepConn) {
    }

    /** What GET_VALUES is answered with, in this order; empty: no answer. */
    volatile Map<String, String> values = new LinkedHashMap<>();
    /** Requests whose URI contains "hold" wait for {@link #release}; the others are answered at once. */
    private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();
    private final ServerSocket listener;
    private final List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final Map<Integer, Integer> active = new HashMap<>();
    private final Map<Integer, Integer> peak = new HashMap<>();
    private int connections;
    private int closed;

    FcgiOrigin() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.startVirtualThread(this::accept);
    }

    int port() {
        return listener.getLocalPort();
    }

    synchronized int connections() {
        return connections;
    }

    /** Connections that the proxy closed (or that broke). */
    synchronized int closed() {
        return closed;
    }

    List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /**
     * What happened, in order: "values c" (GET_VALUES on connection c), "start c/id" (BEGIN_REQUEST), "begin c/id uri" (the
     * request read whole), "abort c/id", "end c/id" (END_REQUEST written), "close c".
     */
    List<String> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** The most requests connection {@code c} carried at once. */
    synchronized int peak(int c) {
        return peak.getOrDefault(c, 0);
    }

    /** Closes connection {@code c} (1 for the first) from this side, whatever it carries. */
    void kill(int c) throws IOException {
        sockets.get(c - 1).close();
    }

    /** Lets the held request whose URI is {@code uri} be answered. */
    void release(String uri) {
        latch(uri).countDown();
    }

    private CountDownLatch latch(String uri) {
        return held.computeIfAbsent(uri, u -> new CountDownLatch(1));
    }

    /** Waits until {@code n} requests began. */
    void awaitRequests(int n) {
        await(() -> requests().size() >= n, n + " requests, saw " + events());
    }

    /** Waits until {@code n} events matching {@code prefix} happened. */
    void awaitEvents(String prefix, int n) {
        await(() -> events().stream().filter(e -> e.startsWith(prefix)).count() >= n, n + " '" + prefix + "' events, saw " + events());
    }

    static void await(java.util.function.BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Daemon.sleep(10);
        }
    }

    private void event(String e) {
        events.add(e);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket s = listener.accept();
                sockets.add(s);
                int c;
                synchronized (this) {
                    c = ++connections;
                }
                Thread.startVirtualThread(() -> serve(s, c));
            } catch (IOException e) {
                return;
            }
        }
    }

    /** One connection's requests being read: id to [uri, params, stdin done]. */
    private static final class Pending {
        final ByteArrayOutputStream params = new ByteArrayOutputStream();
        boolean keepConn;
        boolean aborted;
        boolean ended;
    }

    private void serve(Socket s, int c) {
        Map<Integer, Pending> pending = new HashMap<>();
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (true) {
                int version = in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int id = in.readUnsignedShort();
                int len = in.readUnsignedShort();
                int pad = in.readUnsignedByte();
                in.readUnsignedByte();
                byte[] content = new byte[len];
                in.readFully(content);
                in.skipNBytes(pad);
                if (version != 1) {
                    throw new IOException("version " + version);
                }
                switch (type) {
                    case 9 -> {
                        event("values " + c);
                        Map<String, String> v = values;
                        if (!v.isEmpty()) {
                            ByteArrayOutputStream b = new ByteArrayOutputStream();
                            for (Map.Entry<String, String> e : v.entrySet()) {
                                pair(b, e.getKey(), e.getValue());
                            }
                            write(out, record(10, 0, b.toByteArray()));
                        }
                    }
                    case 1 -> {
                        Pending p = new Pending();
                        p.keepConn = (content[2] & 1) != 0;
                        pending.put(id, p);
                        event("start " + c + "/" + id);
                        synchronized (this) {
                            int now = active.merge(c, 1, Integer::sum);
                            peak.merge(c, now, Math::max);
                        }
                    }
                    case 4 -> {
                        Pending p = pending.get(id);
                        if (p != null) {
                            p.params.write(content);
                        }
                    }
                    case 5 -> {
                        Pending p = pending.get(id);
                        if (p != null && len == 0) {
                            String uri = params(p.params.toByteArray()).get("REQUEST_URI");
                            requests.add(new Request(c, id, uri, p.keepConn));
                            event("begin " + c + "/" + id + " " + uri);
                            Thread.startVirtualThread(() -> answer(out, c, id, uri, p));
                        }
                    }
                    case 2 -> {
                        event("abort " + c + "/" + id);
                        Pending p = pending.get(id);
                        if (p != null) {
                            synchronized (p) {
                                p.aborted = true;
                            }
                            finish(out, c, id, p, new byte[0]);
                        }
                    }
                    default -> write(out, record(11, 0, new byte[] {(byte) type, 0, 0, 0, 0, 0, 0, 0}));
                }
            }
        } catch (EOFException e) {
            // the proxy closed the connection
        } catch (IOException e) {
            // broken
        } finally {
            event("close " + c);
            synchronized (this) {
                closed++;
                active.remove(c);
            }
        }
    }

    /** Waits for the request's release, then writes its answer: "<uri> on <c>/<id>", in two STDOUT records. */
    private void answer(OutputStream out, int c, int id, String uri, Pending p) {
        if (uri != null && uri.contains("hold")) {
            try {
                if (!latch(uri).await(20, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
        byte[] body = (uri + " on " + c + "/" + id + "\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] head = ("Content-Type: text/plain\r\nContent-Length: " + body.length + "\r\nX-Fcgi-Id: " + id + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        try {
            write(out, record(6, id, head));
            finish(out, c, id, p, body);
        } catch (IOException e) {
            // the connection went
        }
    }

    /** The rest of STDOUT, its end and END_REQUEST, once per request. */
    private void finish(OutputStream out, int c, int id, Pending p, byte[] body) throws IOException {
        synchronized (p) {
            if (p.ended) {
                return;
            }
            p.ended = true;
        }
        byte[] end = {0, 0, 0, 0, 0, 0, 0, 0};
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        if (body.length > 0) {
            b.write(record(6, id, body));
        }
        b.write(record(6, id, new byte[0]));
        b.write(record(3, id, end));
        synchronized (this) {
            active.merge(c, -1, Integer::sum);
        }
        event("end " + c + "/" + id);
        write(out, b.toByteArray());
    }

    private static void write(OutputStream out, byte[] bytes) throws IOException {
        synchronized (out) {
            out.write(bytes);
            out.flush();
        }
    }

    static byte[] record(int type, int id, byte[] content) {
        byte[] out = new byte[8 + content.length];
        out[0] = 1;
        out[1] = (byte) type;
        out[2] = (byte) (id >> 8);
        out[3] = (byte) id;
        out[4] = (byte) (content.length >> 8);
        out[5] = (byte) content.length;
        System.arraycopy(content, 0, out, 8, content.length);
        return out;
    }

    private static void pair(ByteArrayOutputStream b, String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.ISO_8859_1);
        byte[] v = value.getBytes(StandardCharsets.ISO_8859_1);
        length(b, n.length);
        length(b, v.length);
        b.writeBytes(n);
        b.writeBytes(v);
    }

    private static void length(ByteArrayOutputStream b, int n) {
        if (n < 128) {
            b.write(n);
        } else {
            b.write((n >> 24) | 0x80);
            b.write(n >> 16);
            b.write(n >> 8);
            b.write(n);
        }
    }

    private static Map<String, String> params(byte[] in) {
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        while (i < in.length) {
            int[] n = new int[2];
            for (int k = 0; k < 2; k++) {
                int b = in[i] & 0xff;
                if (b < 128) {
                    n[k] = b;
                    i++;
                } else {
                    n[k] = ((b & 0x7f) << 24) | ((in[i + 1] & 0xff) << 16) | ((in[i + 2] & 0xff) << 8) | (in[i + 3] & 0xff);
                    i += 4;
                }
            }
            out.put(new String(in, i, n[0], StandardCharsets.ISO_8859_1), new String(in, i + n[0], n[1], StandardCharsets.ISO_8859_1));
            i += n[0] + n[1];
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
        for (CountDownLatch l : held.values()) {
            l.countDown();
        }
    }
}
