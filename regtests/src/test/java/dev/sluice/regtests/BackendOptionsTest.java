package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Options that change how a backend serves requests, through the real daemon and, when it is installed, HAProxy 2.6 on
 * the same configuration: {@code option prefer-last-server}.
 */
class BackendOptionsTest {
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

    private static final String HEADER = """
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    log global
                    option httplog
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                """;

    /**
     * One keep-alive client connection per listen: with {@code http-reuse never} and the option its requests stay on
     * the server of its first private connection while that server is usable (even back from a drain); the option
     * does nothing with shared connections (HAProxy 2.6 keeps only private ones per client connection), nor without it.
     */
    private List<String> preferLastServer(boolean haproxy, Origin s1, Origin s2) {
        int[] ports = {Ports.free(), Ports.free(), Ports.free()};
        String servers = "    server s1 127.0.0.1:" + s1.port() + "\n    server s2 127.0.0.1:" + s2.port() + "\n";
        String cfg = HEADER
                + "listen plsnever\n    bind 127.0.0.1:" + ports[0] + "\n    option prefer-last-server\n    http-reuse never\n" + servers
                + "listen pls\n    bind 127.0.0.1:" + ports[1] + "\n    option prefer-last-server\n" + servers
                + "listen never\n    bind 127.0.0.1:" + ports[2] + "\n    http-reuse never\n" + servers;
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, ports[2])) {
            java.nio.file.Path admin = d.dir().resolve("admin.sock");
            for (int p = 0; p < ports.length; p++) {
                StringBuilder seen = new StringBuilder(List.of("plsnever", "pls", "never").get(p)).append(':');
                try (RawClient c = new RawClient(ports[p], 10_000)) {
                    for (int i = 1; i <= 6; i++) {
                        if (p == 0 && i == 3) {
                            AdminClient.run(admin, "set server plsnever/s1 state drain\n");
                        }
                        if (p == 0 && i == 5) {
                            AdminClient.run(admin, "set server plsnever/s1 state ready\n");
                        }
                        seen.append(' ').append(c.send("GET /" + i + " HTTP/1.1\r\nhost: t\r\n\r\n").read().header("x-origin"));
                    }
                }
                out.add(seen.toString());
            }
            for (String row : List.of("plsnever,s1", "plsnever,s2", "plsnever,BACKEND", "pls,BACKEND")) {
                out.add(row + " lbtot " + ServerQueueTest.stat(d, row, "lbtot"));
            }
        }
        return out;
    }

    @Test
    void preferLastServerAsHaproxy() {
        Origin s1 = origin("s1");
        Origin s2 = origin("s2");
        List<String> sluice = preferLastServer(false, s1, s2);
        assertThat(sluice).containsExactly(
                "plsnever: s1 s1 s2 s2 s1 s1",
                "pls: s1 s2 s1 s2 s1 s2",
                "never: s1 s2 s1 s2 s1 s2",
                // the balancing chose twice: the first request and the one while s1 drained
                "plsnever,s1 lbtot 1", "plsnever,s2 lbtot 1", "plsnever,BACKEND lbtot 2", "pls,BACKEND lbtot 6");
        if (Daemon.haproxyInstalled()) {
            assertThat(preferLastServer(true, s1, s2)).as("HAProxy 2.6").isEqualTo(sluice);
        }
    }
}
