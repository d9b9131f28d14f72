package dev.sluice.regtests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Many short HTTP/1.1 connections, one request each ({@code Connection: close}), from a few threads, back to back until
 * closed: the load under which a reload must drop nothing. Counts what each connection ended in: a 200 response,
 * a refused connection, a reset, a timeout, or anything else (another status, an end without a response); keeps the
 * first few failures to say what they were.
 */
final class ConnectionChurn implements AutoCloseable {
    private final InetSocketAddress target;
    private final byte[] request;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    final LongAdder ok = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder reset = new LongAdder();
    final LongAdder timeout = new LongAdder();
    final LongAdder other = new LongAdder();
    private final ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();

    ConnectionChurn(String host, int port, int threads) {
        this.target = new InetSocketAddress(host, port);
        this.request = ("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < threads; i++) {
            Thread t = Thread.ofPlatform().daemon().name("churn-" + i).start(this::run);
            this.threads.add(t);
        }
    }

    private void run() {
        byte[] buf = new byte[4096];
        while (running.get()) {
            try (Socket s = new Socket()) {
                s.connect(target, 2000);
                s.setSoTimeout(5000);
                OutputStream out = s.getOutputStream();
                out.write(request);
                InputStream in = s.getInputStream();
                int n = 0;
                int r;
                while (n < buf.length && (r = in.read(buf, n, buf.length - n)) >= 0) {
                    n += r;
                }
                String head = new String(buf, 0, Math.min(n, 12), StandardCharsets.US_ASCII);
                if (head.equals("HTTP/1.1 200")) {
                    ok.increment();
                } else {
                    other.increment();
                    sample(n == 0 ? "closed without a response" : "answered " + head);
                }
            } catch (ConnectException e) {
                refused.increment();
                sample("refused: " + e.getMessage());
            } catch (SocketTimeoutException e) {
                timeout.increment();
                sample("timeout: " + e.getMessage());
            } catch (SocketException e) {
                String m = String.valueOf(e.getMessage());
                if (m.contains("reset")) {
                    reset.increment();
                } else {
                    other.increment();
                }
                sample(m);
            } catch (IOException e) {
                other.increment();
                sample(e.toString());
            }
        }
    }

    private void sample(String what) {
        if (samples.size() < 10) {
            samples.add(what);
        }
    }

    /** Connections that did not end in a 200 response. */
    long failures() {
        return refused.sum() + reset.sum() + timeout.sum() + other.sum();
    }

    String summary() {
        return "ok " + ok.sum() + ", refused " + refused.sum() + ", reset " + reset.sum() + ", timeout " + timeout.sum() + ", other "
                + other.sum() + (samples.isEmpty() ? "" : "; first failures: " + samples);
    }

    /** Stops and waits for the connections in progress. */
    @Override
    public void close() {
        running.set(false);
        try {
            for (Thread t : threads) {
                t.join(10_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
