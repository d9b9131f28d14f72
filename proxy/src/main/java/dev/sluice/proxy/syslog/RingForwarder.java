package dev.sluice.proxy.syslog;

import dev.sluice.config.model.Ring;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Sends a ring's messages to one of its TCP syslog servers, as HAProxy's sink forwarder does: from the oldest message
 * the ring holds, each framed by its length ({@code log-proto octet-count}: {@code "<len> <message>"}) or ended by a line
 * feed ({@code legacy}); after a failure it connects again (after a second) and goes on from the first message not sent
 * that the ring still holds. One thread of its own (a virtual thread).
 */
final class RingForwarder {
    private final dev.sluice.proxy.log.Ring ring;
    private final Ring.Server server;
    private final long connectMs;
    private final long serverMs;
    private volatile boolean running = true;
    private volatile Socket socket;
    private Thread thread;

    RingForwarder(dev.sluice.proxy.log.Ring ring, Ring.Server server, long connectMs, long serverMs) {
        this.ring = ring;
        this.server = server;
        this.connectMs = connectMs;
        this.serverMs = serverMs;
    }

    void start() {
        thread = Thread.ofVirtual().name("sluice-ring-" + ring.name() + "-" + server.name()).start(this::run);
    }

    void stop() {
        running = false;
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        if (thread != null) {
            thread.interrupt();
        }
    }

    /** The frame of one message on the wire. */
    static byte[] frame(byte[] message, boolean octetCount) {
        if (!octetCount) {
            byte[] out = new byte[message.length + 1];
            System.arraycopy(message, 0, out, 0, message.length);
            out[message.length] = '\n';
            return out;
        }
        byte[] len = (message.length + " ").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[len.length + message.length];
        System.arraycopy(len, 0, out, 0, len.length);
        System.arraycopy(message, 0, out, len.length, message.length);
        return out;
    }

    private void run() {
        long next = 0;
        while (running) {
            try (Socket s = new Socket()) {
                socket = s;
                s.connect(new InetSocketAddress(server.host(), server.port()), (int) Math.max(1, connectMs));
                s.setSoTimeout((int) Math.max(0, serverMs));
                OutputStream out = s.getOutputStream();
                while (running) {
                    next = ring.start(next);
                    List<byte[]> batch = ring.read(next, 256);
                    if (batch.isEmpty()) {
                        ring.await(next, 1000);
                        continue;
                    }
                    for (byte[] m : batch) {
                        out.write(frame(m, server.octetCount()));
                    }
                    out.flush();
                    next += batch.size();
                }
            } catch (IOException e) {
                if (running) {
                    pause();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
