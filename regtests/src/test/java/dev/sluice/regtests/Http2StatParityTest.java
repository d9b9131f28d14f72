package dev.sluice.regtests;

import static dev.sluice.regtests.H2RawClient.concat;
import static dev.sluice.regtests.H2RawClient.encode;
import static dev.sluice.regtests.H2RawClient.headersFrame;
import static dev.sluice.regtests.H2RawClient.int32;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The same HTTP/2 frames, valid and not, sent to Sluice and to the real HAProxy (2.6 here) with the same
 * configuration: the h2 frame and error columns of {@code show stat} move the same way. Skipped when haproxy
 * is not installed.
 *
 * <p>Left out because Sluice departs on purpose: a DATA frame past its content-length (Netty's decoder rejects
 * it before Sluice sees it, so it is not in {@code h2_data_rcvd}), trailers without END_STREAM (a stream error
 * in Sluice as RFC 9113 says, a connection error in HAProxy), empty DATA frames (a flood for Sluice).
 */
class Http2StatParityTest {
    static final List<String> COLUMNS = List.of("h2_headers_rcvd", "h2_data_rcvd", "h2_settings_rcvd", "h2_rst_stream_rcvd", "h2_goaway_rcvd",
            "h2_detected_conn_protocol_errors", "h2_detected_strm_protocol_errors", "h2_rst_stream_resp", "h2_goaway_resp");

    static final byte[] ACK = encode(H2RawClient.SETTINGS, 1, 0, new byte[0]);

    static List<String[]> get() {
        return MalformedHttp2Test.fields();
    }

    static byte[] post(int contentLength) {
        return headersFrame(1, false, MalformedHttp2Test.fields(":method=POST", "+content-length=" + contentLength));
    }

    static byte[] data(int stream, boolean end, String s) {
        return encode(H2RawClient.DATA, end ? 1 : 0, stream, s.getBytes(StandardCharsets.US_ASCII));
    }

    /** What the client sends after its preface and SETTINGS, by case. */
    static Map<String, byte[]> cases() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("GET", headersFrame(1, true, get()));
        m.put("SETTINGS acknowledged", concat(ACK, headersFrame(1, true, get())));
        m.put("second SETTINGS", encode(H2RawClient.SETTINGS, 0, 0, new byte[0]));
        m.put("PING", encode(H2RawClient.PING, 0, 0, new byte[8]));
        m.put("GOAWAY from the client", encode(H2RawClient.GOAWAY, 0, 0, new byte[8]));
        m.put("POST", concat(post(3), data(1, true, "abc")));
        m.put("POST in two DATA frames", concat(post(6), data(1, false, "abc"), data(1, true, "abc")));
        m.put("DATA after END_STREAM", concat(headersFrame(1, true, get()), data(1, true, "abc")));
        m.put("RST_STREAM on an open stream", concat(headersFrame(1, false, get()), encode(H2RawClient.RST_STREAM, 0, 1, int32(8))));
        m.put("WINDOW_UPDATE of 0 on a stream", concat(headersFrame(1, false, get()), encode(H2RawClient.WINDOW_UPDATE, 0, 1, int32(0))));
        m.put("WINDOW_UPDATE of 0 on the connection", encode(H2RawClient.WINDOW_UPDATE, 0, 0, int32(0)));
        m.put("upper-case field name", headersFrame(1, true, MalformedHttp2Test.fields("+X-Foo=1")));
        m.put("connection-specific field", headersFrame(1, true, MalformedHttp2Test.fields("+connection=close")));
        m.put("HPACK garbage", encode(H2RawClient.HEADERS, 0x5, 1, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f}));
        m.put("DATA on stream 0", data(0, false, "abc"));
        m.put("HEADERS on an idle even stream", headersFrame(2, true, get()));
        m.put("DATA on an idle stream", data(3, false, "abc"));
        m.put("RST_STREAM on an idle stream", encode(H2RawClient.RST_STREAM, 0, 5, int32(8)));
        m.put("CONTINUATION without HEADERS", encode(H2RawClient.CONTINUATION, 0x4, 1, H2RawClient.block(get())));
        m.put("202 header fields", headersFrame(1, true, Http2FloodTest.withFields(198)));
        byte[] resets = new byte[0];
        for (int i = 0; i < 10; i++) {
            resets = concat(resets, headersFrame(2 * i + 1, true, get()), encode(H2RawClient.RST_STREAM, 0, 2 * i + 1, int32(8)));
        }
        m.put("ten requests cancelled", resets);
        return m;
    }

    static String config(Path sock, int port, int origin) {
        return """
                global
                    stats socket %s level admin
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(sock, port, origin);
    }

    static Map<String, String> row(Path sock) {
        return AdminSocketTest.parseStat(AdminClient.run(sock, "show stat\n")).get("fe/FRONTEND");
    }

    /** Sends one case on a new connection, lets it play out, and returns how each column moved. */
    static Map<String, Long> play(int port, Path sock, byte[] bytes) throws InterruptedException {
        Map<String, String> before = row(sock);
        try (H2RawClient c = new H2RawClient(port)) {
            c.send(bytes);
            c.drain(400);
        }
        Map<String, String> after = null;
        for (int i = 0; i < 200; i++) {
            after = row(sock);
            if (after.get("h2_open_connections").equals("0")) {
                break;
            }
            Thread.sleep(25);
        }
        assertThat(after.get("h2_open_connections")).as("the connection ended").isEqualTo("0");
        Map<String, Long> delta = new LinkedHashMap<>();
        for (String c : COLUMNS) {
            long d = Long.parseLong(after.get(c)) - Long.parseLong(before.get(c));
            if (d != 0) {
                delta.put(c, d);
            }
        }
        return delta;
    }

    @Test
    void theH2ColumnsMoveAsHaproxysDo() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        try (Origin o = Origin.start("o")) {
            Path dir = Files.createTempDirectory("h2-parity");
            Path hsock = dir.resolve("haproxy.sock");
            int hport = Ports.free();
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(cfg, config(hsock, hport, o.port()), StandardCharsets.UTF_8);
            Path log = dir.resolve("haproxy.log");
            Process haproxy = new ProcessBuilder(haproxyPath, "-f", cfg.toString(), "-db").redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            int sport = Ports.free();
            Path ssock = Sluice.writeConfig("").resolveSibling("admin.sock");
            try (Sluice sluice = Sluice.start(config(ssock, sport, o.port()), sport)) {
                AdminClient.await(ssock);
                AdminClient.await(hsock);
                Map<String, Map<String, Long>> theirs = new LinkedHashMap<>();
                Map<String, Map<String, Long>> ours = new LinkedHashMap<>();
                for (Map.Entry<String, byte[]> e : cases().entrySet()) {
                    theirs.put(e.getKey(), play(hport, hsock, e.getValue()));
                    ours.put(e.getKey(), play(sport, ssock, e.getValue()));
                }
                for (String name : theirs.keySet()) {
                    assertThat(ours.get(name)).as(name).isEqualTo(theirs.get(name));
                }
                // the cases did count something
                assertThat(theirs.get("HPACK garbage")).containsEntry("h2_goaway_resp", 1L);
            } finally {
                haproxy.destroy();
                if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                    haproxy.destroyForcibly();
                }
            }
        }
    }
}
