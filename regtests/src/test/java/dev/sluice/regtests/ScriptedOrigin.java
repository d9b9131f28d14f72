package dev.sluice.regtests;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A raw TCP server for health checks: each connection plays a {@link Script} (send a banner, read what comes, answer,
 * stay silent, close) and what it received is recorded, with how the connection ended ({@code FIN}, {@code RST},
 * {@code TIMEOUT}) when the script reads to the end. Thread per connection; {@link #close()} stops everything.
 */
final class ScriptedOrigin implements AutoCloseable {

    /** What one connection does; the connection is closed after it. */
    @FunctionalInterface
    interface Script {
        void play(Conn c) throws IOException, InterruptedException;
    }

    /** What a connection received, in hex, and how it ended ("-" when the script did not read to the end). */
    record Received(String hex, String end) {
    }

    /** One accepted connection, as a script sees it. */
    final class Conn {
        private final Socket socket;
        private final ByteArrayOutputStream got = new ByteArrayOutputStream();
        private String end = "-";

        private Conn(Socket socket) {
            this.socket = socket;
        }

        void send(String text) throws IOException {
            send(text.getBytes(StandardCharsets.ISO_8859_1));
        }

        void sendHex(String hex) throws IOException {
            send(HexFormat.of().parseHex(hex));
        }

        void send(byte[] b) throws IOException {
            socket.getOutputStream().write(b);
            socket.getOutputStream().flush();
        }

        /** Reads once (what is there, waiting up to 3 s for something); what was read, empty at the end. */
        byte[] read() throws IOException {
            byte[] buf = new byte[4096];
            socket.setSoTimeout(3000);
            try {
                int n = socket.getInputStream().read(buf);
                if (n <= 0) {
                    end = "FIN";
                    return new byte[0];
                }
                got.write(buf, 0, n);
                byte[] out = new byte[n];
                System.arraycopy(buf, 0, out, 0, n);
                return out;
            } catch (SocketTimeoutException e) {
                end = "TIMEOUT";
                return new byte[0];
            } catch (SocketException e) {
                end = "RST";
                return new byte[0];
            }
        }

        /** Reads until the peer closes (or 3 s pass), recording how it ended. */
        void readToEnd() throws IOException {
            InputStream in = socket.getInputStream();
            socket.setSoTimeout(3000);
            byte[] buf = new byte[4096];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    got.write(buf, 0, n);
                }
                end = "FIN";
            } catch (SocketTimeoutException e) {
                end = "TIMEOUT";
            } catch (SocketException e) {
                end = "RST";
            }
        }

        void pause(long ms) throws InterruptedException {
            Thread.sleep(ms);
        }
    }

    private final ServerSocket server;
    private final Script script;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "scripted-origin");
        t.setDaemon(true);
        return t;
    });
    private final List<Received> received = new CopyOnWriteArrayList<>();

    private ScriptedOrigin(ServerSocket server, Script script) {
        this.server = server;
        this.script = script;
    }

    static ScriptedOrigin start(Script script) {
        try {
            ScriptedOrigin o = new ScriptedOrigin(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), script);
            o.threads.execute(o::accept);
            return o;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            threads.execute(() -> {
                Conn c = new Conn(s);
                try (s) {
                    script.play(c);
                } catch (IOException | InterruptedException e) {
                    // the check went away, or the test ended
                } finally {
                    received.add(new Received(HexFormat.of().formatHex(c.got.toByteArray()), c.end));
                }
            });
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** The connections that ended, in order. */
    List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        threads.shutdownNow();
    }
}
