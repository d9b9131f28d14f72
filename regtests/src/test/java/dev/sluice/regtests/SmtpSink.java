package dev.sluice.regtests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An SMTP server on 127.0.0.1 that accepts every message: it greets with 220, answers 250 to each command, 354 to DATA
 * and 250 after the final dot, 221 to QUIT, and records each session's lines (connections that said nothing are not
 * kept). One session at a time, on its own thread; {@link #close} stops it.
 */
final class SmtpSink implements AutoCloseable {
    private final ServerSocket server;
    private final List<List<String>> sessions = new ArrayList<>();
    private final Thread thread;

    private SmtpSink(ServerSocket server) {
        this.server = server;
        this.thread = new Thread(this::serve, "smtp-sink");
        thread.setDaemon(true);
    }

    static SmtpSink start() {
        try {
            SmtpSink s = new SmtpSink(new ServerSocket(Ports.free(), 16, InetAddress.getLoopbackAddress()));
            s.thread.start();
            return s;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** The sessions recorded so far, each its lines in order. */
    synchronized List<List<String>> sessions() {
        List<List<String>> out = new ArrayList<>();
        for (List<String> s : sessions) {
            out.add(List.copyOf(s));
        }
        return out;
    }

    /** The sessions once at least {@code n} ended (within {@code seconds}). */
    List<List<String>> await(int n, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (sessions().size() < n && System.nanoTime() < deadline) {
            Daemon.sleep(20);
        }
        return sessions();
    }

    private void serve() {
        while (!server.isClosed()) {
            List<String> lines = new ArrayList<>();
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                OutputStream out = s.getOutputStream();
                out.write("220 sink.test ESMTP\r\n".getBytes(StandardCharsets.ISO_8859_1));
                boolean data = false;
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    String reply = null;
                    if (data) {
                        if (line.equals(".")) {
                            data = false;
                            reply = "250 2.0.0 queued";
                        }
                    } else if (line.equals("DATA")) {
                        data = true;
                        reply = "354 end with <CRLF>.<CRLF>";
                    } else if (line.equals("QUIT")) {
                        reply = "221 2.0.0 bye";
                    } else {
                        reply = "250 2.1.0 ok";
                    }
                    if (reply != null) {
                        out.write((reply + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    }
                    if (line.equals("QUIT")) {
                        break;
                    }
                }
            } catch (IOException e) {
                // closed, or reset by the client after QUIT
            }
            if (!lines.isEmpty()) {
                synchronized (this) {
                    sessions.add(lines);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
