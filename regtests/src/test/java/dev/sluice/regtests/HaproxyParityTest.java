package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Runs one rule-heavy configuration (src/test/resources/rules-parity.cfg: ACLs, converters, every
 * http-request/response/after-response action, use_backend) in real HAProxy and in Sluice, sends both
 * the same requests and asserts the same responses, byte for byte except the Date field and the order
 * of Content-Length among the fields. Requires HAProxy 2.6 ({@link Program#HAPROXY}). A row that neither daemon
 * answers fails, unless its request starts with {@link #NO_RESPONSE_EXPECTED}: two failures are no agreement.
 */
class HaproxyParityTest {
    /** What an exchange records when the daemon did not answer (refused, reset, closed, timed out). */
    static final String NO_RESPONSE = "no response";
    /** A request starting with this is expected to get no response from either daemon (the prefix is not sent). */
    static final String NO_RESPONSE_EXPECTED = "(no response) ";

    static final List<String> REQUESTS = List.of(
            "GET / HTTP/1.1\r\n\r\n",
            "GET /admin HTTP/1.1\r\n\r\n",
            "GET /admin HTTP/1.1\r\nx-token: secret\r\n\r\n",
            "GET /Admin/x HTTP/1.1\r\nx-token: bad\r\n\r\n",
            "GET /limit HTTP/1.1\r\n\r\n",
            "GET /tea HTTP/1.1\r\n\r\n",
            "GET /ret HTTP/1.1\r\n\r\n",
            "POST /ret HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc",
            "GET /nf HTTP/1.1\r\n\r\n",
            "GET /empty HTTP/1.1\r\n\r\n",
            "GET /old HTTP/1.1\r\n\r\n",
            "GET /tmp HTTP/1.1\r\n\r\n",
            "GET /p/a?x=1 HTTP/1.1\r\n\r\n",
            "GET /q/a?x=1 HTTP/1.1\r\n\r\n",
            "GET /sec?x=1 HTTP/1.1\r\n\r\n",
            "GET /opt?y=2 HTTP/1.1\r\n\r\n",
            "GET /kw HTTP/1.1\r\n\r\n",
            "GET /order HTTP/1.1\r\n\r\n",
            "GET /as?x=1 HTTP/1.1\r\n\r\n",
            "GET /hello HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nx-del: 1\r\nx-rep: aa-bb\r\nx-rv: ab,ac, b\r\nx-rv: xa\r\n\r\n",
            // a comma inside a quoted string splits neither replace-value's values nor req.hdr's
            "GET /quoted HTTP/1.1\r\nx-rv: \"a,b\", ac\r\nx-in: x, \"p,Q\"\r\n\r\n",
            "GET /sp/a?x=1 HTTP/1.1\r\n\r\n",
            "GET /sq?z=1 HTTP/1.1\r\n\r\n",
            "GET /su HTTP/1.1\r\n\r\n",
            "GET /sm HTTP/1.1\r\n\r\n",
            "GET /rp/a/b?k=v HTTP/1.1\r\n\r\n",
            "GET /x/y.png HTTP/1.1\r\n\r\n",
            "GET /a/x/b HTTP/1.1\r\n\r\n",
            "GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n",
            "GET /?a=7 HTTP/1.1\r\n\r\n",
            "GET /?b=1&a=3 HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nhost: www.example.com\r\n\r\n",
            "GET / HTTP/1.1\r\nhost: example.com.evil\r\n\r\n",
            "GET / HTTP/1.1\r\nx-m: 1\r\nx-m: 2\r\n\r\n",
            "GET / HTTP/1.1\r\nx-m: 1, 2\r\n\r\n",
            "GET / HTTP/1.1\r\nx-in: HeLLo\r\n\r\n",
            "GET / HTTP/1.1\r\nx-f: a:b:c\r\n\r\n",
            "GET / HTTP/1.1\r\ncookie: a=1; sid=xyz\r\n\r\n",
            "GET /base?q=1 HTTP/1.1\r\nhost: h.example\r\n\r\n",
            "GET /ver HTTP/1.0\r\nhost: h\r\n\r\n",
            "GET /url?z=2 HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc",
            "GET /mask HTTP/1.1\r\n\r\n",
            "GET /nocookie HTTP/1.1\r\n\r\n",
            "GET /b2/x HTTP/1.1\r\n\r\n",
            "GET /b2/st HTTP/1.1\r\n\r\n",
            "GET /st HTTP/1.1\r\nx-be: b2\r\n\r\n",
            "GET / HTTP/1.1\r\nx-be: nope\r\n\r\n",
            // allow stops the frontend's http-request rules (no deny, no x-add), not the backend's
            "GET /admin/allowed HTTP/1.1\r\n\r\n",
            "GET /b2/allowed HTTP/1.1\r\n\r\n",
            "GET /spq/a?x=1 HTTP/1.1\r\n\r\n",
            "GET /rpq/a/b?z=9 HTTP/1.1\r\n\r\n",
            "GET /rpq/c HTTP/1.1\r\n\r\n",
            "GET /ru/x?y=1 HTTP/1.1\r\n\r\n",
            "GET http://h.example/ru/z HTTP/1.1\r\nhost: h.example\r\n\r\n",
            "GET /uv HTTP/1.1\r\n\r\n",
            "GET /uv HTTP/1.1\r\nx-unset: 1\r\n\r\n",
            // set-timeout server 300ms in backend b2: 504 when the origin takes longer, 200 elsewhere
            "GET /b2/stm HTTP/1.1\r\nx-delay: 1500\r\n\r\n",
            "GET /b2/slow HTTP/1.1\r\nx-delay: 600\r\n\r\n",
            "GET /dhm/beg HTTP/1.1\r\nX-Pre-One: 1\r\nx-pre-two: 2\r\nx-keep: 3\r\n\r\n",
            "GET /dhm/end HTTP/1.1\r\nx-a-suf: 1\r\nx-suf-b: 2\r\n\r\n",
            "GET /dhm/sub HTTP/1.1\r\nx-mid-a: 1\r\nx-amidb: 2\r\nx-other: 3\r\n\r\n",
            "GET /dhm/reg HTTP/1.1\r\nx-r1: a\r\nX-R2: b\r\nx-rr: c\r\n\r\n",
            "GET /dhm/reg-case HTTP/1.1\r\nx-r1: a\r\nX-R2: b\r\nx-rr: c\r\n\r\n",
            "GET /dhm/str HTTP/1.1\r\nX-Exact: 1\r\nx-exact-not: 2\r\n\r\n",
            "GET /rdeny HTTP/1.1\r\n\r\n",
            "GET /rdeny2 HTTP/1.1\r\n\r\n",
            "GET /rret HTTP/1.1\r\n\r\n",
            "GET /rredir HTTP/1.1\r\n\r\n",
            "GET /adel HTTP/1.1\r\n\r\n",
            "GET /adelm HTTP/1.1\r\n\r\n",
            "GET /arep HTTP/1.1\r\n\r\n",
            "GET /ast HTTP/1.1\r\n\r\n",
            "GET /aallow HTTP/1.1\r\n\r\n",
            "GET /c303 HTTP/1.1\r\n\r\n",
            "GET /c307 HTTP/1.1\r\n\r\n");

    /** Requests sharing a connection each: http_first_req is true for the first one only. */
    static final List<List<String>> KEPT_ALIVE = List.of(
            List.of("GET /ka/1 HTTP/1.1\r\n\r\n", "GET /ka/2 HTTP/1.1\r\n\r\n", "GET /ka-ret HTTP/1.1\r\n\r\n",
                    "POST /ka/3 HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc", "GET /ka/4 HTTP/1.1\r\n\r\n"),
            List.of("GET /ka-ret HTTP/1.1\r\n\r\n", "GET /ka/5 HTTP/1.1\r\n\r\n"),
            List.of("GET /other HTTP/1.1\r\n\r\n", "GET /ka/6 HTTP/1.1\r\n\r\n"),
            List.of("GET /ka/7 HTTP/1.0\r\nconnection: keep-alive\r\n\r\n", "GET /ka/8 HTTP/1.1\r\n\r\n"));

    @Test
    void sameResponsesAsHaproxy() throws Exception {
        assertSameAsHaproxy("rules-parity.cfg", REQUESTS);
    }

    @Test
    void sameResponsesOnKeptAliveConnections() throws Exception {
        List<String> labels = new ArrayList<>();
        for (int c = 0; c < KEPT_ALIVE.size(); c++) {
            for (String r : KEPT_ALIVE.get(c)) {
                labels.add("connection " + c + ": " + r);
            }
        }
        compare(Files.readString(Path.of("src/test/resources/rules-parity.cfg")), labels, ports -> exchangeKeptAlive(ports[0], KEPT_ALIVE));
    }

    /** HAProxy's HTTP/2 streams are never a connection's first request (its mux marks them all "not first"). */
    @Test
    void httpFirstReqIsFalseForHttp2Streams() throws Exception {
        Program.CURL.require();
        String template = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:@FE@ proto h2
                    http-request return status 200 content-type text/plain lf-string "first=%[http_first_req]\\n"
                """;
        compare(template, List.of("h2 stream 1", "h2 stream 3"), ports -> {
            String url = "http://127.0.0.1:" + ports[0] + "/";
            // curl's exit status is not compared: both daemons end the connection after the first stream (curl: 16)
            Process p = new ProcessBuilder(Program.command(List.of("curl", "-sS", "--http2-prior-knowledge", url, url))).redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            boolean answered = text.contains("first=");
            return List.of(answered ? text : NO_RESPONSE, answered ? text.lines().count() + " lines" : NO_RESPONSE);
        });
    }

    /** An HTTP/1 origin answering with hop-by-hop fields (the response by what the path names), recording what it got. */
    static boolean hopByHopAnswer(Origin.Request r, OutputStream out) throws IOException {
        String t = r.target();
        String raw = t.contains("respclose") ? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close, X-Resp\r\nX-Resp: 1\r\n\r\nok"
                : t.contains("respte") ? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTE: gzip, trailers\r\nConnection: Upgrade\r\n"
                        + "Upgrade: h2,h2c\r\n\r\nok"
                // Transfer-Encoding last: HAProxy keeps it where it came, Sluice writes its own after the fields
                : t.contains("respchunk") ? "HTTP/1.1 200 OK\r\nConnection: X-Resp, keep-alive\r\nX-Resp: 1\r\nTE: gzip\r\n"
                        + "Upgrade: h2c\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
                : t.contains("ws") ? "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade, X-Resp\r\nX-Resp: 1\r\n"
                        + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive, X-Resp\r\nX-Resp: 1\r\nKeep-Alive: timeout=5\r\n"
                        + "Proxy-Connection: keep-alive\r\n\r\nok";
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return !t.contains("respclose") && !t.contains("ws");
    }

    static final String HOP_TASK = "Connection: keep-alive, X-Foo, TE\r\nX-Foo: 1\r\nTE: gzip, trailers\r\nKeep-Alive: 300\r\n"
            + "Proxy-Connection: keep-alive\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n";
    static final String HOP_WS = "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nX-Foo: 1\r\n";

    /** Rows of {@link #hopByHopFieldsAsHaproxy}: "2:" goes to the second frontend. */
    static final List<String> HOP_ROWS = List.of(
            "GET /resp HTTP/1.1\r\nHost: t\r\n" + HOP_TASK + "\r\n",
            "2:GET /resp HTTP/1.1\r\nHost: t\r\n" + HOP_TASK + "\r\n",
            "GET /resp HTTP/1.0\r\nHost: t\r\nConnection: keep-alive, X-Foo\r\nX-Foo: 1\r\n\r\n",
            "2:GET /resp HTTP/1.0\r\nHost: t\r\nConnection: keep-alive, X-Foo\r\nX-Foo: 1\r\n\r\n",
            "GET /resp HTTP/1.0\r\nHost: t\r\nConnection: X-Foo\r\nX-Foo: 1\r\n\r\n",
            "GET /resp HTTP/1.1\r\nHost: t\r\nConnection: close, X-Foo\r\nX-Foo: 1\r\n\r\n",
            "GET /resp HTTP/1.1\r\nHost: t\r\nConnection: X-A\r\nConnection: X-B, keep-alive\r\nConnection: keep-alive\r\nX-A: 1\r\n\r\n",
            // (on the second frontend, which has no rules)
            "2:GET /resp HTTP/1.1\r\nHost: t\r\nConnection: X-Foo , TE, keep-alive ,X-Bar\r\nConnection: a=\"x,close\", close, X\r\n"
                    + "Connection: X-C,,close,,X-D\r\nConnection: ,, CLOSE ,\r\n\r\n",
            "GET /resp HTTP/1.1\r\nHost: t\r\nConnection: X-Foo , TE, keep-alive ,X-Bar\r\nConnection: X-C,,close,,X-D\r\n"
                    + "Connection: ,, CLOSE ,\r\n\r\n",
            "GET /resp HTTP/1.1\r\nHost: t\r\nTE: gzip\r\nTE: deflate, trailers;q=1\r\nTE: Trailers\r\nTE: x,trailers ,y\r\nTE: trailers,x\r\n\r\n",
            "GET /ws HTTP/1.1\r\nHost: t\r\nConnection: keep-alive, Upgrade, X-Foo\r\n" + HOP_WS + "\r\n",
            "2:GET /ws HTTP/1.1\r\nHost: t\r\nConnection: Upgrade, X-Foo, keep-alive\r\n" + HOP_WS + "\r\n",
            "GET /ws HTTP/1.0\r\nHost: t\r\nConnection: Upgrade\r\n" + HOP_WS + "\r\n",
            "POST /resp HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: keep-alive, Upgrade, X-Foo\r\nUpgrade: websocket\r\n"
                    + "X-Foo: 1\r\n\r\nabc",
            "2:POST /resp HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nabc",
            "GET /respclose HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /respte HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\n\r\n",
            "2:GET /respte HTTP/1.1\r\nHost: t\r\n\r\n",
            // (on the second frontend: the first's http-response rule adds a field after Transfer-Encoding)
            "2:GET /respchunk HTTP/1.1\r\nHost: t\r\n\r\n");

    /**
     * The hop-by-hop fields between HTTP/1 clients and an HTTP/1 server, byte for byte what the server got and what the
     * client got, and whether the client's connection closed: without options and under httpclose (first run), under
     * http-server-close and with rules writing Connection (second run); the rules of the first run show what
     * req.fhdr, req.hdr and res.fhdr see of them.
     */
    @Test
    void hopByHopFieldsAsHaproxy() throws Exception {
        try (Origin o = Origin.start("raw", HaproxyParityTest::hopByHopAnswer)) {
            String first = """
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend fe
                        bind 127.0.0.1:@FE@
                        http-request set-header X-Seen "%[req.fhdr(connection)]|%[req.hdr(connection)]|%[req.hdr_cnt(connection)]|%[req.fhdr(te)]|%[req.hdr(te)]|%[req.fhdr(keep-alive)]|%[req.fhdr(upgrade)]"
                        http-response set-header X-Seen "%[res.fhdr(connection)]|%[res.hdr_cnt(connection)]|%[res.fhdr(keep-alive)]|%[res.fhdr(te)]"
                        default_backend b
                    frontend close
                        bind 127.0.0.1:@FE2@
                        option httpclose
                        default_backend b
                    backend b
                        server s 127.0.0.1:@RAW@
                    """.replace("@RAW@", Integer.toString(o.port()));
            compare(first, HOP_ROWS, ports -> hopByHopExchange(ports, o, HOP_ROWS));
            String second = """
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend scl
                        bind 127.0.0.1:@FE@
                        option http-server-close
                        default_backend b
                    frontend rules
                        bind 127.0.0.1:@FE2@
                        http-request set-var(txn.p) path
                        http-request set-header Connection "close, X-A" if { path /rclose }
                        http-request set-header Connection keep-alive if { path /rka }
                        http-response set-header Connection "Close, X-B" if { var(txn.p) -m str /rclose }
                        http-response set-header Connection Upgrade if { var(txn.p) -m str /rupg }
                        default_backend b
                    backend b
                        server s 127.0.0.1:@RAW@
                    """.replace("@RAW@", Integer.toString(o.port()));
            List<String> rows = List.of("GET /resp HTTP/1.1\r\nHost: t\r\n" + HOP_TASK + "\r\n",
                    "GET /resp HTTP/1.0\r\nHost: t\r\nConnection: keep-alive, X-Foo\r\nX-Foo: 1\r\n\r\n",
                    "GET /ws HTTP/1.1\r\nHost: t\r\nConnection: keep-alive, Upgrade, X-Foo\r\n" + HOP_WS + "\r\n",
                    "2:GET /rclose HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n\r\n",
                    "2:GET /rka HTTP/1.0\r\nHost: t\r\n\r\n",
                    "2:GET /rupg HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\n\r\n");
            List<String> theirs = compareRecording(second, rows, ports -> hopByHopExchange(ports, o, rows));
            // what was measured when this was written: the close of a rule is the proxy's own, after the fields
            assertThat(theirs.get(3)).contains("x-a: 1\nconnection: X-A\nconnection: close\n").contains("connection: X-B\nconnection: close\n")
                    .endsWith("closed");
        }
    }

    /** Each row on its own connection: what the origin got, what the client got, whether the connection then closed. */
    static List<String> hopByHopExchange(int[] ports, Origin o, List<String> rows) {
        List<String> out = new ArrayList<>();
        for (String row : rows) {
            int port = row.startsWith("2:") ? ports[1] : ports[0];
            String req = row.startsWith("2:") ? row.substring(2) : row;
            int before = o.requests().size();
            try (RawClient c = new RawClient(port, 300)) {
                RawClient.Response r = c.send(req).read(req.startsWith("HEAD"));
                StringBuilder sb = new StringBuilder("server got:\n");
                if (o.requests().size() > before) {
                    Origin.Request got = o.requests().get(before);
                    sb.append(got.method()).append(' ').append(got.target()).append(' ').append(got.version()).append('\n');
                    appendFields(sb, got.head());
                    sb.append(new String(got.body(), StandardCharsets.ISO_8859_1)).append('\n');
                } else {
                    sb.append("nothing\n");
                }
                sb.append("client got:\n").append(r.head().startLine()).append('\n');
                appendFields(sb, r.head());
                sb.append(r.bodyText()).append('\n').append(c.closedByPeerBeforeTimeout() ? "closed" : "kept");
                out.add(sb.toString());
            } catch (RuntimeException e) {
                out.add(NO_RESPONSE);
            }
        }
        return out;
    }

    private static void appendFields(StringBuilder sb, Http1.Head h) {
        for (String[] f : h.fields()) {
            sb.append(f[0]).append(": ").append(f[1]).append('\n');
        }
    }

    /**
     * Runs the configuration template (in src/test/resources; {@code @FE@}, {@code @FE2@} are listen ports,
     * {@code @O1@}, {@code @O2@} echo origins) in HAProxy, then in Sluice, sends each request on a new
     * connection to the first port (a request starting with "2:" goes to the second port) and asserts
     * the same normalised responses.
     */
    static void assertSameAsHaproxy(String resource, List<String> requests) throws Exception {
        assertSameAsHaproxyWith(Files.readString(Path.of("src/test/resources/" + resource)), requests);
    }

    /** The same with a configuration template given as text (@FE@ @FE2@ @O1@ @O2@ filled in). */
    static void assertSameAsHaproxyWith(String template, List<String> requests) throws Exception {
        compare(template, requests, ports -> exchange(ports, requests));
    }

    /** What a comparison sends: the normalised responses, one per label, from the daemon listening on {@code ports}. */
    interface Exchange {
        List<String> run(int[] ports) throws IOException;
    }

    /** Runs the template in HAProxy, then in Sluice, and asserts that {@code exchange} gets the same responses from both. */
    static void compare(String template, List<String> requests, Exchange exchange) throws Exception {
        String haproxy = Program.HAPROXY.require();
        try (Origin s1 = EchoOrigin.start("s1"); Origin s2 = EchoOrigin.start("s2")) {
            int[] hp = {Ports.free(), Ports.free()};
            int[] sp = {Ports.free(), Ports.free()};
            List<String> fromHaproxy;
            Path hcfg = Sluice.writeConfig(fill(template, hp, s1, s2));
            Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                    .redirectOutput(hcfg.resolveSibling("haproxy.log").toFile()).start();
            // readiness is probed on the second port when there is one: a probe connection would count in stick tables
            int probe = template.contains("@FE2@") ? 1 : 0;
            try {
                waitFor(hp[probe]);
                fromHaproxy = exchange.run(hp);
            } finally {
                h.destroy();
                h.waitFor();
            }
            List<String> fromSluice;
            try (Sluice s = Sluice.start(fill(template, sp, s1, s2), sp[probe])) {
                fromSluice = exchange.run(sp);
            }
            assertThat(fromHaproxy).as("HAProxy's exchanges").hasSize(requests.size());
            assertThat(fromSluice).as("Sluice's exchanges").hasSize(requests.size());
            // every difference at once
            org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
            int answered = 0;
            for (int i = 0; i < requests.size(); i++) {
                String label = requests.get(i).replace("\r\n", "\\r\\n");
                boolean noneExpected = requests.get(i).startsWith(NO_RESPONSE_EXPECTED);
                boolean noneFromHaproxy = fromHaproxy.get(i).equals(NO_RESPONSE);
                if (noneExpected) {
                    soft.assertThat(fromHaproxy.get(i)).as("HAProxy's response to %s", label).isEqualTo(NO_RESPONSE);
                } else if (noneFromHaproxy && fromSluice.get(i).equals(NO_RESPONSE)) {
                    soft.fail("neither HAProxy nor Sluice answered %s: that compares nothing (mark the row with \"%s\" if no answer is the"
                            + " expected outcome)", label, NO_RESPONSE_EXPECTED);
                }
                soft.assertThat(fromSluice.get(i)).as("response to %s", label).isEqualTo(fromHaproxy.get(i));
                answered += noneFromHaproxy ? 0 : 1;
            }
            soft.assertAll();
            assertThat(answered).as("responses compared").isPositive();
        }
    }

    /**
     * {@link #compare} that also returns HAProxy's answers (its run comes first), for a test to assert on what HAProxy
     * said as well as on Sluice saying the same.
     */
    static List<String> compareRecording(String template, List<String> requests, Exchange exchange) throws Exception {
        List<List<String>> runs = new ArrayList<>();
        compare(template, requests, ports -> {
            List<String> seen = exchange.run(ports);
            runs.add(seen);
            return seen;
        });
        return runs.getFirst();
    }

    static String fill(String template, int port, Origin s1, Origin s2) {
        return fill(template, new int[] {port, 0}, s1, s2);
    }

    static String fill(String template, int[] ports, Origin s1, Origin s2) {
        return template.replace("@FE@", Integer.toString(ports[0])).replace("@FE2@", Integer.toString(ports[1]))
                .replace("@O1@", Integer.toString(s1.port())).replace("@O2@", Integer.toString(s2.port()));
    }

    /** Each request on its own connection (a deny closes it); a response is its normalised text. */
    static List<String> exchange(int[] ports, List<String> requests) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : requests) {
            String unmarked = line.startsWith(NO_RESPONSE_EXPECTED) ? line.substring(NO_RESPONSE_EXPECTED.length()) : line;
            int port = unmarked.startsWith("2:") ? ports[1] : ports[0];
            String req = unmarked.startsWith("2:") ? unmarked.substring(2) : unmarked;
            String withHost = req.contains("host:") || req.contains("Host:") ? req : req.replaceFirst("\r\n", "\r\nhost: test\r\n");
            try (RawClient c = new RawClient(port)) {
                RawClient.Response r = c.send(withHost).read(req.startsWith("HEAD"));
                out.add(normalise(r));
            } catch (RuntimeException e) {
                out.add(NO_RESPONSE);
            }
        }
        return out;
    }

    /** Each list of requests on one connection, each request sent once the previous response arrived. */
    static List<String> exchangeKeptAlive(int port, List<List<String>> connections) {
        List<String> out = new ArrayList<>();
        for (List<String> requests : connections) {
            try (RawClient c = new RawClient(port)) {
                boolean open = true;
                for (String req : requests) {
                    String withHost = req.replaceFirst("\r\n", "\r\nhost: test\r\n");
                    if (!open) {
                        out.add(NO_RESPONSE);
                        continue;
                    }
                    try {
                        out.add(normalise(c.send(withHost).read()));
                    } catch (RuntimeException e) {
                        out.add(NO_RESPONSE);
                        open = false;
                    }
                }
            }
        }
        return out;
    }

    static String normalise(RawClient.Response r) {
        StringBuilder sb = new StringBuilder(r.head().startLine()).append('\n');
        String cl = null;
        for (String[] f : r.head().fields()) {
            String n = f[0].toLowerCase(Locale.ROOT);
            if (n.equals("date")) {
                continue;
            }
            if (n.equals("content-length")) {
                cl = f[1];
                continue;
            }
            sb.append(n).append(": ").append(f[1]).append('\n');
        }
        sb.append("content-length: ").append(cl).append('\n');
        String body = new String(r.body(), StandardCharsets.ISO_8859_1);
        // the origin echoes the request: the order of content-length among its fields is not compared
        body = body.replaceAll("(?m)^content-length: .*\n", "");
        return sb.append('\n').append(body).toString();
    }

    static void waitFor(int port) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("haproxy did not listen on " + port);
    }
}
