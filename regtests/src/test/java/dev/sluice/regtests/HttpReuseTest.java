package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code http-reuse never|safe|aggressive|always}: which server connection each request of two client
 * connections lands on, seen from the origin's connection numbers. One event loop, so both clients share
 * the same idle pool.
 */
class HttpReuseTest {

    /** The origin connection of each of: A1, A2, B1, B2 (A and B two client connections, B opened after A's requests). */
    static List<Integer> connections(String policy) {
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start("""
                    global
                        nbthread 1
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 5s
                        timeout server 5s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        %s
                        server s1 127.0.0.1:%d
                    """.formatted(port, policy, o.port()), port);
                    RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
                String get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
                assertThat(a.send(get).read().status()).isEqualTo(200);
                assertThat(a.send(get).read().status()).isEqualTo(200);
                assertThat(b.send(get).read().status()).isEqualTo(200);
                assertThat(b.send(get).read().status()).isEqualTo(200);
                return o.requests().stream().map(Origin.Request::connection).toList();
            }
        }
    }

    @Test
    void safeGivesAFirstRequestItsOwnConnection() {
        List<Integer> c = connections("http-reuse safe");
        assertThat(c.get(1)).isEqualTo(c.get(0));
        assertThat(c.get(2)).isNotEqualTo(c.get(0));
        assertThat(connections("")).as("safe is the default").isEqualTo(c);
    }

    @Test
    void alwaysReusesAnyIdleConnection() {
        assertThat(connections("http-reuse always")).containsOnly(1);
    }

    @Test
    void aggressiveReusesAConnectionAlreadyReused() {
        // A's connection carried two requests: it is proven reusable, B's first request may take it
        assertThat(connections("http-reuse aggressive")).containsOnly(1);
    }

    @Test
    void neverSharesAConnectionBetweenClients() {
        List<Integer> c = connections("http-reuse never");
        assertThat(c.get(1)).isEqualTo(c.get(0));
        assertThat(c.get(3)).isEqualTo(c.get(2));
        assertThat(c.get(2)).isNotEqualTo(c.get(0));
    }

    @Test
    void aBadPolicyIsAConfigError() {
        Sluice.Result r = Sluice.check("defaults\n    mode http\nbackend be\n    http-reuse sometimes\n    server s1 127.0.0.1:1\n");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("test.cfg:4: error: 'http-reuse' : expects 'never', 'safe', 'aggressive' or 'always', not 'sometimes'.");
    }

    /** How many connections the proxy holds open to a port, as ss lists them. */
    private static long connectionsTo(int port) throws Exception {
        Process p = new ProcessBuilder(Program.SS.require(), "-tnH", "state", "established", "( dport = :" + port + " )").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        return out.lines().filter(l -> !l.isBlank()).count();
    }

    @Test
    void idleConnectionsBeyondTheEstimatedNeedCloseAndTheLastOneGoesAfterAFewPurges() throws Exception {
        Program.SS.require();
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start("""
                    global
                        nbthread 1
                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 30s
                        timeout server 30s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        pool-purge-delay 400ms
                        server s1 127.0.0.1:%d
                    """.formatted(port, o.port()), port)) {
                // each client sends one request and leaves: under 'safe' each first request opens its own connection; one
                // at a time was needed, so only the first waits idle and the others close once answered (HAProxy's
                // srv_add_to_idle_list)
                for (int i = 0; i < 8; i++) {
                    try (RawClient c = new RawClient(port)) {
                        assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read().status()).isEqualTo(200);
                    }
                }
                assertThat(o.requests().stream().map(Origin.Request::connection).distinct().count()).isEqualTo(8);
                assertThat(connectionsTo(o.port())).isEqualTo(1);
                // unused, the estimate decays each period (1, then 0) and the last idle connection goes at the third purge
                long t0 = System.nanoTime();
                long n = 1;
                for (int i = 0; i < 100 && n > 0; i++) {
                    Thread.sleep(20);
                    n = connectionsTo(o.port());
                }
                assertThat(n).isZero();
                assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(400L, 1600L);
            }
        }
    }
}
