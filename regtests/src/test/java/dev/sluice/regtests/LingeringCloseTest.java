package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;

/**
 * An error answer sent while the client is still sending (a request head far past tune.bufsize, a body a 413
 * refuses, a deny with its body still coming) must reach the client whole, followed by a clean end of stream,
 * not a connection reset: the client writes everything it has first (ignoring a failed write, as a client that
 * only then reads), then reads. Checked against Sluice and against HAProxy 2.6 on the same bytes.
 */
class LingeringCloseTest {

    static final String CONFIG = """
            defaults
                mode http
                timeout connect 2s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:%d
                http-request deny if { path /deny }
                default_backend be
            backend be
                server s1 127.0.0.1:%d
            """;

    /** A 70 KB header line that never ends, then more of it: the head is refused long before the client is done. */
    static final byte[] HUGE_HEADER = concat("GET / HTTP/1.1\r\nHost: x\r\nBig: ".getBytes(StandardCharsets.ISO_8859_1), fill(70_000 + 200_000));

    /** An HTTP/1.0 GET with a body (413 in HAProxy) whose 300 KB keep coming after the head. */
    static final byte[] REFUSED_BODY = concat("GET / HTTP/1.0\r\nHost: x\r\nContent-Length: 300000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
            fill(300_000));

    /** A denied POST whose 2 MB body keeps coming: more than the body Sluice drains to keep the connection. */
    static final byte[] DENIED_UPLOAD = concat("POST /deny HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
            fill(2_000_000));

    @Test
    void sluiceAnswersAreReadWholeNotReset() throws Exception {
        check(false, 431);
    }

    @Test
    void haproxyAnswersTheSameWay() throws Exception {
        Program.HAPROXY.require();
        // HAProxy 2.6 answers 400 to an over-long head (3.1 answers 431, as Sluice: see MalformedHttp1Test)
        check(true, 400);
    }

    @Test
    void overTlsTheAnswerIsReadWholeToo() throws Exception {
        checkTls(false, 431);
    }

    @Test
    void overTlsHaproxyAnswersTheSameWay() throws Exception {
        Program.HAPROXY.require();
        checkTls(true, 400);
    }

    /** The same over TLS: the answer, the close_notify, then the end of stream, not a reset. */
    private static void checkTls(boolean haproxy, int headStatus) throws Exception {
        TestPki pki = new TestPki("linger-ca");
        TestPki.Issued leaf = pki.leaf("a.test");
        SSLSocketFactory f = pki.clientContext().getSocketFactory();
        try (Origin origin = Origin.start("o")) {
            int port = Ports.free();
            String cfg = CONFIG.replace("bind 127.0.0.1:%d", "bind 127.0.0.1:%d ssl crt " + leaf.pem());
            try (Daemon d = Daemon.start(haproxy, cfg.formatted(port, origin.port()), port)) {
                for (int i = 0; i < 3; i++) {
                    Socket tcp = new Socket();
                    tcp.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                    assertThat(exchange(f.createSocket(tcp, "a.test", port, true), HUGE_HEADER)).as(d.name() + " huge header line over TLS")
                            .startsWith("HTTP/1.1 " + headStatus + " ").endsWith("</body></html>\n");
                }
            }
        }
    }

    private static void check(boolean haproxy, int headStatus) throws Exception {
        try (Origin origin = Origin.start("o")) {
            int port = Ports.free();
            try (Daemon d = Daemon.start(haproxy, CONFIG.formatted(port, origin.port()), port)) {
                for (int i = 0; i < 3; i++) {
                    assertThat(exchange(port, HUGE_HEADER)).as(d.name() + " huge header line").startsWith("HTTP/1.1 " + headStatus + " ")
                            .endsWith("</body></html>\n");
                    assertThat(exchange(port, REFUSED_BODY)).as(d.name() + " refused body").startsWith("HTTP/1.1 413 ")
                            .endsWith("</body></html>\n");
                    assertThat(exchange(port, DENIED_UPLOAD)).as(d.name() + " denied upload").startsWith("HTTP/1.1 403 ")
                            .endsWith("</body></html>\n");
                }
            }
        }
    }

    /** Writes all of {@code request} (a write the server refuses ends the writing), then reads to the end of stream. */
    static String exchange(int port, byte[] request) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return exchange(s, request);
    }

    /** The same on a connected socket (plain or TLS), which it closes. */
    static String exchange(Socket socket, byte[] request) throws IOException {
        try (Socket s = socket) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            try {
                for (int off = 0; off < request.length; off += 8192) {
                    out.write(request, off, Math.min(8192, request.length - off));
                }
                out.flush();
            } catch (IOException e) {
                // the server stopped reading and closed: what it answered must still be readable
            }
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                }
            } catch (IOException e) {
                throw new AssertionError("read failed (" + e + ") after " + got.size() + " bytes: "
                        + got.toString(StandardCharsets.ISO_8859_1), e);
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static byte[] fill(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) 'b');
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
