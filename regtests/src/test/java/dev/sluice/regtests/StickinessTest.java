package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code stick on|match|store-request|store-response}: clients stay on their server. */
class StickinessTest {

    static String user(String u, String path) {
        return "GET " + path + " HTTP/1.1\r\nx-user: " + u + "\r\n\r\n";
    }

    @Test
    void sameServerChoicesAsHaproxy() throws Exception {
        List<String> requests = new ArrayList<>();
        for (String u : new String[] {"a", "b", "a", "c", "a", "b", "d", "c", "b", "a"}) {
            requests.add(user(u, "/"));
        }
        requests.add("GET /two HTTP/1.1\r\nx-want: s2\r\n\r\n");
        requests.add("GET /two HTTP/1.1\r\n\r\n");
        requests.add("GET /two HTTP/1.1\r\n\r\n");
        for (int i = 0; i < 4; i++) {
            requests.add("GET /two HTTP/1.1\r\nx-want: s2\r\n\r\n");
            requests.add("GET /two HTTP/1.1\r\nx-want: s1\r\n\r\n");
        }
        HaproxyParityTest.assertSameAsHaproxy("stick-parity.cfg", requests);
    }

    @Test
    void aStickyClientStaysForAThousandRequestsAndMovesWhenItsServerGoesDown() {
        try (Origin s1 = Origin.start("s1"); Origin s2 = Origin.start("s2")) {
            int port = Ports.free();
            Path admin = Sluice.writeConfig("").resolveSibling("admin.sock");
            try (Sluice s = Sluice.start("""
                    global
                        stats socket %s level admin
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        balance roundrobin
                        stick-table type string len 32 size 100 expire 1m
                        stick on req.hdr(x-user)
                        server s1 127.0.0.1:%d
                        server s2 127.0.0.1:%d
                    """.formatted(admin, port, s1.port(), s2.port()), port); RawClient c = new RawClient(port)) {
                AdminClient.await(admin);
                String first = c.send(user("alice", "/")).read().header("x-origin");
                for (int i = 0; i < 1000; i++) {
                    assertThat(c.send(user("alice", "/")).read().header("x-origin")).isEqualTo(first);
                }
                String other = first.equals("s1") ? "s2" : "s1";
                assertThat(AdminClient.run(admin, "disable server be/" + first + "\n")).isEqualTo("\n");
                for (int i = 0; i < 10; i++) {
                    assertThat(c.send(user("alice", "/")).read().header("x-origin")).isEqualTo(other);
                }
                // the key now names the other server: it stays there once the first one is back
                assertThat(AdminClient.run(admin, "enable server be/" + first + "\n")).isEqualTo("\n");
                for (int i = 0; i < 10; i++) {
                    assertThat(c.send(user("alice", "/")).read().header("x-origin")).isEqualTo(other);
                }
            }
        }
    }

    /** The same when a real server failure takes the server down: its health checks fail and the client moves. */
    @Test
    void aStickyClientMovesWhenItsServerFailsItsHealthChecks() {
        java.util.Map<String, java.util.concurrent.atomic.AtomicBoolean> healthy = new java.util.concurrent.ConcurrentHashMap<>();
        Origin.Handler[] h = new Origin.Handler[2];
        for (int i = 0; i < 2; i++) {
            String name = "s" + (i + 1);
            healthy.put(name, new java.util.concurrent.atomic.AtomicBoolean(true));
            h[i] = (r, out) -> {
                boolean up = healthy.get(name).get();
                if (r.target().equals("/health") && !up) {
                    Origin.respond(out, 503, "Service Unavailable", java.util.List.of(), new byte[0]);
                } else {
                    Origin.respond(out, 200, "OK", Origin.headers("X-Origin", name), name.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                }
                return true;
            };
        }
        try (Origin s1 = Origin.start("s1", h[0]); Origin s2 = Origin.start("s2", h[1])) {
            int port = Ports.free();
            try (Daemon d = Daemon.start(false, """
                    global
                        stats socket @DIR@/admin.sock level admin
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                        timeout check 2s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        balance roundrobin
                        option httpchk GET /health
                        stick-table type string len 32 size 100 expire 1m
                        stick on req.hdr(x-user)
                        server s1 127.0.0.1:%d check inter 200 rise 1 fall 1
                        server s2 127.0.0.1:%d check inter 200 rise 1 fall 1
                    """.formatted(port, s1.port(), s2.port()), port); RawClient c = new RawClient(port)) {
                String first = c.send(user("bob", "/")).read().header("x-origin");
                for (int i = 0; i < 1000; i++) {
                    assertThat(c.send(user("bob", "/")).read().header("x-origin")).isEqualTo(first);
                }
                String other = first.equals("s1") ? "s2" : "s1";
                healthy.get(first).set(false);
                ServerQueueTest.awaitStat(d, "be," + first, "status", "DOWN");
                for (int i = 0; i < 10; i++) {
                    assertThat(c.send(user("bob", "/")).read().header("x-origin")).isEqualTo(other);
                }
                healthy.get(first).set(true);
                ServerQueueTest.awaitStat(d, "be," + first, "status", "UP");
                for (int i = 0; i < 10; i++) {
                    assertThat(c.send(user("bob", "/")).read().header("x-origin")).isEqualTo(other);
                }
            }
        }
    }

    @Test
    void stickRulesAreChecked() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                backend be
                    stick on req.hdr(x-user) table nope
                    stick match res.hdr(x)
                    server s1 127.0.0.1:1
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("test.cfg:4: error: error detected while parsing a 'stick on' rule : unable to find table 'nope'.")
                .contains("test.cfg:5: error: error detected while parsing a 'stick match' rule : sample fetch 'res.hdr' may not be reliably "
                        + "used here because it needs 'HTTP response headers' which is not available here.");
    }
}
