package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Response compression ({@code compression algo|type|offload}) through the real daemon: which responses are
 * compressed (status, method, version, Content-Type, Content-Encoding, Cache-Control, ETag, Accept-Encoding q-values,
 * old user agents), what the head becomes (Content-Encoding, Vary, weak ETag, chunked), that the body decodes to what
 * the server sent (streamed too), offload, and the comp_* counters; each case compared with HAProxy 2.6
 * (the *AsInHaproxy tests, which require it).
 */
class CompressionTest {
    private static final String TEXT = "Sluice compresses this line like HAProxy does. ".repeat(400);

    private final Origin origin = Origin.start("o", CompressionTest::serve);

    @AfterEach
    void stop() {
        origin.close();
    }

    /** Answers by path; every answer says which Accept-Encoding the server saw. */
    private static boolean serve(Origin.Request r, OutputStream out) throws IOException {
        String seen = r.header("accept-encoding") == null ? "-" : r.header("accept-encoding");
        byte[] text = TEXT.getBytes(StandardCharsets.US_ASCII);
        String path = r.target();
        List<String[]> h = Origin.headers("x-seen-ae", seen);
        switch (path) {
            case "/text" -> {
                h.add(new String[] {"Content-Type", "text/plain; charset=utf-8"});
                h.add(new String[] {"ETag", "\"abc\""});
            }
            case "/html" -> h.add(new String[] {"Content-Type", "TEXT/HTML"});
            case "/png" -> h.add(new String[] {"Content-Type", "image/png"});
            case "/nt" -> {
                h.add(new String[] {"Content-Type", "text/plain"});
                h.add(new String[] {"Cache-Control", "public, no-transform"});
            }
            case "/vary" -> {
                h.add(new String[] {"Content-Type", "text/plain"});
                h.add(new String[] {"Vary", "cookie"});
            }
            case "/weak" -> {
                h.add(new String[] {"Content-Type", "text/plain"});
                h.add(new String[] {"ETag", "W/\"w1\""});
            }
            case "/bad-etag" -> {
                h.add(new String[] {"Content-Type", "text/plain"});
                h.add(new String[] {"ETag", "abc"});
            }
            case "/two-etags" -> {
                h.add(new String[] {"Content-Type", "text/plain"});
                h.add(new String[] {"ETag", "\"a\""});
                h.add(new String[] {"ETag", "\"b\""});
            }
            case "/encoded" -> {
                h.add(new String[] {"Content-Type", "text/plain"});
                h.add(new String[] {"Content-Encoding", "br"});
            }
            case "/multipart" -> h.add(new String[] {"Content-Type", "multipart/mixed; boundary=x"});
            case "/no-type" -> {
            }
            case "/empty" -> {
                h.add(new String[] {"Content-Type", "text/plain"});
                text = new byte[0];
            }
            case "/201" -> {
                Origin.respond(out, 201, "Created", withType(h), text);
                return true;
            }
            case "/206" -> {
                Origin.respond(out, 206, "Partial Content", withType(h), text);
                return true;
            }
            case "/chunked" -> {
                StringBuilder sb = new StringBuilder("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nx-seen-ae: ")
                        .append(seen).append("\r\n\r\n");
                out.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
                out.flush();
                for (int i = 0; i < 4; i++) {
                    byte[] piece = TEXT.substring(i * 1000, (i + 1) * 1000).getBytes(StandardCharsets.US_ASCII);
                    out.write((Integer.toHexString(piece.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(piece);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    Daemon.sleep(20);
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return true;
            }
            default -> h.add(new String[] {"Content-Type", "text/plain"});
        }
        Origin.respond(out, 200, "OK", h, text);
        return true;
    }

    private static List<String[]> withType(List<String[]> h) {
        h.add(new String[] {"Content-Type", "text/plain"});
        return h;
    }

    private String config(int port, String frontendLines, String backendLines) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                %s
                    default_backend be
                backend be
                %s
                    server o 127.0.0.1:%d
                """.formatted(port, frontendLines.strip().indent(4).stripTrailing(), backendLines.strip().indent(4).stripTrailing(), origin.port());
    }

    /** One exchange: method, path, version, request header lines. */
    record Ask(String method, String path, String version, String... headers) {
        String text() {
            StringBuilder sb = new StringBuilder(method + " " + path + " " + version + "\r\nhost: x\r\n");
            for (String h : headers) {
                sb.append(h).append("\r\n");
            }
            return sb.append("\r\n").toString();
        }
    }

    private static final List<Ask> ASKS = List.of(
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: deflate"),
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: gzip;q=0.5, deflate;q=0.8"),
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: br, gzip;q=0"),
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: *"),
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: br"),
            new Ask("GET", "/text", "HTTP/1.1"),
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: identity;q=1, gzip;q=0.1", "accept-encoding: deflate;q=0.2"),
            new Ask("GET", "/text", "HTTP/1.0", "accept-encoding: gzip"),
            new Ask("HEAD", "/text", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: gzip", "user-agent: Mozilla/4.0 (compatible; MSIE 5.5; Windows 98)"),
            new Ask("GET", "/html", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/png", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/nt", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/vary", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/weak", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/bad-etag", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/two-etags", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/encoded", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/multipart", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/no-type", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/empty", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/201", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/206", "HTTP/1.1", "accept-encoding: gzip"),
            new Ask("GET", "/chunked", "HTTP/1.1", "accept-encoding: gzip"));

    /** What a response says, the body decoded, headers sorted (their order is each proxy's own). */
    private static String describe(Ask a, RawClient.Response r) throws IOException {
        List<String> fields = new ArrayList<>();
        String encoding = null;
        for (String[] f : r.head().fields()) {
            String name = f[0].toLowerCase(Locale.ROOT);
            if (name.equals("content-encoding")) {
                encoding = f[1];
            }
            fields.add(name + ": " + f[1]);
        }
        fields.sort(null);
        byte[] body = r.body();
        String decoded;
        if (a.method().equals("HEAD")) {
            decoded = "(head)";
        } else {
            byte[] plain = encoding == null || encoding.equals("br") ? body : decode(encoding, body);
            String s = new String(plain, StandardCharsets.US_ASCII);
            decoded = s.isEmpty() ? "(empty)" : s.equals(TEXT) ? "(the text)" : s.equals(TEXT.substring(0, 4000)) ? "(4 pieces)" : "(other " + s.length() + ")";
        }
        return a.method() + " " + a.path() + " " + a.version() + " " + String.join(" | ", a.headers()) + " => " + r.status() + " " + fields + " "
                + decoded;
    }

    private static byte[] decode(String encoding, byte[] body) throws IOException {
        InputStream in = switch (encoding) {
            case "gzip" -> new GZIPInputStream(new ByteArrayInputStream(body));
            case "deflate" -> new InflaterInputStream(new ByteArrayInputStream(body));
            default -> new InflaterInputStream(new ByteArrayInputStream(body), new Inflater(true));
        };
        try (in) {
            return in.readAllBytes();
        }
    }

    /** comp_in by stats row, of the last Sluice run. */
    private final Map<String, Long> comp = new LinkedHashMap<>();

    private List<String> run(boolean haproxy, String frontendLines, String backendLines, Map<String, String> counters) throws IOException {
        int port = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, frontendLines, backendLines), port)) {
            for (Ask a : ASKS) {
                try (RawClient c = new RawClient(port, 5_000)) {
                    out.add(describe(a, c.send(a.text()).read(a.method().equals("HEAD"))));
                }
            }
            for (String row : List.of("fe,FRONTEND", "be,BACKEND")) {
                for (String col : List.of("comp_rsp", "comp_byp")) {
                    counters.put(row + " " + col, ServerQueueTest.stat(d, row, col));
                }
                // HAProxy 2.6 counts one byte more than the bodies it compressed now and then: checked for Sluice alone
                if (!haproxy) {
                    comp.put(row, Long.parseLong(ServerQueueTest.stat(d, row, "comp_in")));
                }
            }
            counters.put("comp_out smaller than comp_in", Boolean.toString(
                    Long.parseLong(ServerQueueTest.stat(d, "fe,FRONTEND", "comp_out")) * 4 < Long.parseLong(ServerQueueTest.stat(d, "fe,FRONTEND", "comp_in"))));
        }
        return out;
    }

    /** The exchanges and counters of Sluice and HAProxy on the same configuration are the same. */
    private void compareWithHaproxy(String frontendLines, String backendLines) throws IOException {
        Program.HAPROXY.require();
        Map<String, String> counters = new LinkedHashMap<>();
        List<String> sluice = run(false, frontendLines, backendLines, counters);
        Map<String, String> theirs = new LinkedHashMap<>();
        List<String> haproxy = run(true, frontendLines, backendLines, theirs);
        assertThat(sluice).as("Sluice against HAProxy 2.6").hasSize(ASKS.size()).isEqualTo(haproxy);
        assertThat(counters).as("counters against HAProxy 2.6").isEqualTo(theirs);
    }

    /** What each exchange of Sluice must show (checked against HAProxy by the *AsInHaproxy tests). */
    private void check(String frontendLines, String backendLines, List<String> expectedPrefixes) throws IOException {
        List<String> sluice = run(false, frontendLines, backendLines, new LinkedHashMap<>());
        assertThat(sluice).hasSize(expectedPrefixes.size());
        for (int i = 0; i < sluice.size(); i++) {
            assertThat(sluice.get(i)).as("exchange %d", i).contains(expectedPrefixes.get(i));
        }
    }

    private static final String GZ = "content-encoding: gzip, content-type: text/plain";

    private static final String TEXT_AND_HTML = "compression algo gzip deflate\ncompression type text/plain text/html";
    private static final String[] OFFLOAD = {"compression algo deflate\ncompression type text/html", "compression algo gzip\ncompression offload"};

    @Test
    void responsesAreCompressedAsInHaproxy() throws IOException {
        compareWithHaproxy(TEXT_AND_HTML, "");
    }

    @Test
    void backendSettingsAndOffloadAsInHaproxy() throws IOException {
        compareWithHaproxy(OFFLOAD[0], OFFLOAD[1]);
    }

    @Test
    void responsesAreCompressedWhenAndAsHaproxyCompressesThem() throws IOException {
        check(TEXT_AND_HTML, "", List.of(
                "=> 200 [content-encoding: gzip, content-type: text/plain; charset=utf-8, etag: W/\"abc\", transfer-encoding: chunked, vary: Accept-Encoding, x-seen-ae: gzip] (the text)",
                "=> 200 [content-encoding: deflate, content-type: text/plain; charset=utf-8, etag: W/\"abc\", transfer-encoding: chunked, vary: Accept-Encoding, x-seen-ae: deflate] (the text)",
                "content-encoding: deflate,",
                "=> 200 [content-length: 18800, content-type: text/plain; charset=utf-8, etag: \"abc\", x-seen-ae: br, gzip;q=0] (the text)",
                "content-encoding: deflate,",
                "=> 200 [content-length: 18800,",
                "x-seen-ae: -] (the text)",
                "content-encoding: deflate,",
                "HTTP/1.0 accept-encoding: gzip => 200 [connection: close, content-length: 18800,",
                "HEAD /text HTTP/1.1 accept-encoding: gzip => 200 [content-length: 18800,",
                "MSIE 5.5; Windows 98) => 200 [content-length: 18800,",
                "=> 200 [content-encoding: gzip, content-type: TEXT/HTML,",
                "=> 200 [content-length: 18800, content-type: image/png",
                "=> 200 [cache-control: public, no-transform, content-length: 18800,",
                "=> 200 [" + GZ + ", transfer-encoding: chunked, vary: Accept-Encoding, vary: cookie,",
                "=> 200 [" + GZ + ", etag: W/\"w1\", transfer-encoding: chunked,",
                "=> 200 [content-length: 18800, content-type: text/plain, etag: abc,",
                "=> 200 [content-length: 18800, content-type: text/plain, etag: \"a\", etag: \"b\",",
                "=> 200 [content-encoding: br, content-length: 18800,",
                "=> 200 [content-length: 18800, content-type: multipart/mixed",
                "/no-type HTTP/1.1 accept-encoding: gzip => 200 [content-length: 18800, x-seen-ae: gzip] (the text)",
                "=> 200 [content-length: 0, content-type: text/plain, x-seen-ae: gzip] (empty)",
                "=> 201 [" + GZ + ", transfer-encoding: chunked,",
                "=> 206 [content-length: 18800,",
                "/chunked HTTP/1.1 accept-encoding: gzip => 200 [" + GZ + ", transfer-encoding: chunked, vary: Accept-Encoding, x-seen-ae: gzip] (4 pieces)"));
        // the bodies of the ten compressed responses: nine texts and the four streamed pieces
        assertThat(comp).containsEntry("fe,FRONTEND", 9L * 18800 + 4000).containsEntry("be,BACKEND", 9L * 18800 + 4000);
    }

    /** HTTP/2 clients get compressed DATA; a client leaving in the middle of a compressed response leaves nothing behind. */
    @Test
    void http2AndAClientLeavingMidResponse() throws Exception {
        String curl = Program.CURL.require();
        int port = Ports.free();
        int h2 = Ports.free();
        String cfg = config(port, "bind 127.0.0.1:" + h2 + " proto h2\ncompression algo gzip", "");
        try (Daemon d = Daemon.start(false, cfg, port)) {
            ProcessBuilder pb = new ProcessBuilder(curl, "-s", "--http2-prior-knowledge", "-H", "accept-encoding: gzip", "-D", "-", "-o",
                    d.dir().resolve("body.gz").toString(), "http://127.0.0.1:" + h2 + "/chunked");
            Process p = pb.redirectErrorStream(true).start();
            String head = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(p.waitFor()).isZero();
            assertThat(head).contains("HTTP/2 200").contains("content-encoding: gzip").contains("vary: Accept-Encoding")
                    .doesNotContain("content-length");
            assertThat(new String(decode("gzip", java.nio.file.Files.readAllBytes(d.dir().resolve("body.gz"))), StandardCharsets.US_ASCII))
                    .isEqualTo(TEXT.substring(0, 4000));
            for (int i = 0; i < 5; i++) {
                try (RawClient c = new RawClient(port, 5_000)) {
                    c.send("GET /chunked HTTP/1.1\r\nhost: x\r\naccept-encoding: gzip\r\n\r\n");
                    assertThat(Http1.readHead(c.in()).startLine()).contains("200");
                    c.reset();
                }
            }
            try (RawClient c = new RawClient(port, 5_000)) {
                RawClient.Response r = c.send(new Ask("GET", "/text", "HTTP/1.1", "accept-encoding: gzip").text()).read();
                assertThat(new String(decode("gzip", r.body()), StandardCharsets.US_ASCII)).isEqualTo(TEXT);
            }
            // the compressed bodies counted: the HTTP/2 one, the complete one, and the aborted ones as far as they went
            assertThat(Long.parseLong(ServerQueueTest.stat(d, "fe,FRONTEND", "comp_rsp"))).isEqualTo(7);
        }
    }

    /**
     * The backend's algorithms win, its types when it has some (here the frontend's apply); offload hides
     * Accept-Encoding from the server whenever an algorithm was chosen, compressed or not.
     */
    @Test
    void backendSettingsAndOffload() throws IOException {
        List<String> expected = new ArrayList<>(java.util.Collections.nCopies(ASKS.size(), ""));
        expected.set(0, "accept-encoding: gzip => 200 [content-length: 18800, content-type: text/plain; charset=utf-8, etag: \"abc\", x-seen-ae: -] (the text)");
        expected.set(1, "accept-encoding: deflate => 200 [content-length: 18800, content-type: text/plain; charset=utf-8, etag: \"abc\", x-seen-ae: deflate]");
        expected.set(10, "MSIE 5.5; Windows 98) => 200 [content-length: 18800, content-type: text/plain; charset=utf-8, etag: \"abc\", x-seen-ae: gzip]");
        expected.set(11, "/html HTTP/1.1 accept-encoding: gzip => 200 [content-encoding: gzip, content-type: TEXT/HTML, transfer-encoding: chunked, vary: Accept-Encoding, x-seen-ae: -] (the text)");
        expected.set(20, "/no-type HTTP/1.1 accept-encoding: gzip => 200 [content-length: 18800, x-seen-ae: -] (the text)");
        check(OFFLOAD[0], OFFLOAD[1], expected);
    }
}
