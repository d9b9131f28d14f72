package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code retries} and {@code option redispatch} on servers that refuse connections, through the real
 * daemon: how many attempts, on which server, how long the turn-arounds take, what the log and the
 * counters say. The same configurations run in HAProxy 2.6 (the haproxy=true cases, which require it), and the log lines (status,
 * flags, server, retries with the redispatch "+", and whether the request waited) must be the same.
 */
class RetryTest {
    private final List<Origin> origins = new ArrayList<>();

    @AfterEach
    void stop() {
        origins.forEach(Origin::close);
    }

    private Origin origin(String name) {
        Origin o = Origin.start(name);
        origins.add(o);
        return o;
    }

    /** How often each path was asked for, to fail the first times on demand. */
    private final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();

    /**
     * An origin failing on demand by path: {@code /503/<n>} answers 503 the first n-1 times, {@code /slow} does not
     * answer the first time within the test's timeout server, {@code /empty} closes without a byte the first time,
     * {@code /junk} sends garbage the first time; then each answers 200.
     */
    private Origin failing(String name) {
        Origin o = Origin.start(name, (r, out) -> failOnDemand(name, r, out));
        origins.add(o);
        return o;
    }

    private boolean failOnDemand(String name, Origin.Request r, OutputStream out) throws IOException {
        // a leading /c<case> keeps the cases of one run apart
        String path = r.target().replaceFirst("^/c\\d+(?=/)", "");
        int n = asked.computeIfAbsent(r.method() + " " + r.target(), k -> new AtomicInteger()).incrementAndGet();
        if (n == 1 && path.equals("/empty")) {
            return false;
        }
        if (n == 1 && path.equals("/junk")) {
            out.write("NOT HTTP\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return false;
        }
        if (n == 1 && path.equals("/slow")) {
            try {
                Thread.sleep(700);
            } catch (InterruptedException e) {
                return false;
            }
        }
        if (path.startsWith("/503/") && n < Integer.parseInt(path.substring(5))) {
            Origin.respond(out, 503, "Service Unavailable", Origin.headers("X-Origin", name), "busy\n".getBytes(StandardCharsets.US_ASCII));
            return true;
        }
        Origin.respond(out, 200, "OK", Origin.headers("X-Origin", name, "X-Body", Origin.sha256(r.body())),
                ("origin " + name + "\n").getBytes(StandardCharsets.US_ASCII));
        return true;
    }

    /** One listen section per case on consecutive ports; {@code @DEAD@} is a port nothing listens on, {@code @OK@} an origin. */
    private static String config(int[] ports, List<String> cases, int dead, Origin ok) {
        StringBuilder sb = new StringBuilder(ServerQueueTest.HEADER + """
                    timeout connect 200ms
                    timeout client 5s
                    timeout server 5s
                """);
        for (int i = 0; i < cases.size(); i++) {
            sb.append("listen c").append(i).append("\n    bind 127.0.0.1:").append(ports[i]).append('\n');
            sb.append(cases.get(i).replace("@DEAD@", Integer.toString(dead)).replace("@OK@", Integer.toString(ok.port())).strip().indent(4));
        }
        return sb.toString();
    }

    /** For each case: status, flags, server, retries (%rc), queue positions, and whether the wait (Tw) and the total (Ta) passed 150 ms. */
    private List<String> run(boolean haproxy, List<String> cases, Origin ok) {
        return run(haproxy, cases, ok, "GET /a HTTP/1.1\r\nhost: test\r\n\r\n", "\"GET /a ");
    }

    /** The same, sending {@code request} to each case; {@code logged} picks its log line. */
    private List<String> run(boolean haproxy, List<String> cases, Origin ok, String request, String logged) {
        return run(haproxy, cases, ok, i -> request, logged);
    }

    /** The same with a request per case. */
    private List<String> run(boolean haproxy, List<String> cases, Origin ok, java.util.function.IntFunction<String> request, String logged) {
        asked.clear();
        int[] ports = new int[cases.size()];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.free();
        }
        int dead = Ports.free();
        int warm = Ports.free();
        List<String> out = new ArrayList<>();
        // a section outside the cases takes a first request down the refused-connect, redispatch and response paths: a cold
        // JVM's first pass there (class loading, first compilations) would otherwise weigh on the first case's Ta
        String cfg = config(ports, cases, dead, ok) + "listen warm\n    bind 127.0.0.1:" + warm + "\n    retries 1\n    option redispatch\n"
                + "    server s1 127.0.0.1:" + dead + "\n    server s2 127.0.0.1:" + ok.port() + "\n";
        try (Daemon d = Daemon.start(haproxy, cfg, ports[ports.length - 1])) {
            try (RawClient c = new RawClient(warm, 10_000)) {
                c.send("GET /warm HTTP/1.1\r\nhost: test\r\n\r\n").read();
            }
            for (int i = 0; i < ports.length; i++) {
                try (RawClient c = new RawClient(ports[i], 10_000)) {
                    c.send(request.apply(i)).read();
                }
            }
            for (int i = 0; i < ports.length; i++) {
                String name = "c" + i;
                String line = d.awaitLines(l -> l.contains("] " + name + " " + name + "/") && l.contains(logged), 1).getFirst();
                String[] w = line.split(" ");
                String[] timers = w[4].split("/");
                // of the connection counts only %rc: the others depend on when the previous clients' connections closed
                String rc = w[10].substring(w[10].lastIndexOf('/') + 1);
                out.add(name + " " + w[3] + " " + w[5] + " " + w[9] + " rc " + rc + " " + w[11]
                        + " Tw>150:" + (Long.parseLong(timers[1]) > 150) + " Ta>150:" + (Long.parseLong(timers[4]) > 150)
                        + " wretr/wredis " + ServerQueueTest.stat(d, name + ",BACKEND", "wretr") + "/"
                        + ServerQueueTest.stat(d, name + ",BACKEND", "wredis"));
            }
        }
        return out;
    }

    /** Without the timers: a retry's Tw spans the failed attempts, which a cold daemon's first request makes slow. */
    private static List<String> noTotal(List<String> lines) {
        return lines.stream().map(l -> l.replaceAll(" T[wa]>150:(true|false)", "")).toList();
    }

    /** Runs the cases in Sluice or HAProxy 2.6 (requiring it); the log keys must be {@code expected}. */
    private void check(boolean haproxy, List<String> cases, List<String> expected) {
        Origin ok = origin("ok");
        assertThat(run(haproxy, cases, ok, "GET /a HTTP/1.1\r\nhost: test\r\n\r\n", "\"GET /a ")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void retriesAndRedispatchAsHaproxy(boolean haproxy) {
        check(haproxy, List.of(
                // no redispatch: every retry on the refusing server, each after MIN(1s, timeout connect)
                "retries 2\nserver s1 127.0.0.1:@DEAD@",
                // round robin over two: the first retry moves at once
                "retries 3\noption redispatch\nserver s1 127.0.0.1:@DEAD@\nserver s2 127.0.0.1:@OK@",
                // leastconn too (HAProxy 2.6 redispatches at once for every non-hash algorithm)
                "retries 3\noption redispatch\nbalance leastconn\nserver s1 127.0.0.1:@DEAD@\nserver s2 127.0.0.1:@OK@",
                // a hash keeps its server until the last retry, which goes through the map again (to the same server)
                "retries 2\noption redispatch\nbalance uri\nserver s1 127.0.0.1:@DEAD@\nserver s2 127.0.0.1:@OK@",
                // one server: the last retry is a redispatch to it again, after the same turn-arounds
                "retries 2\noption redispatch\nserver s1 127.0.0.1:@DEAD@",
                // retries 0: one attempt
                "retries 0\nserver s1 127.0.0.1:@DEAD@"),
                List.of(
                        "c0 c0/s1 503 SC-- rc 2 0/0 Tw>150:false Ta>150:true wretr/wredis 2/0",
                        "c1 c1/s2 200 ---- rc +1 0/0 Tw>150:false Ta>150:false wretr/wredis 0/1",
                        "c2 c2/s2 200 ---- rc +1 0/0 Tw>150:false Ta>150:false wretr/wredis 0/1",
                        "c3 c3/s1 503 SC-- rc 2 0/0 Tw>150:true Ta>150:true wretr/wredis 2/0",
                        "c4 c4/s1 503 SC-- rc 2 0/0 Tw>150:true Ta>150:true wretr/wredis 2/0",
                        "c5 c5/s1 503 SC-- rc 0 0/0 Tw>150:false Ta>150:false wretr/wredis 0/0"));
    }

    /**
     * retry-on after the request went out: a status, a response timeout, a connection closed without a byte, a
     * garbage response; each retried as HAProxy does, including its double count of a retry on the same server.
     */
    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void retryOnAfterSendingAsHaproxy(boolean haproxy) {
        Origin o = failing("s1");
        Origin o2 = failing("s2");
        List<String> cases = List.of(
                "retries 2\nretry-on 503\nserver s1 127.0.0.1:@OK@",
                "retries 3\nretry-on 503\nserver s1 127.0.0.1:@OK@",
                "retries 1\nretry-on response-timeout\ntimeout server 300ms\nserver s1 127.0.0.1:@OK@",
                "retries 1\nretry-on empty-response\nserver s1 127.0.0.1:@OK@",
                "retries 1\nretry-on junk-response\nserver s1 127.0.0.1:@OK@",
                "retries 2\nretry-on all-retryable-errors\noption redispatch\nserver s1 127.0.0.1:@OK@\nserver s2 127.0.0.1:" + o2.port(),
                // not covered: the failure goes to the client
                "retries 2\nretry-on conn-failure\nserver s1 127.0.0.1:@OK@",
                "retries 1\nretry-on 503\ntimeout server 300ms\nserver s1 127.0.0.1:@OK@",
                // disable-l7-retry: the 503 goes to the client, a connection failure is still retried
                "retries 2\nretry-on 503\nhttp-request disable-l7-retry\nserver s1 127.0.0.1:@OK@",
                "retries 2\nretry-on conn-failure 503\nhttp-request disable-l7-retry\noption redispatch\nserver s1 127.0.0.1:@DEAD@\n"
                        + "server s2 127.0.0.1:@OK@");
        String[] paths = {"/503/4", "/503/3", "/slow", "/empty", "/junk", "/503/3", "/503/2", "/slow", "/503/2", "/503/2"};
        // the first requests of a daemon may be slow: the timers are not compared
        assertThat(noTotal(run(haproxy, cases, o, i -> "GET /c" + i + paths[i] + " HTTP/1.1\r\nhost: test\r\n\r\n", "\"GET /"))).containsExactly(
                "c0 c0/s1 503 ---- rc 2 0/0 wretr/wredis 4/0",
                "c1 c1/s1 200 ---- rc 2 0/0 wretr/wredis 4/0",
                "c2 c2/s1 200 ---- rc 1 0/0 wretr/wredis 2/0",
                "c3 c3/s1 200 ---- rc 1 0/0 wretr/wredis 2/0",
                "c4 c4/s1 200 ---- rc 1 0/0 wretr/wredis 2/0",
                "c5 c5/s1 200 ---- rc +2 0/0 wretr/wredis 2/2",
                "c6 c6/s1 503 ---- rc 0 0/0 wretr/wredis 0/0",
                "c7 c7/s1 504 sH-- rc 0 0/0 wretr/wredis 0/0",
                "c8 c8/s1 503 ---- rc 0 0/0 wretr/wredis 0/0",
                "c9 c9/s2 503 ---- rc +1 0/0 wretr/wredis 0/1");
    }

    /**
     * Only idempotent requests are sent again once they went out (a departure: HAProxy retries a POST too); a PUT
     * with a body is replayed whole.
     */
    @Test
    void onlyIdempotentRequestsAreSentAgain() {
        Origin o = failing("s1");
        String cfg = "retries 2\nretry-on 503\nserver s1 127.0.0.1:@OK@";
        assertThat(noTotal(run(false, List.of(cfg), o, "POST /503/2 HTTP/1.1\r\nhost: test\r\ncontent-length: 5\r\n\r\nhello", "\"POST ")))
                .containsExactly("c0 c0/s1 503 ---- rc 0 0/0 wretr/wredis 0/0");
        assertThat(o.requests().stream().filter(r -> r.method().equals("POST")).count()).isEqualTo(1);
        assertThat(noTotal(run(false, List.of(cfg), o, "PUT /503/2 HTTP/1.1\r\nhost: test\r\ncontent-length: 5\r\n\r\nhello", "\"PUT ")))
                .containsExactly("c0 c0/s1 200 ---- rc 1 0/0 wretr/wredis 2/0");
        List<Origin.Request> puts = o.requests().stream().filter(r -> r.method().equals("PUT")).toList();
        assertThat(puts).hasSize(2);
        assertThat(puts).allSatisfy(r -> assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("hello"));
        // a body beyond tune.bufsize less tune.maxrewrite is not kept: no replay
        String big = "x".repeat(20_000);
        assertThat(noTotal(run(false, List.of(cfg), o, "PUT /503/2 HTTP/1.1\r\nhost: test\r\ncontent-length: " + big.length() + "\r\n\r\n"
                + big, "\"PUT "))).containsExactly("c0 c0/s1 503 ---- rc 0 0/0 wretr/wredis 0/0");
    }

    /**
     * A kept-alive server connection that dies under the next request before any response byte (the server closed
     * it as the request arrived): an idempotent request goes again on a new connection, without using a retry;
     * a POST gets the 502.
     */
    @Test
    void aStaleReusedConnectionIsRetriedWhenIdempotent() {
        Map<Integer, AtomicInteger> perConnection = new ConcurrentHashMap<>();
        Origin o = Origin.start("s1", (r, out) -> {
            if (perConnection.computeIfAbsent(r.connection(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                // the second request on a connection: close it without a byte, as a server whose keep-alive ran out
                return false;
            }
            Origin.respond(out, 200, "OK", Origin.headers("X-Body", Origin.sha256(r.body())), "ok\n".getBytes(StandardCharsets.US_ASCII));
            return true;
        });
        origins.add(o);
        int port = Ports.free();
        try (Daemon d = Daemon.start(false, config(new int[] {port}, List.of("server s1 127.0.0.1:@OK@"), Ports.free(), o), port);
                RawClient c = new RawClient(port, 10_000)) {
            assertThat(c.send("GET /1 HTTP/1.1\r\nhost: t\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(c.send("GET /2 HTTP/1.1\r\nhost: t\r\n\r\n").read().status()).isEqualTo(200);
            RawClient.Response put = c.send("PUT /3 HTTP/1.1\r\nhost: t\r\ncontent-length: 4\r\n\r\nbody").read();
            assertThat(put.status()).isEqualTo(200);
            assertThat(put.header("x-body")).isEqualTo(Origin.sha256("body".getBytes(StandardCharsets.US_ASCII)));
            assertThat(c.send("POST /4 HTTP/1.1\r\nhost: t\r\ncontent-length: 0\r\n\r\n").read().status()).isEqualTo(502);
            assertThat(ServerQueueTest.stat(d, "c0,BACKEND", "wretr")).isEqualTo("2");
            List<String> log = d.awaitLines(l -> l.contains("] c0 c0/"), 4);
            assertThat(log.stream().filter(l -> l.contains("\"GET /2 ")).findFirst().orElseThrow()).contains(" 200 ").contains("/0 0/0 ");
            assertThat(log.stream().filter(l -> l.contains("\"POST /4 ")).findFirst().orElseThrow()).contains(" 502 ").contains(" SH-- ");
        }
        assertThat(o.requests().stream().map(Origin.Request::target).toList()).containsExactly("/1", "/2", "/2", "/3", "/3", "/4");
    }
}
