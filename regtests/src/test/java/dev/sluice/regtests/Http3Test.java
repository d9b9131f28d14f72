package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/3 in front: {@code bind quic4@} driven by the in-repo Netty HTTP/3 client ({@link H3Client}: its qlog shows
 * the frames received, a relay moves it to another port, it drops datagrams on demand) and, for interoperability, by
 * the foreign client gtlsclient (ngtcp2) in one test; HTTP/1.1 and HTTP/2 origins behind. One daemon
 * serves every test but the closing-state one (each test has its own paths and origins); its frontends have a
 * QUIC bind and a TCP bind on the same port number (the TCP one also tells when the daemon is up).
 */
class Http3Test {
    static TestPki.Issued cert;
    static final byte[] BIG = new byte[300_000];
    static Origin o1;
    static Origin lbA;
    static Origin lbB;
    static H2Origin o2;
    static Sluice sluice;
    static int port;
    static int retryPort;
    static Path admin;

    static final String DEFAULTS = """
            defaults
                mode http
                timeout connect 2s
                timeout client 10s
                timeout server 10s
            """;

    @BeforeAll
    static void start() throws Exception {
        cert = new TestPki("h3-ca").leaf("localhost", "127.0.0.1");
        new Random(3).nextBytes(BIG);
        o1 = Origin.start("s1", (r, out) -> {
            if (r.target().endsWith("/late-end")) {
                // a chunked body whose last chunk comes a while after the data: Sluice sends the data, then the end alone
                out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return true;
            }
            if (r.target().endsWith("/hop")) {
                // an HTTP/1 server's hop-by-hop fields, which an HTTP/3 client must not get
                out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive, X-Resp\r\nX-Resp: 1\r\n"
                        + "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nUpgrade: h2,h2c\r\nTE: gzip, trailers\r\n\r\n"
                        + "3\r\nhop\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return true;
            }
            byte[] body = r.method().equals("POST") ? r.sha256().getBytes(StandardCharsets.US_ASCII)
                    : r.target().endsWith("/big.bin") ? BIG : "origin s1\n".getBytes(StandardCharsets.US_ASCII);
            Origin.respond(out, 200, "OK", Origin.headers("X-Origin", "s1"), body);
            return true;
        });
        lbA = Origin.start("lb-a");
        lbB = Origin.start("lb-b");
        o2 = new H2Origin("from h2\n".getBytes(StandardCharsets.US_ASCII));
        port = Ports.free();
        retryPort = Ports.free();
        admin = Files.createTempDirectory("h3adm").resolve("admin.sock");
        // four event loops: four QUIC sockets sharing the port (SO_REUSEPORT)
        String cfg = "global\n    nbthread 4\n    stats socket " + admin + " level admin\n" + DEFAULTS + """
                frontend fe
                    bind 127.0.0.1:%1$d
                    bind quic4@127.0.0.1:%1$d ssl crt %2$s alpn h3
                    option httplog
                    log stdout format raw local0
                    option h3-alt-svc ma 600
                    stick-table type ip size 10 expire 1m store http_req_cnt
                    http-request track-sc0 src if { path_beg /lb/ }
                    http-request deny deny_status 403 if { path_beg /lb/private } || { path_beg /deny }
                    http-request use-service prometheus-exporter if { path /metrics }
                    http-request set-header x-via-h3 %%[ssl_fc]
                    http-response set-header x-req-cnt %%[sc0_http_req_cnt] if { res.hdr(x-origin) -m beg lb- }
                    http-response set-header alt-svc "h3=\\":443\\"; ma=900" if { res.hdr(x-origin) -m beg lb- }
                    use_backend be_h2 if { path_beg /h2/ }
                    use_backend be_lb if { path_beg /lb/ }
                    default_backend be_h1
                frontend fe_retry
                    bind 127.0.0.1:%3$d
                    bind quic4@127.0.0.1:%3$d ssl crt %2$s quic-force-retry
                    option httplog
                    log stdout format raw local0
                    default_backend be_h1
                backend be_h1
                    server s1 127.0.0.1:%4$d
                backend be_h2
                    server s2 127.0.0.1:%5$d proto h2
                backend be_lb
                    balance roundrobin
                    server a 127.0.0.1:%6$d
                    server b 127.0.0.1:%7$d
                """.formatted(port, cert.pem(), retryPort, o1.port(), o2.port(), lbA.port(), lbB.port());
        sluice = Sluice.start(cfg, port, retryPort);
    }

    @AfterAll
    static void stop() throws Exception {
        if (sluice != null) {
            sluice.close();
        }
        o1.close();
        lbA.close();
        lbB.close();
        o2.close();
    }

    @Test
    void getAndPostThroughHttp3ToHttp1AndHttp2Origins() throws Exception {
        Program.GTLSCLIENT.require();
        Path up = Files.createTempFile("h3up", ".bin");
        byte[] upload = new byte[200_000];
        new Random(4).nextBytes(upload);
        Files.write(up, upload);
        Gtls.Run get = Gtls.run(port, List.of("-q"), "/h1/big.bin");
        assertThat(get.exit()).as(get.output()).isZero();
        assertThat(Origin.sha256(get.body("/h1/big.bin"))).isEqualTo(Origin.sha256(BIG));
        Origin.Request r = o1.requests().stream().filter(x -> x.target().equals("/h1/big.bin")).findFirst().orElseThrow();
        assertThat(r.version()).isEqualTo("HTTP/1.1");
        assertThat(r.header("host")).isEqualTo("127.0.0.1:" + port);

        Gtls.Run post = Gtls.run(port, List.of("-q", "-m", "POST", "-d", up.toString()), "/h1/up");
        assertThat(post.exit()).as(post.output()).isZero();
        assertThat(new String(post.body("/h1/up"), StandardCharsets.US_ASCII)).isEqualTo(Origin.sha256(upload));
        assertThat(o1.requests().stream().filter(x -> x.target().equals("/h1/up")).findFirst().orElseThrow().body()).isEqualTo(upload);

        Gtls.Run h2get = Gtls.run(port, List.of("-q"), "/h2/x");
        assertThat(h2get.exit()).as(h2get.output()).isZero();
        assertThat(new String(h2get.body("/h2/x"), StandardCharsets.US_ASCII)).isEqualTo("from h2\n");
        Gtls.Run h2post = Gtls.run(port, List.of("-q", "-m", "POST", "-d", up.toString()), "/h2/up");
        assertThat(h2post.exit()).as(h2post.output()).isZero();
        assertThat(new String(h2post.body("/h2/up"), StandardCharsets.US_ASCII)).isEqualTo(Origin.sha256(upload));
        H2Origin.Request r2 = o2.requests().stream().filter(x -> x.headers().path().toString().equals("/h2/up")).findFirst().orElseThrow();
        assertThat(r2.body()).isEqualTo(upload);
        // an HTTP/3 request is in origin form (its authority became Host): Host goes as a field, no :authority, as HAProxy's
        assertThat(r2.headers().authority()).isNull();
        assertThat(r2.headers().get("host").toString()).isEqualTo("127.0.0.1:" + port);
    }

    @Test
    void anHttp1ServersHopByHopFieldsDoNotReachAnHttp3Client() throws Exception {
        try (H3Client c = new H3Client(port)) {
            H3Client.Result r = c.get("/hop");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("hop");
            List<String> names = new java.util.ArrayList<>();
            r.headers().forEach(e -> names.add(e.getKey() + ": " + e.getValue()));
            // the field Connection lists goes on, TE as trailers; Connection, Keep-Alive, Proxy-Connection, Upgrade and
            // Transfer-Encoding stay behind (RFC 9114 4.2)
            assertThat(names).containsExactly(":status: 200", "x-resp: 1", "te: trailers");
        }
    }

    /** A client whose qlog goes to a fresh file. */
    static Path qlog() throws Exception {
        return Files.createTempDirectory("h3qlog").resolve("client.sqlog");
    }

    @Test
    void aResponseLeavesInOneStreamFrameWithItsEnd() throws Exception {
        // HEADERS, DATA and the FIN went as three packets (a write each, the FIN alone in an empty STREAM frame)
        Path q = qlog();
        H3Client.Result r;
        try (H3Client c = new H3Client(port, 25, 10_000, 10_000, q)) {
            r = c.get("/one-frame");
        }
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("origin s1\n");
        List<H3Client.StreamFrame> frames = H3Client.streamFramesReceived(q, 0);
        assertThat(frames).as(Files.readString(q)).singleElement().satisfies(f -> {
            assertThat(f.fin()).isTrue();
            assertThat(f.offset()).isZero();
        });
    }

    @Test
    void everyResponseEndsWhenTheClientLosesPackets() throws Exception {
        // quiche never sends again a lost STREAM frame that carries only a FIN once the bytes before it are acknowledged:
        // with the FIN alone in its packet, about one response in 25 never ended and the client waited for its idle
        // timeout (10 s here). The client drops 10% of what it receives once connected.
        int n = 200;
        long start = System.nanoTime();
        try (H3Client c = new H3Client(port)) {
            c.dropRate = 0.1;
            for (int batch = 0; batch < n; batch += 50) {
                List<java.util.concurrent.CompletableFuture<H3Client.Result>> rs = new java.util.ArrayList<>();
                for (int i = batch; i < batch + 50; i++) {
                    rs.add(c.start(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", "127.0.0.1:" + port, ":path",
                            "/lossy"), null));
                }
                for (var f : rs) {
                    H3Client.Result r = f.get(10, TimeUnit.SECONDS);
                    assertThat(r.resetCode()).as("the response ended (FIN)").isEqualTo(-1);
                    assertThat(r.status()).isEqualTo(200);
                }
            }
            assertThat(c.dropped.get()).as("datagrams lost").isGreaterThan(10);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("no response waited for the idle timeout").isLessThan(6_000);
    }

    @Test
    void aResponseWhoseEndComesLaterEndsOnAnEmptyDataFrame() throws Exception {
        Path q = qlog();
        H3Client.Result r;
        try (H3Client c = new H3Client(port, 25, 10_000, 10_000, q)) {
            r = c.get("/h1/late-end");
        }
        // Netty's HTTP/3 client takes the empty DATA frame as well
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("hello\n");
        assertThat(r.resetCode()).isEqualTo(-1);
        List<H3Client.StreamFrame> frames = H3Client.streamFramesReceived(q, 0);
        assertThat(frames).as(Files.readString(q)).hasSizeGreaterThanOrEqualTo(2);
        H3Client.StreamFrame last = frames.getLast();
        // the data left when it came; the FIN then rides on a DATA frame of length 0 (type 0, length 0: two bytes)
        assertThat(last.fin()).isTrue();
        assertThat(last.length()).isEqualTo(2);
        assertThat(frames.subList(0, frames.size() - 1)).allSatisfy(f -> assertThat(f.fin()).isFalse());
    }

    @Test
    void retryWhenForcedOnlyAndTheHttpLogLine() throws Exception {
        String retrySent = "haproxy_frontend_quic_retry_sent_total{proxy=\"fe_retry\"} ";
        long sentBefore = metric(retrySent);
        try (H3Client c = new H3Client(port)) {
            assertThat(c.get("/plain").status()).isEqualTo(200);
        }
        try (H3Client c = new H3Client(retryPort)) {
            H3Client.Result r = c.get("/retried");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("origin s1\n");
        }
        // the forced-retry frontend sent its client a Retry (and took the token back); the other sent none
        assertThat(metric(retrySent)).isEqualTo(sentBefore + 1);
        assertThat(metric("haproxy_frontend_quic_retry_sent_total{proxy=\"fe\"} ")).isZero();

        List<String> lines = logLines("/plain", "/retried");
        AccessLogTest.Line l = AccessLogTest.parse(lines.stream().filter(x -> x.contains("/plain")).findFirst().orElseThrow());
        assertThat(l.fe()).isEqualTo("fe~");
        assertThat(l.be()).isEqualTo("be_h1");
        assertThat(l.srv()).isEqualTo("s1");
        assertThat(l.status()).isEqualTo(200);
        assertThat(l.tsc()).isEqualTo("----");
        assertThat(l.request()).isEqualTo("GET /plain HTTP/3.0");
        // %B: HAProxy's HTX size of the server's response (start line parts plus 20, fields, 1, then the body)
        assertThat(l.bytes()).isEqualTo(20 + "HTTP/1.1200OK".length() + "x-origins1".length() + "content-length10".length() + 1
                + "origin s1\n".length());
        assertThat(lines.stream().anyMatch(x -> x.contains(" fe_retry~ be_h1/s1 ") && x.endsWith("\"GET /retried HTTP/3.0\""))).as(lines.toString())
                .isTrue();
        // the QUIC metric families on the Prometheus endpoint
        String metrics = Http2Test.run(List.of("curl", "-sS", "http://127.0.0.1:" + port + "/metrics"));
        assertThat(metrics).containsPattern("haproxy_frontend_quic_retry_sent_total\\{proxy=\"fe_retry\"\\} [1-9]")
                .containsPattern("haproxy_frontend_quic_retry_validated_total\\{proxy=\"fe_retry\"\\} [1-9]")
                .contains("haproxy_frontend_quic_retry_sent_total{proxy=\"fe\"} 0")
                .contains("sluice_frontend_quic_closing_records_alive{proxy=\"fe\"}");
    }

    /** The value of the metric series whose line starts with {@code series} on the Prometheus endpoint. */
    static long metric(String series) throws Exception {
        String metrics = Http2Test.run(List.of("curl", "-sS", "http://127.0.0.1:" + port + "/metrics"));
        return metrics.lines().filter(l -> l.startsWith(series)).map(l -> (long) Double.parseDouble(l.substring(series.length()).trim())).findFirst()
                .orElseThrow(() -> new AssertionError(series + " not in\n" + metrics));
    }

    /** The log lines of the requests for {@code paths}, once all are there. */
    static List<String> logLines(String... paths) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            List<String> l = sluice.output().lines().filter(x -> x.contains(" [") && java.util.Arrays.stream(paths).anyMatch(x::contains)).toList();
            if (l.size() >= paths.length) {
                return l;
            }
            Thread.sleep(50);
        }
        return sluice.output().lines().toList();
    }

    @Test
    void rulesLoadBalancingAndStickCountersOverHttp3() throws Exception {
        List<H3Client.Result> rs = new java.util.ArrayList<>();
        try (H3Client c = new H3Client(port)) {
            for (String p : List.of("/lb/1", "/lb/2", "/lb/3", "/lb/4", "/lb/private/x")) {
                rs.add(c.get(p));
            }
        }
        assertThat(lbA.requests()).hasSize(2);
        assertThat(lbB.requests()).hasSize(2);
        assertThat(lbA.requests().getFirst().header("x-via-h3")).isEqualTo("1");
        assertThat(rs.subList(0, 4)).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("alt-svc")).isEqualTo("h3=\":443\"; ma=900");
        });
        assertThat(rs.subList(0, 4)).extracting(r -> r.header("x-req-cnt")).containsExactly("1", "2", "3", "4");
        assertThat(rs.get(4).status()).isEqualTo(403);
        assertThat(rs.get(4).header("x-req-cnt")).isNull();
        String table = AdminClient.run(admin, "show table fe\n");
        assertThat(table).contains("key=127.0.0.1").contains("http_req_cnt=5");
    }

    @Test
    void aResponseCompleteBeforeTheBodyStopsTheUploadWithNoError() throws Exception {
        Path q = qlog();
        H3Client.Result r;
        try (H3Client c = new H3Client(port, 25, 10_000, 10_000, q)) {
            r = c.post("/deny", new byte[2_000_000]);
        }
        assertThat(r.status()).isEqualTo(403);
        // RFC 9114 4.1: the request body is not needed; STOP_SENDING with H3_NO_ERROR (0x100)
        assertThat(H3Client.framesReceived(q)).as(Files.readString(q))
                .anyMatch(e -> Pattern.compile("\\{\"frame_type\":\"stop_sending\",\"stream_id\":0,[^}]*\"error_code\":256\\}").matcher(e).find());
    }

    @Test
    void aQuicConnectionCountsOneSessionOnItsConnectionTrackers() throws Exception {
        int quic = Ports.free();
        int probe = Ports.free();
        String cfg = DEFAULTS + """
                frontend q
                    bind quic4@127.0.0.1:%1$d ssl crt %2$s alpn h3
                    stick-table type ip size 10 expire 1m store conn_cnt,sess_cnt,sess_rate(10s),http_req_cnt
                    tcp-request connection track-sc0 src
                    http-request return status 200 content-type text/plain lf-string "%%[sc_sess_cnt(0)]|%%[sc_conn_cnt(0)]|%%[sc_http_req_cnt(0)]|%%[sc_sess_rate(0)]"
                frontend probe
                    bind 127.0.0.1:%3$d
                    http-request return status 200
                """.formatted(quic, cert.pem(), probe);
        try (Sluice s = Sluice.start(cfg, probe); H3Client c = new H3Client(quic)) {
            List<String> seen = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                H3Client.Result r = c.send(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", "x", ":path", "/"), null);
                seen.add(new String(r.body(), StandardCharsets.US_ASCII));
            }
            assertThat(seen).containsExactly("1|1|1|1", "1|1|2|1");
        }
    }

    @Test
    void malformedRequestsAreResetWithMessageErrorAndCounted() throws Exception {
        try (H3Client c = new H3Client(port)) {
            String auth = "127.0.0.1:" + port;
            long ereqBefore = ereq();
            H3Client.Result ok = c.send(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/ok"), null);
            assertThat(ok.status()).isEqualTo(200);
            long messageError = 0x10e;
            List<io.netty.handler.codec.http3.Http3Headers> bad = List.of(
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/x", "Upper", "1"),
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/x", "connection", "close"),
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/x", "transfer-encoding", "chunked"),
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/a b"),
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "m/x"),
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/x", "x-bad", "a\nb"),
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth),
                    H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/x", "content-length", "1",
                            "content-length", "2"));
            for (var h : bad) {
                H3Client.Result r = c.send(h, null);
                assertThat(r.resetCode()).as("%s", h).isEqualTo(messageError);
            }
            // a body longer than its content-length (Netty's own check, same outcome)
            H3Client.Result tooLong = c.send(H3Client.fields(":method", "POST", ":scheme", "https", ":authority", auth, ":path", "/m/p",
                    "content-length", "2"), new byte[10]);
            assertThat(tooLong.resetCode()).isEqualTo(messageError);
            // the connection still serves
            assertThat(c.send(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/m/ok2"), null).status())
                    .isEqualTo(200);
            assertThat(o1.requests()).extracting(Origin.Request::target).filteredOn(t -> t.startsWith("/m/")).containsExactly("/m/ok", "/m/ok2");
            assertThat(ereq()).isEqualTo(ereqBefore + bad.size() + 1);
        }
    }

    static long ereq() {
        return Long.parseLong(AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n")).get("fe/FRONTEND").get("ereq"));
    }

    @Test
    void aLostConnectionCloseIsLearnedFromTheResentOneAndTheRecordThenGoes() throws Exception {
        int port = Ports.free();
        Path admin = Files.createTempDirectory("h3adm").resolve("admin.sock");
        // the server closes each connection once its handshake is done; the knob drops its CONNECTION_CLOSE
        String cfg = "global\n    stats socket " + admin + " level admin\n" + DEFAULTS + """
                frontend fe
                    bind 127.0.0.1:%1$d
                    bind quic4@127.0.0.1:%1$d ssl crt %2$s alpn h3
                    tcp-request connection reject
                    default_backend be
                backend be
                    server s1 127.0.0.1:1
                """.formatted(port, cert.pem());
        try (Sluice s = Sluice.start(Sluice.writeConfig(cfg), List.of(), Map.of("SLUICE_QUIC_TEST_DROP_CLOSE", "1"), port)) {
            // the client's handshake completes (the server's close was dropped); its next packets reach the record,
            // whose CONNECTION_CLOSE it then receives, well before its 10 s idle timeout
            try (H3Client first = new H3Client(port)) {
                long handshakeDone = System.nanoTime();
                QuicConnectionCloseEvent e = first.closed.get(5, TimeUnit.SECONDS);
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - handshakeDone)).isLessThan(1000);
                assertThat(e.isApplicationClose()).isFalse();
                assertThat(e.error()).as("CONNECTION_REFUSED").isEqualTo(0x2);
            }
            String stat = AdminClient.run(admin, "show quic all\n");
            assertThat(stat).startsWith("# conn/frontend");
            // then the record is freed at its deadline (min(3 x PTO, 1 s)) and nothing answers any more
            String after = stat;
            for (int i = 0; i < 250 && after.contains(" CLOSE "); i++) {
                Thread.sleep(20);
                after = AdminClient.run(admin, "show quic all\n");
            }
            assertThat(after).doesNotContain(" CLOSE ");

            // a client announcing a 400 ms max_ack_delay gets a record that lives the full second: show quic all lists
            // it in state CLOSE while it lives, show quic does not, then it goes. What is read while it lives is
            // bracketed by two listings that show it; a loaded machine that misses the second takes another client
            Pattern closeLine = Pattern.compile("0x[0-9a-f]{8}\\[\\d\\d\\]/fe +CLOSE +0 +0 +0 +127\\.0\\.0\\.1:" + port
                    + " +127\\.0\\.0\\.1:\\d+ +0f00[0-9a-f]{12}\\.{16} -\n");
            boolean bracketed = false;
            for (int attempt = 0; attempt < 5 && !bracketed; attempt++) {
                long refusedAt;
                try (H3Client refused = new H3Client(port, 400, 5000)) {
                    refusedAt = System.nanoTime();
                    assertThat(refused.closed.get(5, TimeUnit.SECONDS).error()).as("CONNECTION_REFUSED").isEqualTo(0x2);
                } catch (java.util.concurrent.ExecutionException e) {
                    // the close may come before the client saw its handshake done: the record exists all the same
                    refusedAt = System.nanoTime();
                }
                Matcher before = closeLine.matcher(AdminClient.run(admin, "show quic all\n"));
                if (!before.find()) {
                    continue;
                }
                String withoutAll = AdminClient.run(admin, "show quic\n");
                String full = AdminClient.run(admin, "show quic full all\n");
                String again = AdminClient.run(admin, "show quic all\n");
                if (!again.contains(before.group())) {
                    continue;
                }
                bracketed = true;
                assertThat(withoutAll).as("not without 'all'").doesNotContain(" CLOSE ");
                assertThat(full).contains("st=closing").contains("cc_dgram_len=");
                String gone = again;
                while (gone.contains(" CLOSE ") && System.nanoTime() - refusedAt < TimeUnit.SECONDS.toNanos(5)) {
                    Thread.sleep(20);
                    gone = AdminClient.run(admin, "show quic all\n");
                }
                assertThat(gone).doesNotContain(" CLOSE ");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - refusedAt)).as("freed at its 1 s deadline, not before")
                        .isGreaterThanOrEqualTo(700);
            }
            assertThat(bracketed).as("a record listed twice in a row within its second, in 5 attempts").isTrue();
        }
    }

    @Test
    void anHttp3ConnectionErrorOfTheClientIsClosedAndKeptAsARecord() throws Exception {
        // a second control stream from the client: H3_STREAM_CREATION_ERROR, a connection error Netty's HTTP/3
        // codec closes through the connection's pipeline, where the closing record is made
        try (H3Client c = new H3Client(port, 400, 5000)) {
            String auth = "127.0.0.1:" + port;
            assertThat(c.send(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", auth, ":path", "/err/ok"), null).status())
                    .isEqualTo(200);
            int clientPort = c.localPort();
            c.uniStream((byte) 0x00, (byte) 0x04, (byte) 0x00);
            QuicConnectionCloseEvent e = c.closed.get(5, TimeUnit.SECONDS);
            assertThat(e.isApplicationClose()).isTrue();
            assertThat(e.error()).as("H3_STREAM_CREATION_ERROR").isEqualTo(0x103);
            String listed = AdminClient.run(admin, "show quic all\n");
            assertThat(listed).containsPattern("/fe +CLOSE +0 +0 +0 +127\\.0\\.0\\.1:" + port + " +127\\.0\\.0\\.1:" + clientPort + " ");
        }
    }

    @Test
    void aClientThatMovesToAnotherPortKeepsItsConnectionWhicheverSocketTheKernelPicks() throws Exception {
        // each move gives the client a new port (a NAT rebinding, through a relay), so the kernel's SO_REUSEPORT hash
        // may pick another of the four sockets: the CID's socket index sends the datagrams back to the one that owns
        // the connection
        for (int i = 0; i < 6; i++) {
            try (UdpRelay relay = new UdpRelay(port); H3Client c = new H3Client(relay.port())) {
                assertThat(c.get("/moved/" + i).status()).isEqualTo(200);
                UdpRelay.Upstream before = relay.current();
                UdpRelay.Upstream after = relay.move();
                assertThat(after.port()).as("the client moved").isNotEqualTo(before.port());
                H3Client.Result r = c.get("/moved/" + i + "/after");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("x-origin")).isEqualTo("s1");
                assertThat(after.received().get()).as("the server answered the new address").isPositive();
                assertThat(AdminClient.run(admin, "show quic\n")).as("the connection's peer is the new address")
                        .containsPattern("/fe +ESTAB .* 127\\.0\\.0\\.1:" + after.port() + " ");
            }
        }
        assertThat(o1.requests()).extracting(Origin.Request::target).filteredOn(t -> t.startsWith("/moved/")).hasSize(12);
    }

    @Test
    void showQuicListsALiveConnectionAndAltSvcIsAddedOnTcp() throws Exception {
        // a connection open with no request yet; its request comes once show quic was read
        try (H3Client c = new H3Client(port)) {
            String show = "";
            for (int i = 0; i < 250 && !show.contains(" ESTAB "); i++) {
                Thread.sleep(20);
                show = AdminClient.run(admin, "show quic\n");
            }
            Matcher m = Pattern.compile("0x[0-9a-f]{8}\\[\\d\\d\\]/fe +ESTAB +0 +0 +\\d+ +127\\.0\\.0\\.1:" + port
                    + " +127\\.0\\.0\\.1:" + c.localPort() + " +0f00[0-9a-f]{28} [0-9a-f]+\n").matcher(show);
            assertThat(m.find()).as(show).isTrue();
            assertThat(AdminClient.run(admin, "show quic full\n")).contains("st=opened").contains("local_addr=127.0.0.1:" + port);
            assertThat(AdminClient.run(admin, "show quic foo\n")).startsWith("Invalid argument, use 'help' for more options.\n");
            assertThat(c.get("/late").status()).isEqualTo(200);
        }
        assertThat(o1.requests()).extracting(Origin.Request::target).contains("/late");

        String tcp = Http2Test.run(List.of("curl", "-sS", "-D-", "-o", "/dev/null", "http://127.0.0.1:" + port + "/tcp"));
        assertThat(tcp).contains("alt-svc: h3=\":" + port + "\"; ma=600");
    }
}
