package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed HTTP/1 requests on raw sockets: each gets HAProxy 2.6's status, the connection closes, the origin
 * receives nothing, and the daemon keeps serving. Every row also runs through the installed HAProxy
 * ({@link #haproxyAnswersTheSame}); a row where Sluice deliberately answers otherwise says so with
 * {@link #departure} and its reason ({@code grep 'departure(' MalformedHttp1Test.java} lists them).
 */
class MalformedHttp1Test {
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
                    timeout http-request 3s
                frontend fe
                    bind 127.0.0.1:%d
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

    /** A row where Sluice and HAProxy 2.6 answer {@code status}. */
    static Arguments c(String name, int status, String request) {
        return Arguments.of(name, status, request, status, "");
    }

    /** A row where Sluice answers {@code status} and HAProxy 2.6 {@code haproxy}, on purpose, for {@code reason}. */
    static Arguments departure(String reason, String name, int status, int haproxy, String request) {
        return Arguments.of(name, status, request, haproxy, reason);
    }

    /** HAProxy 3.1 answers 414/431 where 2.6 answers 400 (commit bc967758a, "Return 414 or 431 when appropriate", issue #1309). */
    static final String NEWER_HAPROXY_STATUS = "HAProxy >= 3.1 answers 414/431 (bc967758a)";

    static Stream<Arguments> requests() {
        return Stream.of(
                c("ctl in target", 400, "GET /a\u0001b HTTP/1.1\r\nHost: x\r\n\r\n"),
                departure("DEL is no URI character (RFC 3986 section 2); HAProxy 2.6 forwards it", "del in target", 400, 200, "GET /a\u007fb HTTP/1.1\r\nHost: x\r\n\r\n"),
                c("8bit in target", 400, "GET /a\u00c3\u00a9 HTTP/1.1\r\nHost: x\r\n\r\n"),
                c("space in path", 400, "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n"),
                c("hash in target", 400, "GET /a#frag HTTP/1.1\r\nHost: x\r\n\r\n"),
                c("method not token", 400, "G(T / HTTP/1.1\r\nHost: x\r\n\r\n"),
                c("bad version", 400, "GET / HTTP/1.x\r\nHost: x\r\n\r\n"),
                c("version 2 digits", 400, "GET / HTTP/11.1\r\nHost: x\r\n\r\n"),
                c("lowercase version", 400, "GET / http/1.1\r\nHost: x\r\n\r\n"),
                c("http09", 400, "GET /\r\n\r\n"),
                c("header name space", 400, "GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n"),
                c("space before colon", 400, "GET / HTTP/1.1\r\nHost: x\r\nName : v\r\n\r\n"),
                c("empty header name", 400, "GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n"),
                c("header name non-token", 400, "GET / HTTP/1.1\r\nHost: x\r\nN@me: v\r\n\r\n"),
                c("header without colon", 400, "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"),
                c("bare CR in value", 400, "GET / HTTP/1.1\r\nHost: x\r\nA: b\rc\r\n\r\n"),
                c("CL differ", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc"),
                c("CL list differ", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2, 3\r\n\r\nabc"),
                c("CL non digit", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3a\r\n\r\nabc"),
                c("CL empty", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\nabc"),
                c("CL trailing comma", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3,\r\n\r\nabc"),
                c("CL overflow", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\nabc"),
                c("CL negative", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\nabc"),
                c("CL plus", 400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc"),
                c("TE chunked not last", 400, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"),
                c("TE chunked twice", 400, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
                c("TE empty", 400, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \r\n\r\n0\r\n\r\n"),
                c("TE gzip chunked", 422, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
                c("TE two headers chunked twice", 400, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                c("http10 GET with body", 413, "GET / HTTP/1.0\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"),
                c("two hosts differ", 400, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
                departure("a Host with a space is no reg-name (RFC 9110 section 7.2, RFC 3986 section 3.2.2); HAProxy 2.6 forwards it",
                        "host forbidden char", 400, 200, "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
                departure("a Host with a slash is no reg-name (RFC 9110 section 7.2, RFC 3986 section 3.2.2); HAProxy 2.6 forwards it",
                        "host with slash", 400, 200, "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"),
                c("absolute uri host mismatch", 400, "GET http://a.example/ HTTP/1.1\r\nHost: b.example\r\n\r\n"),
                c("authority form on GET", 400, "GET a.example:80 HTTP/1.1\r\nHost: a.example\r\n\r\n"),
                c("CONNECT without port", 400, "CONNECT a.example HTTP/1.1\r\nHost: a.example\r\n\r\n"),
                departure("asterisk-form is for OPTIONS only (RFC 9112 section 3.2.4); HAProxy 2.6 forwards it", "star on GET", 400, 200, "GET * HTTP/1.1\r\nHost: x\r\n\r\n"),
                c("bad chunk size", 400, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
                c("chunk size overflow", 400, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\nabc\r\n0\r\n\r\n"),
                c("chunk missing CRLF", 400, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n"),
                c("too many headers", 400, "GET / HTTP/1.1\r\nHost: x\r\n" + "H: v\r\n".repeat(120) + "\r\n"),
                departure(NEWER_HAPROXY_STATUS, "uri too long", 414, 400, "GET /" + "a".repeat(20000) + " HTTP/1.1\r\nHost: x\r\n\r\n"),
                departure(NEWER_HAPROXY_STATUS, "headers too large", 431, 400, "GET / HTTP/1.1\r\nHost: x\r\nBig: " + "b".repeat(20000) + "\r\n\r\n"),
                c("empty method", 400, " / HTTP/1.1\r\nHost: x\r\n\r\n"),
                c("nul in header name", 400, "GET / HTTP/1.1\r\nHost: x\r\nA\u0000b: v\r\n\r\n"),
                c("websocket upgrade without a key", 400, "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: WebSocket\r\n\r\n"),
                c("websocket upgrade with a short key", 400,
                        "GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\nUpgrade: h2c, websocket\r\nSec-WebSocket-Key: abc\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("requests")
    void isRejectedBeforeTheOrigin(String name, int status, String request, int haproxyStatus, String departure) {
        int before = origin.requests().size();
        long ereqBefore = ereq();
        try (RawClient c = new RawClient(port, 5000)) {
            // read to the end: the connection must close after the error page
            String answer = c.send(request.getBytes(StandardCharsets.ISO_8859_1)).readToEndText();
            assertThat(answer).startsWith("HTTP/1.1 " + status + " ").endsWith("</body></html>\n");
            if (status == 400) {
                // HAProxy's raw 400 page announces the close; its 413/414/422/431 pages do not
                assertThat(answer).contains("\r\nConnection: close\r\n");
            }
        }
        assertThat(origin.requests().size()).as("requests that reached the origin").isEqualTo(before);
        assertThat(ereq()).as("ereq").isEqualTo(ereqBefore + 1);
        try (RawClient c = new RawClient(port)) {
            assertThat(c.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @ParameterizedTest(name = "{0} -> {3} in HAProxy")
    @MethodSource("requests")
    void haproxyAnswersTheSame(String name, int status, String request, int haproxyStatus, String departure) {
        Program.HAPROXY.require();
        if (haproxy == null) {
            haproxyPort = Ports.free();
            haproxy = Daemon.start(true, config(haproxyPort), haproxyPort);
        }
        int before = origin.requests().size();
        try (RawClient c = new RawClient(haproxyPort, 5000)) {
            c.send(request.getBytes(StandardCharsets.ISO_8859_1));
            // a forwarded request keeps its connection: read the one response, not to the end
            String answer = haproxyStatus == 200 ? c.read().head().startLine() : c.readToEndText();
            assertThat(answer).as("HAProxy's answer").startsWith("HTTP/1.1 " + haproxyStatus + " ");
        }
        assertThat(origin.requests().size()).as("requests that reached the origin through HAProxy")
                .isEqualTo(haproxyStatus == 200 ? before + 1 : before);
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
    void atLeastFortyDistinctCases() {
        assertThat(requests().count()).isGreaterThanOrEqualTo(40);
    }

    @Test
    void acceptUnsafeViolationsLetsHaproxysRelaxedCasesThroughButNotControlCharacters() {
        int p = Ports.free();
        try (Sluice lax = Sluice.start("""
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:%d
                    option accept-invalid-http-request
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(p, origin.port()), p)) {
            for (String req : new String[] {"GET /a#frag HTTP/1.1\r\nHost: x\r\n\r\n", "GET /caf\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n",
                    "GET / HTTP/1.1\r\nHost: x\r\nN@me[1]: v\r\n\r\n"}) {
                int before = origin.requests().size();
                try (RawClient c = new RawClient(p)) {
                    assertThat(c.send(req.getBytes(StandardCharsets.ISO_8859_1)).read().status()).as(req).isEqualTo(200);
                }
                assertThat(origin.requests().size()).isEqualTo(before + 1);
            }
            assertThat(origin.requests().getLast().header("n@me[1]")).isEqualTo("v");
            for (String req : new String[] {"GET /a\u0001 HTTP/1.1\r\nHost: x\r\n\r\n", "GET /a\u007f HTTP/1.1\r\nHost: x\r\n\r\n",
                    "GET / HTTP/1.1\r\nHost: x\r\nA\u0001: v\r\n\r\n", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"}) {
                try (RawClient c = new RawClient(p)) {
                    assertThat(c.send(req.getBytes(StandardCharsets.ISO_8859_1)).readToEndText()).as(req).startsWith("HTTP/1.1 400 ");
                }
            }
        }
    }

    @Test
    void tuneBufsizeAndMaxhdrSetTheLimits() {
        int p = Ports.free();
        try (Sluice tuned = Sluice.start("""
                global
                    tune.bufsize 4096
                    tune.maxrewrite 1024
                    tune.http.maxhdr 10
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(p, origin.port()), p)) {
            String nine = "GET / HTTP/1.1\r\nHost: x\r\n" + "H: v\r\n".repeat(8) + "\r\n";
            String eleven = "GET / HTTP/1.1\r\nHost: x\r\n" + "H: v\r\n".repeat(10) + "\r\n";
            String big = "GET / HTTP/1.1\r\nHost: x\r\nBig: " + "b".repeat(3500) + "\r\n\r\n";
            String longUri = "GET /" + "a".repeat(3500) + " HTTP/1.1\r\nHost: x\r\n\r\n";
            try (RawClient c = new RawClient(p)) {
                assertThat(c.send(nine).read().status()).isEqualTo(200);
            }
            try (RawClient c = new RawClient(p)) {
                assertThat(c.send(eleven).readToEndText()).startsWith("HTTP/1.1 400 ");
            }
            // 431 and 414 where HAProxy 2.6 answers 400: NEWER_HAPROXY_STATUS
            try (RawClient c = new RawClient(p)) {
                assertThat(c.send(big).readToEndText()).startsWith("HTTP/1.1 431 ");
            }
            try (RawClient c = new RawClient(p)) {
                assertThat(c.send(longUri).readToEndText()).startsWith("HTTP/1.1 414 ");
            }
        }
    }
}
