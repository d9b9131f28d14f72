package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed HTTP/2 requests written frame by frame on an h2c connection: each gets HAProxy 2.6's answer
 * (RST_STREAM PROTOCOL_ERROR with the connection kept, or a 400 response), the origin receives nothing, and a
 * valid request on the same connection still works. Every row also runs through the installed HAProxy
 * ({@link #haproxyAnswersTheSame}); a row where Sluice deliberately answers otherwise would say so with
 * {@link #departure} and its reason ({@code grep 'departure(' MalformedHttp2Test.java} lists them).
 */
class MalformedHttp2Test {
    static final int PROTOCOL_ERROR = 1;
    static Origin origin;
    static Sluice sluice;
    static int port;
    static java.nio.file.Path admin;

    /** The configuration both daemons run (Sluice adds an admin socket), listening on {@code port}. */
    static String config(int port) {
        return """
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
                """.formatted(port, origin.port());
    }

    @BeforeAll
    static void start() {
        origin = Origin.start("o");
        port = Ports.free();
        admin = Sluice.writeConfig("").resolveSibling("admin.sock");
        sluice = Sluice.start("global\n    stats socket " + admin + " level admin\n" + config(port), port);
        AdminClient.await(admin);
    }

    /** The frontend's invalid-request counter ({@code ereq} in {@code show stat}). */
    static long ereq() {
        return Long.parseLong(AdminSocketTest.parseStat(AdminClient.run(admin, "show stat\n")).get("fe/FRONTEND").get("ereq"));
    }

    @AfterAll
    static void stop() {
        sluice.close();
        origin.close();
    }

    /** A valid GET's fields with {@code change} applied: "name=value" replaces or adds, "-name" removes, "+name=value" appends. */
    static List<String[]> fields(String... changes) {
        List<String[]> f = new ArrayList<>(List.of(new String[] {":method", "GET"}, new String[] {":scheme", "http"},
                new String[] {":path", "/"}, new String[] {":authority", "x"}));
        for (String c : changes) {
            if (c.startsWith("-")) {
                f.removeIf(kv -> kv[0].equals(c.substring(1)));
            } else if (c.startsWith("+")) {
                int eq = c.indexOf('=', 2);
                f.add(new String[] {c.substring(1, eq), c.substring(eq + 1)});
            } else {
                int eq = c.indexOf('=', 1);
                String n = c.substring(0, eq);
                boolean replaced = false;
                for (String[] kv : f) {
                    if (kv[0].equals(n)) {
                        kv[1] = c.substring(eq + 1);
                        replaced = true;
                    }
                }
                if (!replaced) {
                    f.add(new String[] {n, c.substring(eq + 1)});
                }
            }
        }
        return f;
    }

    /** {@code expected}: "RST" for RST_STREAM(PROTOCOL_ERROR), or a status code. */
    static Arguments c(String name, String expected, List<String[]> fields) {
        return Arguments.of(name, expected, fields, expected, "");
    }

    /** A row where Sluice answers {@code expected} and HAProxy 2.6 {@code haproxy}, on purpose, for {@code reason}. */
    static Arguments departure(String reason, String name, String expected, String haproxy, List<String[]> fields) {
        return Arguments.of(name, expected, fields, haproxy, reason);
    }

    static Stream<Arguments> requests() {
        return Stream.of(
                c("upper-case name", "RST", fields("+X-Foo=1")),
                c("non-token char in name", "RST", fields("+x@y=1")),
                c("space in name", "RST", fields("+x y=1")),
                c("empty :path", "RST", fields(":path=")),
                c(":path without leading slash", "RST", fields(":path=abc")),
                c("space in :path", "RST", fields(":path=/a b")),
                c("# in :path", "RST", fields(":path=/a#b")),
                c("control char in :path", "RST", fields(":path=/a\u0001b")),
                c("duplicate :path", "RST", fields("+:path=/b")),
                c("pseudo after regular field", "RST", List.<String[]>of(new String[] {":method", "GET"}, new String[] {":scheme", "http"},
                        new String[] {"x-a", "1"}, new String[] {":path", "/"}, new String[] {":authority", "x"})),
                c("unknown pseudo-header", "RST", fields(":foo=bar")),
                c(":status in a request", "RST", fields(":status=200")),
                c("missing :method", "RST", fields("-:method")),
                c("missing :scheme", "RST", fields("-:scheme")),
                c("missing :path", "RST", fields("-:path")),
                c("CONNECT with :path", "RST", fields(":method=CONNECT", ":authority=x:443", "-:scheme")),
                c("CONNECT without :authority", "RST", List.<String[]>of(new String[] {":method", "CONNECT"})),
                c("connection field", "RST", fields("+connection=keep-alive")),
                c("transfer-encoding field", "RST", fields("+transfer-encoding=chunked")),
                c("keep-alive field", "RST", fields("+keep-alive=timeout=5")),
                c("upgrade field", "RST", fields("+upgrade=websocket")),
                c("proxy-connection field", "RST", fields("+proxy-connection=close")),
                c("te other than trailers", "RST", fields("+te=gzip")),
                c("NUL in a value", "RST", fields("+x-a=a\u0000b")),
                c("CR in a value", "RST", fields("+x-a=a\rb")),
                c("LF in a value", "RST", fields("+x-a=a\nb")),
                c("differing content-length", "RST", fields(":method=POST", "+content-length=1", "+content-length=2")),
                c("invalid content-length", "RST", fields(":method=POST", "+content-length=abc")),
                c("forbidden char in :authority", "400", fields(":authority=a b")),
                c("invalid method characters", "400", fields(":method=G(T")));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("requests")
    void isRejectedBeforeTheOrigin(String name, String expected, List<String[]> fields, String haproxyExpected, String departure) {
        int before = origin.requests().size();
        long ereqBefore = ereq();
        try (H2RawClient c = new H2RawClient(port)) {
            c.headers(1, true, fields);
            H2RawClient.Frame f = c.awaitStream(1);
            if (expected.equals("RST")) {
                assertThat(f.type()).as("frame type").isEqualTo(H2RawClient.RST_STREAM);
                assertThat(f.errorCode()).isEqualTo(PROTOCOL_ERROR);
            } else {
                assertThat(f.type()).as("frame type").isEqualTo(H2RawClient.HEADERS);
                assertThat(c.decode(f).status().toString()).isEqualTo(expected);
            }
            // the connection is still usable
            c.headers(3, true, fields());
            H2RawClient.Frame ok = c.awaitStream(3);
            assertThat(ok.type()).isEqualTo(H2RawClient.HEADERS);
            assertThat(c.decode(ok).status().toString()).isEqualTo("200");
        }
        assertThat(origin.requests().size()).as("requests that reached the origin").isEqualTo(before + 1);
        assertThat(ereq()).as("ereq").isEqualTo(ereqBefore + 1);
    }

    @ParameterizedTest(name = "{0} -> {3} in HAProxy")
    @MethodSource("requests")
    void haproxyAnswersTheSame(String name, String expected, List<String[]> fields, String haproxyExpected, String departure) {
        Program.HAPROXY.require();
        if (haproxy == null) {
            haproxyPort = Ports.free();
            haproxy = Daemon.start(true, config(haproxyPort), haproxyPort);
        }
        int before = origin.requests().size();
        try (H2RawClient c = new H2RawClient(haproxyPort)) {
            c.headers(1, true, fields);
            H2RawClient.Frame f = c.awaitStream(1);
            if (haproxyExpected.equals("RST")) {
                assertThat(f.type()).as("HAProxy's frame type").isEqualTo(H2RawClient.RST_STREAM);
                assertThat(f.errorCode()).isEqualTo(PROTOCOL_ERROR);
            } else {
                assertThat(f.type()).as("HAProxy's frame type").isEqualTo(H2RawClient.HEADERS);
                assertThat(c.decode(f).status().toString()).isEqualTo(haproxyExpected);
            }
        }
        assertThat(origin.requests().size()).as("requests that reached the origin through HAProxy")
                .isEqualTo(haproxyExpected.equals("200") ? before + 1 : before);
    }

    static Daemon haproxy;
    static int haproxyPort;

    @AfterAll
    static void stopHaproxy() {
        if (haproxy != null) {
            haproxy.close();
        }
    }

    @Test
    void contentLengthNotMatchingTheDataIsAStreamError() {
        int before = origin.requests().size();
        try (H2RawClient c = new H2RawClient(port)) {
            c.headers(1, false, fields(":method=POST", "+content-length=5"));
            c.data(1, true, "abc".getBytes());
            H2RawClient.Frame f = c.awaitStream(1);
            assertThat(f.type()).isEqualTo(H2RawClient.RST_STREAM);
            assertThat(f.errorCode()).isEqualTo(PROTOCOL_ERROR);
        }
        // the head may have been forwarded before the body ended short; no complete request reached the origin
        assertThat(origin.requests().stream().skip(before).filter(r -> r.body().length == 5)).isEmpty();
    }

    @Test
    void atLeastTwentyDistinctCases() {
        assertThat(requests().count()).isGreaterThanOrEqualTo(20);
    }
}
