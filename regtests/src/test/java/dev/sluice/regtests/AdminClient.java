package dev.sluice.regtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.ByteArrayOutputStream;

/**
 * A client of the admin socket (UNIX or TCP), as socat is used against HAProxy: sends bytes, ends its
 * output, reads everything until the daemon closes (or a deadline passes). {@link #open} keeps a session
 * for prompt mode, reading until the prompt.
 */
final class AdminClient implements AutoCloseable {
    private final SocketChannel ch;
    private final Selector selector;

    private AdminClient(SocketAddress address) throws IOException {
        ch = SocketChannel.open(address instanceof UnixDomainSocketAddress ? StandardProtocolFamily.UNIX : StandardProtocolFamily.INET);
        ch.connect(address);
        ch.configureBlocking(false);
        selector = Selector.open();
        ch.register(selector, SelectionKey.OP_READ);
    }

    static AdminClient open(Path socket) {
        // a UNIX socket refuses a connection while its listen queue is full: tried again for up to two seconds (a socket
        // that is really closed still fails)
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (true) {
            try {
                return new AdminClient(UnixDomainSocketAddress.of(socket));
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw new UncheckedIOException(e);
                }
                Daemon.sleep(50);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static AdminClient open(int tcpPort) {
        try {
            return new AdminClient(new InetSocketAddress("127.0.0.1", tcpPort));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** socat's one-shot use: send, end the output, read until the daemon closes. */
    static String run(Path socket, String input) {
        try (AdminClient c = open(socket)) {
            c.send(input);
            c.shutdownOutput();
            return c.readToEnd(10_000);
        }
    }

    static String run(int tcpPort, String input) {
        try (AdminClient c = open(tcpPort)) {
            c.send(input);
            c.shutdownOutput();
            return c.readToEnd(10_000);
        }
    }

    /** Waits until the daemon accepts connections on the socket. */
    static void await(Path socket) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            if (Files.exists(socket)) {
                try (AdminClient c = new AdminClient(UnixDomainSocketAddress.of(socket))) {
                    return;
                } catch (IOException e) {
                    // not yet
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no admin socket at " + socket);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    AdminClient send(String s) {
        return send(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    AdminClient send(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                if (ch.write(b) == 0) {
                    Thread.onSpinWait();
                }
            }
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void shutdownOutput() {
        try {
            ch.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Everything until the daemon closes; fails when it does not close within {@code timeoutMs}. */
    String readToEnd(long timeoutMs) {
        return read(timeoutMs, null);
    }

    /** What arrives until it ends with {@code suffix} (the prompt, say). */
    String readUntil(String suffix, long timeoutMs) {
        return read(timeoutMs, suffix);
    }

    private String read(long timeoutMs, String suffix) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(65536);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        try {
            while (true) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new AssertionError("the admin socket did not " + (suffix == null ? "close" : "answer") + " within " + timeoutMs
                            + " ms; got: " + out.toString(StandardCharsets.ISO_8859_1));
                }
                selector.select(left);
                selector.selectedKeys().clear();
                int n;
                try {
                    n = ch.read(buf);
                } catch (IOException e) {
                    throw new AssertionError("the admin socket reset the connection after: " + out.toString(StandardCharsets.ISO_8859_1), e);
                }
                if (n < 0) {
                    return out.toString(StandardCharsets.UTF_8);
                }
                out.write(buf.array(), 0, buf.position());
                buf.clear();
                if (suffix != null && out.toString(StandardCharsets.UTF_8).endsWith(suffix)) {
                    return out.toString(StandardCharsets.UTF_8);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
            ch.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
