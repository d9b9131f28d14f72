package dev.sluice.proxy.cli;

import dev.sluice.proxy.admin.CliLine;
import dev.sluice.proxy.admin.CliSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One session of the master CLI on its own thread, as the workers' {@code CliConnection} runs one on an event loop: bytes
 * cut into commands ({@link CliLine}), each run through its {@link CliSession}, the answers written back. A
 * non-interactive session ends once no command is left in what was received; a line longer than {@link #MAX_LINE}
 * bytes, {@code quit}, the client's end of input, or {@code stats timeout} without a byte either way end it too. Ending
 * shuts the output first and waits (up to the timeout) for the client's end, so a client still writing gets a clean
 * end rather than a reset. The socket is non-blocking, waited on with a selector of its own for the timeouts.
 */
final class MasterCliSession implements Runnable {
    /** HAProxy reads a command and its line feed into one 16 kB buffer, less the NUL: a longer line closes the session. */
    static final int MAX_LINE = 16383;

    private final SocketChannel ch;
    private final CliSession session;
    private final long timeoutMs;
    private byte[] input = new byte[256];
    private int length;

    MasterCliSession(SocketChannel ch, CliSession session, long timeoutMs) {
        this.ch = ch;
        this.session = session;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public void run() {
        try (ch; Selector selector = Selector.open()) {
            ch.configureBlocking(false);
            SelectionKey key = ch.register(selector, SelectionKey.OP_READ);
            ByteBuffer buf = ByteBuffer.allocate(4096);
            while (true) {
                int n = read(selector, key, buf);
                if (n == 0) {
                    // idle for the whole timeout
                    return;
                }
                if (n > 0) {
                    if (length + n > input.length) {
                        input = Arrays.copyOf(input, Math.max(input.length * 2, length + n));
                    }
                    buf.flip().get(input, length, n);
                    length += n;
                }
                // the client's end of input: what is complete is answered, a partial line dropped
                if (!process(selector, key) || n < 0) {
                    end(selector, key, n < 0);
                    return;
                }
            }
        } catch (IOException e) {
            // a reset, or the client went away: this session only
        }
    }

    /** Bytes read into {@code buf}: more than 0, -1 at the client's end, 0 when the timeout passed without any. */
    private int read(Selector selector, SelectionKey key, ByteBuffer buf) throws IOException {
        buf.clear();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        key.interestOps(SelectionKey.OP_READ);
        while (true) {
            int n = ch.read(buf);
            if (n != 0) {
                return n;
            }
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return 0;
            }
            selector.select(left);
            selector.selectedKeys().clear();
        }
    }

    /** Runs the complete commands received; false when the session ends here (quit, a long line, a non-interactive answer). */
    private boolean process(Selector selector, SelectionKey key) throws IOException {
        while (true) {
            int end = CliLine.end(input, length);
            if (end >= MAX_LINE || end < 0 && length >= MAX_LINE) {
                return false;
            }
            if (end < 0) {
                return true;
            }
            String line = CliLine.text(input, end);
            System.arraycopy(input, end + 1, input, 0, length - end - 1);
            length -= end + 1;
            String out = session.execute(line);
            if (out == null) {
                // answered later (a worker's): nothing else runs meanwhile; the timeout ends a wait for nothing
                try {
                    out = session.pending().toCompletableFuture().get(timeoutMs, TimeUnit.MILLISECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            if (session.quit()) {
                return false;
            }
            write(selector, key, out.getBytes(StandardCharsets.UTF_8));
            if (session.mode() == CliSession.Mode.NON_INTERACTIVE && length == 0) {
                return false;
            }
        }
    }

    /** Writes all of {@code bytes}; a client that reads nothing for the timeout ends the session. */
    private void write(Selector selector, SelectionKey key, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        key.interestOps(SelectionKey.OP_WRITE);
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                selector.selectedKeys().clear();
                if (selector.select(timeoutMs) == 0) {
                    throw new IOException("the client reads nothing");
                }
            }
        }
        selector.selectedKeys().clear();
    }

    /** The end: the output side shut, then what the client still sends dropped until its end (or the timeout). */
    private void end(Selector selector, SelectionKey key, boolean inputEnded) throws IOException {
        ch.shutdownOutput();
        if (inputEnded) {
            return;
        }
        ByteBuffer drop = ByteBuffer.allocate(1024);
        while (read(selector, key, drop) > 0) {
            // dropped
        }
    }
}
