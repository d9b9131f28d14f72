package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ring} sections fed by access logs and by a {@code log-forward} section, {@code show events}, a ring's TCP
 * syslog server (octet counting), and a log-forward section receiving UDP and TCP syslog and forwarding to a UDP sink
 * of the test: Sluice's transcript, dates and pids masked, is HAProxy 2.6's.
 */
class RingsLogForwardTest {

    private static String config(int http, int udpIn, int tcpIn, int sink, int ringServer) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                    log ring@r1 local0 info
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                ring r1
                    description "request logs"
                    format rfc3164
                    maxlen 1200
                    size 32764
                    timeout connect 5s
                    timeout server 10s
                    server s1 127.0.0.1:%d log-proto octet-count
                ring r2
                    format rfc5424
                ring small
                    format raw
                    maxlen 20
                frontend fe
                    bind 127.0.0.1:%d
                    log global
                    log ring@r2 local1 info
                    log ring@small len 80 local1 info
                    option dontlognull
                    log-format "%%ci %%ft %%ST %%r"
                    http-request return status 200
                log-forward lf
                    dgram-bind 127.0.0.1:%d
                    bind 127.0.0.1:%d
                    log 127.0.0.1:%d format rfc5424 local0
                    log ring@r2 local3 info
                """.formatted(ringServer, http, udpIn, tcpIn, sink);
    }

    private static final String[] UDP_IN = {
        "<13>Dec  7 02:40:00 myhost app[42]: hello 3164",
        "<165>1 2026-12-07T02:40:01.123Z host2 app2 99 ID47 [ex@1 a=\"b\"] hello 5424",
        "no header at all",
        "<14>just prio",
        "<14>Dec  7 02:40:00 myhost notag message",
        "<15>Dec  7 02:40:00 myhost app: debug is above info",
    };

    private static final String TCP_FIRST = "<13>Dec  7 02:40:00 h t: x";
    /** Octet counting, then a CRLF line, then an LF line (RFC 6587 both ways on one connection). */
    private static final String TCP_IN = TCP_FIRST.length() + " " + TCP_FIRST + "<14>Dec  7 02:40:02 h2 app[7]: line\r\n"
            + "<12>1 2026-12-07T02:40:03Z - - - - - five four two four\n";

    /** Collects the datagrams sent to a port. */
    private static final class UdpSink implements AutoCloseable {
        final DatagramSocket socket;
        final List<String> got = Collections.synchronizedList(new ArrayList<>());
        final Thread thread;

        UdpSink() throws IOException {
            socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
            thread = Thread.ofVirtual().start(() -> {
                byte[] buf = new byte[65536];
                while (!socket.isClosed()) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    try {
                        socket.receive(p);
                    } catch (IOException e) {
                        return;
                    }
                    got.add(new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8));
                }
            });
        }

        void await(int n) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (got.size() < n && System.nanoTime() < end) {
                Daemon.sleep(20);
            }
        }

        @Override
        public void close() {
            socket.close();
        }
    }

    /** A TCP syslog server: the octet-counted frames it gets, each checked and returned without its count. */
    private static final class TcpSink implements AutoCloseable {
        final ServerSocket server;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final Thread thread;

        TcpSink() throws IOException {
            server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
            thread = Thread.ofVirtual().start(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    byte[] b = new byte[4096];
                    int n;
                    while ((n = in.read(b)) > 0) {
                        synchronized (bytes) {
                            bytes.write(b, 0, n);
                        }
                    }
                } catch (IOException e) {
                    // closed
                }
            });
        }

        List<String> frames(int n) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                List<String> f = parse();
                if (f.size() >= n || System.nanoTime() > end) {
                    return f;
                }
                Daemon.sleep(20);
            }
        }

        private List<String> parse() {
            byte[] all;
            synchronized (bytes) {
                all = bytes.toByteArray();
            }
            List<String> out = new ArrayList<>();
            int p = 0;
            while (p < all.length) {
                int sp = p;
                while (sp < all.length && all[sp] != ' ') {
                    sp++;
                }
                if (sp >= all.length) {
                    break;
                }
                int len = Integer.parseInt(new String(all, p, sp - p, StandardCharsets.US_ASCII));
                if (sp + 1 + len > all.length) {
                    break;
                }
                out.add(new String(all, sp + 1, len, StandardCharsets.UTF_8));
                p = sp + 1 + len;
            }
            return out;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    /** Dates of now and pids, which differ from run to run. */
    static String mask(String s) {
        return s.replaceAll("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}[+-]\\d\\d:\\d\\d", "<ISO>")
                .replaceAll("(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \\d]\\d \\d\\d:\\d\\d:\\d\\d(?= localhost )", "<DATE>")
                .replaceAll("haproxy\\[\\d+\\]", "haproxy[PID]").replaceAll(" haproxy \\d+ ", " haproxy PID ");
    }

    private static String scenario(boolean haproxy) throws Exception {
        int http = Ports.free();
        int udpIn = Ports.free();
        int tcpIn = Ports.free();
        StringBuilder out = new StringBuilder();
        try (UdpSink sink = new UdpSink(); TcpSink ringServer = new TcpSink();
                Daemon d = Daemon.start(haproxy, config(http, udpIn, tcpIn, sink.socket.getLocalPort(), ringServer.server.getLocalPort()),
                        http)) {
            Path admin = d.dir().resolve("admin.sock");
            // one connection: its streams' lines come in order (lines of streams on different loops may cross)
            try (RawClient c = new RawClient(http, 5_000)) {
                for (String path : new String[] {"/a", "/b?x=1"}) {
                    assertThat(c.send("GET " + path + " HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).isEqualTo(200);
                }
            }
            // a request's line is written after its answer: in the ring before the forwarded messages that follow
            for (int i = 0; i < 250 && !AdminClient.run(admin, "show events r2\n").contains("/b?x=1"); i++) {
                Daemon.sleep(20);
            }
            try (DatagramSocket s = new DatagramSocket()) {
                int n = 0;
                for (String m : UDP_IN) {
                    byte[] b = m.getBytes(StandardCharsets.UTF_8);
                    s.send(new DatagramPacket(b, b.length, new InetSocketAddress("127.0.0.1", udpIn)));
                    // one at a time, for the order of the sink
                    sink.await(++n);
                }
            }
            try (Socket s = new Socket("127.0.0.1", tcpIn)) {
                OutputStream o = s.getOutputStream();
                o.write(TCP_IN.getBytes(StandardCharsets.UTF_8));
                o.flush();
                sink.await(9);
            }
            Daemon.sleep(200);
            out.append("== udp sink\n");
            for (String g : sink.got) {
                out.append(g);
            }
            for (String cmd : new String[] {"show events", "show events r1", "show events r2", "show events small", "show events buf0",
                "show events r2 -n", "show events r1 -w", "show events nope", "show events r1 -x"}) {
                out.append("== ").append(cmd).append('\n').append(AdminClient.run(admin, cmd + "\n"));
            }
            out.append("== ring server\n");
            for (String f : ringServer.frames(2)) {
                out.append(f).append('\n');
            }
            String info = AdminClient.run(admin, "show info\n");
            out.append("== ").append(info.lines().filter(l -> l.startsWith("CumRecvLogs")).findFirst().orElse("no CumRecvLogs"))
                    .append('\n');
        }
        return mask(out.toString());
    }

    @Test
    void ringsShowEventsAndForwardingAsHaproxy() throws Exception {
        String sluice = scenario(false);
        assertThat(sluice).contains("""
                == show events r1
                <134><DATE> localhost haproxy[PID]: 127.0.0.1 fe 200 GET /a HTTP/1.1
                <134><DATE> localhost haproxy[PID]: 127.0.0.1 fe 200 GET /b?x=1 HTTP/1.1
                """).contains("== CumRecvLogs: 9\n")
                .contains("<13>1 2026-12-07T02:40:00-00:00 myhost app 42 - - hello 3164\n")
                .contains("== ring server\n<134><DATE> localhost haproxy[PID]: 127.0.0.1 fe 200 GET /a HTTP/1.1\n");
        Program.HAPROXY.require();
        String haproxy = scenario(true);
        assertThat(sluice).isEqualTo(haproxy);
    }
}
