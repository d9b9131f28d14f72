package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Server choice request by request through the real daemon, for every {@code balance} algorithm. The
 * expected sequences of the hash and static algorithms were recorded from HAProxy 2.6 on the same
 * configuration ({@link HaproxyComparisonTest} checks them live when haproxy is installed).
 */
class LoadBalancingTest {
    private final List<Origin> origins = new ArrayList<>();
    /** Requests to a path starting with /slow wait on this gate before their answer. */
    private final CountDownLatch gate = new CountDownLatch(1);

    @AfterEach
    void stopOrigins() {
        gate.countDown();
        origins.forEach(Origin::close);
    }

    /** Origins named s1..sN (or the given names) answering with x-origin: name; /slow requests wait for the gate. */
    private List<Origin> origins(String... names) {
        for (String name : names) {
            origins.add(Origin.start(name, (r, out) -> {
                if (r.target().startsWith("/slow")) {
                    try {
                        if (!gate.await(20, TimeUnit.SECONDS)) {
                            return false;
                        }
                    } catch (InterruptedException e) {
                        return false;
                    }
                }
                Origin.respond(out, 200, "OK", Origin.headers("X-Origin", name), ("origin " + name + "\n").getBytes(StandardCharsets.US_ASCII));
                return true;
            }));
        }
        return origins;
    }

    private List<Origin> origins(int n) {
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = "s" + (i + 1);
        }
        return origins(names);
    }

    /** A configuration with frontend fe on {@code port} and backend be: {@code lines}, then one server line per origin. */
    static String config(int port, String lines, List<Origin> origins, String... serverOptions) {
        StringBuilder sb = new StringBuilder("""
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 30s
                    timeout server 30s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                """.formatted(port));
        for (String l : lines.strip().split("\n")) {
            sb.append("    ").append(l.strip()).append('\n');
        }
        for (int i = 0; i < origins.size(); i++) {
            Origin o = origins.get(i);
            String opts = i < serverOptions.length && !serverOptions[i].isEmpty() ? " " + serverOptions[i] : "";
            sb.append("    server ").append(o.name()).append(" 127.0.0.1:").append(o.port()).append(opts).append('\n');
        }
        return sb.toString();
    }

    /** One request per connection; the origin that answered each, "503" for a 503. */
    static String ask(int port, String... requests) {
        return askFrom(port, null, requests);
    }

    static String askFrom(int port, String localIp, String... requests) {
        List<String> out = new ArrayList<>();
        for (String req : requests) {
            try (RawClient c = new RawClient(port, 10_000, localIp)) {
                RawClient.Response r = c.send(req).read();
                out.add(r.status() == 200 ? r.header("x-origin") : String.valueOf(r.status()));
            }
        }
        return String.join(" ", out);
    }

    /** Requests on one kept-alive connection, each sent once the previous answer arrived. */
    static String askKeepAlive(RawClient c, String... requests) {
        List<String> out = new ArrayList<>();
        for (String req : requests) {
            RawClient.Response r = c.send(req).read();
            out.add(r.status() == 200 ? r.header("x-origin") : String.valueOf(r.status()));
        }
        return String.join(" ", out);
    }

    static String get(String path, String... headers) {
        StringBuilder sb = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: test\r\n");
        for (String h : headers) {
            sb.append(h).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    static String[] gets(String... paths) {
        String[] out = new String[paths.length];
        for (int i = 0; i < paths.length; i++) {
            out[i] = get(paths[i]);
        }
        return out;
    }

    static String[] repeat(String request, int n) {
        String[] out = new String[n];
        java.util.Arrays.fill(out, request);
        return out;
    }

    /**
     * Sends a /slow request without reading the answer, once the origin {@code expected} has it. The previous request's
     * slot on that server is given back in the task that wrote its response, which may run after the client read it: a
     * request sent at once can find the server still full and go to the next one. So an attempt that has not reached
     * {@code expected} within 2 s is closed and sent again, five times at most.
     */
    private RawClient hold(int port, Origin expected) {
        for (int attempt = 0; attempt < 5; attempt++) {
            RawClient c = new RawClient(port, 30_000);
            int before = (int) expected.requests().stream().filter(r -> r.target().startsWith("/slow")).count();
            c.send(get("/slow"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (expected.requests().stream().filter(r -> r.target().startsWith("/slow")).count() == before
                    && System.nanoTime() < deadline) {
                sleep(5);
            }
            if (expected.requests().stream().filter(r -> r.target().startsWith("/slow")).count() > before) {
                return c;
            }
            c.close();
            sleep(200);
        }
        throw new AssertionError("the held request did not reach " + expected.name());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void roundrobinFollowsHaproxysWeightedOrder() {
        List<Origin> o = origins(3);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance roundrobin", o, "weight 5", "weight 1", "weight 1"), port)) {
            assertThat(ask(port, repeat(get("/"), 14))).isEqualTo("s1 s1 s1 s2 s1 s1 s3 s1 s1 s1 s2 s1 s1 s3");
        }
    }

    @Test
    void staticRoundRobinWalksHaproxysServerMap() {
        List<Origin> o = origins(4);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance static-rr", o, "weight 3", "", "weight 2", ""), port)) {
            assertThat(ask(port, repeat(get("/"), 14))).isEqualTo("s1 s2 s1 s3 s1 s3 s4 s1 s2 s1 s3 s1 s3 s4");
        }
        int port2 = Ports.free();
        try (Sluice s = Sluice.start(config(port2, "balance static-rr", o.subList(0, 3), "", "weight 0", "weight 2"), port2)) {
            assertThat(ask(port2, repeat(get("/"), 6))).isEqualTo("s1 s3 s3 s1 s3 s3");
        }
    }

    @Test
    void leastconnSendsToTheLeastBusyServers() throws IOException {
        List<Origin> o = origins(4);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance leastconn", o), port); RawClient c = new RawClient(port)) {
            // idle servers in turn
            assertThat(askKeepAlive(c, repeat(get("/"), 4))).isEqualTo("s1 s2 s3 s4");
            // two slow requests occupy the two servers used longest ago
            RawClient h1 = hold(port, o.get(0));
            RawClient h2 = hold(port, o.get(1));
            // quick requests go to the two idle servers only, in turn
            assertThat(askKeepAlive(c, repeat(get("/"), 6))).isEqualTo("s3 s4 s3 s4 s3 s4");
            gate.countDown();
            assertThat(h1.read().header("x-origin")).isEqualTo("s1");
            assertThat(h2.read().header("x-origin")).isEqualTo("s2");
            h1.close();
            h2.close();
            // all idle again: every server gets one of the next four
            assertThat(new HashSet<>(List.of(askKeepAlive(c, repeat(get("/"), 4)).split(" ")))).containsExactlyInAnyOrder("s1", "s2", "s3",
                    "s4");
        }
    }

    @Test
    void uriHashesThePathAsHaproxyDoes() {
        List<Origin> o = origins(4);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance uri", o), port)) {
            assertThat(ask(port, gets("/url1", "/url2", "/url3", "/url4", "/url1?x=1", "/url3?y"))).isEqualTo("s2 s3 s4 s1 s2 s4");
        }
    }

    @Test
    void sourceHashesTheClientAddress() {
        List<Origin> o = origins(4);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance source", o), port)) {
            List<String> seen = new ArrayList<>();
            for (String ip : List.of("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.1.2.3", "127.200.100.50", "127.0.0.2")) {
                seen.add(askFrom(port, ip, get("/")));
            }
            assertThat(String.join(" ", seen)).isEqualTo("s2 s3 s4 s1 s4 s3 s3");
        }
    }

    @Test
    void hdrHashesTheHeaderAndGoesRoundRobinWithoutIt() {
        List<Origin> o = origins(4);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance hdr(X-User)", o), port)) {
            List<String> reqs = new ArrayList<>();
            for (String u : List.of("alice", "bob", "carol", "dave", "erin", "frank")) {
                reqs.add(get("/", "X-User: " + u));
            }
            reqs.add(get("/"));
            reqs.add(get("/"));
            assertThat(ask(port, reqs.toArray(new String[0]))).isEqualTo("s1 s2 s2 s1 s3 s3 s1 s2");
        }
        int port2 = Ports.free();
        try (Sluice s = Sluice.start(config(port2, "balance hdr(host) use_domain_only", o), port2)) {
            List<String> reqs = new ArrayList<>();
            for (String h : List.of("www.alice.com", "api.alice.com", "alice.org", "www.bob.net", "bob.io")) {
                reqs.add("GET / HTTP/1.1\r\nHost: " + h + "\r\n\r\n");
            }
            assertThat(ask(port2, reqs.toArray(new String[0]))).isEqualTo("s1 s1 s1 s2 s2");
        }
    }

    @Test
    void urlParamHashesTheParameter() {
        List<Origin> o = origins(4);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance url_param userid", o), port)) {
            assertThat(ask(port, gets("/p?userid=alice", "/p?userid=bob", "/p?userid=carol", "/p?userid=dave", "/p?userid=erin",
                    "/p?userid=frank", "/p", "/p?x=1"))).isEqualTo("s1 s2 s2 s1 s3 s3 s1 s2");
            assertThat(ask(port, gets("/q?a=1&userid=alice&b=2", "/q?userid=alice"))).isEqualTo("s1 s1");
        }
    }

    @Test
    void firstFillsServersInIdOrderUpToMaxconn() {
        List<Origin> o = origins(3);
        int port = Ports.free();
        String cfg = config(port, "balance first\ntimeout queue 2s", o, "maxconn 1 id 3", "maxconn 1 id 1", "maxconn 1 id 2");
        try (Sluice s = Sluice.start(cfg, port); RawClient c = new RawClient(port)) {
            // nothing busy: always the lowest id (s2)
            assertThat(askKeepAlive(c, repeat(get("/"), 3))).isEqualTo("s2 s2 s2");
            RawClient h1 = hold(port, o.get(1));
            assertThat(askKeepAlive(c, repeat(get("/"), 2))).isEqualTo("s3 s3");
            RawClient h2 = hold(port, o.get(2));
            assertThat(askKeepAlive(c, get("/"))).isEqualTo("s1");
            RawClient h3 = hold(port, o.get(0));
            // every server at its maxconn: a request waits in the backend's queue, 503 once 'timeout queue' is over
            long start = System.nanoTime();
            assertThat(ask(port, get("/"))).isEqualTo("503");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(1900);
            // one that waits less is served by the first server that frees its slot
            try (RawClient queued = new RawClient(port, 30_000)) {
                long sent = System.nanoTime();
                queued.send(get("/"));
                sleep(300);
                gate.countDown();
                RawClient.Response r = queued.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("x-origin")).isIn("s1", "s2", "s3");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent)).isGreaterThanOrEqualTo(300);
            }
            for (RawClient h : List.of(h1, h2, h3)) {
                assertThat(h.read().status()).isEqualTo(200);
                h.close();
            }
            assertThat(askKeepAlive(c, get("/"))).isEqualTo("s2");
        }
    }

    @Test
    void backupServersServeOnlyWhenNoActiveServerIsUsable() {
        List<Origin> o = origins("a1", "a2", "b1", "b2");
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance roundrobin", o, "", "", "backup", "backup"), port)) {
            assertThat(ask(port, repeat(get("/"), 4))).isEqualTo("a1 a2 a1 a2");
        }
        int port2 = Ports.free();
        try (Sluice s = Sluice.start(config(port2, "balance roundrobin", o, "disabled", "init-state down", "backup", "backup"), port2)) {
            assertThat(ask(port2, repeat(get("/"), 4))).isEqualTo("b1 b1 b1 b1");
        }
        int port3 = Ports.free();
        try (Sluice s = Sluice.start(config(port3, "balance roundrobin\noption allbackups", o, "disabled", "weight 0", "backup", "backup"),
                port3)) {
            assertThat(ask(port3, repeat(get("/"), 4))).isEqualTo("b1 b2 b1 b2");
        }
        int port4 = Ports.free();
        try (Sluice s = Sluice.start(config(port4, "balance uri", o, "disabled", "disabled", "backup disabled", "backup"), port4)) {
            assertThat(ask(port4, gets("/url1", "/url2", "/url3"))).isEqualTo("b2 b2 b2");
        }
    }

    @Test
    void noUsableServerGives503() {
        List<Origin> o = origins(2);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance leastconn", o, "disabled", "weight 0"), port)) {
            assertThat(ask(port, get("/"), get("/"))).isEqualTo("503 503");
        }
    }

    @Test
    void randomDrawsSpreadOverTheServers() {
        List<Origin> o = origins(3);
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, "balance random(2)", o, "", "", "weight 0"), port)) {
            String seen = ask(port, repeat(get("/"), 40));
            assertThat(seen.split(" ")).containsOnly("s1", "s2").contains("s1", "s2");
        }
    }

    @Test
    void checkReportsBadBalanceLinesWithTheirLine() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                backend be
                    balance hash nosuchfetch(x)
                    hash-type consistent md5
                    server s1 127.0.0.1:2 id 0
                backend be2
                    balance uri depth x
                    server s1 127.0.0.1:2 maxconn 5
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output())
                .containsPattern("test\\.cfg:11: error: .*'hash-type' only supports 'sdbm', 'djb2', 'crc32', 'wt6' or 'none'")
                .containsPattern("test\\.cfg:12: error: .*'id' : custom id has to be > 0")
                .containsPattern("test\\.cfg:14: error: .*'balance uri' : 'depth' expects a positive integer \\(got 'x'\\)")
                .doesNotContain("maxconn");
        Sluice.Result r2 = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                backend be
                    balance hash nosuchfetch(x)
                    server s1 127.0.0.1:2
                """);
        assertThat(r2.exitCode()).isEqualTo(1);
        assertThat(r2.output()).containsPattern("test\\.cfg:10: error: backend 'be' : failed to parse 'balance hash' expression"
                + " 'nosuchfetch\\(x\\)' : unknown fetch method 'nosuchfetch'");
    }
}
