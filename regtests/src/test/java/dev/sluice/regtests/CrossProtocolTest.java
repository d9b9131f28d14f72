package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * End-to-end behaviour across HTTP/1.1 and HTTP/2, run against Sluice and, on the same configuration and
 * traffic, against HAProxy 2.6 (required by those cases, so what is asserted is what HAProxy does): trailers both
 * ways, TE, responses without a body (HEAD, 204, 304) from servers that send one anyway, invalid HTTP/2
 * responses, and HTTP/2's client-side timeouts. The HTTP/2 origin writes raw frames ({@link H2RawOrigin}).
 */
class CrossProtocolTest {

    static final String CONFIG = """
            global
                stats socket @DIR@/admin.sock level admin
            defaults
                mode http
                timeout connect 2s
                timeout client 10s
                timeout server 5s
            frontend f1
                bind 127.0.0.1:%d
                use_backend b2 if { path_beg /h2/ }
                default_backend b1
            frontend f2
                bind 127.0.0.1:%d proto h2
                use_backend b2 if { path_beg /h2/ }
                default_backend b1
            backend b1
                server s 127.0.0.1:%d
            backend b2
                server s 127.0.0.1:%d proto h2
            """;

    /** An HTTP/1.1 origin, an HTTP/2 one, and the proxy in front (Sluice or HAProxy) with an HTTP/1.1 and an h2c port. */
    record Setup(Origin h1, H2RawOrigin h2, Daemon proxy, int h1Port, int h2Port) implements AutoCloseable {
        static Setup start(boolean haproxy, String config, Origin.Handler h1Handler, H2RawOrigin.Handler h2Handler) throws Exception {
            if (haproxy) {
                Program.HAPROXY.require();
            }
            Origin h1 = Origin.start("o1", h1Handler);
            H2RawOrigin h2 = new H2RawOrigin(h2Handler);
            int p1 = Ports.free();
            int p2 = Ports.free();
            Daemon d = Daemon.start(haproxy, config.formatted(p1, p2, h1.port(), h2.port()), p1);
            awaitPort(p2);
            return new Setup(h1, h2, d, p1, p2);
        }

        Map<String, Map<String, String>> stat() {
            return AdminSocketTest.parseStat(AdminClient.run(proxy.dir().resolve("admin.sock"), "show stat\n"));
        }

        /** How much {@code row}'s {@code col} grew since {@code before}, once it reached {@code expected} or 2 s passed (counters follow the exchange). */
        long delta(Map<String, Map<String, String>> before, String row, String col, long expected) throws InterruptedException {
            long d = 0;
            for (int i = 0; i < 40; i++) {
                d = AdminSocketTest.delta(before, stat(), row, col);
                if (d >= expected) {
                    return d;
                }
                Thread.sleep(50);
            }
            return d;
        }

        @Override
        public void close() {
            try (Daemon d = proxy; Origin a = h1; H2RawOrigin b = h2) {
                // closed in reverse order
            }
        }
    }

    static void awaitPort(int port) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(25);
            }
        }
        throw new AssertionError("nothing listens on " + port);
    }

    /** What an HTTP/2 client received on one stream. */
    record Exchange(Http2Headers head, byte[] data, Http2Headers trailers, int reset, boolean ended) {
        String status() {
            return head == null ? null : head.status().toString();
        }

        String body() {
            return new String(data, StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * Reads the frames of {@code stream} until it ends (END_STREAM or RST_STREAM), the connection ends or stays
     * silent; acknowledges SETTINGS on the way.
     */
    static Exchange read(H2RawClient c, int stream) {
        Http2Headers head = null;
        Http2Headers trailers = null;
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        try {
            while (true) {
                H2RawClient.Frame f = c.read();
                if (f.type() == H2RawClient.SETTINGS && (f.flags() & 1) == 0) {
                    c.frame(H2RawClient.SETTINGS, 1, 0, new byte[0]);
                    continue;
                }
                if (f.type() == H2RawClient.GOAWAY) {
                    return new Exchange(head, data.toByteArray(), trailers, -1, false);
                }
                // every header block goes through the decoder, whatever its stream: they share one HPACK table
                Http2Headers h = f.type() == H2RawClient.HEADERS ? c.decode(f) : null;
                if (f.stream() != stream) {
                    continue;
                }
                boolean end = (f.flags() & 1) != 0;
                switch (f.type()) {
                    case H2RawClient.HEADERS -> {
                        if (head == null || head.status().charAt(0) == '1') {
                            head = h;
                        } else {
                            trailers = h;
                        }
                    }
                    case H2RawClient.DATA -> data.writeBytes(f.payload());
                    case H2RawClient.RST_STREAM -> {
                        return new Exchange(head, data.toByteArray(), trailers, f.errorCode(), false);
                    }
                    default -> {
                    }
                }
                if (end && (f.type() == H2RawClient.DATA || f.type() == H2RawClient.HEADERS)) {
                    return new Exchange(head, data.toByteArray(), trailers, -1, true);
                }
            }
        } catch (UncheckedIOException e) {
            return new Exchange(head, data.toByteArray(), trailers, -1, false);
        }
    }

    static List<String[]> request(String method, String path, String... extra) {
        List<String[]> l = new ArrayList<>(Origin.headers(":method", method, ":scheme", "http", ":path", path, ":authority", "test"));
        l.addAll(Origin.headers(extra));
        return l;
    }

    static Exchange h2(int port, List<String[]> head) {
        try (H2RawClient c = new H2RawClient(port)) {
            c.headers(1, true, head);
            return read(c, 1);
        }
    }

    static String fields(List<String[]> l) {
        StringBuilder sb = new StringBuilder();
        for (String[] f : l) {
            sb.append(f[0].toLowerCase()).append(": ").append(f[1]).append('\n');
        }
        return sb.toString();
    }

    /** An HTTP/1.1 origin answering {@code world} in one chunk, then a trailer. */
    static final Origin.Handler CHUNKED_WITH_TRAILER = (r, out) -> {
        out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nworld\r\n0\r\nx-sum: def\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return true;
    };

    /** An HTTP/2 origin answering {@code world} then a trailer block. */
    static final H2RawOrigin.Handler H2_WITH_TRAILER = (r, w) -> {
        w.headers(r.stream(), false, ":status", "200");
        w.data(r.stream(), false, "world".getBytes(StandardCharsets.US_ASCII));
        w.headers(r.stream(), true, "x-sum", "def");
    };

    // ------------------------------------------------------------------ trailers and TE

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void trailersCrossFromHttp2ToHttp1AndBack(boolean haproxy) throws Exception {
        try (Setup s = Setup.start(haproxy, CONFIG, CHUNKED_WITH_TRAILER, H2_WITH_TRAILER)) {
            // an h2 request with a trailer block: the HTTP/1.1 server gets it chunked, the trailer after the last chunk
            try (H2RawClient c = new H2RawClient(s.h2Port())) {
                c.headers(1, false, request("POST", "/t", "te", "trailers"));
                c.data(1, false, "hello".getBytes(StandardCharsets.US_ASCII));
                c.headers(1, true, Origin.headers("x-checksum", "abc"));
                Exchange e = read(c, 1);
                // and the server's chunked trailer comes back as a trailing HEADERS frame ending the stream
                assertThat(e.status()).isEqualTo("200");
                assertThat(e.body()).isEqualTo("world");
                assertThat(e.ended()).isTrue();
                assertThat(e.trailers()).isNotNull();
                assertThat(e.trailers().get("x-sum").toString()).isEqualTo("def");
            }
            Origin.Request got = s.h1().requests().getLast();
            assertThat(got.header("transfer-encoding")).isEqualTo("chunked");
            assertThat(got.header("te")).isEqualTo("trailers");
            assertThat(new String(got.body(), StandardCharsets.US_ASCII)).isEqualTo("hello");
            assertThat(fields(got.trailers())).isEqualTo("x-checksum: abc\n");
            // an h2 response with a trailer block to an h2 client
            Exchange e = h2(s.h2Port(), request("GET", "/h2/t"));
            assertThat(e.body()).isEqualTo("world");
            assertThat(e.trailers().get("x-sum").toString()).isEqualTo("def");
        }
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void trailersCrossFromHttp1ToHttp2AndBack(boolean haproxy) throws Exception {
        try (Setup s = Setup.start(haproxy, CONFIG, CHUNKED_WITH_TRAILER, H2_WITH_TRAILER)) {
            try (RawClient c = new RawClient(s.h1Port())) {
                RawClient.Response r = c.send("POST /h2/t HTTP/1.1\r\nHost: test\r\nTE: trailers\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5\r\nhello\r\n0\r\nx-checksum: abc\r\n\r\n").read();
                // the HTTP/2 server's trailer block is the chunked response's trailer
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("transfer-encoding")).isEqualTo("chunked");
                assertThat(r.bodyText()).isEqualTo("world");
                assertThat(fields(r.trailers())).isEqualTo("x-sum: def\n");
            }
            H2RawOrigin.Request got = s.h2().requests().getLast();
            assertThat(got.header("te")).isEqualTo("trailers");
            assertThat(new String(got.body(), StandardCharsets.US_ASCII)).isEqualTo("hello");
            assertThat(got.trailers()).isNotNull();
            assertThat(got.trailers().get("x-checksum").toString()).isEqualTo("abc");
            // an HTTP/1.1 server's trailer to an HTTP/1.1 client, whether it asked for trailers or not
            try (RawClient c = new RawClient(s.h1Port())) {
                RawClient.Response r = c.send("GET /t HTTP/1.1\r\nHost: test\r\n\r\n").read();
                assertThat(r.bodyText()).isEqualTo("world");
                assertThat(fields(r.trailers())).isEqualTo("x-sum: def\n");
            }
        }
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void teIsKeptAsTrailersAndOtherwiseDropped(boolean haproxy) throws Exception {
        try (Setup s = Setup.start(haproxy, CONFIG, null, H2RawOrigin.ok("ok".getBytes(StandardCharsets.US_ASCII)))) {
            // value sent -> what an HTTP/1.1 and an HTTP/2 server get (HAProxy 2.6's rule)
            Map<String, List<String>> cases = new java.util.LinkedHashMap<>();
            cases.put("TE: trailers", List.of("trailers"));
            cases.put("TE: gzip", List.of());
            cases.put("TE: trailers, deflate", List.of("trailers"));
            cases.put("TE: deflate, trailers", List.of("trailers"));
            cases.put("TE: gzip\r\nTE: trailers", List.of("trailers"));
            cases.put("TE: trailers;q=0.5", List.of());
            cases.put("TE: Trailers", List.of());
            for (Map.Entry<String, List<String>> c : cases.entrySet()) {
                try (RawClient h1 = new RawClient(s.h1Port())) {
                    assertThat(h1.send("GET /te HTTP/1.1\r\nHost: test\r\n" + c.getKey() + "\r\n\r\n").read().status()).isEqualTo(200);
                    assertThat(h1.send("GET /h2/te HTTP/1.1\r\nHost: test\r\n" + c.getKey() + "\r\n\r\n").read().status()).isEqualTo(200);
                }
                assertThat(s.h1().requests().getLast().head().all("te")).as("h1 " + c.getKey()).isEqualTo(c.getValue());
                assertThat(s.h2().requests().getLast().headers().getAll("te")).map(CharSequence::toString).as("h2 " + c.getKey())
                        .isEqualTo(c.getValue());
            }
            // from an HTTP/2 client: "te: trailers" passes, anything else is a malformed request (RST_STREAM PROTOCOL_ERROR)
            assertThat(h2(s.h2Port(), request("GET", "/te2", "te", "trailers")).status()).isEqualTo("200");
            assertThat(s.h1().requests().getLast().head().all("te")).containsExactly("trailers");
            assertThat(h2(s.h2Port(), request("GET", "/h2/te2", "te", "trailers")).status()).isEqualTo("200");
            assertThat(s.h2().requests().getLast().headers().getAll("te")).map(CharSequence::toString).containsExactly("trailers");
            int before = s.h1().requests().size();
            Exchange refused = h2(s.h2Port(), request("GET", "/te3", "te", "gzip"));
            assertThat(refused.reset()).isEqualTo(H2RawClient.PROTOCOL_ERROR);
            assertThat(s.h1().requests()).hasSize(before);
        }
    }

    // ------------------------------------------------------------------ hop-by-hop fields

    /** An HTTP/1.1 origin answering with hop-by-hop fields, by content-length or (on /chunked paths) chunked. */
    static final Origin.Handler HOP_BY_HOP = (r, out) -> {
        String hop = "Connection: keep-alive, X-Resp\r\nX-Resp: 1\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\n"
                + "Upgrade: h2,h2c\r\n";
        out.write((r.target().contains("chunked") ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" + hop + "\r\n2\r\nok\r\n0\r\n\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + hop + "\r\nok").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return true;
    };

    /** The fields of an HTTP/2 header block but its pseudo-headers, in order. */
    static List<String> regular(Http2Headers h) {
        List<String> out = new ArrayList<>();
        h.forEach(e -> {
            if (e.getKey().charAt(0) != ':') {
                out.add(e.getKey() + ": " + e.getValue());
            }
        });
        return out;
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void hopByHopFieldsDoNotCrossIntoHttp2(boolean haproxy) throws Exception {
        try (Setup s = Setup.start(haproxy, CONFIG, HOP_BY_HOP, H2RawOrigin.ok("ok".getBytes(StandardCharsets.US_ASCII)))) {
            // an HTTP/1.1 request to an HTTP/2 server: Connection, Keep-Alive, Proxy-Connection and Upgrade stay behind, TE
            // becomes trailers, the field Connection lists goes on
            try (RawClient c = new RawClient(s.h1Port())) {
                RawClient.Response r = c.send("GET /h2/x HTTP/1.1\r\nHost: test\r\nConnection: keep-alive, X-Foo, TE\r\nX-Foo: 1\r\n"
                        + "TE: gzip, trailers\r\nKeep-Alive: 300\r\nProxy-Connection: keep-alive\r\nUpgrade: h2c\r\n"
                        + "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
            }
            // an origin-form request: :scheme https whatever the connections, no :authority, Host as a field (HAProxy 2.6's
            // h2s_bck_make_req_headers)
            Http2Headers got = s.h2().requests().getLast().headers();
            assertThat(regular(got)).containsExactly("host: test", "x-foo: 1", "te: trailers", "http2-settings: AAMAAABkAAQAoAAAAAIAAAAA");
            assertThat(got.scheme()).hasToString("https");
            assertThat(got.authority()).isNull();
            assertThat(got.path()).hasToString("/h2/x");
            // an HTTP/1.1 server's response to an HTTP/2 client: the same fields stay behind, Transfer-Encoding too
            Exchange e = h2(s.h2Port(), request("GET", "/x"));
            assertThat(e.status()).isEqualTo("200");
            assertThat(regular(e.head())).containsExactly("content-length: 2", "x-resp: 1");
            assertThat(e.body()).isEqualTo("ok");
            e = h2(s.h2Port(), request("GET", "/chunked"));
            assertThat(regular(e.head())).containsExactly("x-resp: 1");
            assertThat(e.body()).isEqualTo("ok");
            // while an HTTP/1.1 client gets them all, Connection without keep-alive
            try (RawClient c = new RawClient(s.h1Port())) {
                RawClient.Response r = c.send("GET /x HTTP/1.1\r\nHost: test\r\n\r\n").read();
                assertThat(fields(r.head().fields())).isEqualTo("content-length: 2\nconnection: X-Resp\nx-resp: 1\n"
                        + "keep-alive: timeout=5\nproxy-connection: keep-alive\nupgrade: h2,h2c\n");
            }
        }
    }

    // ------------------------------------------------------------------ responses without a body

    /** 200 to HEAD, 204 or 304 (by path), with a 5-byte body all the same. */
    static final Origin.Handler H1_BODY_ANYWAY = (r, out) -> {
        String status = r.target().contains("204") ? "204 No Content" : r.target().contains("304") ? "304 Not Modified" : "200 OK";
        String body = r.target().contains("next") ? "next!" : "hello";
        out.write(("HTTP/1.1 " + status + "\r\nContent-Length: 5\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
        out.flush();
        // a body after a 204 or 304 head is the start of the next response to this server: it cannot be trusted
        return !(r.target().contains("204") || r.target().contains("304") || r.method().equals("HEAD"));
    };

    /** The same from an HTTP/2 server: DATA after the head of a 204, a 304 or a HEAD response; with a content-length on /cl paths. */
    static final H2RawOrigin.Handler H2_BODY_ANYWAY = (r, w) -> {
        String p = r.headers().path().toString();
        String status = p.contains("204") ? "204" : p.contains("304") ? "304" : "200";
        if (p.contains("cl")) {
            w.headers(r.stream(), false, ":status", status, "content-length", "5");
        } else {
            w.headers(r.stream(), false, ":status", status);
        }
        w.data(r.stream(), true, (p.contains("next") ? "next!" : "hello").getBytes(StandardCharsets.US_ASCII));
    };

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void headAnd204And304AreRelayedWithoutTheBodyTheServerSends(boolean haproxy) throws Exception {
        try (Setup s = Setup.start(haproxy, CONFIG, H1_BODY_ANYWAY, H2_BODY_ANYWAY)) {
            for (String prefix : List.of("/", "/h2/", "/h2/cl-")) {
                for (String[] m : List.of(new String[] {"HEAD", "head"}, new String[] {"GET", "204"}, new String[] {"GET", "304"})) {
                    String what = m[0] + " " + prefix + m[1];
                    // HTTP/1.1 client: no body, and the connection's next response is intact
                    try (RawClient c = new RawClient(s.h1Port())) {
                        RawClient.Response r = c.send(m[0] + " " + prefix + m[1] + " HTTP/1.1\r\nHost: test\r\n\r\n").read(true);
                        assertThat(r.status()).as(what).isEqualTo(m[1].equals("head") ? 200 : Integer.parseInt(m[1]));
                        assertThat(r.header("transfer-encoding")).as(what).isNull();
                        if (m[1].equals("204")) {
                            assertThat(r.header("content-length")).as(what).isNull();
                        } else if (!prefix.equals("/h2/")) {
                            // HEAD and 304 keep the length the server announced
                            assertThat(r.header("content-length")).as(what).isEqualTo("5");
                        } else {
                            assertThat(r.header("content-length")).as(what).isNull();
                        }
                        RawClient.Response next = c.send("GET " + prefix + "next HTTP/1.1\r\nHost: test\r\n\r\n").read();
                        assertThat(next.status()).as(what).isEqualTo(200);
                        assertThat(next.bodyText()).as(what).isEqualTo("next!");
                    }
                    // HTTP/2 client: the stream ends without DATA bytes
                    List<String[]> req = request(m[0], prefix + m[1]);
                    Exchange e = h2(s.h2Port(), req);
                    assertThat(e.status()).as(what).isEqualTo(m[1].equals("head") ? "200" : m[1]);
                    assertThat(e.ended()).as(what).isTrue();
                    assertThat(e.data()).as(what).isEmpty();
                }
            }
        }
    }

    // ------------------------------------------------------------------ invalid HTTP/2 responses

    /** Invalid responses by the last path segment. */
    static final H2RawOrigin.Handler INVALID = (r, w) -> {
        String p = r.headers().path().toString();
        int id = r.stream();
        byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
        switch (p.substring(p.lastIndexOf('/') + 1)) {
            case "upper" -> {
                w.headers(id, false, ":status", "200", "X-Upper", "1");
                w.data(id, true, hello);
            }
            case "no-status" -> {
                w.headers(id, false, "x-a", "1");
                w.data(id, true, hello);
            }
            case "bad-status" -> {
                w.headers(id, false, ":status", "2x0");
                w.data(id, true, hello);
            }
            case "connection" -> {
                w.headers(id, false, ":status", "200", "connection", "close");
                w.data(id, true, hello);
            }
            case "request-pseudo" -> {
                w.headers(id, false, ":status", "200", ":path", "/");
                w.data(id, true, hello);
            }
            case "cl-more", "cl-less" -> {
                // head and DATA in one write: the mismatch is seen at once, after the head
                String cl = p.endsWith("more") ? "2" : "10";
                w.send(H2RawClient.concat(H2RawClient.headersFrame(id, false, Origin.headers(":status", "200", "content-length", cl)),
                        H2RawClient.encode(H2RawClient.DATA, 1, id, hello)));
            }
            default -> {
                w.headers(id, false, ":status", "200");
                w.data(id, true, hello);
            }
        }
    };

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void anInvalidHttp2ResponseHeadIsA502AndAResponseError(boolean haproxy) throws Exception {
        try (Setup s = Setup.start(haproxy, CONFIG, null, INVALID)) {
            for (String kind : List.of("upper", "no-status", "bad-status", "connection", "request-pseudo")) {
                for (boolean h2Client : List.of(false, true)) {
                    String what = kind + (h2Client ? " (h2 client)" : " (h1 client)");
                    var before = s.stat();
                    int sent = s.h2().requests().size();
                    if (h2Client) {
                        Exchange e = h2(s.h2Port(), request("GET", "/h2/" + kind));
                        assertThat(e.status()).as(what).isEqualTo("502");
                        assertThat(e.body()).as(what).contains("502 Bad Gateway");
                    } else {
                        try (RawClient c = new RawClient(s.h1Port())) {
                            RawClient.Response r = c.send("GET /h2/" + kind + " HTTP/1.1\r\nHost: test\r\n\r\n").read();
                            assertThat(r.status()).as(what).isEqualTo(502);
                        }
                    }
                    // sent once, not retried on another connection
                    assertThat(s.h2().requests().size() - sent).as(what).isEqualTo(1);
                    // HAProxy 2.6 counts an HTTP/2 server's invalid response twice (the mux error, then the 502); Sluice once
                    int eresp = haproxy ? 2 : 1;
                    assertThat(s.delta(before, "b2/s", "eresp", eresp)).as(what).isEqualTo(eresp);
                    assertThat(s.delta(before, "b2/BACKEND", "eresp", eresp)).as(what).isEqualTo(eresp);
                    assertThat(s.delta(before, "b2/BACKEND", "hrsp_5xx", 1)).as(what).isEqualTo(1);
                }
            }
        }
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void aBodyNotMatchingItsContentLengthCutsTheResponseShort(boolean haproxy) throws Exception {
        // HAProxy 2.6 has relayed the head when it finds the mismatch: no 502, the response is cut short
        try (Setup s = Setup.start(haproxy, CONFIG, null, INVALID)) {
            for (String kind : List.of("cl-more", "cl-less")) {
                for (boolean h2Client : List.of(false, true)) {
                    String what = kind + (h2Client ? " (h2 client)" : " (h1 client)");
                    var before = s.stat();
                    if (h2Client) {
                        Exchange e = h2(s.h2Port(), request("GET", "/h2/" + kind));
                        assertThat(e.status()).as(what).isEqualTo("200");
                        String cl = e.head().get("content-length").toString();
                        assertThat(e.data().length).as(what).isNotEqualTo(Integer.parseInt(cl));
                    } else {
                        try (RawClient c = new RawClient(s.h1Port())) {
                            c.send("GET /h2/" + kind + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
                            String all = c.readToEndText();
                            assertThat(all).as(what).startsWith("HTTP/1.1 200");
                            int cl = Integer.parseInt(all.replaceAll("(?s).*content-length: (\\d+).*", "$1"));
                            assertThat(all.length() - all.indexOf("\r\n\r\n") - 4).as(what).isLessThan(cl);
                        }
                    }
                    assertThat(s.delta(before, "b2/s", "srv_abrt", 1)).as(what).isEqualTo(1);
                    assertThat(s.delta(before, "b2/s", "eresp", 1)).as(what).isEqualTo(1);
                    assertThat(s.delta(before, "b2/BACKEND", "hrsp_2xx", 1)).as(what).isEqualTo(1);
                }
            }
        }
    }

    // ------------------------------------------------------------------ HTTP/2 client timeouts

    static final String TIMEOUTS = """
            global
                log stdout format raw local0
            defaults
                mode http
                log global
                option httplog
                timeout connect 2s
                timeout server 10s
                %s
            frontend f2
                bind 127.0.0.1:%%d proto h2
                default_backend b1
            backend b1
                server s 127.0.0.1:%%d
            """;

    /** /slow answers after 3 s, /big with 1 MiB, anything else at once. */
    static final Origin.Handler SLOW_OR_BIG = (r, out) -> {
        if (r.target().startsWith("/slow")) {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                return false;
            }
        }
        Origin.respond(out, 200, "OK", Origin.headers(), r.target().startsWith("/big") ? new byte[1 << 20] : "ok".getBytes(StandardCharsets.US_ASCII));
        return true;
    };

    /**
     * Milliseconds from now until the proxy sends GOAWAY (returned with its last stream id) and closes; the
     * client sends a PING every {@code pingEvery} ms meanwhile (0: none) and acknowledges SETTINGS.
     */
    static long[] untilGoAway(H2RawClient c, int pingEvery) throws Exception {
        long t0 = System.nanoTime();
        java.lang.reflect.Field f = H2RawClient.class.getDeclaredField("socket");
        f.setAccessible(true);
        Socket socket = (Socket) f.get(c);
        socket.setSoTimeout(pingEvery > 0 ? pingEvery : 8000);
        long nextPing = pingEvery;
        while (System.nanoTime() - t0 < 8_000_000_000L) {
            try {
                H2RawClient.Frame fr = c.read();
                if (fr.type() == H2RawClient.SETTINGS && (fr.flags() & 1) == 0) {
                    c.frame(H2RawClient.SETTINGS, 1, 0, new byte[0]);
                } else if (fr.type() == H2RawClient.GOAWAY) {
                    return new long[] {(System.nanoTime() - t0) / 1_000_000, fr.lastStreamId(), fr.errorCode()};
                }
            } catch (UncheckedIOException e) {
                if (!(e.getCause() instanceof java.net.SocketTimeoutException)) {
                    throw new AssertionError("closed without GOAWAY after " + (System.nanoTime() - t0) / 1_000_000 + " ms", e);
                }
            }
            long elapsed = (System.nanoTime() - t0) / 1_000_000;
            if (pingEvery > 0 && elapsed >= nextPing) {
                c.frame(H2RawClient.PING, 0, 0, new byte[8]);
                nextPing = elapsed + pingEvery;
            }
        }
        throw new AssertionError("no GOAWAY within 8 s");
    }

    static Daemon startTimeouts(boolean haproxy, String timeouts, Origin o, int port) {
        if (haproxy) {
            Program.HAPROXY.require();
        }
        return Daemon.start(haproxy, TIMEOUTS.formatted(timeouts).formatted(port, o.port()), port);
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void idleHttp2ConnectionsCloseAtHttpRequestThenHttpKeepAliveElseClient(boolean haproxy) throws Exception {
        try (Origin o = Origin.start("o", SLOW_OR_BIG)) {
            int port = Ports.free();
            try (Daemon d = startTimeouts(haproxy, "timeout http-request 1s\n    timeout http-keep-alive 3s\n    timeout client 6s", o, port)) {
                // before any request: timeout http-request, counted from the start whatever frames come meanwhile
                try (H2RawClient c = new H2RawClient(port)) {
                    long[] g = untilGoAway(c, 250);
                    assertThat(g[0]).isBetween(800L, 2600L);
                    assertThat(g[1]).isZero();
                    assertThat(g[2]).isZero();
                }
                // after a request: timeout http-keep-alive
                try (H2RawClient c = new H2RawClient(port)) {
                    c.headers(1, true, request("GET", "/a"));
                    assertThat(read(c, 1).status()).isEqualTo("200");
                    long[] g = untilGoAway(c, 250);
                    assertThat(g[0]).isBetween(2700L, 4900L);
                    assertThat(g[1]).isEqualTo(1);
                }
            }
            try (Daemon d = startTimeouts(haproxy, "timeout http-request 1s\n    timeout client 6s", o, port)) {
                // no http-keep-alive: http-request again
                try (H2RawClient c = new H2RawClient(port)) {
                    c.headers(1, true, request("GET", "/a"));
                    assertThat(read(c, 1).status()).isEqualTo("200");
                    long[] g = untilGoAway(c, 0);
                    assertThat(g[0]).isBetween(800L, 2600L);
                    assertThat(g[1]).isEqualTo(1);
                }
            }
            try (Daemon d = startTimeouts(haproxy, "timeout client 2s", o, port)) {
                // neither: timeout client, from the last frame received
                try (H2RawClient c = new H2RawClient(port)) {
                    long[] g = untilGoAway(c, 0);
                    assertThat(g[0]).isBetween(1700L, 3500L);
                }
                try (H2RawClient c = new H2RawClient(port)) {
                    c.headers(1, true, request("GET", "/a"));
                    assertThat(read(c, 1).status()).isEqualTo("200");
                    long[] g = untilGoAway(c, 0);
                    assertThat(g[0]).isBetween(1700L, 3500L);
                    assertThat(g[1]).isEqualTo(1);
                }
            }
        }
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void timeoutClientAbortsAStreamTheClientStopsReadingNotOneWaitingForItsServer(boolean haproxy) throws Exception {
        try (Origin o = Origin.start("o", SLOW_OR_BIG)) {
            int port = Ports.free();
            try (Daemon d = startTimeouts(haproxy, "timeout http-keep-alive 5s\n    timeout client 2s", o, port)) {
                // the server takes longer than timeout client: the client is not expected to do anything meanwhile
                try (H2RawClient c = new H2RawClient(port)) {
                    c.headers(1, true, request("GET", "/slow"));
                    java.lang.reflect.Field f = H2RawClient.class.getDeclaredField("socket");
                    f.setAccessible(true);
                    ((Socket) f.get(c)).setSoTimeout(8000);
                    Exchange e = read(c, 1);
                    assertThat(e.status()).isEqualTo("200");
                    assertThat(e.body()).isEqualTo("ok");
                }
                // 1 MiB against the 64 KiB window the client never widens: the stream waits on the client
                long t0 = System.nanoTime();
                try (H2RawClient c = new H2RawClient(port)) {
                    c.headers(1, true, request("GET", "/big"));
                    List<String> lines = d.awaitLines(l -> l.contains("/big"), 1);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    assertThat(lines).hasSize(1);
                    assertThat(lines.get(0)).contains(" 200 ").contains(" cD-- ");
                    assertThat(ms).isBetween(1800L, 4500L);
                }
            }
        }
    }
}
