package dev.sluice.regtests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A raw TCP origin for layer-4 tests: each accepted connection is served by its {@link Behaviour} on its own thread
 * with blocking sockets. Behaviours: echo (its FIN answers the client's), a sink answering the byte count and SHA-256 of
 * what it read once the client sent its FIN, a source of {@code n} deterministic bytes followed by a FIN, a silent one,
 * one that resets after sending {@code n} bytes, one that says a word and closes first. Counts the bytes each behaviour
 * wrote ({@link #written()}), for back-pressure checks. Closed at the end of the test.
 */
final class TcpOrigin implements AutoCloseable {

    /** What the origin does with one connection. */
    interface Behaviour {
        void serve(Socket s, TcpOrigin origin) throws IOException;
    }

    private final ServerSocket server;
    private final Behaviour behaviour;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicLong written = new AtomicLong();
    private final Thread acceptor;
    private volatile boolean closed;

    private TcpOrigin(Behaviour behaviour) throws IOException {
        this.behaviour = behaviour;
        this.server = new ServerSocket(Ports.free(), 128, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "tcp-origin-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static TcpOrigin start(Behaviour b) {
        try {
            return new TcpOrigin(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    int connections() {
        return sockets.size();
    }

    /** Bytes the behaviours wrote so far, all connections together. */
    long written() {
        return written.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            sockets.add(s);
            Thread t = new Thread(() -> {
                try (s) {
                    behaviour.serve(s, this);
                } catch (IOException e) {
                    // the peer reset or the test closed the origin
                }
            }, "tcp-origin-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    // ------------------------------------------------------------------ behaviours

    /** Echoes everything; the client's FIN gets a FIN. */
    static final Behaviour ECHO = (s, o) -> {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        byte[] buf = new byte[65536];
        int n;
        while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
            o.written.addAndGet(n);
        }
        s.shutdownOutput();
    };

    /** Says {@code banner} first, then echoes as {@link #ECHO} does. */
    static Behaviour banner(String banner) {
        return (s, o) -> {
            byte[] b = banner.getBytes(StandardCharsets.US_ASCII);
            s.getOutputStream().write(b);
            o.written.addAndGet(b.length);
            ECHO.serve(s, o);
        };
    }

    /** Reads until the client's FIN, then answers {@code <count> <sha256 hex>\n} and sends its FIN. */
    static final Behaviour SINK = (s, o) -> {
        MessageDigest md = sha256();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[65536];
        long count = 0;
        int n;
        while ((n = in.read(buf)) > 0) {
            md.update(buf, 0, n);
            count += n;
        }
        s.getOutputStream().write((count + " " + HexFormat.of().formatHex(md.digest()) + "\n").getBytes(StandardCharsets.US_ASCII));
        s.shutdownOutput();
    };

    /** Sends {@code n} bytes of {@link #pattern} then its FIN, and reads until the client's FIN. */
    static Behaviour source(long n) {
        return (s, o) -> {
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[65536];
            long sent = 0;
            while (sent < n) {
                int len = (int) Math.min(buf.length, n - sent);
                fill(buf, sent, len);
                out.write(buf, 0, len);
                sent += len;
                o.written.addAndGet(len);
            }
            s.shutdownOutput();
            drain(s.getInputStream());
        };
    }

    /**
     * Sends {@code n} bytes, then resets the connection (SO_LINGER 0). It starts 200 ms after the accept: a reset that
     * reaches the proxy before it has handled its connect's completion is a failed connect (the socket's error is
     * ECONNRESET), retried, which is another case than a server failing during the transfer.
     */
    static Behaviour resetAfter(long n) {
        return (s, o) -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[65536];
            long sent = 0;
            while (sent < n) {
                int len = (int) Math.min(buf.length, n - sent);
                fill(buf, sent, len);
                out.write(buf, 0, len);
                sent += len;
                o.written.addAndGet(len);
            }
            s.setSoLinger(true, 0);
            s.close();
        };
    }

    /** Reads and writes nothing until the client goes (or the test ends). */
    static final Behaviour SILENT = (s, o) -> drain(s.getInputStream());

    /** Reads until the client's FIN and then does nothing, its side left open, until the test ends. */
    static final Behaviour STUBBORN = (s, o) -> {
        drain(s.getInputStream());
        while (!o.closed) {
            Daemon.sleep(20);
        }
    };

    /** Says "bye\n" and sends its FIN first, then reads until the client's FIN. */
    static final Behaviour CLOSES_FIRST = (s, o) -> {
        s.getOutputStream().write("bye\n".getBytes(StandardCharsets.US_ASCII));
        o.written.addAndGet(4);
        s.shutdownOutput();
        drain(s.getInputStream());
    };

    private static void drain(InputStream in) throws IOException {
        byte[] buf = new byte[65536];
        while (in.read(buf) > 0) {
            // dropped
        }
    }

    /** The byte at {@code offset} of every generated stream: not periodic over a buffer, cheap. */
    static byte pattern(long offset) {
        long x = offset * 0x9E3779B97F4A7C15L;
        return (byte) (x >>> 56 ^ offset);
    }

    static void fill(byte[] buf, long offset, int len) {
        for (int i = 0; i < len; i++) {
            buf[i] = pattern(offset + i);
        }
    }

    /** The SHA-256 of the first {@code n} bytes of the pattern. */
    static String patternSha(long n) {
        MessageDigest md = sha256();
        byte[] buf = new byte[65536];
        for (long off = 0; off < n; off += buf.length) {
            int len = (int) Math.min(buf.length, n - off);
            fill(buf, off, len);
            md.update(buf, 0, len);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing
            }
        }
    }
}
