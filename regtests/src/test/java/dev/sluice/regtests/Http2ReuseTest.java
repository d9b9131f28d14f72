package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code http-reuse} with HTTP/2 server connections, through Sluice and, on the same traffic, HAProxy 2.6 when it is
 * installed: which origin connection each request lands on while other client connections hold streams, how many
 * connections each policy opens, and how long an idle one lives ({@code pool-purge-delay}). One thread, so that
 * every client shares the same pool.
 */
class Http2ReuseTest {

    static volatile CountDownLatch hold = new CountDownLatch(0);

    /** Answers at once, or once {@link #hold} opens for paths containing "hold". */
    static final H2RawOrigin.Handler HOLDING = (r, w) -> {
        String p = r.headers().path().toString();
        Thread.startVirtualThread(() -> {
            try {
                if (p.contains("hold")) {
                    hold.await();
                }
                w.headers(r.stream(), false, ":status", "200", "content-length", "2");
                w.data(r.stream(), true, "ok".getBytes(StandardCharsets.US_ASCII));
            } catch (Exception e) {
                // the connection went
            }
        });
    };

    static Daemon start(boolean haproxy, String policy, String purge, H2RawOrigin o, int port, int h2Port) {
        if (haproxy) {
            Program.HAPROXY.require();
        }
        // HAProxy 2.6 takes pool-purge-delay on servers, Sluice on the backend
        String purgeLine = purge == null ? "" : haproxy ? "default-server pool-purge-delay " + purge : "pool-purge-delay " + purge;
        return Daemon.start(haproxy, """
                global
                    nbthread 1
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 20s
                    timeout server 20s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                frontend fe2
                    bind 127.0.0.1:%d proto h2
                    default_backend be
                backend be
                    http-reuse %s
                    %s
                    server s1 127.0.0.1:%d proto h2
                """.formatted(port, h2Port, policy, purgeLine, o.port()), port);
    }

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    /** The origin connection of each request from {@code from} on, by path. */
    static Map<String, Integer> byPath(H2RawOrigin o, int from) {
        Map<String, Integer> m = new java.util.LinkedHashMap<>();
        for (H2RawOrigin.Request r : o.requests().subList(from, o.requests().size())) {
            m.put(r.headers().path().toString(), r.connection());
        }
        return m;
    }

    static Stream<Arguments> cases() {
        return Stream.of(false, true).flatMap(h -> Stream.of("never", "safe", "aggressive", "always").map(p -> Arguments.of(h, p)));
    }

    @ParameterizedTest(name = "haproxy={0} {1}")
    @MethodSource("cases")
    void streamsShareServerConnectionsAsThePolicySays(boolean haproxy, String policy) throws Exception {
        try (H2RawOrigin o = new H2RawOrigin(HOLDING)) {
            int port = Ports.free();
            int h2Port = Ports.free();
            try (Daemon d = start(haproxy, policy, null, o, port, h2Port)) {
                CrossProtocolTest.awaitPort(h2Port);
                // two kept-alive HTTP/1.1 clients, one request after the other: A1 B1 A2 B2
                try (RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
                    for (String[] r : List.of(new String[] {"a", "/a1"}, new String[] {"b", "/b1"}, new String[] {"a", "/a2"},
                            new String[] {"b", "/b2"})) {
                        assertThat((r[0].equals("a") ? a : b).send(get(r[1])).read().status()).isEqualTo(200);
                    }
                }
                Map<String, Integer> seq = byPath(o, 0);
                int n = o.requests().size();
                // A holds a stream; meanwhile B, then C, send a first and a second request
                hold = new CountDownLatch(1);
                try (RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
                    a.send(get("/hold-a1"));
                    awaitRequests(o, n + 1);
                    assertThat(b.send(get("/b3")).read().status()).isEqualTo(200);
                    assertThat(b.send(get("/b4")).read().status()).isEqualTo(200);
                    try (RawClient c = new RawClient(port)) {
                        assertThat(c.send(get("/c1")).read().status()).isEqualTo(200);
                        assertThat(c.send(get("/c2")).read().status()).isEqualTo(200);
                    }
                    hold.countDown();
                    assertThat(a.read().status()).isEqualTo(200);
                }
                Map<String, Integer> held = byPath(o, n);
                n = o.requests().size();
                // one HTTP/2 client holds two streams; meanwhile an HTTP/1.1 client sends two requests
                hold = new CountDownLatch(1);
                try (H2RawClient c = new H2RawClient(h2Port)) {
                    c.headers(1, true, CrossProtocolTest.request("GET", "/hold-1"));
                    // the second once the first is on its connection (HAProxy opens a second one for a stream that comes
                    // while the first connection is still being established)
                    awaitRequests(o, n + 1);
                    c.headers(3, true, CrossProtocolTest.request("GET", "/hold-3"));
                    awaitRequests(o, n + 2);
                    try (RawClient e = new RawClient(port)) {
                        assertThat(e.send(get("/e1")).read().status()).isEqualTo(200);
                        assertThat(e.send(get("/e2")).read().status()).isEqualTo(200);
                    }
                    hold.countDown();
                    assertThat(ended(c, 2)).containsOnly(1, 3);
                }
                Map<String, Integer> h2 = byPath(o, n);
                String what = d.name() + " " + policy + " " + seq + " " + held + " " + h2;
                switch (policy) {
                    case "never" -> {
                        // each client connection has its own, however many streams it carries at once
                        assertThat(List.copyOf(seq.values())).as(what).isEqualTo(List.of(1, 2, 1, 2));
                        assertThat(held.get("/b3")).as(what).isEqualTo(held.get("/b4")).isNotEqualTo(held.get("/hold-a1"));
                        assertThat(held.get("/c1")).as(what).isEqualTo(held.get("/c2")).isNotIn(held.get("/hold-a1"), held.get("/b3"));
                        assertThat(h2.get("/hold-1")).as(what).isEqualTo(h2.get("/hold-3"));
                        assertThat(h2.get("/e1")).as(what).isEqualTo(h2.get("/e2")).isNotEqualTo(h2.get("/hold-1"));
                        assertThat(o.connections()).as(what).isEqualTo(7);
                        // and it goes with its client connection
                        awaitEnded(o, 7);
                    }
                    case "safe" -> {
                        // a first request opens its own connection; a later one may take an idle one, never one that carries
                        // another client connection's streams; an HTTP/2 client's streams are never first
                        assertThat(seq.get("/b1")).as(what).isNotEqualTo(seq.get("/a1"));
                        assertThat(seq.get("/a2")).as(what).isEqualTo(seq.get("/a1"));
                        int busy = held.get("/hold-a1");
                        assertThat(busy).as(what).isNotIn(seq.values());
                        assertThat(held.get("/b3")).as(what).isNotIn(busy, seq.get("/a1"), seq.get("/b1"));
                        assertThat(held.get("/b4")).as(what).isNotEqualTo(busy);
                        assertThat(held.get("/c1")).as(what).isNotIn(busy, held.get("/b3"), seq.get("/a1"));
                        assertThat(held.get("/c2")).as(what).isNotEqualTo(busy);
                        assertThat(h2.get("/hold-1")).as(what).isEqualTo(h2.get("/hold-3")).isLessThanOrEqualTo(5);
                        assertThat(h2.get("/e1")).as(what).isEqualTo(6);
                        assertThat(h2.get("/e2")).as(what).isNotEqualTo(h2.get("/hold-1"));
                        assertThat(o.connections()).as(what).isEqualTo(6);
                    }
                    default -> {
                        // aggressive and always: every stream on the one connection (HAProxy files idle HTTP/2 connections as
                        // safe, so aggressive gives them to first requests too)
                        assertThat(o.connections()).as(what).isEqualTo(1);
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void anIdleConnectionClosesAfterAFewPurgePeriodsNotAtTimeoutServer(boolean haproxy) throws Exception {
        try (H2RawOrigin o = new H2RawOrigin(HOLDING)) {
            int port = Ports.free();
            // timeout server 20s plays no part; pool-purge-delay 1s: the estimate of the connections needed decays each
            // period, and the last idle connection goes when it exceeds it
            try (Daemon d = start(haproxy, "always", "1s", o, port, Ports.free())) {
                long t0;
                try (RawClient c = new RawClient(port)) {
                    assertThat(c.send(get("/one")).read().status()).isEqualTo(200);
                    t0 = System.nanoTime();
                }
                awaitEnded(o, 1);
                long ms = (o.ended().get(1) - t0) / 1_000_000;
                assertThat(ms).isBetween(1500L, 4500L);
            }
        }
    }

    /** Reads until {@code n} streams ended; returns their ids. */
    static List<Integer> ended(H2RawClient c, int n) {
        List<Integer> done = new java.util.ArrayList<>();
        while (done.size() < n) {
            H2RawClient.Frame f = c.read();
            if (f.type() == H2RawClient.SETTINGS && (f.flags() & 1) == 0) {
                c.frame(H2RawClient.SETTINGS, 1, 0, new byte[0]);
            } else if ((f.type() == H2RawClient.DATA || f.type() == H2RawClient.HEADERS) && (f.flags() & 1) != 0
                    || f.type() == H2RawClient.RST_STREAM) {
                done.add(f.stream());
            }
        }
        return done;
    }

    static void awaitRequests(H2RawOrigin o, int n) throws InterruptedException {
        for (int i = 0; i < 200 && o.requests().size() < n; i++) {
            Thread.sleep(20);
        }
        assertThat(o.requests()).hasSizeGreaterThanOrEqualTo(n);
    }

    static void awaitEnded(H2RawOrigin o, int n) throws InterruptedException {
        for (int i = 0; i < 400 && o.ended().size() < n; i++) {
            Thread.sleep(20);
        }
        assertThat(o.ended()).hasSize(n);
    }
}
