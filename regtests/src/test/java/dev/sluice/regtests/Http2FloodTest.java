package dev.sluice.regtests;

import static dev.sluice.regtests.H2RawClient.concat;
import static dev.sluice.regtests.H2RawClient.encode;
import static dev.sluice.regtests.H2RawClient.headersFrame;
import static dev.sluice.regtests.H2RawClient.int32;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * HTTP/2 floods and connection errors on an h2c frontend, frame by frame: each flood ends its connection
 * (GOAWAY ENHANCE_YOUR_CALM) and is counted by kind in {@code sluice_h2_flood_rejections_total}; each
 * connection error gets GOAWAY with HAProxy's code and is counted in the h2 columns of {@code show stat}; the
 * frames behind the bad one never reach the origin; the proxy keeps serving new connections.
 */
class Http2FloodTest {
    static Origin origin;
    static Sluice sluice;
    static int port;
    static int metrics;
    static Path admin;

    @BeforeAll
    static void start() {
        origin = Origin.start("o");
        port = Ports.free();
        metrics = Ports.free();
        admin = Sluice.writeConfig("").resolveSibling("admin.sock");
        sluice = Sluice.start("""
                global
                    stats socket %s level admin
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                frontend metrics
                    bind 127.0.0.1:%d
                    http-request use-service prometheus-exporter if { path /metrics }
                    http-request return status 404
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(admin, port, metrics, origin.port()), port, metrics);
        AdminClient.await(admin);
    }

    @AfterAll
    static void stop() {
        sluice.close();
        origin.close();
    }

    /** The frontend's {@code show stat} row. */
    static Map<String, String> fe() {
        return AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n")).get("fe/FRONTEND");
    }

    static long col(Map<String, String> row, String column) {
        return Long.parseLong(row.get(column));
    }

    /** {@code sluice_h2_flood_rejections_total} of the frontend for one kind. */
    static long floods(String kind) {
        try (RawClient c = new RawClient(metrics)) {
            RawClient.Response r = c.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            String text = new String(r.body(), StandardCharsets.UTF_8);
            assertThat(text).contains("# TYPE sluice_h2_flood_rejections_total counter\n");
            Matcher m = Pattern.compile("(?m)^sluice_h2_flood_rejections_total\\{kind=\"" + kind + "\",proxy=\"fe\"} (\\S+)$").matcher(text);
            assertThat(m.find()).as(kind + " in\n" + text).isTrue();
            return (long) Double.parseDouble(m.group(1));
        }
    }

    /** Waits until the frontend has no HTTP/2 connection left: a closed connection has added its frame counts. */
    static Map<String, String> settled() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            Map<String, String> row = fe();
            if (col(row, "h2_open_connections") == 0) {
                return row;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("an HTTP/2 connection stays open: " + fe());
    }

    static List<String[]> get() {
        return MalformedHttp2Test.fields();
    }

    /** A new connection is served: a GET gets its 200. */
    static void servesANewConnection() {
        int before = origin.requests().size();
        try (H2RawClient c = new H2RawClient(port)) {
            c.headers(1, true, get());
            H2RawClient.Frame f = c.awaitStream(1);
            assertThat(f.type()).isEqualTo(H2RawClient.HEADERS);
            assertThat(c.decode(f).status().toString()).isEqualTo("200");
        }
        assertThat(origin.requests()).hasSize(before + 1);
    }

    // ------------------------------------------------------------------ floods

    @Test
    void rapidResetEndsTheConnectionWithEnhanceYourCalm() throws Exception {
        Map<String, String> before = settled();
        long floods = floods("rapid_reset");
        int requests = origin.requests().size();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        // 201 requests each cancelled at once: the 201st RST_STREAM within 30 s is one too many
        for (int i = 0; i < 201; i++) {
            b.writeBytes(headersFrame(2 * i + 1, true, get()));
            b.writeBytes(encode(H2RawClient.RST_STREAM, 0, 2 * i + 1, int32(8)));
        }
        try (H2RawClient c = new H2RawClient(port)) {
            c.send(b.toByteArray());
            H2RawClient.Frame g = c.awaitGoAway();
            assertThat(g).as("GOAWAY").isNotNull();
            assertThat(g.errorCode()).isEqualTo(H2RawClient.ENHANCE_YOUR_CALM);
            assertThat(c.drain(5000)).as("the connection is closed").isTrue();
        }
        Map<String, String> after = settled();
        assertThat(floods("rapid_reset")).isEqualTo(floods + 1);
        assertThat(col(after, "h2_rst_stream_rcvd") - col(before, "h2_rst_stream_rcvd")).isEqualTo(200);
        assertThat(col(after, "h2_headers_rcvd") - col(before, "h2_headers_rcvd")).isEqualTo(201);
        // not a protocol error: counted as a flood only
        assertThat(col(after, "h2_goaway_resp")).isEqualTo(col(before, "h2_goaway_resp"));
        assertThat(col(after, "h2_detected_conn_protocol_errors")).isEqualTo(col(before, "h2_detected_conn_protocol_errors"));
        // requests cancelled at once may or may not have reached the origin: never more than were sent
        assertThat(origin.requests().size() - requests).isBetween(0, 201);
        servesANewConnection();
    }

    @Test
    void emptyDataFramesEndTheConnectionWithEnhanceYourCalm() throws Exception {
        long floods = floods("empty_data");
        int requests = origin.requests().size();
        try (H2RawClient c = new H2RawClient(port)) {
            List<String[]> post = MalformedHttp2Test.fields(":method=POST", "+content-length=10");
            // DATA frames without payload nor END_STREAM cost the proxy work and move nothing: the third in a row ends it
            c.send(concat(headersFrame(1, false, post), encode(H2RawClient.DATA, 0, 1, new byte[0]), encode(H2RawClient.DATA, 0, 1, new byte[0]),
                    encode(H2RawClient.DATA, 0, 1, new byte[0])));
            H2RawClient.Frame g = c.awaitGoAway();
            assertThat(g).as("GOAWAY").isNotNull();
            assertThat(g.errorCode()).isEqualTo(H2RawClient.ENHANCE_YOUR_CALM);
        }
        settled();
        assertThat(floods("empty_data")).isEqualTo(floods + 1);
        // the request's body never came: no request reached the origin whole
        assertThat(origin.requests()).hasSize(requests);
        servesANewConnection();
    }

    static Stream<Arguments> controlFrames() {
        return Stream.of(Arguments.of("PING", encode(H2RawClient.PING, 0, 0, new byte[8])),
                Arguments.of("SETTINGS", encode(H2RawClient.SETTINGS, 0, 0, new byte[0])));
    }

    /**
     * A client that sends PING or SETTINGS without reading their acknowledgements: once the socket buffers are
     * full, 10000 acknowledgements queued unwritten end the connection. The GOAWAY is queued behind them and the
     * client does not read, so it sees the connection close.
     */
    @ParameterizedTest(name = "{0} flood")
    @MethodSource("controlFrames")
    void controlFramesAClientDoesNotReadEndTheConnection(String name, byte[] frame) throws Exception {
        long floods = floods("control_frames");
        int requests = origin.requests().size();
        byte[] batch = new byte[frame.length * 1000];
        for (int i = 0; i < 1000; i++) {
            System.arraycopy(frame, 0, batch, i * frame.length, frame.length);
        }
        AtomicLong sent = new AtomicLong();
        try (H2RawClient c = new H2RawClient(port, 4096)) {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    // at most 4 million frames: far more than the socket buffers and the queue limit hold
                    for (int i = 0; i < 4000; i++) {
                        c.send(batch);
                        sent.addAndGet(1000);
                    }
                } catch (RuntimeException closed) {
                    // the proxy closed the connection
                }
            });
            writer.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(writer.isAlive()).as("the proxy stopped the flood (%d frames sent)", sent.get()).isFalse();
            assertThat(sent.get()).as("frames sent before the connection closed").isLessThan(4_000_000);
            assertThat(c.drain(5000)).as("the connection is closed").isTrue();
        }
        settled();
        assertThat(floods("control_frames")).isEqualTo(floods + 1);
        assertThat(origin.requests()).hasSize(requests);
        servesANewConnection();
    }

    // ------------------------------------------------------------------ connection errors

    /** A valid GET on {@code stream}, sent behind the bad frame: it must not reach the origin. */
    static byte[] then(int stream) {
        return headersFrame(stream, true, get());
    }

    static Arguments c(String name, int goaway, Map<String, Integer> counted, byte[] bytes) {
        return Arguments.of(name, goaway, counted, bytes);
    }

    static Stream<Arguments> connectionErrors() {
        return Stream.of(
                // HPACK: an integer that overflows; HAProxy counts the HEADERS frame but neither error column
                c("HPACK garbage", H2RawClient.COMPRESSION_ERROR, Map.of("h2_headers_rcvd", 1, "h2_goaway_resp", 1),
                        concat(encode(H2RawClient.HEADERS, 0x5, 1, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f}),
                                then(3))),
                c("DATA on stream 0", H2RawClient.PROTOCOL_ERROR, Map.of("h2_detected_conn_protocol_errors", 1, "h2_goaway_resp", 1),
                        concat(encode(H2RawClient.DATA, 0, 0, "abc".getBytes(StandardCharsets.US_ASCII)), then(1))),
                c("HEADERS on idle even stream", H2RawClient.PROTOCOL_ERROR,
                        Map.of("h2_headers_rcvd", 1, "h2_detected_conn_protocol_errors", 1, "h2_goaway_resp", 1), concat(then(2), then(3))),
                c("DATA on idle stream", H2RawClient.PROTOCOL_ERROR, Map.of("h2_detected_conn_protocol_errors", 1, "h2_goaway_resp", 1),
                        concat(encode(H2RawClient.DATA, 0, 3, "abc".getBytes(StandardCharsets.US_ASCII)), then(5))),
                c("WINDOW_UPDATE of 0 on the connection", H2RawClient.PROTOCOL_ERROR,
                        Map.of("h2_detected_conn_protocol_errors", 1, "h2_goaway_resp", 1),
                        concat(encode(H2RawClient.WINDOW_UPDATE, 0, 0, int32(0)), then(1))),
                c("CONTINUATION without HEADERS", H2RawClient.PROTOCOL_ERROR, Map.of("h2_detected_conn_protocol_errors", 1, "h2_goaway_resp", 1),
                        concat(encode(H2RawClient.CONTINUATION, 0x4, 1, H2RawClient.block(get())), then(3))));
    }

    static final List<String> H2_COLUMNS = List.of("h2_headers_rcvd", "h2_data_rcvd", "h2_rst_stream_rcvd", "h2_goaway_rcvd",
            "h2_detected_conn_protocol_errors", "h2_detected_strm_protocol_errors", "h2_rst_stream_resp", "h2_goaway_resp");

    @ParameterizedTest(name = "{0} -> GOAWAY {1}")
    @MethodSource("connectionErrors")
    void connectionErrorsGetGoAwayAndAreCounted(String name, int code, Map<String, Integer> counted, byte[] bytes) throws Exception {
        Map<String, String> before = settled();
        int requests = origin.requests().size();
        int connections = origin.connections();
        try (H2RawClient c = new H2RawClient(port)) {
            c.send(bytes);
            H2RawClient.Frame g = c.awaitGoAway();
            assertThat(g).as("GOAWAY").isNotNull();
            assertThat(g.errorCode()).isEqualTo(code);
            assertThat(c.drain(5000)).as("the connection is closed").isTrue();
        }
        Map<String, String> after = settled();
        for (String column : H2_COLUMNS) {
            assertThat(col(after, column) - col(before, column)).as(column).isEqualTo((long) counted.getOrDefault(column, 0));
        }
        // preface SETTINGS, counted twice as HAProxy does
        assertThat(col(after, "h2_settings_rcvd") - col(before, "h2_settings_rcvd")).isEqualTo(2);
        assertThat(origin.requests()).as("requests that reached the origin").hasSize(requests);
        assertThat(origin.connections()).as("connections to the origin").isEqualTo(connections);
        servesANewConnection();
    }

    // ------------------------------------------------------------------ tune.http.maxhdr

    static List<String[]> withFields(int extra) {
        List<String[]> f = new ArrayList<>(get());
        for (int i = 0; i < extra; i++) {
            f.add(new String[] {"x-h" + i, "v"});
        }
        return f;
    }

    /**
     * HAProxy 2.6 decodes an HTTP/2 header block into 2 * tune.http.maxhdr entries, one of them its end marker:
     * 2 * maxhdr - 1 fields pass (pseudo-header fields included), one more is a connection error
     * COMPRESSION_ERROR (checked against haproxy 2.6 on this machine).
     */
    @Test
    void maxhdrBoundsHttp2HeaderBlocks() throws Exception {
        Origin o = Origin.start("m");
        int p = Ports.free();
        Path sock = Sluice.writeConfig("").resolveSibling("admin.sock");
        try (Sluice s = Sluice.start("""
                global
                    stats socket %s level admin
                    tune.http.maxhdr 10
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(sock, p, o.port()), p)) {
            AdminClient.await(sock);
            try (H2RawClient c = new H2RawClient(p)) {
                // 4 pseudo-header fields and 15 others: 19 = 2 * 10 - 1
                c.headers(1, true, withFields(15));
                H2RawClient.Frame f = c.awaitStream(1);
                assertThat(f.type()).isEqualTo(H2RawClient.HEADERS);
                assertThat(c.decode(f).status().toString()).isEqualTo("200");
            }
            assertThat(o.requests()).hasSize(1);
            assertThat(o.requests().get(0).header("x-h14")).isEqualTo("v");
            try (H2RawClient c = new H2RawClient(p)) {
                c.send(concat(headersFrame(1, true, withFields(16)), then(3)));
                H2RawClient.Frame g = c.awaitGoAway();
                assertThat(g).as("GOAWAY").isNotNull();
                assertThat(g.errorCode()).isEqualTo(H2RawClient.COMPRESSION_ERROR);
            }
            assertThat(o.requests()).hasSize(1);
            Map<String, String> row = AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n")).get("fe/FRONTEND");
            assertThat(row.get("h2_goaway_resp")).isEqualTo("1");
            assertThat(row.get("h2_detected_conn_protocol_errors")).isEqualTo("0");
            // still serving
            try (H2RawClient c = new H2RawClient(p)) {
                c.headers(1, true, withFields(10));
                assertThat(c.decode(c.awaitStream(1)).status().toString()).isEqualTo("200");
            }
        } finally {
            o.close();
        }
    }

    @Test
    void theDefaultMaxhdrAllows201Fields() {
        int requests = origin.requests().size();
        try (H2RawClient c = new H2RawClient(port)) {
            c.headers(1, true, withFields(197));
            H2RawClient.Frame f = c.awaitStream(1);
            assertThat(c.decode(f).status().toString()).isEqualTo("200");
        }
        assertThat(origin.requests()).hasSize(requests + 1);
        try (H2RawClient c = new H2RawClient(port)) {
            c.headers(1, true, withFields(198));
            H2RawClient.Frame g = c.awaitGoAway();
            assertThat(g).isNotNull();
            assertThat(g.errorCode()).isEqualTo(H2RawClient.COMPRESSION_ERROR);
        }
        assertThat(origin.requests()).hasSize(requests + 1);
    }
}
