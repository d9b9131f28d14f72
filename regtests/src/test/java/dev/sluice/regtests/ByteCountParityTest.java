package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The same requests through HAProxy (2.6 here) and Sluice with the same configuration: each log line's {@code %U} and
 * {@code %B} and, at the end, the {@code bin} and {@code bout} columns of {@code show stat} (frontend, backends,
 * servers) are the same. HAProxy counts neither wire bytes nor what it sends: the HTX size of what came into each
 * direction (a head is its start line's parts plus 20, its fields' names and values, plus 1; body data; trailers
 * plus 1 for a chunked message), the response's from the server or made by HAProxy. HTTP/1 requests with and without
 * bodies, chunked, hop-by-hop fields, responses by content-length, chunked with trailers, 304, interim, cut short,
 * generated errors (403, 503, 429), replies of rules (return, redirect, auth), an aborted request body, an HTTP/2
 * server, compression, the cache, a WebSocket, and HTTP/2 requests (curl). Skipped when haproxy (or curl)
 * is not installed.
 */
class ByteCountParityTest {

    /** The origin's answers, by path. */
    static boolean answer(Origin.Request r, OutputStream out) throws IOException {
        String path = r.target().replaceAll("\\?.*", "");
        String raw = switch (path) {
            case "/chunked" -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: abc\r\n\r\n";
            case "/304" -> "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\n\r\n";
            case "/interim" -> "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                    + "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
            case "/close" -> "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the close";
            case "/cut" -> "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
            case "/ws" -> "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n0123456789";
            case "/comp/text" -> "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 64\r\n\r\n" + "hello ".repeat(10) + "end\n";
            default -> r.method().equals("HEAD") ? "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-H: abcdef\r\n\r\n"
                    : "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-H: abcdef\r\n\r\nhello";
        };
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        if (path.equals("/ws")) {
            // the tunnel's bytes reach the client before the server closes it
            sleep(200);
        }
        return !path.equals("/close") && !path.equals("/cut") && !path.equals("/ws");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String config(Path sock, int port, int h2port, int syslog, int origin, int closed, int h2origin) {
        return """
                global
                    stats socket %s level admin
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                    log 127.0.0.1:%d local0
                frontend fe
                    bind 127.0.0.1:%d
                    bind 127.0.0.1:%d proto h2
                    log-format "%%ST U=%%U B=%%B"
                    http-request deny if { path /deny }
                    http-request wait-for-body time 2s if { path /wait }
                    http-request return status 200 content-type text/plain string hi hdr x-a b if { path /return }
                    http-request redirect location /x if { path /redirect }
                    http-request auth if { path /auth }
                    http-request deny deny_status 429 if { path /429 }
                    use_backend nosrv if { path /nosrv }
                    use_backend h2 if { path_beg /h2 }
                    use_backend comp if { path_beg /comp }
                    use_backend cached if { path_beg /cached }
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                backend nosrv
                    retries 1
                    server s1 127.0.0.1:%d
                backend h2
                    server s1 127.0.0.1:%d proto h2
                backend comp
                    compression algo gzip
                    compression type text/plain
                    server s1 127.0.0.1:%d
                cache c
                    total-max-size 4
                backend cached
                    http-request cache-use c
                    http-response cache-store c
                    server s1 127.0.0.1:%d
                """.formatted(sock, syslog, port, h2port, origin, closed, h2origin, origin, origin);
    }

    /** HTTP/1 requests, each on its own connection. */
    static final List<String> H1 = List.of(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\nhello",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nT: v\r\n\r\n",
            "GET / HTTP/1.0\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nX-A:    spaced   \r\nX: y\r\nX: z\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Foo\r\nFoo: 1\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nConnection: Foo, close, Bar\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nProxy-Connection: close\r\nKeep-Alive: 5\r\nTE: trailers, deflate\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nX-Fold: a\r\n  b\r\n\r\n",
            "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /chunked HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /304 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /interim HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /close HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /cut HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /deny HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /nosrv HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /return HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /redirect HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /auth HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /429 HTTP/1.1\r\nHost: a\r\n\r\n",
            // an HTTP/2 server (its response has no reason in HAProxy's HTX), compression (the bytes before it), the cache
            "GET /h2 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /comp/text HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n",
            "GET /cached HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /cached HTTP/1.1\r\nHost: a\r\n\r\n",
            // a WebSocket: the 101 and the tunnel's bytes
            "GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            // a body cut short by the client, and an invalid request (HAProxy's mux answers it: 0 and 0)
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc",
            "GARBAGE\r\n\r\n");

    /**
     * Requests through curl: extra arguments, then the path; HTTP/2 unless the first argument is "h1". An
     * {@code Expect: 100-continue} that {@code wait-for-body} answers: HAProxy counts its 100 Continue (40).
     */
    static final List<List<String>> CURL = List.of(
            List.of("h1", "-H", "Expect: 100-continue", "-d", "hello", "/wait"),
            List.of("-H", "Expect: 100-continue", "-d", "hello", "/wait"),
            List.of("/"),
            List.of("-d", "hello", "/"),
            List.of("-H", "Content-Length:", "-d", "hello", "/"),
            List.of("-H", "Cookie: a=1", "-H", "Cookie: b=22", "-H", "Host: other", "/chunked"),
            List.of("-I", "/"),
            List.of("/interim"),
            List.of("/h2"),
            List.of("/deny"));

    /** Sends one HTTP/1 request on a new connection, reads until the close or a short silence, closes. */
    static void h1(int port, String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.setSoTimeout(400);
            InputStream in = s.getInputStream();
            byte[] b = new byte[8192];
            try {
                while (in.read(b) >= 0) {
                    // drain
                }
            } catch (SocketTimeoutException e) {
                // the connection stays open (keep-alive, or a request body still expected): done
            }
        }
    }

    static void curl(String curl, int port, int h2port, List<String> args) throws Exception {
        boolean h1 = args.getFirst().equals("h1");
        List<String> cmd = new ArrayList<>(List.of(curl, "-s", "-o", "/dev/null", "--max-time", "5", h1 ? "--http1.1" : "--http2-prior-knowledge"));
        cmd.addAll(args.subList(h1 ? 1 : 0, args.size() - 1));
        cmd.add("http://127.0.0.1:" + (h1 ? port : h2port) + args.getLast());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }

    /** The next log line's message (what follows the syslog header's "]: "). */
    static String next(DatagramSocket syslog) throws IOException {
        DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
        syslog.receive(p);
        String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8).strip();
        return m.substring(m.indexOf("]: ") + 3);
    }

    /** Plays every case against one proxy: the log line of each, then bin and bout of each stats row. */
    static List<String> play(int port, int h2port, Path sock, DatagramSocket syslog, String curl) throws Exception {
        List<String> out = new ArrayList<>();
        for (String r : H1) {
            h1(port, r);
            out.add(r.lines().findFirst().orElseThrow() + " -> " + next(syslog));
        }
        for (List<String> a : CURL) {
            curl(curl, port, h2port, a);
            out.add("curl " + a + " -> " + next(syslog));
        }
        Map<String, Map<String, String>> stat = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n"));
        Map<String, String> bytes = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, String>> e : stat.entrySet()) {
            bytes.put(e.getKey(), "bin " + e.getValue().get("bin") + " bout " + e.getValue().get("bout"));
        }
        out.add(bytes.toString());
        return out;
    }

    /** Drops what the log received so far (Sluice's readiness probe). */
    static void drain(DatagramSocket syslog) throws IOException {
        syslog.setSoTimeout(300);
        try {
            while (true) {
                syslog.receive(new DatagramPacket(new byte[2048], 2048));
            }
        } catch (SocketTimeoutException e) {
            syslog.setSoTimeout(5_000);
        }
    }

    @Test
    void logBytesAndStatBytesAreHaproxys() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        String curl = Program.CURL.require();
        int closed = Ports.free();
        try (Origin o = Origin.start("o", ByteCountParityTest::answer);
                H2Origin o2 = new H2Origin("from h2\n".getBytes(StandardCharsets.US_ASCII));
                DatagramSocket hlog = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                DatagramSocket slog = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            Path dir = Files.createTempDirectory("bytes-parity");
            Path hsock = dir.resolve("haproxy.sock");
            int hport = Ports.free();
            int hport2 = Ports.free();
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(cfg, config(hsock, hport, hport2, hlog.getLocalPort(), o.port(), closed, o2.port()), StandardCharsets.UTF_8);
            Process haproxy = new ProcessBuilder(haproxyPath, "-f", cfg.toString(), "-db").redirectErrorStream(true)
                    .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
            int sport = Ports.free();
            int sport2 = Ports.free();
            Path ssock = Sluice.writeConfig("").resolveSibling("admin.sock");
            try (Sluice sluice = Sluice.start(config(ssock, sport, sport2, slog.getLocalPort(), o.port(), closed, o2.port()), sport)) {
                AdminClient.await(ssock);
                AdminClient.await(hsock);
                drain(hlog);
                drain(slog);
                List<String> theirs = play(hport, hport2, hsock, hlog, curl);
                List<String> ours = play(sport, sport2, ssock, slog, curl);
                theirs.forEach(l -> System.out.println("haproxy: " + l));
                assertThat(ours).containsExactlyElementsOf(theirs);
                // what HAProxy 2.6.12 said for the first request (a GET as curl sends it, 78 bytes on the wire) and its answer
                assertThat(theirs.getFirst()).endsWith("-> 200 U=81 B=63");
            } finally {
                haproxy.destroy();
                if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                    haproxy.destroyForcibly();
                }
            }
        }
    }
}
