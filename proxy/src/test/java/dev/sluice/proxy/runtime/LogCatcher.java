package dev.sluice.proxy.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * Test fixture: a UDP syslog target on 127.0.0.1 that a configuration's {@code log 127.0.0.1:PORT format raw local0}
 * line points at, so a test reads the access-log lines the proxy's real log writer sends. Closed by the test.
 */
public final class LogCatcher implements AutoCloseable {
    private final DatagramSocket socket;

    public LogCatcher() {
        try {
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            socket.setSoTimeout(3000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The configuration line sending raw lines here. */
    public String logLine() {
        return "log 127.0.0.1:" + socket.getLocalPort() + " format raw local0";
    }

    /** The next line (without its line feed); fails after 3 s without one. */
    public String next() {
        byte[] b = new byte[8192];
        DatagramPacket p = new DatagramPacket(b, b.length);
        try {
            socket.receive(p);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no log line within 3 s");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String s = new String(b, 0, p.getLength(), StandardCharsets.UTF_8);
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    /** The next line within {@code millis}, or null when none comes. */
    public String poll(int millis) {
        try {
            socket.setSoTimeout(millis);
            return next();
        } catch (AssertionError e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                socket.setSoTimeout(3000);
            } catch (IOException e) {
                // closed meanwhile
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
