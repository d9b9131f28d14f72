package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The layer-4 relay of {@code mode tcp} through the real daemon: large transfers intact both ways (SHA-256), 1 GiB
 * through Sluice, 64 MiB through HAProxy too for the time it takes; half-closes both ways; a server reset in the
 * middle of a transfer ({@code SD}) and
 * a client reset ({@code CD}); each timeout with a silent peer ({@code timeout client}, {@code server},
 * {@code client-fin}, {@code server-fin}, {@code tunnel}); a client that does not read holds the server back
 * (back-pressure: what the server could write stays bounded), then gets everything intact.
 */
class TcpRelayTest {
    /** Bytes of each big transfer: enough to cross every buffer many times, small enough to take seconds. */
    static final long BIG = 64L << 20;

    static String config(int port, int origin, String timeouts) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode tcp
                    log global
                    option tcplog
                    timeout connect 2s
                %s
                listen l
                    bind 127.0.0.1:%d
                    server s1 127.0.0.1:%d
                """.formatted(timeouts.indent(4).stripTrailing(), port, origin);
    }

    static final String TIMEOUTS = "timeout client 10s\ntimeout server 10s";

    /** The log line of the connection from local port {@code clientPort}. */
    static String line(Daemon d, int clientPort) {
        String mark = "127.0.0.1:" + clientPort + " [";
        List<String> l = d.awaitLines(x -> x.startsWith(mark), 1);
        assertThat(l).as("the log line of %s in\n%s", mark, d.output()).hasSize(1);
        return l.get(0);
    }

    /** The termination flags of a tcplog line. */
    static String flags(String line) {
        return line.split(" ")[6];
    }

    /** The Tt of a tcplog line. */
    static long total(String line) {
        String t = line.split(" ")[4].split("/")[2];
        return Long.parseLong(t.replace("+", ""));
    }

    static Socket connect(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(20_000);
        return s;
    }

    static byte[] readAll(InputStream in) throws IOException {
        return in.readAllBytes();
    }

    /** Uploads {@code n} pattern bytes, half-closes, and returns the sink's answer. */
    static String upload(int port, long n) throws IOException {
        try (Socket s = connect(port)) {
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[65536];
            for (long off = 0; off < n; off += buf.length) {
                int len = (int) Math.min(buf.length, n - off);
                TcpOrigin.fill(buf, off, len);
                out.write(buf, 0, len);
            }
            s.shutdownOutput();
            return new String(readAll(s.getInputStream()), StandardCharsets.US_ASCII).strip();
        }
    }

    /** Downloads everything until the FIN: its length and SHA-256. */
    static String download(int port) throws IOException {
        try (Socket s = connect(port)) {
            MessageDigest md = TcpOrigin.sha256();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            long count = 0;
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
                count += n;
            }
            s.shutdownOutput();
            return count + " " + HexFormat.of().formatHex(md.digest());
        }
    }

    /** Bytes of the transfer each way through Sluice in {@link #bigTransfersAreIntactBothWays} (HAProxy's: {@link #BIG}). */
    static final long GIB = 1L << 30;

    @Test
    void bigTransfersAreIntactBothWays() throws Exception {
        for (boolean haproxy : new boolean[] {false, true}) {
            long size = haproxy ? BIG : GIB;
            String expected = size + " " + TcpOrigin.patternSha(size);
            try (TcpOrigin sink = TcpOrigin.start(TcpOrigin.SINK); TcpOrigin source = TcpOrigin.start(TcpOrigin.source(size))) {
                int up = Ports.free();
                int down = Ports.free();
                String cfg = config(up, sink.port(), TIMEOUTS) + """
                        listen down
                            bind 127.0.0.1:%d
                            server s1 127.0.0.1:%d
                        """.formatted(down, source.port());
                try (Daemon d = Daemon.start(haproxy, cfg, up)) {
                    long t0 = System.nanoTime();
                    assertThat(upload(up, size)).as("%s upload", d.name()).isEqualTo(expected);
                    long t1 = System.nanoTime();
                    assertThat(download(down)).as("%s download", d.name()).isEqualTo(expected);
                    long t2 = System.nanoTime();
                    System.out.printf("%s: %d MiB up in %d ms, down in %d ms%n", d.name(), size >> 20, TimeUnit.NANOSECONDS.toMillis(t1 - t0),
                            TimeUnit.NANOSECONDS.toMillis(t2 - t1));
                    // the upload's line (the sink's answer is its %B) and the download's, whatever the readiness probes logged
                    String answer = Integer.toString(expected.length() + 1);
                    assertThat(d.awaitLines(x -> x.contains(" l l/s1 ") && x.split(" ")[5].equals(answer) && flags(x).equals("--"), 1))
                            .as(d.output()).hasSize(1);
                    assertThat(d.awaitLines(x -> x.contains(" down down/s1 ") && x.split(" ")[5].equals(Long.toString(size))
                            && flags(x).equals("--"), 1)).as(d.output()).hasSize(1);
                }
            }
        }
    }

    @Test
    void halfClosesAreCarriedBothWays() throws Exception {
        try (TcpOrigin echo = TcpOrigin.start(TcpOrigin.ECHO); TcpOrigin first = TcpOrigin.start(TcpOrigin.CLOSES_FIRST)) {
            int port = Ports.free();
            int second = Ports.free();
            String cfg = config(port, echo.port(), TIMEOUTS) + """
                    listen closes
                        bind 127.0.0.1:%d
                        server s1 127.0.0.1:%d
                    """.formatted(second, first.port());
            try (Daemon d = Daemon.start(false, cfg, port)) {
                int clientPort;
                try (Socket s = connect(port)) {
                    clientPort = s.getLocalPort();
                    s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
                    // the client is done sending and still reads the whole answer
                    s.shutdownOutput();
                    assertThat(new String(readAll(s.getInputStream()), StandardCharsets.US_ASCII)).isEqualTo("hello");
                }
                String l = line(d, clientPort);
                assertThat(flags(l)).isEqualTo("--");
                assertThat(l.split(" ")[5]).isEqualTo("5");

                try (Socket s = connect(second)) {
                    clientPort = s.getLocalPort();
                    InputStream in = s.getInputStream();
                    // the server's FIN arrives while the client may still send
                    assertThat(new String(readAll(in), StandardCharsets.US_ASCII)).isEqualTo("bye\n");
                    s.getOutputStream().write("after".getBytes(StandardCharsets.US_ASCII));
                    s.shutdownOutput();
                }
                assertThat(flags(line(d, clientPort))).isEqualTo("--");
            }
        }
    }

    /**
     * A client that half-closes first and then downloads more than the buffers hold: back-pressure pauses reading from
     * the server while the client's input is already shut (with epoll, an empty interest set must not end the stream).
     */
    @Test
    void aHalfClosedClientStillDownloadsPastTheBuffers() throws Exception {
        long size = 8L << 20;
        try (TcpOrigin source = TcpOrigin.start(TcpOrigin.source(size))) {
            int port = Ports.free();
            try (Daemon d = Daemon.start(false, config(port, source.port(), TIMEOUTS), port)) {
                int clientPort;
                try (Socket s = new Socket()) {
                    s.setReceiveBufferSize(64 * 1024);
                    s.connect(new java.net.InetSocketAddress("127.0.0.1", port));
                    s.setSoTimeout(20_000);
                    clientPort = s.getLocalPort();
                    s.getOutputStream().write("GET\n".getBytes(StandardCharsets.US_ASCII));
                    s.shutdownOutput();
                    // slow at first: the proxy's buffers fill and reading from the server pauses
                    Daemon.sleep(500);
                    MessageDigest md = TcpOrigin.sha256();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[65536];
                    long count = 0;
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        md.update(buf, 0, n);
                        count += n;
                    }
                    assertThat(count + " " + HexFormat.of().formatHex(md.digest())).isEqualTo(size + " " + TcpOrigin.patternSha(size));
                }
                String l = line(d, clientPort);
                assertThat(flags(l)).as(l).isEqualTo("--");
                assertThat(l.split(" ")[5]).as(l).isEqualTo(Long.toString(size));
            }
        }
    }

    @Test
    void aServerResetInTheMiddleIsSdAndAClientResetIsCd() throws Exception {
        try (TcpOrigin resets = TcpOrigin.start(TcpOrigin.resetAfter(1 << 20)); TcpOrigin source = TcpOrigin.start(TcpOrigin.source(BIG))) {
            int port = Ports.free();
            int second = Ports.free();
            String cfg = config(port, resets.port(), TIMEOUTS) + """
                    listen big
                        bind 127.0.0.1:%d
                        server s1 127.0.0.1:%d
                    """.formatted(second, source.port());
            try (Daemon d = Daemon.start(false, cfg, port)) {
                int clientPort;
                long got = 0;
                try (Socket s = connect(port)) {
                    clientPort = s.getLocalPort();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[65536];
                    try {
                        int n;
                        while ((n = in.read(buf)) > 0) {
                            got += n;
                        }
                    } catch (SocketException e) {
                        // a reset is as good as a close here
                    }
                }
                assertThat(got).isLessThanOrEqualTo(1 << 20);
                assertThat(flags(line(d, clientPort))).isEqualTo("SD");

                try (Socket s = connect(second)) {
                    clientPort = s.getLocalPort();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[65536];
                    long read = 0;
                    while (read < 1 << 20) {
                        int n = in.read(buf);
                        assertThat(n).as("bytes after %d", read).isPositive();
                        read += n;
                    }
                    s.setSoLinger(true, 0);
                }
                String l = line(d, clientPort);
                assertThat(flags(l)).isEqualTo("CD");
            }
        }
    }

    @Test
    void eachTimeoutEndsTheStreamOnASilentPeer() throws Exception {
        try (TcpOrigin silent = TcpOrigin.start(TcpOrigin.SILENT); TcpOrigin first = TcpOrigin.start(TcpOrigin.CLOSES_FIRST);
                TcpOrigin echo = TcpOrigin.start(TcpOrigin.ECHO); TcpOrigin stubborn = TcpOrigin.start(TcpOrigin.STUBBORN)) {
            int cli = Ports.free();
            int srv = Ports.free();
            int cfin = Ports.free();
            int sfin = Ports.free();
            int tun = Ports.free();
            String cfg = """
                    global
                        log stdout format raw local0
                    defaults
                        mode tcp
                        log global
                        option tcplog
                        timeout connect 2s
                        timeout client 10s
                        timeout server 10s
                    listen cli
                        bind 127.0.0.1:%d
                        timeout client 300ms
                        server s1 127.0.0.1:%d
                    listen srv
                        bind 127.0.0.1:%d
                        timeout server 300ms
                        server s1 127.0.0.1:%d
                    listen cfin
                        bind 127.0.0.1:%d
                        timeout client-fin 300ms
                        server s1 127.0.0.1:%d
                    listen sfin
                        bind 127.0.0.1:%d
                        timeout server-fin 300ms
                        server s1 127.0.0.1:%d
                    listen tun
                        bind 127.0.0.1:%d
                        timeout client 100ms
                        timeout server 100ms
                        timeout tunnel 800ms
                        server s1 127.0.0.1:%d
                    """.formatted(cli, silent.port(), srv, silent.port(), cfin, first.port(), sfin, stubborn.port(), tun, echo.port());
            try (Daemon d = Daemon.start(false, cfg, cli)) {
                // timeout client: nobody says anything
                assertEnds(d, cli, s -> {
                }, "cD", 300, 2000);
                // timeout server: the same, the server's timeout is the shorter
                assertEnds(d, srv, s -> {
                }, "sD", 300, 2000);
                // client-fin: the server closed, the client does not
                assertEnds(d, cfin, s -> assertThat(readAll(s.getInputStream())).hasSize(4), "cD", 300, 2000);
                // server-fin: the client closed, the server does not (a FIN while connecting with nothing sent would be CC)
                assertEnds(d, sfin, s -> {
                    s.getOutputStream().write('x');
                    Daemon.sleep(100);
                    s.shutdownOutput();
                }, "sD", 350, 2000);
                // tunnel: activity every 300 ms keeps it open past timeout client and server, then 800 ms of silence from the
                // last echo (about 600 ms in) end it
                assertEnds(d, tun, s -> {
                    for (int i = 0; i < 3; i++) {
                        s.getOutputStream().write('x');
                        assertThat(s.getInputStream().read()).isEqualTo('x');
                        Daemon.sleep(300);
                    }
                }, "[cs]D", 1300, 4000);
            }
        }
    }

    interface Conversation {
        void run(Socket s) throws IOException;
    }

    /**
     * Plays {@code c} on a new connection, then keeps it open (a silent client) until the proxy logs its end; checks the
     * flags and the total time.
     */
    static void assertEnds(Daemon d, int port, Conversation c, String flags, long atLeast, long atMost) throws IOException {
        String l;
        try (Socket s = connect(port)) {
            c.run(s);
            l = line(d, s.getLocalPort());
        }
        assertThat(flags(l)).as(l).matches(flags);
        assertThat(total(l)).as(l).isBetween(atLeast, atMost);
    }

    @Test
    void aClientThatDoesNotReadHoldsTheServerBack() throws Exception {
        long size = 128L << 20;
        try (TcpOrigin source = TcpOrigin.start(TcpOrigin.source(size))) {
            int port = Ports.free();
            try (Daemon d = Daemon.start(false, config(port, source.port(), TIMEOUTS), port)) {
                try (Socket s = new Socket()) {
                    // a small receive buffer: the client's kernel takes little on its behalf
                    s.setReceiveBufferSize(64 * 1024);
                    s.connect(new java.net.InetSocketAddress("127.0.0.1", port));
                    s.setSoTimeout(20_000);
                    Daemon.sleep(1500);
                    long held = source.written();
                    // kernel buffers on both sides of the proxy and its own bounded write buffer: far from everything
                    assertThat(held).as("bytes the server could write while the client read nothing").isLessThan(48L << 20);
                    MessageDigest md = TcpOrigin.sha256();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[65536];
                    long count = 0;
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        md.update(buf, 0, n);
                        count += n;
                    }
                    assertThat(count + " " + HexFormat.of().formatHex(md.digest())).isEqualTo(size + " " + TcpOrigin.patternSha(size));
                    System.out.printf("held while not reading: %d KiB%n", held >> 10);
                }
            }
        }
    }
}
