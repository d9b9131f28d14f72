package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code user group uid gid chroot ulimit-n} in {@code global}: the daemon sets its file-descriptor limit
 * first, binds its listeners, then changes root and identity, and goes on serving plain and TLS traffic
 * and logging (what the JVM reads lazily from disk is read before the root changes).
 */
class ProcessSettingsTest {

    private static boolean root() throws Exception {
        return Files.readString(Path.of("/proc/self/status")).lines().anyMatch(l -> l.matches("Uid:\\s+0\\s.*"));
    }

    private static String status(long pid, String field) throws Exception {
        return Files.readString(Path.of("/proc/" + pid + "/status")).lines().filter(l -> l.startsWith(field + ":"))
                .findFirst().orElseThrow().substring(field.length() + 1).trim();
    }

    /** Soft and hard "Max open files" of a process. */
    private static long[] fdLimits(long pid) throws Exception {
        Matcher m = Pattern.compile("Max open files\\s+(\\d+)\\s+(\\d+)").matcher(Files.readString(Path.of("/proc/" + pid + "/limits")));
        assertThat(m.find()).isTrue();
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    @Test
    void checkModeNamesAnUnknownUserGroupAndChrootWithTheirLines() {
        Sluice.Result r = Sluice.check("""
                global
                    user no-such-user-here
                    group no-such-group-here
                    chroot /no/such/directory
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                backend be
                    server s1 127.0.0.1:2
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output())
                .contains("test.cfg:2: error: 'user' : cannot find user id for 'no-such-user-here'.")
                .contains("test.cfg:3: error: 'group' : cannot find group id for 'no-such-group-here'.")
                .contains("error: 'chroot' : '/no/such/directory' is not a directory.")
                .doesNotContain("Configuration file is valid");
    }

    @Test
    void knownUsersAndNumericIdsPassTheCheck() {
        Sluice.Result r = Sluice.check("""
                global
                    user nobody
                    gid 65534
                    ulimit-n 2000
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                backend be
                    server s1 127.0.0.1:2
                """);
        assertThat(r.output()).isEqualTo("Configuration file is valid\n");
        assertThat(r.exitCode()).isZero();
    }

    @Test
    void ulimitNSetsBothFileDescriptorLimits() throws Exception {
        long hard = fdLimits(ProcessHandle.current().pid())[1];
        long want = Math.min(hard, 4096) - 7;
        int port = Ports.free();
        try (Origin o = Origin.start("o1");
                Sluice s = Sluice.start("""
                        global
                            ulimit-n %d
                        defaults
                            mode http
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                        frontend fe
                            bind 127.0.0.1:%d
                            default_backend be
                        backend be
                            server o1 127.0.0.1:%d
                        """.formatted(want, port, o.port()), port)) {
            assertThat(fdLimits(s.pid())).containsExactly(want, want);
            assertThat(get("http://127.0.0.1:" + port + "/").body()).isEqualTo("origin o1\n");
        }
    }

    @Test
    void chrootUserAndGroupAreTakenOnceListeningAndTrafficGoesOn() throws Exception {
        assumeTrue(root(), "changing root and user needs root");
        TestPki pki = new TestPki("privs-ca");
        TestPki.Issued cert = pki.leaf("localhost");
        Path jail = Files.createTempDirectory("sluice-jail");
        int plain = Ports.free();
        int tls = Ports.free();
        try (Origin o = Origin.start("o1");
                Sluice s = Sluice.start("""
                        global
                            user nobody
                            group nogroup
                            chroot %s
                            log stdout format raw local0
                        defaults
                            mode http
                            log global
                            option httplog
                            timeout client 5s
                            timeout server 5s
                            timeout connect 5s
                        frontend fe
                            bind 127.0.0.1:%d
                            bind 127.0.0.1:%d ssl crt %s
                            default_backend be
                        backend be
                            server o1 127.0.0.1:%d
                        """.formatted(jail, plain, tls, cert.pem(), o.port()), plain, tls)) {
            // the listeners are bound before the switch, so wait for it rather than for the ports
            for (int i = 0; i < 200 && !status(s.pid(), "Uid").startsWith("65534"); i++) {
                Thread.sleep(25);
            }
            assertThat(status(s.pid(), "Uid")).matches("65534\\s+65534\\s+65534\\s+65534");
            assertThat(status(s.pid(), "Gid")).matches("65534\\s+65534\\s+65534\\s+65534");
            assertThat(status(s.pid(), "Groups")).isEmpty();
            assertThat(Files.readSymbolicLink(Path.of("/proc/" + s.pid() + "/root"))).isEqualTo(jail.toRealPath());
            for (int i = 0; i < 3; i++) {
                assertThat(get("http://127.0.0.1:" + plain + "/p" + i).body()).isEqualTo("origin o1\n");
            }
            // new TLS handshakes after the switch (the random source and the TLS library were loaded before)
            HttpClient tlsClient = HttpClient.newBuilder().sslContext(pki.clientContext()).build();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = tlsClient.send(HttpRequest.newBuilder(URI.create("https://localhost:" + tls + "/t" + i)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("origin o1\n");
            }
            // the harness's own probe of the TLS port is logged as an embryonic session: count requests only
            List<String> logs = AccessLogTest.lines(s, 7).stream().filter(l -> l.contains(" be/o1 ")).toList();
            assertThat(logs).hasSize(6);
            for (String l : logs) {
                AccessLogTest.Line line = AccessLogTest.parse(l);
                assertThat(line.status()).isEqualTo(200);
                assertThat(line.srv()).isEqualTo("o1");
            }
            assertThat(s.process().isAlive()).isTrue();
        }
    }

    @Test
    void aRootThatCannotBeTakenStopsTheDaemonWithHaproxysAlert() throws Exception {
        assumeTrue(!root(), "only a non-root user is refused chroot");
        Path jail = Files.createTempDirectory("sluice-jail");
        int port = Ports.free();
        Path cfg = Sluice.writeConfig("""
                global
                    chroot %s
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200
                """.formatted(jail, port));
        Sluice.Result r = Sluice.run(List.of("-f", cfg.toString()), java.util.Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("[ALERT] [sluice.main()] Cannot chroot(" + jail + "): Operation not permitted.");
    }

    private static HttpResponse<String> get(String url) throws Exception {
        try (HttpClient c = HttpClient.newHttpClient()) {
            return c.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
