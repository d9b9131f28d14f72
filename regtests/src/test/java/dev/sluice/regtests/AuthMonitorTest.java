package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Userlists with {@code http-request auth}, {@code monitor-uri} / {@code monitor fail} and
 * {@code wait-for-body} with the body fetches, in the daemon over real sockets, with curl, and side by
 * side with real HAProxy on src/test/resources/auth-parity.cfg.
 */
class AuthMonitorTest {

    static final String PAGE_401 = "<html><body><h1>401 Unauthorized</h1>\nYou need a valid user and password to access this content.\n"
            + "</body></html>\n";
    static final String PAGE_200 = "<html><body><h1>200 OK</h1>\nService ready.\n</body></html>\n";

    static String basic(String userPass) {
        return "authorization: Basic " + Base64.getEncoder().encodeToString(userPass.getBytes(StandardCharsets.UTF_8)) + "\r\n";
    }

    static String config(int port, Origin s1, Origin s2) throws IOException {
        return HaproxyParityTest.fill(Files.readString(Path.of("src/test/resources/auth-parity.cfg")), port, s1, s2)
                .replace("global\n", "global\n    log stdout format raw local0\n")
                .replace("frontend fe\n", "frontend fe\n    log global\n    option httplog\n");
    }

    @Test
    void basicAuthWithUsersGroupsAndRealms() throws Exception {
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, s1, s2), port); RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send("GET /a HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(r.head().startLine()).isEqualTo("HTTP/1.1 401 Unauthorized");
                assertThat(r.head().fields()).extracting(f -> f[0] + ": " + f[1]).containsExactly("content-length: 112",
                        "cache-control: no-cache", "content-type: text/html", "www-authenticate: Basic realm=\"fe\"", "x-after: 1");
                assertThat(r.bodyText()).isEqualTo(PAGE_401);
                // the connection stays open, as with HAProxy; every hash format and the clear-text password work
                for (String up : List.of("alice:secret", "bob:pw", "carol:secret", "dave:secret")) {
                    r = c.send("GET /a HTTP/1.1\r\nhost: x\r\n" + basic(up) + "\r\n").read();
                    assertThat(r.status()).as(up).isEqualTo(200);
                    assertThat(r.bodyText()).startsWith("srv=s1\nGET /a HTTP/1.1\n");
                }
                assertThat(c.send("GET /a HTTP/1.1\r\nhost: x\r\n" + basic("alice:wrong") + "\r\n").read().status()).isEqualTo(401);
                r = c.send("GET /g HTTP/1.1\r\nhost: x\r\n" + basic("bob:pw") + "\r\n").read();
                assertThat(r.status()).isEqualTo(401);
                assertThat(r.header("www-authenticate")).isEqualTo("Basic realm=\"Admin area\"");
                assertThat(c.send("GET /g HTTP/1.1\r\nhost: x\r\n" + basic("alice:secret") + "\r\n").read().status()).isEqualTo(200);
                // several groups: any one of them
                assertThat(c.send("GET /o HTTP/1.1\r\nhost: x\r\n" + basic("bob:pw") + "\r\n").read().status()).isEqualTo(200);
                assertThat(c.send("GET /o HTTP/1.1\r\nhost: x\r\n" + basic("alice:secret") + "\r\n").read().status()).isEqualTo(200);
                assertThat(c.send("GET /o HTTP/1.1\r\nhost: x\r\n" + basic("carol:secret") + "\r\n").read().status()).isEqualTo(401);
                // a backend rule names the backend as realm
                r = c.send("GET /be HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(r.header("www-authenticate")).isEqualTo("Basic realm=\"bauth\"");
            }
        }
    }

    @Test
    void curlRetriesWithCredentials() throws Exception {
        Program.CURL.require();
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, s1, s2), port)) {
                String url = "http://127.0.0.1:" + port + "/a";
                assertThat(CurlTest.curl("-o", "/dev/null", "-w", "%{http_code}", url)).isEqualTo("401");
                assertThat(CurlTest.curl("-u", "alice:secret", url)).startsWith("srv=s1\nGET /a HTTP/1.1\n");
                assertThat(CurlTest.curl("-o", "/dev/null", "-w", "%{http_code}", "-u", "alice:nope", url)).isEqualTo("401");
                String realm = CurlTest.curl("-s", "-D", "-", "-o", "/dev/null", "http://127.0.0.1:" + port + "/g");
                assertThat(realm).contains("www-authenticate: Basic realm=\"Admin area\"");
                assertThat(CurlTest.curl("-u", "alice:secret", "http://127.0.0.1:" + port + "/g")).startsWith("srv=s1\n");
            }
        }
    }

    @Test
    void monitorUriAnswersBeforeRulesAndIsNotLogged() throws Exception {
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, s1, s2), port); RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send("GET /health HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(r.head().startLine()).isEqualTo("HTTP/1.1 200 OK");
                assertThat(r.head().fields()).extracting(f -> f[0] + ": " + f[1]).containsExactly("content-length: 58",
                        "cache-control: no-cache", "content-type: text/html", "x-after: 1");
                assertThat(r.bodyText()).isEqualTo(PAGE_200);
                r = c.send("GET /health HTTP/1.1\r\nhost: x\r\nx-down: 1\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.bodyText()).isEqualTo(ErrorsTest.HAPROXY_503);
                // only the exact URI; the others go on to the backend
                assertThat(c.send("GET /health?x HTTP/1.1\r\nhost: x\r\n\r\n").read().bodyText()).startsWith("srv=s1\nGET /health?x ");
                assertThat(c.send("GET /last HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).isEqualTo(200);
                assertThat(s1.requests()).extracting(Origin.Request::target).containsExactly("/health?x", "/last");
                List<String> lines = waitForLogLines(s, 2);
                assertThat(lines).hasSize(2);
                assertThat(lines.get(0)).contains(" fe b1/s1 ").endsWith("\"GET /health?x HTTP/1.1\"");
                assertThat(lines.get(1)).endsWith("\"GET /last HTTP/1.1\"");
            }
        }
    }

    /**
     * The request log lines once there are {@code n} of them: lines are written in the order the requests ended, so
     * a line that should not be there (an earlier request's) is among the first {@code n}.
     */
    static List<String> waitForLogLines(Sluice s, int n) throws InterruptedException {
        List<String> lines = List.of();
        for (int i = 0; i < 500 && lines.size() < n; i++) {
            Thread.sleep(20);
            lines = s.output().lines().filter(l -> l.contains("\"GET ") || l.contains("\"POST ")).toList();
        }
        return lines;
    }

    @Test
    void waitForBodyHoldsTheRequestAndRoutesOnABodyParameter() throws Exception {
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, s1, s2), port); RawClient c = new RawClient(port)) {
                // the head and the start of the body first; the parameter that decides comes 300 ms later
                c.send("POST /submit HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: 19\r\n\r\nname=jo&");
                Thread.sleep(300);
                RawClient.Response r = c.send("dest=b2&x=1").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).startsWith("srv=s2\nPOST /submit HTTP/1.1\n").endsWith("\nname=jo&dest=b2&x=1");
                // chunked, in two chunks
                r = c.send("POST /submit HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\ndest=\r\n").send("3\r\nb1x\r\n0\r\n\r\n").read();
                assertThat(r.bodyText()).startsWith("srv=s1\n").endsWith("dest=b1x");
                // the fetches in a return
                r = c.send("POST /w HTTP/1.1\r\nhost: x\r\ncontent-length: 12\r\n\r\nk=v1&j=2&k=3").read();
                assertThat(r.bodyText()).isEqualTo("len=12 size=12 k=v1 body=k=v1&j=2&k=3\n");
                r = c.send("GET /w HTTP/1.1\r\nhost: x\r\n\r\n").read();
                assertThat(r.bodyText()).isEqualTo("len=0 size=0 k= body=\n");
            }
        }
    }

    @Test
    void waitForBodyAnswersExpectContinueItself() throws Exception {
        Program.CURL.require();
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, s1, s2), port)) {
                // curl sends 'Expect: 100-continue' above 1 KiB and waits 1 s for the 100 before sending anyway
                String body = "dest=b2&pad=" + "p".repeat(3000);
                String out = CurlTest.curl("-H", "expect: 100-continue", "--data-binary", body, "http://127.0.0.1:" + port + "/up");
                assertThat(out).startsWith("srv=s2\nPOST /up HTTP/1.1\n").doesNotContain("expect:").endsWith(body);
                // the 100 comes from the proxy before any body byte is sent (no timing: a client that waited would hang here)
                try (RawClient c = new RawClient(port, 20_000)) {
                    RawClient.Response interim = c.send("POST /up HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\ncontent-length: "
                            + body.length() + "\r\n\r\n").read();
                    assertThat(interim.status()).isEqualTo(100);
                    RawClient.Response r = c.send(body).read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(new String(r.body(), java.nio.charset.StandardCharsets.ISO_8859_1)).startsWith("srv=s2\n").endsWith(body);
                }
            }
        }
    }

    @Test
    void waitForBodyTimesOutWith408AndCloses() throws Exception {
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, s1, s2).replace("wait-for-body time 2s", "wait-for-body time 300ms"), port);
                    RawClient c = new RawClient(port)) {
                long t0 = System.nanoTime();
                RawClient.Response r = c.send("POST /submit HTTP/1.1\r\nhost: x\r\ncontent-length: 20\r\n\r\ndest=b2").read();
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(r.head().startLine()).isEqualTo("HTTP/1.1 408 Request Time-out");
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(ms).isBetween(250L, 2000L);
                assertThat(c.closedByPeer()).isTrue();
                assertThat(s1.requests()).isEmpty();
                assertThat(s2.requests()).isEmpty();
                List<String> lines = waitForLogLines(s, 1);
                assertThat(lines.get(0)).contains(" 408 ").contains(" cR-- ");
            }
        }
    }

    static final List<String> REQUESTS = List.of(
            "GET /a HTTP/1.1\r\n\r\n",
            "GET /a HTTP/1.1\r\n" + basic("alice:secret") + "\r\n",
            "GET /a HTTP/1.1\r\n" + basic("carol:secret") + "\r\n",
            "GET /a HTTP/1.1\r\n" + basic("dave:secret") + "\r\n",
            "GET /a HTTP/1.1\r\n" + basic("bob:pw") + "\r\n",
            "GET /a HTTP/1.1\r\nauthorization: basic Ym9iOnB3\r\n\r\n",
            "GET /a HTTP/1.1\r\n" + basic("bob:pW") + "\r\n",
            "GET /a HTTP/1.1\r\n" + basic("zed:pw") + "\r\n",
            "GET /a HTTP/1.1\r\nauthorization: Bearer xyz\r\n\r\n",
            "GET http://test/a HTTP/1.1\r\n\r\n",
            "GET http://test/a HTTP/1.1\r\nproxy-" + basic("alice:secret") + "\r\n",
            "GET http://test/a HTTP/1.1\r\n" + basic("alice:secret") + "\r\n",
            "GET http://test/g HTTP/1.1\r\nproxy-" + basic("bob:pw") + "\r\n",
            "GET /g HTTP/1.1\r\n" + basic("bob:pw") + "\r\n",
            "GET /g HTTP/1.1\r\n" + basic("alice:secret") + "\r\n",
            "GET /o HTTP/1.1\r\n" + basic("bob:pw") + "\r\n",
            "GET /o HTTP/1.1\r\n" + basic("carol:secret") + "\r\n",
            "GET /be HTTP/1.1\r\n\r\n",
            "GET /health HTTP/1.1\r\n\r\n",
            "GET /health HTTP/1.1\r\nx-down: 1\r\n\r\n",
            "GET /health HTTP/1.0\r\n\r\n",
            "HEAD /health HTTP/1.1\r\n\r\n",
            "POST /w HTTP/1.1\r\ncontent-length: 12\r\n\r\nk=v1&j=2&k=3",
            "POST /w HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n3\r\nk=v\r\n2\r\n&x\r\n0\r\n\r\n",
            "GET /w HTTP/1.1\r\n\r\n",
            "POST /x HTTP/1.1\r\ncontent-length: 13\r\n\r\nid=3&dest=b2&",
            "POST /x HTTP/1.1\r\ncontent-length: 7\r\n\r\ndest=b1");

    @Test
    void sameResponsesAsHaproxy() throws Exception {
        String haproxy = Program.HAPROXY.require();
        String template = Files.readString(Path.of("src/test/resources/auth-parity.cfg"));
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int hp = Ports.free();
            int sp = Ports.free();
            List<String> fromHaproxy;
            Path hcfg = Sluice.writeConfig(HaproxyParityTest.fill(template, hp, s1, s2));
            Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                    .redirectOutput(hcfg.resolveSibling("haproxy.log").toFile()).start();
            try {
                HaproxyParityTest.waitFor(hp);
                fromHaproxy = exchange(hp);
            } finally {
                h.destroy();
                h.waitFor();
            }
            List<String> fromSluice;
            try (Sluice s = Sluice.start(HaproxyParityTest.fill(template, sp, s1, s2), sp)) {
                fromSluice = exchange(sp);
            }
            assertThat(fromHaproxy).noneMatch(r -> r.startsWith("no response"));
            assertThat(String.join("", fromHaproxy)).contains("srv=s2\nPOST /x").contains("srv=s1\nPOST /x").contains("len=5 size=5 k=v ");
            for (int i = 0; i < REQUESTS.size(); i++) {
                assertThat(fromSluice.get(i)).as("response to %s", REQUESTS.get(i).replace("\r\n", "\\r\\n")).isEqualTo(fromHaproxy.get(i));
            }
        }
    }

    /** Each request on its own connection; a response is its normalised text. */
    static List<String> exchange(int port) {
        List<String> out = new ArrayList<>();
        for (String req : REQUESTS) {
            String withHost = req.replaceFirst("\r\n", "\r\nhost: test\r\n");
            try (RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send(withHost).read(req.startsWith("HEAD"));
                out.add(HaproxyParityTest.normalise(r));
            } catch (RuntimeException e) {
                out.add("no response: " + e.getClass().getSimpleName());
            }
        }
        return out;
    }
}
