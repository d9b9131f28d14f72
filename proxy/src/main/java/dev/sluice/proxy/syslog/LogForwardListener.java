package dev.sluice.proxy.syslog;

import dev.sluice.config.model.LogForward;
import dev.sluice.config.model.LogTarget;
import dev.sluice.proxy.log.LogWriter;
import dev.sluice.proxy.log.SyslogMessage;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;

/**
 * The listeners of one {@code log-forward} section: each UDP datagram ({@code dgram-bind}) and each message of a TCP
 * connection ({@code bind}: RFC 6587 octet counting when a message starts with a digit, a line ending in LF or CRLF when
 * it starts with '<', anything else closes the connection, as HAProxy's syslog applet does) is counted, parsed and sent
 * to the section's targets through the log writer. Sockets are bound with SO_REUSEPORT so that the runtime of an
 * in-process reload binds beside the old one. Threads of its own (virtual threads), never an event loop.
 */
final class LogForwardListener {
    /** Messages received by every log-forward listener ({@code CumRecvLogs}). */
    static final LongAdder RECEIVED = new LongAdder();
    private static final int MAX_MESSAGE = 65536;

    private final LogForward section;
    private final LogWriter writer;
    private final List<DatagramChannel> udp = new ArrayList<>();
    private final List<ServerSocketChannel> tcp = new ArrayList<>();
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();
    private final Semaphore slots;
    private volatile boolean running = true;

    LogForwardListener(LogForward section, LogWriter writer) {
        this.section = section;
        this.writer = writer;
        this.slots = new Semaphore(Math.max(1, section.maxConn()));
    }

    /** Binds every address (a failure closes what was bound and throws). */
    void start() throws IOException {
        try {
            for (LogForward.Address a : section.dgramBinds()) {
                DatagramChannel ch = DatagramChannel.open();
                ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
                ch.bind(address(a));
                udp.add(ch);
            }
            for (LogForward.Address a : section.binds()) {
                ServerSocketChannel ch = ServerSocketChannel.open();
                ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
                ch.bind(address(a), section.backlog() > 0 ? section.backlog() : section.maxConn());
                tcp.add(ch);
            }
        } catch (IOException e) {
            stop();
            throw new IOException("log-forward '" + section.name() + "': cannot bind: " + e.getMessage(), e);
        }
        for (DatagramChannel ch : udp) {
            Thread.ofVirtual().name("sluice-logfwd-udp").start(() -> receive(ch));
        }
        for (ServerSocketChannel ch : tcp) {
            Thread.ofVirtual().name("sluice-logfwd-tcp").start(() -> accept(ch));
        }
    }

    private static InetSocketAddress address(LogForward.Address a) {
        return a.host().isEmpty() || a.host().equals("*") ? new InetSocketAddress(a.port()) : new InetSocketAddress(a.host(), a.port());
    }

    void stop() {
        running = false;
        for (DatagramChannel ch : udp) {
            close(ch);
        }
        for (ServerSocketChannel ch : tcp) {
            close(ch);
        }
        for (Socket s : clients) {
            close(s);
        }
    }

    private static void close(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }

    private void receive(DatagramChannel ch) {
        ByteBuffer buf = ByteBuffer.allocate(MAX_MESSAGE);
        while (running) {
            try {
                buf.clear();
                ch.receive(buf);
                buf.flip();
                deliver(new String(buf.array(), 0, buf.limit(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void accept(ServerSocketChannel ch) {
        while (running) {
            try {
                // past maxconn, connections wait in the kernel's backlog
                slots.acquire();
                SocketChannel c;
                try {
                    c = ch.accept();
                } catch (IOException e) {
                    slots.release();
                    return;
                }
                Socket s = c.socket();
                clients.add(s);
                Thread.ofVirtual().name("sluice-logfwd-client").start(() -> {
                    try {
                        session(s);
                    } finally {
                        clients.remove(s);
                        close(s);
                        slots.release();
                    }
                });
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void session(Socket s) {
        try {
            if (section.clientTimeoutMs() > 0) {
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, section.clientTimeoutMs()));
            }
            InputStream in = new BufferedInputStream(s.getInputStream());
            while (running) {
                String m = next(in);
                if (m == null) {
                    return;
                }
                deliver(m);
            }
        } catch (SocketTimeoutException e) {
            // timeout client
        } catch (IOException e) {
            // the client is gone
        }
    }

    /** The next message of a TCP syslog stream, or null at its end or on a framing error (then the connection closes). */
    static String next(InputStream in) throws IOException {
        in.mark(1);
        int c = in.read();
        if (c < 0) {
            return null;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        if (c == '<') {
            b.write(c);
            while (true) {
                int x = in.read();
                if (x < 0 || b.size() > MAX_MESSAGE) {
                    return null;
                }
                if (x == '\n') {
                    break;
                }
                b.write(x);
            }
            byte[] line = b.toByteArray();
            int n = line.length;
            if (n > 0 && line[n - 1] == '\r') {
                n--;
            }
            return new String(line, 0, n, StandardCharsets.UTF_8);
        }
        if (c < '1' || c > '9') {
            return null;
        }
        long len = c - '0';
        while (true) {
            int x = in.read();
            if (x == ' ') {
                break;
            }
            if (x < '0' || x > '9' || len > MAX_MESSAGE) {
                return null;
            }
            len = len * 10 + (x - '0');
        }
        if (len > MAX_MESSAGE) {
            return null;
        }
        byte[] msg = in.readNBytes((int) len);
        if (msg.length < len) {
            return null;
        }
        return new String(msg, StandardCharsets.UTF_8);
    }

    private void deliver(String raw) {
        RECEIVED.increment();
        SyslogMessage m = SyslogMessage.parse(raw);
        for (LogTarget t : section.targets()) {
            writer.forward(t, m);
        }
    }
}
