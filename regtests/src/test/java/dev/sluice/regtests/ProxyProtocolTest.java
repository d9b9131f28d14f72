package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The PROXY protocol through the real daemon: {@code bind ... accept-proxy} takes the client's addresses from a v1 or
 * v2 header (src, dst, logs, {@code fc_rcvd_proxy}, {@code fc_pp_authority}) and refuses a connection without a valid
 * one with HAProxy's log line, compared with HAProxy 2.6's answers and lines on the same inputs; {@code send-proxy} and
 * {@code send-proxy-v2} start each server connection (clear or TLS) with the header HAProxy writes, health checks
 * included, and such connections are not shared between client connections; and Sluice sits between two HAProxy
 * processes speaking the protocol on both sides.
 */
class ProxyProtocolTest {
    private static final byte[] V2_SIG = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    private static final String REQUEST = "GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n";
    /** The defaults section of the configurations here. */
    private static final String DEFAULTS = """
            defaults
                mode http
                timeout client 5s
                timeout server 5s
                timeout connect 5s
            """;

    private static byte[] v2(int verCmd, int fam, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(16 + body.length);
        b.put(V2_SIG).put((byte) verCmd).put((byte) fam).putShort((short) body.length).put(body);
        return b.array();
    }

    private static byte[] tcp4(String src, String dst, int sp, int dp, byte[] tlvs) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(12 + tlvs.length);
        b.put(InetAddress.getByName(src).getAddress()).put(InetAddress.getByName(dst).getAddress()).putShort((short) sp).putShort((short) dp)
                .put(tlvs);
        return b.array();
    }

    private static byte[] concat(byte[] a, String b) {
        byte[] r = new byte[a.length + b.length()];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b.getBytes(StandardCharsets.ISO_8859_1), 0, r, a.length, b.length());
        return r;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The inputs sent on fresh connections, by name; "half" ones then close their output. */
    private static Map<String, byte[]> inputs() throws IOException {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("v1 tcp4", ascii("PROXY TCP4 1.2.3.4 5.6.7.8 1111 2222\r\n" + REQUEST));
        m.put("no header", ascii(REQUEST));
        m.put("v1 missing port", ascii("PROXY TCP4 1.2.3.4 5.6.7.8 1111\r\n" + REQUEST));
        m.put("v1 half", ascii("PROXY TCP4 1.2.3"));
        m.put("v1 unknown", ascii("PROXY UNKNOWN\r\n" + REQUEST));
        m.put("v1 tcp6", ascii("PROXY TCP6 2001:db8::1 2001:db8::2 3333 4444\r\n" + REQUEST));
        m.put("v1 tcp5", ascii("PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n"));
        m.put("v1 bad address", ascii("PROXY TCP4 a.b.c.d 5.6.7.8 1 2\r\n" + REQUEST));
        m.put("v2 tcp4", concat(v2(0x21, 0x11, tcp4("9.8.7.6", "5.4.3.2", 4321, 80, new byte[0])), REQUEST));
        byte[] authority = {0x02, 0x00, 0x0b, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm'};
        m.put("v2 authority", concat(v2(0x21, 0x11, tcp4("9.8.7.5", "5.4.3.2", 4322, 443, authority)), REQUEST));
        m.put("v2 local", concat(v2(0x20, 0x00, new byte[0]), REQUEST));
        m.put("v2 version 3", concat(v2(0x31, 0x11, tcp4("9.8.7.6", "5.4.3.2", 1, 2, new byte[0])), REQUEST));
        m.put("v2 short", concat(v2(0x21, 0x11, new byte[] {1, 2, 3, 4}), REQUEST));
        m.put("v2 half", java.util.Arrays.copyOf(v2(0x21, 0x11, tcp4("9.8.7.6", "5.4.3.2", 1, 2, new byte[0])), 20));
        return m;
    }

    private static String frontend(int port) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    option httplog
                    option dontlognull
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d accept-proxy
                    http-request return status 200 content-type text/plain lf-string "src=%%[src]:%%[src_port] dst=%%[dst]:%%[dst_port] rcvd=%%[fc_rcvd_proxy] authority=%%[fc_pp_authority]"
                """.formatted(port);
    }

    /** What each input got (the body, or "closed") and the log lines, the real client's port masked. */
    private static List<String> run(boolean haproxy, int port) throws IOException {
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, frontend(port), port)) {
            int lines = 0;
            for (Map.Entry<String, byte[]> e : inputs().entrySet()) {
                try (RawClient c = new RawClient(port, 5_000)) {
                    c.send(e.getValue());
                    if (e.getKey().endsWith("half")) {
                        c.shutdownOutput();
                    }
                    String got = readAll(c);
                    int body = got.indexOf("\r\n\r\n");
                    out.add(e.getKey() + ": " + (got.isEmpty() ? "closed" : got.substring(body + 4).replace(":" + c.localPort() + " ", ":P ")));
                }
                lines++;
                // each input leaves one log line: waiting for it keeps the lines in the inputs' order
                d.awaitLines(l -> l.contains(" fe"), lines);
            }
            for (String l : d.awaitLines(l -> l.contains(" fe"), lines)) {
                out.add(mask(l));
            }
        }
        return out;
    }

    /** Everything until the connection closes; empty when it was reset (closed with the request unread). */
    private static String readAll(RawClient c) {
        try {
            return c.readToEndText();
        } catch (java.io.UncheckedIOException reset) {
            return "";
        }
    }

    private static final Pattern LINE = Pattern.compile("^(\\S+):(\\d+) \\[[^]]+\\] (.*)$");
    private static final Pattern REQ = Pattern.compile("^fe fe/<NOSRV> \\S+ (\\d+) .*\"(GET / HTTP/1.1)\"$");

    /** A log line with the real client's port and the date masked, a request line reduced to its status. */
    private static String mask(String l) {
        Matcher m = LINE.matcher(l);
        assertThat(m.matches()).as(l).isTrue();
        String addr = m.group(1).equals("127.0.0.1") ? "127.0.0.1:P" : m.group(1) + ":" + m.group(2);
        Matcher r = REQ.matcher(m.group(3));
        return addr + " " + (r.matches() ? "fe " + r.group(1) + " " + r.group(2) : m.group(3));
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void headersAreReadAsHaproxyReadsThem(boolean haproxy) throws Exception {
        int port = Ports.free();
        assertThat(run(haproxy, port)).containsExactly(
                "v1 tcp4: src=1.2.3.4:1111 dst=5.6.7.8:2222 rcvd=1 authority=",
                "no header: closed",
                "v1 missing port: closed",
                "v1 half: closed",
                "v1 unknown: src=127.0.0.1:P dst=127.0.0.1:" + port + " rcvd=1 authority=",
                "v1 tcp6: src=2001:db8::1:3333 dst=2001:db8::2:4444 rcvd=1 authority=",
                "v1 tcp5: closed",
                "v1 bad address: closed",
                "v2 tcp4: src=9.8.7.6:4321 dst=5.4.3.2:80 rcvd=1 authority=",
                "v2 authority: src=9.8.7.5:4322 dst=5.4.3.2:443 rcvd=1 authority=example.com",
                "v2 local: src=127.0.0.1:P dst=127.0.0.1:" + port + " rcvd=1 authority=",
                "v2 version 3: closed",
                "v2 short: closed",
                "v2 half: closed",
                "1.2.3.4:1111 fe 200 GET / HTTP/1.1",
                "127.0.0.1:P fe/1: Received something which does not look like a PROXY protocol header",
                "127.0.0.1:P fe/1: Received an invalid PROXY protocol header",
                "127.0.0.1:P fe/1: Truncated PROXY protocol header received",
                "127.0.0.1:P fe 200 GET / HTTP/1.1",
                "2001:db8::1:3333 fe 200 GET / HTTP/1.1",
                "127.0.0.1:P fe/1: Received an unhandled protocol in the PROXY protocol header",
                "127.0.0.1:P fe/1: Received an invalid PROXY protocol header",
                "9.8.7.6:4321 fe 200 GET / HTTP/1.1",
                "9.8.7.5:4322 fe 200 GET / HTTP/1.1",
                "127.0.0.1:P fe 200 GET / HTTP/1.1",
                "127.0.0.1:P fe/1: Received something which does not look like a PROXY protocol header",
                "127.0.0.1:P fe/1: Received an invalid PROXY protocol header",
                "127.0.0.1:P fe/1: Truncated PROXY protocol header received");
    }

    /** {@code tcp-request connection expect-proxy layer4 if ...}: only the connections the rule picks must start with a header. */
    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void expectProxyAsksForTheHeaderWhereTheRuleSays(boolean haproxy) throws Exception {
        assertThat(expectProxy(haproxy)).containsExactly("proxied: src=1.2.3.4:1 rcvd=1", "plain on the proxied port: closed", "plain: rcvd=0");
    }

    private static List<String> expectProxy(boolean haproxy) throws Exception {
        int proxied = Ports.free();
        int plain = Ports.free();
        String cfg = DEFAULTS + """
                frontend fe
                    bind 127.0.0.1:%d
                    bind 127.0.0.1:%d
                    tcp-request connection expect-proxy layer4 if { dst_port %d }
                    http-request return status 200 content-type text/plain lf-string "src=%%[src]:%%[src_port] rcvd=%%[fc_rcvd_proxy]"
                """.formatted(proxied, plain, proxied);
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, plain)) {
            try (RawClient c = new RawClient(proxied, 5_000)) {
                out.add("proxied: " + c.send("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n" + REQUEST).read().bodyText());
            }
            try (RawClient c = new RawClient(proxied, 5_000)) {
                c.send(REQUEST);
                String got = readAll(c);
                out.add("plain on the proxied port: " + (got.isEmpty() ? "closed" : got));
            }
            try (RawClient c = new RawClient(plain, 5_000)) {
                out.add("plain: " + c.send(REQUEST).read().bodyText().replaceAll("src=\\S+ ", ""));
            }
        }
        return out;
    }

    /**
     * The header comes before TLS and before HTTP/2's preface: curl's {@code --haproxy-protocol} over TLS (HTTP/1.1 and
     * HTTP/2 by ALPN) and with HTTP/2 prior knowledge on a clear-text bind; the answers name curl's own address.
     */
    @Test
    void theHeaderComesBeforeTlsAndHttp2() throws Exception {
        TestPki pki = new TestPki("pp-tls-ca");
        TestPki.Issued cert = pki.leaf("localhost");
        int plain = Ports.free();
        int tls = Ports.free();
        String cfg = DEFAULTS + """
                frontend fe
                    bind 127.0.0.1:%d accept-proxy
                    bind 127.0.0.1:%d accept-proxy ssl crt %s
                    http-request return status 200 content-type text/plain lf-string "%%[req.ver] tls=%%[ssl_fc] proxied=%%[fc_rcvd_proxy]"
                """.formatted(plain, tls, cert.pem());
        try (Daemon d = Daemon.start(false, cfg, plain)) {
            assertThat(Http2Test.run(List.of("curl", "-sS", "--haproxy-protocol", "--http2-prior-knowledge", "http://127.0.0.1:" + plain + "/")))
                    .isEqualTo("2.0 tls=0 proxied=1");
            assertThat(Http2Test.run(List.of("curl", "-sS", "--haproxy-protocol", "-k", "--http1.1", "https://127.0.0.1:" + tls + "/")))
                    .isEqualTo("1.1 tls=1 proxied=1");
            assertThat(Http2Test.run(List.of("curl", "-sS", "--haproxy-protocol", "-k", "--http2", "https://127.0.0.1:" + tls + "/")))
                    .isEqualTo("2.0 tls=1 proxied=1");
        }
    }

    /**
     * An origin that reads the PROXY header each connection starts with, then answers every request with what that
     * header said (hex for v2) and the connection's number. Keeps the headers it read.
     */
    static final class HeaderOrigin implements AutoCloseable {
        final ServerSocket server;
        final List<String> headers = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        HeaderOrigin() throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = Thread.ofVirtual().start(() -> {
                int n = 0;
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        int id = ++n;
                        Thread.ofVirtual().start(() -> serve(s, id));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        private void serve(Socket s, int id) {
            try (s) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                String header = readHeader(in);
                if (header == null) {
                    return;
                }
                headers.add(header);
                while (true) {
                    Http1.Head h = Http1.readHead(in);
                    if (h == null) {
                        return;
                    }
                    byte[] body = (header + " conn=" + id).getBytes(StandardCharsets.ISO_8859_1);
                    out.write(("HTTP/1.1 200 OK\r\ncontent-length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(body);
                    out.flush();
                }
            } catch (IOException e) {
                // the proxy closed
            }
        }

        /** A v1 line without its CRLF, or "v2 " and the hex of a v2 header; null when the connection closed first. */
        private static String readHeader(InputStream in) throws IOException {
            int first = in.read();
            if (first < 0) {
                return null;
            }
            if (first == 'P') {
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                line.write(first);
                int c;
                while ((c = in.read()) >= 0 && c != '\n') {
                    line.write(c);
                }
                return line.toString(StandardCharsets.ISO_8859_1).stripTrailing();
            }
            byte[] rest = in.readNBytes(15);
            byte[] all = new byte[16];
            all[0] = (byte) first;
            System.arraycopy(rest, 0, all, 1, rest.length);
            int len = ((all[14] & 0xff) << 8) | (all[15] & 0xff);
            byte[] body = in.readNBytes(len);
            return "v2 " + HexFormat.of().formatHex(all, 12, 16) + " " + HexFormat.of().formatHex(body);
        }

        @Override
        public void close() throws IOException {
            server.close();
            acceptor.interrupt();
        }
    }

    @Test
    void serverConnectionsStartWithTheHeaderAndServeOnlyTheirClient() throws Exception {
        try (HeaderOrigin o1 = new HeaderOrigin(); HeaderOrigin o2 = new HeaderOrigin()) {
            int port = Ports.free();
            String cfg = """
                    global
                        stats socket @DIR@/admin.sock level admin
                    defaults
                        mode http
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        use_backend b2 if { path_beg /v2 }
                        default_backend b1
                    backend b1
                        http-reuse always
                        server s1 127.0.0.1:%d send-proxy
                    backend b2
                        http-reuse always
                        default-server send-proxy
                        server s2 127.0.0.1:%d send-proxy-v2 no-send-proxy
                    """.formatted(port, o1.port(), o2.port());
            try (Daemon d = Daemon.start(false, cfg, port)) {
                for (int client = 1; client <= 2; client++) {
                    try (RawClient c = new RawClient(port, 5_000)) {
                        String me = "127.0.0.1 127.0.0.1 " + c.localPort() + " " + port;
                        for (int i = 0; i < 2; i++) {
                            String body = c.send("GET /v1 HTTP/1.1\r\nhost: x\r\n\r\n").read().bodyText();
                            assertThat(body).isEqualTo("PROXY TCP4 " + me + " conn=" + client);
                        }
                        String hex = "7f000001" + "7f000001" + String.format("%04x%04x", c.localPort(), port);
                        for (int i = 0; i < 2; i++) {
                            String body = c.send("GET /v2 HTTP/1.1\r\nhost: x\r\n\r\n").read().bodyText();
                            assertThat(body).isEqualTo("v2 2111000c " + hex + " conn=" + client);
                        }
                    }
                }
                // each client connection had its own server connection, reused for its second request
                assertThat(ServerQueueTest.stat(d, "b1,s1", "connect")).isEqualTo("2");
                assertThat(ServerQueueTest.stat(d, "b1,s1", "reuse")).isEqualTo("2");
                assertThat(ServerQueueTest.stat(d, "b2,s2", "connect")).isEqualTo("2");
                assertThat(ServerQueueTest.stat(d, "b2,s2", "reuse")).isEqualTo("2");
            }
        }
    }

    @Test
    void healthChecksSendTheHeaderHaproxySends() throws Exception {
        try (HeaderOrigin o1 = new HeaderOrigin(); HeaderOrigin o2 = new HeaderOrigin(); HeaderOrigin o3 = new HeaderOrigin()) {
            int port = Ports.free();
            String cfg = """
                    defaults
                        mode http
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        option httpchk GET /health
                        server v1 127.0.0.1:%d send-proxy check inter 200ms
                        server v2 127.0.0.1:%d send-proxy-v2 check inter 200ms
                        server plain 127.0.0.1:%d check inter 200ms check-send-proxy
                    """.formatted(port, o1.port(), o2.port(), o3.port());
            try (Daemon d = Daemon.start(false, cfg, port)) {
                long deadline = System.nanoTime() + 10_000_000_000L;
                while ((o1.headers.isEmpty() || o2.headers.isEmpty() || o3.headers.isEmpty()) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                // v1: the check connection's own addresses; v2: the LOCAL command, no addresses
                assertThat(o1.headers.get(0)).matches("PROXY TCP4 127\\.0\\.0\\.1 127\\.0\\.0\\.1 \\d+ " + o1.port());
                assertThat(o2.headers.get(0)).isEqualTo("v2 20000000 ");
                assertThat(o3.headers.get(0)).matches("PROXY TCP4 127\\.0\\.0\\.1 127\\.0\\.0\\.1 \\d+ " + o3.port());
            }
        }
    }

    /**
     * curl -> HAProxy (send-proxy-v2) -> Sluice (accept-proxy; send-proxy, send-proxy-v2 and send-proxy-v2 over TLS)
     * -> HAProxy (accept-proxy): the last one sees the curl client's address, and Sluice logs it.
     */
    @Test
    void betweenTwoHaproxies() throws Exception {
        Program.HAPROXY.require();
        TestPki pki = new TestPki("pp-ca");
        TestPki.Issued cert = pki.leaf("localhost");
        int front = Ports.free();
        int middle = Ports.free();
        int back = Ports.free();
        int backTls = Ports.free();
        String backCfg = DEFAULTS + """
                frontend back
                    bind 127.0.0.1:%d accept-proxy
                    bind 127.0.0.1:%d accept-proxy ssl crt %s
                    http-request return status 200 content-type text/plain lf-string "src=%%[src]:%%[src_port] dst=%%[dst]:%%[dst_port] tls=%%[ssl_fc]"
                """.formatted(back, backTls, cert.pem());
        String middleCfg = """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    option httplog
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend middle
                    bind 127.0.0.1:%d accept-proxy
                    use_backend v2 if { path /v2 }
                    use_backend tls if { path /tls }
                    default_backend v1
                backend v1
                    server b 127.0.0.1:%d send-proxy
                backend v2
                    server b 127.0.0.1:%d send-proxy-v2
                backend tls
                    server b 127.0.0.1:%d send-proxy-v2 ssl verify none
                """.formatted(middle, back, back, backTls);
        String frontCfg = DEFAULTS + """
                frontend front
                    bind 127.0.0.1:%d
                    default_backend middle
                backend middle
                    server m 127.0.0.1:%d send-proxy-v2
                """.formatted(front, middle);
        try (Daemon b = Daemon.start(true, backCfg, back); Daemon m = Daemon.start(false, middleCfg, middle);
                Daemon f = Daemon.start(true, frontCfg, front)) {
            for (String path : List.of("/v1", "/v2", "/tls")) {
                try (RawClient c = new RawClient(front, 5_000)) {
                    String body = c.send("GET " + path + " HTTP/1.1\r\nhost: x\r\n\r\n").read().bodyText();
                    assertThat(body).as(path).isEqualTo("src=127.0.0.1:" + c.localPort() + " dst=127.0.0.1:" + front + " tls="
                            + (path.equals("/tls") ? "1" : "0"));
                    int p = c.localPort();
                    assertThat(m.awaitLines(l -> l.startsWith("127.0.0.1:" + p + " ") && l.contains("\"GET " + path + " "), 1)).hasSize(1);
                }
            }
        }
    }
}
