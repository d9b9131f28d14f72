package dev.sluice.proxy.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A worker's output (stdout and stderr in one pipe), copied to the master's stderr as it is now (a detached daemon's
 * discards it) by a thread of its own until the worker ends. While a reload in place runs, what passes is also kept
 * ({@link #record}), so that the master can tell whether the worker printed its reload's messages itself (a worker
 * does, unless {@code -q}) before it says "Loading success." or "Loading failure!" after them, rather than print them a
 * second time. Thread-safe.
 */
final class WorkerOutput {
    /** At most this much is kept while recording. */
    private static final int KEEP = 1 << 20;

    // guarded by this; null when not recording
    private ByteArrayOutputStream recorded;

    /** Copies {@code in} until its end (on the calling thread). */
    void copy(InputStream in) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                PrintStream to = System.err;
                to.write(buf, 0, n);
                to.flush();
                synchronized (this) {
                    if (recorded != null && recorded.size() < KEEP) {
                        recorded.write(buf, 0, Math.min(n, KEEP - recorded.size()));
                        notifyAll();
                    }
                }
            }
        } catch (IOException e) {
            // the worker is gone
        }
    }

    /** Keeps what passes from now on, until {@link #stop}. */
    synchronized void record() {
        recorded = new ByteArrayOutputStream();
    }

    /** Stops keeping it. */
    synchronized void stop() {
        recorded = null;
    }

    /** Whether {@code line} passed (as a whole line) since {@link #record}, waiting up to {@code timeoutMs} for it. */
    synchronized boolean awaitLine(String line, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        String wanted = line + "\n";
        while (true) {
            if (recorded == null) {
                return false;
            }
            String text = recorded.toString(StandardCharsets.UTF_8);
            if (text.startsWith(wanted) || text.contains("\n" + wanted)) {
                return true;
            }
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
