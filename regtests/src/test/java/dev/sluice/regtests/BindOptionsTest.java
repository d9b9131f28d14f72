package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * Socket options of {@code bind} lines: {@code v6only} and {@code v4v6} decide which families an IPv6
 * wildcard socket takes; {@code name} names the listener in connection error lines; the TCP options
 * ({@code backlog defer-accept tfo mss tcp-ut id}) are accepted and the listener serves.
 */
class BindOptionsTest {

    private static boolean ipv6() {
        try (Socket s = new Socket()) {
            java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, InetAddress.getByName("::1"));
            ss.close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean answers(String host, int port) {
        try (RawClient c = new RawClient(host, port)) {
            return c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status() == 200;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean connects(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void v6onlyKeepsIpv4ClientsOutAndV4v6LetsThemIn() {
        assumeTrue(ipv6(), "no IPv6 loopback");
        int only = Ports.free();
        int both = Ports.free();
        String cfg = """
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind [::]:%d v6only name six
                    bind [::]:%d v4v6 name dual backlog 64 defer-accept tfo mss 1400 tcp-ut 30s id 7
                    http-request return status 200 content-type text/plain string "ok"
                """.formatted(only, both);
        try (Sluice s = Sluice.start(cfg, both)) {
            assertThat(answers("::1", only)).isTrue();
            assertThat(connects("127.0.0.1", only)).as("an IPv4 client on a v6only socket").isFalse();
            assertThat(answers("::1", both)).isTrue();
            // defer-accept: the request must come with or right after the connection, which it does
            assertThat(answers("127.0.0.1", both)).isTrue();
        }
    }

    @Test
    void aBindNameNamesTheListenerInConnectionErrors() throws Exception {
        TestPki pki = new TestPki("bind-ca");
        TestPki.Issued cert = pki.leaf("localhost");
        int plain = Ports.free();
        int tls = Ports.free();
        String cfg = """
                global
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
                    bind 127.0.0.1:%d ssl crt %s name secure
                    http-request return status 200
                """.formatted(plain, tls, cert.pem());
        // both ports are awaited (the probe of the TLS one logs "closed during SSL handshake", not a failure)
        try (Sluice s = Sluice.start(cfg, plain, tls)) {
            try (RawClient c = new RawClient(tls)) {
                c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
                c.readToEnd();
            }
            String line = null;
            for (int i = 0; i < 100 && line == null; i++) {
                line = s.output().lines().filter(l -> l.contains("SSL handshake failure")).findFirst().orElse(null);
                Thread.sleep(30);
            }
            assertThat(line).matches("127\\.0\\.0\\.1:\\d+ \\[.*\\] fe/secure: SSL handshake failure");
        }
    }

    @Test
    void badBindOptionsAreConfigErrors() {
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1 mss
                    bind 127.0.0.1:2 backlog lots
                    bind fd@3 defer-accept
                    bind 127.0.0.1:4 maxconn 10
                    bind 127.0.0.1:5 nice 10
                    http-request return status 200
                """);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("test.cfg:7: error: 'bind' : 'mss' expects an argument.")
                .contains("test.cfg:8: error: 'bind' : backlog expects an integer, not 'lots'")
                .contains("test.cfg:9: error: 'bind' : 'defer-accept' only applies to TCP addresses, not to 'fd@3'.")
                .contains("test.cfg:10: error: 'bind' : bind option 'maxconn' is not supported by Sluice yet: per-listener connection limits")
                .contains("test.cfg:11: error: 'bind' : bind option 'nice' is not supported by Sluice yet: this bind option");
    }

    @Test
    void aSocketOptionTheKernelRefusesStopsTheStartWithTheOptionNamed() {
        int port = Ports.free();
        java.nio.file.Path cfg = Sluice.writeConfig("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d interface nosuchif0
                    http-request return status 200
                """.formatted(port));
        Sluice.Result r = Sluice.run(java.util.List.of("-f", cfg.toString()), java.util.Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("[ALERT] Starting frontend fe: cannot set socket option 'interface nosuchif0' for [127.0.0.1:"
                + port + "] (setsockopt() failed: No such device)");
    }

    /** The sockets {@code ss} lists for a filter, with their timers ({@code -o}). */
    private static String ss(String filter) throws Exception {
        Process p = new ProcessBuilder(Program.SS.require(), "-tnoH", "state", "established", filter).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    @Test
    void tcpKeepAliveProbesOnClientAndServerConnections() throws Exception {
        Program.SS.require();
        try (Origin o = Origin.start("o1")) {
            int on = Ports.free();
            int off = Ports.free();
            String cfg = """
                    defaults
                        mode http
                        timeout client 30s
                        timeout server 30s
                        timeout connect 5s
                    frontend ka
                        bind 127.0.0.1:%d
                        option clitcpka
                        default_backend be_ka
                    frontend plain
                        bind 127.0.0.1:%d
                        default_backend be_plain
                    backend be_ka
                        option srvtcpka
                        server o1 127.0.0.1:%d
                    backend be_plain
                        server o1 127.0.0.1:%d
                    """.formatted(on, off, o.port(), o.port());
            try (Sluice s = Sluice.start(cfg, on, off); RawClient a = new RawClient(on); RawClient b = new RawClient(off)) {
                assertThat(a.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                // the proxy's side of the client connection: local port 'on'; with keep-alive probes it has a keepalive timer
                assertThat(ss("( sport = :" + on + " )")).contains("timer:(keepalive");
                assertThat(b.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                assertThat(ss("( sport = :" + off + " )")).isNotBlank().doesNotContain("keepalive");
                // to the origin: one idle connection per backend, one of them with probes
                String toOrigin = ss("( dport = :" + o.port() + " )");
                assertThat(toOrigin.lines().filter(l -> l.contains("timer:(keepalive")).count()).isEqualTo(1);
                assertThat(toOrigin.lines().count()).isEqualTo(2);
            }
        }
    }
}
