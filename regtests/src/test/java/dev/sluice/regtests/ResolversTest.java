package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * DNS at run time against a real DNS server: dnsmasq (Debian package dnsmasq-base) on a free port, answering from a hosts
 * file the tests rewrite and reload (SIGHUP) and from {@code --srv-host} records. Sluice and HAProxy 2.6 follow the same
 * records at once on the same configuration: their {@code show servers state} (the time since the last change masked)
 * and their log lines of the changes must be the same; a record that changes under load loses no request. One dnsmasq
 * per class; each test has its own names.
 */
class ResolversTest {
    private static Path dir;
    private static Path hosts;
    private static Process dnsmasq;
    private static int dnsPort;

    /**
     * Starts the class's dnsmasq on first use; a test without dnsmasq is skipped naming it and its package (each test, so
     * that the skip is reported as the others are).
     */
    private static synchronized void startDns() throws Exception {
        String exe = Program.DNSMASQ.require();
        if (dnsmasq != null) {
            return;
        }
        dir = Files.createTempDirectory("dnsmasq");
        hosts = dir.resolve("hosts");
        Files.writeString(hosts, "");
        dnsPort = Ports.free();
        List<String> cmd = new ArrayList<>(List.of(exe, "--keep-in-foreground", "--no-resolv", "--no-hosts", "--local=/test/",
                "--addn-hosts=" + hosts, "--port=" + dnsPort, "--listen-address=127.0.0.1", "--bind-interfaces", "--conf-file=/dev/null",
                "--pid-file=", "--user=" + System.getProperty("user.name"), "--log-facility=" + dir.resolve("dnsmasq.log"),
                "--srv-host=_http._tcp.svc.test,one.svc.test,8080,0,512", "--srv-host=_http._tcp.svc.test,two.svc.test,8081,0,1024",
                "--srv-host=_http._tcp.svc.test,three.svc.test,8082,0,0", "--cname=alias.test,cn.test"));
        dnsmasq = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("dnsmasq.out").toFile()).start();
        // dnsmasq answers once it has read its files
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(dir.resolve("dnsmasq.log")) || !Files.readString(dir.resolve("dnsmasq.log")).contains("read " + hosts)) {
            assertThat(dnsmasq.isAlive()).as("dnsmasq: %s", Files.readString(dir.resolve("dnsmasq.out"))).isTrue();
            assertThat(System.nanoTime()).isLessThan(deadline);
            Daemon.sleep(20);
        }
    }

    @AfterAll
    static void stopDns() throws Exception {
        if (dnsmasq != null) {
            dnsmasq.destroy();
            dnsmasq.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** Rewrites the hosts file and has dnsmasq read it again. */
    private static void records(String... lines) throws Exception {
        startDns();
        Files.writeString(hosts, String.join("\n", lines) + "\n", StandardCharsets.US_ASCII);
        int before = Files.readString(dir.resolve("dnsmasq.log")).split("read " + hosts, -1).length;
        Process k = new ProcessBuilder(Program.KILL.require(), "-HUP", String.valueOf(dnsmasq.pid())).start();
        assertThat(k.waitFor(5, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (Files.readString(dir.resolve("dnsmasq.log")).split("read " + hosts, -1).length <= before) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Daemon.sleep(10);
        }
    }

    private static String config(int port, String backend) {
        return config(port, backend, "");
    }

    private static String config(int port, String backend, String transport) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                resolvers dns
                    nameserver ns1 %s127.0.0.1:%d
                    timeout resolve 200ms
                    timeout retry 200ms
                    hold valid 200ms
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request use-service prometheus-exporter if { path /metrics }
                    default_backend be
                backend be
                %s
                """.formatted(transport, dnsPort, port, backend);
    }

    /** show servers state without the seconds since the last change. */
    private static List<String> state(Daemon d) {
        List<String> out = new ArrayList<>();
        for (String l : AdminClient.run(d.dir().resolve("admin.sock"), "show servers state\n").lines().toList()) {
            String[] f = l.split(" ");
            if (f.length > 10 && !l.startsWith("#")) {
                f[9] = "T";
                out.add(String.join(" ", f));
            }
        }
        return out;
    }

    /** The lines of server changes, without the PID. */
    private static List<String> changes(Daemon d) {
        return d.output().lines().filter(l -> l.contains("changed its") || l.contains("resolves again") || l.contains("READY thanks")
                || l.contains("going DOWN for maintenance")).map(l -> l.replaceFirst("^\\[WARNING\\] +\\(\\d+\\) : ", "")).toList();
    }

    /** Waits until both show the same state that {@code done} accepts (they resolve at their own pace), then returns Sluice's. */
    private static List<String> same(Daemon sluice, Daemon haproxy, Supplier<String> what, Predicate<List<String>> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> s = state(sluice);
        List<String> h = state(haproxy);
        while (!(s.equals(h) && done.test(s)) && System.nanoTime() < deadline) {
            Daemon.sleep(100);
            s = state(sluice);
            h = state(haproxy);
        }
        assertThat(s).as("Sluice against HAProxy 2.6: %s", what.get()).isEqualTo(h);
        return s;
    }

    private static long maint(List<String> state) {
        return state.stream().filter(l -> l.contains(" - 0 32 ")).count();
    }

    @Test
    void templateSlotsFillEmptyAndFillAgainAsHaproxys() throws Exception {
        Program.HAPROXY.require();
        records("127.0.0.11 app.test", "127.0.0.12 app.test", "127.0.0.13 app.test");
        String be = """
                    server-template w 5 app.test:80 resolvers dns init-addr none resolve-prefer ipv4
                """;
        int port = Ports.free();
        int hport = Ports.free();
        try (Daemon s = Daemon.start(false, config(port, be), port); Daemon h = Daemon.start(true, config(hport, be), hport)) {
            List<String> three = same(s, h, () -> "3 records", l -> maint(l) == 2);
            assertThat(three).filteredOn(l -> l.contains(" - 0 32 ")).hasSize(2);
            records("127.0.0.11 app.test", "127.0.0.12 app.test", "127.0.0.13 app.test", "127.0.0.14 app.test", "127.0.0.15 app.test");
            List<String> five = same(s, h, () -> "5 records", l -> maint(l) == 0);
            assertThat(five).noneMatch(l -> l.contains(" - 0 32 "));
            records("127.0.0.12 app.test");
            List<String> one = same(s, h, () -> "1 record", l -> maint(l) == 4);
            assertThat(one).filteredOn(l -> l.contains(" - 0 32 ")).hasSize(4);
            assertThat(one).anyMatch(l -> l.contains(" 127.0.0.12 2 0 "));
            Daemon.sleep(300);
            assertThat(changes(s)).as("log lines").isEqualTo(changes(h)).contains("be/w1 changed its IP from (none) to 127.0.0.13 by dns/ns1.",
                    "Server be/w4 ('app.test') is UP/READY (resolves again).", "Server be/w4 administratively READY thanks to valid DNS answer.")
                    .anyMatch(l -> l.matches("Server be/w\\d is going DOWN for maintenance \\(No IP for server \\)\\. \\d active and 0 backup"
                            + " servers left\\. 0 sessions active, 0 requeued, 0 remaining in queue\\."));
        }
    }

    @Test
    void srvRecordsGiveAddressPortAndWeightAndIpv6IsPreferred() throws Exception {
        Program.HAPROXY.require();
        records("127.0.0.21 one.svc.test", "127.0.0.22 two.svc.test", "127.0.0.23 three.svc.test", "127.0.0.31 dual.test",
                "fd00::31 dual.test", "127.0.0.41 v4only.test");
        String be = """
                    server-template x 4 _http._tcp.svc.test resolvers dns init-addr none resolve-prefer ipv4
                    server d1 dual.test:80 resolvers dns init-addr none
                    server d2 dual.test:80 resolvers dns init-addr none resolve-prefer ipv4
                    server v v4only.test:80 resolvers dns init-addr none
                """;
        int port = Ports.free();
        int hport = Ports.free();
        try (Daemon s = Daemon.start(false, config(port, be), port); Daemon h = Daemon.start(true, config(hport, be), hport)) {
            List<String> st = same(s, h, () -> "SRV, AAAA", l -> maint(l) == 1 && l.stream().anyMatch(x -> x.contains(" v 127.")));
            assertThat(st).anyMatch(l -> l.contains(" 127.0.0.22 2 64 4 1 T ") && l.contains(" two.svc.test 8081 _http._tcp.svc.test "))
                    .anyMatch(l -> l.contains(" 127.0.0.21 2 64 2 1 T ") && l.contains(" one.svc.test 8080 "))
                    .anyMatch(l -> l.contains(" 127.0.0.23 2 64 0 1 T ") && l.contains(" three.svc.test 8082 "))
                    .anyMatch(l -> l.contains(" x4 - 0 32 1 1 T ") && l.contains(" - 0 _http._tcp.svc.test "))
                    .anyMatch(l -> l.contains(" d1 fd00::31 2 0 "))
                    .anyMatch(l -> l.contains(" d2 127.0.0.31 2 0 "))
                    .anyMatch(l -> l.contains(" v 127.0.0.41 2 0 "));
            // an SRV record goes away: its slot goes to maintenance, the others keep theirs
            records("127.0.0.21 one.svc.test", "127.0.0.22 two.svc.test", "127.0.0.24 three.svc.test", "127.0.0.31 dual.test",
                    "fd00::31 dual.test", "127.0.0.41 v4only.test");
            same(s, h, () -> "a target's address changes", l -> l.stream().anyMatch(x -> x.contains(" 127.0.0.24 ")));
            Daemon.sleep(300);
            assertThat(changes(s)).as("log lines").isEqualTo(changes(h));
            String resolvers = AdminClient.run(s.dir().resolve("admin.sock"), "show resolvers dns\n");
            String hresolvers = AdminClient.run(h.dir().resolve("admin.sock"), "show resolvers dns\n");
            assertThat(resolvers.replaceAll("\\d+", "N")).isEqualTo(hresolvers.replaceAll("\\d+", "N"));
            assertThat(resolvers).startsWith("Resolvers section dns\n nameserver ns1:\n  sent:        ").contains("  snd_error:   0\n")
                    .contains("  nx:          0\n").doesNotContain("  valid:       0\n")
                    .doesNotContain("  any_err:     0\n");
            assertThat(AdminClient.run(s.dir().resolve("admin.sock"), "show resolvers nope\n")).isEqualTo(
                    AdminClient.run(h.dir().resolve("admin.sock"), "show resolvers nope\n"));
        }
    }

    @Test
    void nxdomainCnameADeadNameServerAndMoreRecordsThanSlotsAsHaproxys() throws Exception {
        Program.HAPROXY.require();
        records("127.0.0.81 gone.test", "127.0.0.71 cn.test", "127.0.0.91 many.test", "127.0.0.92 many.test", "127.0.0.93 many.test");
        int dead = Ports.free();
        String be = """
                    server n gone.test:80 resolvers bad init-addr none resolve-prefer ipv4
                    server c alias.test:80 resolvers bad init-addr none resolve-prefer ipv4
                    server-template m 2 many.test:80 resolvers bad init-addr none resolve-prefer ipv4
                resolvers bad
                    nameserver live 127.0.0.1:%d
                    nameserver dead 127.0.0.1:%d
                    timeout resolve 200ms
                    timeout retry 200ms
                    hold nx 600ms
                """.formatted(dnsPort, dead);
        int port = Ports.free();
        int hport = Ports.free();
        try (Daemon s = Daemon.start(false, config(port, be), port); Daemon h = Daemon.start(true, config(hport, be), hport)) {
            List<String> st = same(s, h, () -> "CNAME, 3 records for 2 slots", l -> maint(l) == 0);
            assertThat(st).anyMatch(l -> l.contains(" c 127.0.0.71 2 0 ")).anyMatch(l -> l.contains(" n 127.0.0.81 2 0 "));
            records("127.0.0.71 cn.test", "127.0.0.91 many.test", "127.0.0.92 many.test", "127.0.0.93 many.test");
            same(s, h, () -> "NXDOMAIN past hold nx", l -> maint(l) == 1);
            Daemon.sleep(300);
            assertThat(changes(s)).as("log lines").isEqualTo(changes(h)).contains("Server be/n is going DOWN for maintenance (DNS NX status)."
                    + " 3 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.");
            String counters = AdminClient.run(s.dir().resolve("admin.sock"), "show resolvers bad\n");
            assertThat(counters.split(" nameserver dead:")[0]).doesNotContain("  nx:          0\n");
            assertThat(counters).contains(" nameserver dead:\n  sent:        ");
            try (RawClient c = new RawClient(port, 5_000)) {
                assertThat(c.send("GET / HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).as("still serving").isEqualTo(503);
            }
        }
    }

    @Test
    void setServerFqdnAsHaproxys() throws Exception {
        Program.HAPROXY.require();
        records("127.0.0.101 first.test", "127.0.0.102 second.test");
        String be = """
                    server ip 127.0.0.100:80 resolvers dns resolve-prefer ipv4
                    server named first.test:80 resolvers dns init-addr none resolve-prefer ipv4
                    server plain 127.0.0.100:80
                    server-template x 1 _http._tcp.svc.test resolvers dns init-addr none
                """;
        int port = Ports.free();
        int hport = Ports.free();
        try (Daemon s = Daemon.start(false, config(port, be), port); Daemon h = Daemon.start(true, config(hport, be), hport)) {
            same(s, h, () -> "start", l -> l.stream().anyMatch(x -> x.contains(" named 127.0.0.101 ")));
            for (String cmd : List.of("set server be/plain fqdn second.test", "set server be/x1 fqdn second.test", "set server be/ip fqdn",
                    "set server be/named fqdn first.test", "set server be/named fqdn bad/name", "set server be/ip fqdn second.test",
                    "set server be/named fqdn second.test")) {
                assertThat(AdminClient.run(s.dir().resolve("admin.sock"), cmd + "\n")).as(cmd)
                        .isEqualTo(AdminClient.run(h.dir().resolve("admin.sock"), cmd + "\n"));
            }
            List<String> st = same(s, h, () -> "renamed", l -> l.stream().filter(x -> x.contains(" 127.0.0.102 2 64 ")).count() == 2);
            assertThat(st).anyMatch(l -> l.contains(" ip 127.0.0.102 ") && l.contains(" second.test 80 "));
        }
    }

    @Test
    void aTcpNameServerIsAskedOverTcp() throws Exception {
        Program.HAPROXY.require();
        records("127.0.0.61 tcp.test", "127.0.0.62 tcp.test");
        String be = "    server-template t 3 tcp.test:80 resolvers dns init-addr none resolve-prefer ipv4\n";
        int port = Ports.free();
        int hport = Ports.free();
        try (Daemon s = Daemon.start(false, config(port, be, "tcp@"), port); Daemon h = Daemon.start(true, config(hport, be, "tcp@"), hport)) {
            same(s, h, () -> "over TCP", l -> maint(l) == 1);
            assertThat(AdminClient.run(s.dir().resolve("admin.sock"), "show resolvers dns\n")).doesNotContain("  valid:       0\n")
                    .contains("  snd_error:   0\n");
        }
    }

    @Test
    void aRecordChangedUnderLoadLosesNoRequest() throws Exception {
        Program.H2LOAD.require();
        int originPort = Ports.free();
        records("127.0.0.51 load.test");
        try (Origin a = Origin.startOn("a", "127.0.0.51", originPort); Origin b = Origin.startOn("b", "127.0.0.52", originPort)) {
            String be = "    server s1 load.test:" + originPort + " resolvers dns init-addr none resolve-prefer ipv4\n";
            int port = Ports.free();
            try (Daemon s = Daemon.start(false, config(port, be), port)) {
                assertThat(s.awaitLines(l -> l.contains("be/s1 changed its IP from (none) to 127.0.0.51 by dns/ns1."), 1)).isNotEmpty();
                Process load = new ProcessBuilder(Program.H2LOAD.require(), "--h1", "-D", "3", "-c", "8", "http://127.0.0.1:" + port + "/")
                        .redirectErrorStream(true).start();
                Daemon.sleep(1000);
                long switched = System.nanoTime();
                records("127.0.0.52 load.test");
                assertThat(s.awaitLines(l -> l.contains("be/s1 changed its IP from 127.0.0.51 to 127.0.0.52 by dns/ns1."), 1)).isNotEmpty();
                long tookMs = (System.nanoTime() - switched) / 1_000_000;
                String out = new String(load.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(load.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(out).containsPattern("requests: \\d+ total, \\d+ started, \\d+ done, \\d+ succeeded, 0 failed, 0 errored");
                assertThat(a.requests()).isNotEmpty();
                try (RawClient c = new RawClient(port, 5_000)) {
                    String metrics = new String(c.send("GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n").read().body(), StandardCharsets.UTF_8);
                    for (String counter : List.of("sent", "valid", "update")) {
                        assertThat(metrics.lines().filter(l -> l.startsWith("sluice_resolver_" + counter + "_total{") && l.contains("resolver=\"dns\"")
                                && l.contains("nameserver=\"ns1\"")).toList()).singleElement().satisfies(l -> assertThat(l).doesNotEndWith(" 0.0"));
                    }
                }
                assertThat(b.requests()).as("new connections go to the new address").isNotEmpty();
                // hold valid + timeout resolve, and the time dnsmasq took to reload
                assertThat(tookMs).isLessThan(2000);
            }
        }
    }

    @Test
    void checkModeErrorsAreHaproxys() throws Exception {
        Program.HAPROXY.require();
        startDns();
        Path cfg = dir.resolve("bad.cfg");
        Files.writeString(cfg, """
                resolvers dns
                    nameserver ns1 127.0.0.1
                    nameserver ns3 1.2.3.4:99999
                    hold foo 5s
                    timeout resolve 1x
                    accepted_payload_size 5
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 1s
                    timeout server 1s
                backend b
                    server-template w 5-2 app.test:80 resolvers dns init-addr none
                    server s1 app.test:80 resolve-prefer ipv5 resolvers dns
                    server s2 app.test:80 resolve-opts foo resolvers dns
                    server s3 app.test:80 resolve-net 10.0.0.0/33 resolvers dns
                """);
        Sluice.Result r = Sluice.run(List.of("-c", "-f", cfg.toString()), java.util.Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        Process p = new ProcessBuilder(Program.HAPROXY.require(), "-c", "-f", cfg.toString()).redirectErrorStream(true).start();
        String h = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        // HAProxy: "[ALERT] ... : config : parsing [file:2] : message"; Sluice: "file:2: error: message"
        List<String> expected = h.lines().filter(l -> l.contains("[" + cfg + ":")).map(l -> {
            String rest = l.substring(l.indexOf("[" + cfg + ":") + cfg.toString().length() + 2);
            String line = rest.substring(0, rest.indexOf(']'));
            return cfg + ":" + line + ": error: " + rest.substring(rest.indexOf(']') + 1).replaceFirst("^ ?: ", "");
        }).toList();
        assertThat(expected).hasSize(9);
        assertThat(r.output().lines().filter(l -> l.startsWith(cfg + ":")).toList()).isEqualTo(expected);
        // a resolvers section no server names stays: the name a server gives must exist
        Files.writeString(cfg, """
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 1s
                    timeout server 1s
                backend b
                    server s1 app.test:80 resolvers nodns init-addr none
                """);
        assertThat(Sluice.run(List.of("-c", "-f", cfg.toString()), java.util.Map.of()).output())
                .contains(cfg + ":7: error: backend 'b', server 's1': unable to find required resolvers 'nodns'");
    }
}
