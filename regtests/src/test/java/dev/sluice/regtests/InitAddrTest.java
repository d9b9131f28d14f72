package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code init-addr}: a server whose name does not resolve at start-up under {@code init-addr ...,none} starts in
 * HAProxy's resolution maintenance ("MAINT (resolution)", no address, admin state 32) instead of failing the start; an
 * IP address in the list stands in for the name; {@code set server ... addr} brings the server back. The start-up state
 * is compared with HAProxy 2.6's ({@code show stat}, {@code show servers state}).
 */
class InitAddrTest {

    private static String config(int port, int origin) {
        return """
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    log global
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    use_backend only if { path /only }
                    default_backend be
                backend be
                    default-server init-addr last,libc,none
                    server s1 name.does-not-resolve.invalid:%d
                    server s2 localhost:%d
                    server s3 other.does-not-resolve.invalid:80 init-addr 127.0.0.2
                backend only
                    server s1 name.does-not-resolve.invalid:%d init-addr none
                """.formatted(port, origin, origin, origin);
    }

    /** show stat's status and addr, and show servers state with the seconds since the last change masked. */
    private static List<String> state(Daemon d) {
        List<String> out = new java.util.ArrayList<>();
        for (String row : List.of("be,s1", "be,s2", "be,s3", "only,s1", "only,BACKEND")) {
            out.add(row + " " + ServerQueueTest.stat(d, row, "status") + " [" + ServerQueueTest.stat(d, row, "addr") + "]");
        }
        for (String l : AdminClient.run(d.dir().resolve("admin.sock"), "show servers state\n").lines().toList()) {
            String[] f = l.split(" ");
            if (f.length > 10 && !l.startsWith("#")) {
                f[9] = "T";
                out.add(String.join(" ", f));
            }
        }
        return out;
    }

    @Test
    void anUnresolvedServerWaitsInMaintenanceForAnAddress() throws Exception {
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            List<String> sluice;
            try (Daemon d = Daemon.start(false, config(port, o.port()), port)) {
                sluice = state(d);
                assertThat(sluice).contains("be,s1 MAINT (resolution) []", "be,s3 no check [127.0.0.2:80]", "only,BACKEND DOWN []");
                assertThat(d.output()).contains("'server be/s1' : could not resolve address 'name.does-not-resolve.invalid', disabling server.");
                try (RawClient c = new RawClient(port, 5_000)) {
                    assertThat(c.send("GET /only HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).isEqualTo(503);
                }
                String answer = AdminClient.run(d.dir().resolve("admin.sock"), "set server only/s1 addr 127.0.0.1\n");
                assertThat(answer).contains("IP changed");
                assertThat(d.awaitLines(l -> l.contains("Server only/s1 ('name.does-not-resolve.invalid') is UP/READY (resolves again)."), 1))
                        .isNotEmpty();
                assertThat(ServerQueueTest.stat(d, "only,s1", "status")).isEqualTo("no check");
                try (RawClient c = new RawClient(port, 5_000)) {
                    RawClient.Response r = c.send("GET /only HTTP/1.1\r\nhost: x\r\n\r\n").read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.header("x-origin")).isEqualTo("o");
                }
            }
        }
    }

    /** The servers' states at start-up, unresolved ones included, are HAProxy 2.6's. */
    @Test
    void theStatesAtStartAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            List<String> sluice;
            try (Daemon d = Daemon.start(false, config(port, o.port()), port)) {
                sluice = state(d);
            }
            int hport = Ports.free();
            try (Daemon h = Daemon.start(true, config(hport, o.port()), hport)) {
                assertThat(sluice).as("Sluice against HAProxy 2.6").isEqualTo(state(h));
            }
        }
    }

    @Test
    void withoutNoneAnUnresolvableNameStopsTheStart() throws Exception {
        java.nio.file.Path cfg = java.nio.file.Files.createTempFile("init-addr", ".cfg");
        java.nio.file.Files.writeString(cfg, """
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                backend be
                    server s1 name.does-not-resolve.invalid:80 init-addr libc,last
                    server s2 name.does-not-resolve.invalid:80 init-addr 10.0.0.1,none
                """);
        Sluice.Result r = Sluice.run(List.of("-c", "-f", cfg.toString()), java.util.Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains(":7: error: 'server be/s1' : could not resolve address 'name.does-not-resolve.invalid'.")
                .doesNotContain("'server be/s2'");
    }
}
