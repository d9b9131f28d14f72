package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HAProxy 2.6's HTTP cache ({@code cache} section, {@code cache-use}/{@code cache-store}) through HAProxy and Sluice on
 * the same configuration, port and request sequence, against an origin that counts its hits: which requests reached the
 * origin, statuses and Age, 304s from ETag and Last-Modified, HEAD from a stored GET, Vary on Accept-Encoding,
 * responses that are not stored (no validator, private, a request with Authorization or no-store), invalidation by a
 * POST, expiry, objects over max-object-size (by Content-Length or as their chunks arrive), Vary on Referer and on an
 * encoding the request may not accept, {@code show cache}'s lines, the log lines' server and flags ({@code <CACHE>}, {@code LR}), the
 * {@code cache_lookups}/{@code cache_hits} counters and the {@code res.cache_hit}/{@code res.cache_name} fetches.
 */
class CacheParityTest {
    private static final String LAST_MODIFIED = "Sun, 06 Dec 2026 10:00:00 GMT";

    private final Origin origin = Origin.start("o", CacheParityTest::serve);

    @AfterEach
    void stop() {
        origin.close();
    }

    private static boolean serve(Origin.Request r, OutputStream out) throws IOException {
        List<String[]> h = new ArrayList<>();
        String path = r.target();
        switch (path) {
            case "/cc", "/cc2" -> h.add(new String[] {"Cache-Control", "max-age=30"});
            case "/short" -> h.add(new String[] {"Cache-Control", "max-age=1"});
            case "/etag" -> {
                h.add(new String[] {"ETag", "\"v1\""});
                h.add(new String[] {"Last-Modified", LAST_MODIFIED});
            }
            case "/private" -> h.add(new String[] {"Cache-Control", "private, max-age=30"});
            case "/vary" -> {
                h.add(new String[] {"Cache-Control", "max-age=30"});
                h.add(new String[] {"Vary", "Accept-Encoding"});
            }
            case "/cookie" -> {
                h.add(new String[] {"Cache-Control", "max-age=30"});
                h.add(new String[] {"Set-Cookie", "a=b"});
            }
            case "/vary-ref" -> {
                h.add(new String[] {"Cache-Control", "max-age=30"});
                h.add(new String[] {"Vary", "referer"});
            }
            case "/vary-br" -> {
                h.add(new String[] {"Cache-Control", "max-age=30"});
                h.add(new String[] {"Vary", "accept-encoding"});
                h.add(new String[] {"Content-Encoding", "br"});
            }
            case "/big" -> {
                Origin.respond(out, 200, "OK", Origin.headers("Cache-Control", "max-age=30"), new byte[20_000]);
                return true;
            }
            case "/bigchunked" -> {
                out.write("HTTP/1.1 200 OK\r\nCache-Control: max-age=30\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                for (int i = 0; i < 4; i++) {
                    out.write("1388\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.write(new byte[5_000]);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return true;
            }
            case "/aged" -> {
                h.add(new String[] {"Cache-Control", "max-age=30"});
                h.add(new String[] {"Age", "10"});
            }
            default -> {
            }
        }
        Origin.respond(out, 200, "OK", h, ("body of " + path + "\n").getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    private record Ask(String method, String path, String... headers) {
        String text() {
            StringBuilder sb = new StringBuilder(method + " " + path + " HTTP/1.1\r\nhost: cache.test\r\n");
            for (String h : headers) {
                sb.append(h).append("\r\n");
            }
            if (method.equals("POST")) {
                sb.append("content-length: 0\r\n");
            }
            return sb.append("\r\n").toString();
        }
    }

    private static final List<Ask> ASKS = List.of(
            new Ask("GET", "/cc"), new Ask("GET", "/cc"), new Ask("HEAD", "/cc"),
            new Ask("GET", "/etag"), new Ask("GET", "/etag"), new Ask("GET", "/etag", "if-none-match: \"v1\""),
            new Ask("GET", "/etag", "if-none-match: W/\"v1\""), new Ask("GET", "/etag", "if-modified-since: " + LAST_MODIFIED),
            new Ask("GET", "/etag", "if-none-match: \"v2\""), new Ask("GET", "/etag", "if-modified-since: Sun, 06 Dec 2026 09:00:00 GMT"),
            new Ask("GET", "/plain"), new Ask("GET", "/plain"),
            new Ask("GET", "/private"), new Ask("GET", "/private"),
            new Ask("GET", "/vary", "accept-encoding: gzip"), new Ask("GET", "/vary", "accept-encoding: gzip"),
            new Ask("GET", "/vary", "accept-encoding: br"), new Ask("GET", "/vary"),
            new Ask("GET", "/cookie"), new Ask("GET", "/cookie"),
            new Ask("GET", "/vary-ref", "referer: http://a/"), new Ask("GET", "/vary-ref", "referer: http://a/"),
            new Ask("GET", "/vary-br", "accept-encoding: br"), new Ask("GET", "/vary-br", "accept-encoding: br"),
            new Ask("GET", "/vary-br", "accept-encoding: gzip"), new Ask("GET", "/vary-br", "accept-encoding: gzip, br"),
            new Ask("GET", "/big"), new Ask("GET", "/big"), new Ask("GET", "/bigchunked"), new Ask("GET", "/bigchunked"),
            new Ask("GET", "/aged"), new Ask("GET", "/aged"),
            new Ask("GET", "/cc2", "authorization: Basic eDp5"), new Ask("GET", "/cc2", "authorization: Basic eDp5"),
            new Ask("GET", "/cc2", "cache-control: no-cache"), new Ask("GET", "/cc2"),
            new Ask("POST", "/cc"), new Ask("GET", "/cc"), new Ask("GET", "/cc"),
            new Ask("GET", "/short"), new Ask("GET", "/short"));

    private String config(int port, String frontendLines) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                    stats socket @DIR@/operator.sock level operator
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    option httplog
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-response set-header x-hit %%[res.cache_hit]/%%[res.cache_name]
                    %s
                    default_backend be
                backend be
                    http-request cache-use c
                    http-response cache-store c
                    server o 127.0.0.1:%d
                cache c
                    total-max-size 4
                    max-age 240
                    process-vary on
                """.formatted(port, frontendLines, origin.port());
    }

    /** What one run shows: per request, per origin path, {@code show cache}, the log lines. */
    private record Run(List<String> exchanges, Map<String, Integer> originHits, List<String> showCache, List<String> logs) {
    }

    private Run run(boolean haproxy, int port) throws IOException {
        return run(haproxy, port, "", ASKS);
    }

    private Run run(boolean haproxy, int port, String frontendLines, List<Ask> asks) throws IOException {
        int before = origin.requests().size();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, config(port, frontendLines), port)) {
            for (Ask a : asks) {
                if (a.path().equals("/short") && out.stream().anyMatch(l -> l.startsWith("GET /short"))) {
                    // /short's 1 s of freshness passes
                    Daemon.sleep(2100);
                }
                try (RawClient c = new RawClient(port, 5_000)) {
                    RawClient.Response r = c.send(a.text()).read(a.method().equals("HEAD"));
                    String age = header(r, "age");
                    out.add(a.method() + " " + a.path() + " " + String.join(" | ", a.headers()) + " => " + r.status() + " age:"
                            + (age == null ? "-" : age.matches("\\d+") ? "n" : age) + " length:" + header(r, "content-length") + " body:"
                            // a compressed body's size is each compressor's own (HAProxy's libslz, the JDK's zlib)
                            + (header(r, "content-encoding") != null ? header(r, "content-encoding") : r.body().length) + " x-hit:"
                            + header(r, "x-hit"));
                }
            }
            Map<String, Integer> hits = new TreeMap<>();
            List<Origin.Request> seen = origin.requests();
            for (Origin.Request r : seen.subList(before, seen.size())) {
                hits.merge(r.method() + " " + r.target(), 1, Integer::sum);
            }
            // /short (1 s of freshness) may have expired by now, or not: its line is left out
            String shortHash = " hash:" + hash32("https://cache.test/short") + " ";
            List<String> show = (AdminClient.run(d.dir().resolve("operator.sock"), "show cache\n")
                    + AdminClient.run(d.dir().resolve("admin.sock"), "show cache\n")).lines().filter(l -> !l.contains(shortHash))
                    .map(l -> l.replaceAll("(^|shctx:)0x[0-9a-f]+", "$10xP").replaceAll("refcount:\\d+", "refcount:R").replaceAll("expire:\\d+", "expire:E")).toList();
            for (String row : List.of("fe,FRONTEND", "be,BACKEND")) {
                for (String col : List.of("cache_lookups", "cache_hits")) {
                    hits.put(row + " " + col, Integer.parseInt(ServerQueueTest.stat(d, row, col)));
                }
            }
            if (!haproxy) {
                // Sluice counts the blocks the entries hold in its 'cache' pool line (HAProxy's shctx is outside its pools)
                int blocks = 0;
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\((\\d+) blocks\\)")
                        .matcher(AdminClient.run(d.dir().resolve("admin.sock"), "show cache\n"));
                while (m.find()) {
                    blocks += Integer.parseInt(m.group(1));
                }
                // show cache lists the first variant of a key only: /vary-ref and /vary-br have a second one
                blocks += asks == ASKS ? 2 : 0;
                String pools = AdminClient.run(d.dir().resolve("admin.sock"), "show pools\n");
                assertThat(pools).containsPattern("- Pool cache \\(1024 bytes\\) : \\d+ allocated \\(\\d+ bytes\\), " + blocks + " used");
            }
            // sorted: each line is written when its stream ends, on its connection's event loop, which may come after the
            // client has its response and the next request is served on another loop
            List<String> logs = d.awaitLines(l -> l.contains(" fe be/"), asks.size()).stream().map(CacheParityTest::logFields).sorted().toList();
            return new Run(out, hits, show, logs);
        }
    }

    /** What {@code show cache} prints of a key: the first four bytes of the SHA-1 of the URI, little-endian. */
    private static long hash32(String uri) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-1").digest(uri.getBytes(StandardCharsets.US_ASCII));
            return (d[0] & 0xffL) | (d[1] & 0xffL) << 8 | (d[2] & 0xffL) << 16 | (d[3] & 0xffL) << 24;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static String header(RawClient.Response r, String name) {
        for (String[] f : r.head().fields()) {
            if (f[0].equalsIgnoreCase(name)) {
                return f[1];
            }
        }
        return null;
    }

    /**
     * The request line, backend/server, status and flags of an httplog line; for the cache's lines the wait, connect and
     * response timers too (Tw/Tc/Tr, all 0 in HAProxy: Tq and Ta are the clock's).
     */
    private static String logFields(String line) {
        String[] w = line.split(" ");
        String request = line.substring(line.indexOf('"'));
        String[] t = w[4].split("/");
        String timers = w[3].endsWith("<CACHE>") ? " " + t[1] + "/" + t[2] + "/" + t[3] : "";
        return request + " " + w[3] + timers + " " + w[5] + " " + w[9];
    }

    @Test
    void cacheBehavesAsHaproxys() throws IOException {
        Program.HAPROXY.require();
        int port = Ports.free();
        Run theirs = run(true, port);
        Run ours = run(false, port);
        assertThat(ours.exchanges()).as("exchanges against HAProxy 2.6").isEqualTo(theirs.exchanges());
        assertThat(ours.originHits()).as("origin hits against HAProxy 2.6").isEqualTo(theirs.originHits());
        assertThat(ours.showCache()).as("show cache against HAProxy 2.6").isEqualTo(theirs.showCache());
        assertThat(ours.logs()).as("log lines against HAProxy 2.6").isEqualTo(theirs.logs());
        // what HAProxy does, spelled out: a hit does not reach the origin and is logged <CACHE>, LR
        assertThat(ours.originHits()).containsEntry("GET /cc", 2).containsEntry("GET /plain", 2).containsEntry("GET /etag", 1);
        assertThat(ours.logs()).contains("\"GET /cc HTTP/1.1\" be/<CACHE> 0/0/0 200 LR--", "\"HEAD /cc HTTP/1.1\" be/<CACHE> 0/0/0 200 LR--");
        assertThat(ours.exchanges()).contains("GET /etag if-none-match: \"v1\" => 304 age:n length:14 body:0 x-hit:1/c",
                "GET /plain  => 200 age:- length:15 body:15 x-hit:0/");
    }

    /**
     * With the compression in the frontend and the cache in the backend, HAProxy does not store a response it
     * compresses (its cache filter comes after the frontend's compression filter): the same response, uncompressed, is
     * stored, and its hits are compressed on the way out.
     */
    @Test
    void aFrontendsCompressionKeepsWhatItCompressesOutOfABackendsCache() throws IOException {
        Program.HAPROXY.require();
        int port = Ports.free();
        List<Ask> asks = List.of(new Ask("GET", "/cc", "accept-encoding: gzip"), new Ask("GET", "/cc", "accept-encoding: gzip"),
                new Ask("GET", "/cc"), new Ask("GET", "/cc", "accept-encoding: gzip"), new Ask("GET", "/cc"));
        Run theirs = run(true, port, "compression algo gzip", asks);
        Run ours = run(false, port, "compression algo gzip", asks);
        assertThat(ours).isEqualTo(theirs);
        assertThat(ours.originHits()).containsEntry("GET /cc", 3);
    }

    /** One exchange through curl: HTTP/2 with prior knowledge or HTTP/1.1; its status line and whether it had Age. */
    private static String curl(int port, String path, boolean h2) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Program.CURL.require(), "-s", h2 ? "--http2-prior-knowledge" : "--http1.1", "-D", "-", "-o", "/dev/null",
                "http://127.0.0.1:" + port + path).redirectErrorStream(true).start();
        String head = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(p.waitFor()).isZero();
        String status = head.lines().findFirst().orElse("").strip();
        return (h2 ? "h2 " : "h1 ") + path + " => " + status + (head.toLowerCase(java.util.Locale.ROOT).contains("\nage: ") ? " age" : "");
    }

    /**
     * HTTP/2 requests are keyed by HAProxy's absolute URI, whose scheme is the request's: over clear text, "http", so an
     * HTTP/2 request does not find what an HTTP/1 request stored for the same path, and the other way round.
     */
    @Test
    void http2RequestsAreKeyedByTheirSchemeAsInHaproxy() throws Exception {
        Program.HAPROXY.require();
        int port = Ports.free();
        List<List<String>> runs = new ArrayList<>();
        for (boolean haproxy : new boolean[] {true, false}) {
            int before = origin.requests().size();
            List<String> out = new ArrayList<>();
            try (Daemon d = Daemon.start(haproxy, config(port, ""), port)) {
                out.add(curl(port, "/cc", false));
                out.add(curl(port, "/cc", true));
                out.add(curl(port, "/cc", true));
                out.add(curl(port, "/cc", false));
                out.add(curl(port, "/etag", true));
                out.add(curl(port, "/etag", true));
            }
            out.add("origin: " + (origin.requests().size() - before));
            runs.add(out);
        }
        assertThat(runs.get(1)).as("Sluice against HAProxy 2.6").isEqualTo(runs.get(0));
        assertThat(runs.get(1)).containsExactly("h1 /cc => HTTP/1.1 200 OK", "h2 /cc => HTTP/2 200", "h2 /cc => HTTP/2 200 age",
                "h1 /cc => HTTP/1.1 200 OK age", "h2 /etag => HTTP/2 200", "h2 /etag => HTTP/2 200 age", "origin: 3");
    }
}
