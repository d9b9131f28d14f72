package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The admin socket under bad input and in its other set-ups: 10,000 random and truncated command lines, the
 * stick-table, pools and QUIC commands among them (each answered or closed cleanly, the daemon serving afterwards), the NIO transport, an inherited UNIX
 * socket ({@code fd@}), configuration errors and a socket that cannot be bound.
 */
class AdminSocketRobustnessTest {

    static String config(Path sock, int port, int origin) {
        return """
                global
                    stats socket %s level admin
                    stats timeout 3s
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:%d
                    stick-table type ip size 100 expire 30s store http_req_cnt,gpc0,http_req_rate(10s)
                    http-request track-sc0 src
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                    server s2 127.0.0.1:%d
                """.formatted(sock, port, origin, origin);
    }

    static final List<String> COMMANDS = List.of("show info", "show info typed", "show info json desc", "show stat", "show stat be 4 -1",
            "show stat typed", "show servers state", "show servers state be", "show backend", "show errors", "show errors fe request",
            "show cli level", "help", "help show", "prompt", "prompt i", "quit", "operator", "user", "get weight be/s1",
            "set weight be/s1 50%", "set weight be/s2 7", "set server be/s1 state drain", "set server be/s2 state maint",
            "set server be/s1 state ready", "set server be/s1 weight 3", "disable server be/s2", "enable server be/s2",
            "disable frontend fe", "enable frontend fe", "clear counters", "clear counters all", "show sess", "set server be/s1 addr 1.2.3.4",
            "show sess all", "show sess 0x101", "shutdown session 0x101", "shutdown sessions server be/s1", "show servers conn",
            "show activity", "show stat json", "set server be/s1 health down", "set server be/s2 health stopping",
            "set maxconn server be/s1 3", "set maxconn frontend fe 10", "set maxconn global 50", "add server be/s3 127.0.0.1:1",
            "del server be/s3", "show errors -1 response", "show table", "show table fe", "show table fe data.http_req_cnt gt 1",
            "show table fe key 127.0.0.1", "clear table fe key 127.0.0.1", "clear table fe data.gpc0 eq 0", "clear table fe",
            "set table fe key 127.0.0.9 data.http_req_cnt 3", "set table fe key 127.0.0.9 data.gpc0 1 data.http_req_rate 4", "show pools",
            "show pools byname", "show pools match quic 3", "show quic", "show quic full", "show quic oneline all", "help table");

    /** One fuzz input: random text, random bytes, truncated or mangled commands, pipelines, long lines, sessions. */
    static byte[] input(Random rnd) {
        String cmd = COMMANDS.get(rnd.nextInt(COMMANDS.size()));
        StringBuilder b = new StringBuilder();
        switch (rnd.nextInt(9)) {
            case 0 -> {
                for (int i = rnd.nextInt(200); i > 0; i--) {
                    b.append((char) (32 + rnd.nextInt(95)));
                }
                b.append('\n');
            }
            case 1 -> {
                byte[] raw = new byte[rnd.nextInt(300)];
                rnd.nextBytes(raw);
                return raw;
            }
            case 2 -> b.append(cmd, 0, rnd.nextInt(cmd.length() + 1));
            case 3 -> b.append(cmd, 0, rnd.nextInt(cmd.length() + 1)).append('\n');
            case 4 -> {
                for (int i = rnd.nextInt(5) + 1; i > 0; i--) {
                    String c = COMMANDS.get(rnd.nextInt(COMMANDS.size()));
                    b.append(c, 0, rnd.nextInt(c.length() + 1)).append(rnd.nextBoolean() ? ";" : "\\;");
                }
                b.append('\n');
            }
            case 5 -> {
                // a word replaced, a separator doubled, control characters
                String[] w = cmd.split(" ");
                w[rnd.nextInt(w.length)] = Long.toString(rnd.nextLong(), 36) + (rnd.nextBoolean() ? "\0" : "\r");
                b.append(String.join(rnd.nextBoolean() ? " " : "\t\t", w)).append(rnd.nextBoolean() ? "\r\n" : "\n");
            }
            case 6 -> {
                b.append("prompt\n");
                for (int i = rnd.nextInt(6); i > 0; i--) {
                    String c = COMMANDS.get(rnd.nextInt(COMMANDS.size()));
                    b.append(c, 0, rnd.nextInt(c.length() + 1)).append('\n');
                }
            }
            case 7 -> {
                if (rnd.nextInt(20) == 0) {
                    // longer than HAProxy's 16 kB request buffer
                    b.append("show ").append("x".repeat(16_000 + rnd.nextInt(30_000))).append('\n');
                } else {
                    b.append(cmd).append(' ').append("y ".repeat(rnd.nextInt(100))).append('\n');
                }
            }
            default -> b.append(cmd).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void tenThousandRandomAndTruncatedCommandLinesAreAnsweredOrClosedCleanly() throws Exception {
        long seed = System.nanoTime();
        try (Origin o = Origin.start("s")) {
            Path dir = Files.createTempDirectory("sluice-fuzz");
            Path sock = dir.resolve("admin.sock");
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(sock, port, o.port()), port)) {
                AdminClient.await(sock);
                AtomicInteger answered = new AtomicInteger();
                AtomicInteger silent = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(4);
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    Random rnd = new Random(seed + t);
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 2500; i++) {
                            byte[] in = input(rnd);
                            try (AdminClient c = AdminClient.open(sock)) {
                                c.send(in);
                                c.shutdownOutput();
                                // throws when the daemon neither answers and closes nor closes within 10 s, or resets
                                String out = c.readToEnd(10_000);
                                (out.isEmpty() ? silent : answered).incrementAndGet();
                            } catch (AssertionError | RuntimeException e) {
                                throw new AssertionError("seed " + seed + ", input " + new String(in, StandardCharsets.ISO_8859_1).replace("\n", "\\n"),
                                        e);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
                pool.shutdown();
                assertThat(answered.get() + silent.get()).isEqualTo(10_000);
                assertThat(answered.get()).isGreaterThan(5_000);
                // still serving: commands, and traffic once the fuzz's state changes are undone
                assertThat(AdminClient.run(sock, "show cli level\n")).isEqualTo("admin\n\n");
                AdminClient.run(sock, "enable frontend fe;set server be/s1 state ready;set server be/s2 state ready;set weight be/s1 1;"
                        + "set weight be/s2 1;set server be/s1 addr 127.0.0.1 port " + o.port() + ";set server be/s1 health up;"
                        + "set server be/s2 health up;set maxconn server be/s1 0;set maxconn frontend fe 0;set maxconn global 0\n");
                AdminClient.run(sock, "clear table fe\n");
                try (RawClient c = new RawClient(port)) {
                    assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                }
                // the table still tracks, the pools and QUIC commands still answer
                assertThat(AdminClient.run(sock, "show table fe\n")).matches("(?s)# table: fe, type: ip, size:100, used:1\n"
                        + "0x[0-9a-f]+: key=127\\.0\\.0\\.1 use=0 exp=\\d+ gpc0=0 http_req_cnt=1 http_req_rate\\(10000\\)=1\n\n");
                assertThat(AdminClient.run(sock, "show pools\n")).startsWith("Dumping pools usage.");
                assertThat(AdminClient.run(sock, "show quic\n")).endsWith("\n");
                assertThat(s.process().isAlive()).isTrue();
                assertThat(s.output()).as("daemon output (seed %d)", seed).doesNotContain("Exception");
            }
        }
    }

    @Test
    void nioTransportServesUnixSockets() throws Exception {
        try (Origin o = Origin.start("s")) {
            Path sock = Files.createTempDirectory("sluice-nio").resolve("admin.sock");
            int port = Ports.free();
            Path cfg = Sluice.writeConfig(config(sock, port, o.port()));
            try (Sluice s = Sluice.start(cfg, List.of(), Map.of("SLUICE_TRANSPORT", "nio"), port)) {
                AdminClient.await(sock);
                assertThat(AdminClient.run(sock, "show cli level\n")).isEqualTo("admin\n\n");
                assertThat(AdminClient.run(sock, "prompt\nget weight be/s1\nquit\n")).isEqualTo("\n> 1 (initial 1)\n\n> ");
                assertThat(AdminClient.run(sock, "show stat\n")).startsWith("# pxname,svname,");
            }
        }
    }

    @Test
    void socketModeAndReplacingAStaleSocket() throws Exception {
        try (Origin o = Origin.start("s")) {
            Path sock = Files.createTempDirectory("sluice-mode").resolve("admin.sock");
            Files.writeString(sock, "stale");
            int port = Ports.free();
            String cfg = config(sock, port, o.port()).replace("level admin", "mode 640 level admin");
            try (Sluice s = Sluice.start(cfg, port)) {
                AdminClient.await(sock);
                assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(sock))).isEqualTo("rw-r-----");
                assertThat(AdminClient.run(sock, "show cli level\n")).isEqualTo("admin\n\n");
            }
        }
    }

    /** Opens a listening UNIX socket at argv[0] as fd 3, then execs the rest of argv (the launcher). */
    static final String INHERIT_UNIX_SOCKET = """
            use strict; use Socket; use POSIX qw(dup2);
            $^F = 10;
            my $path = shift @ARGV;
            socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
            unlink $path;
            bind($s, sockaddr_un($path)) or die "bind: $!";
            listen($s, 16) or die "listen: $!";
            if (fileno($s) != 3) { dup2(fileno($s), 3) or die "dup2: $!"; }
            exec(@ARGV) or die "exec: $!";
            """;

    @Test
    void inheritedUnixSocket() throws Exception {
        try (Origin o = Origin.start("s")) {
            Path dir = Files.createTempDirectory("sluice-fd");
            Path sock = dir.resolve("inherited.sock");
            int port = Ports.free();
            Path cfg = Sluice.writeConfig(config(sock, port, o.port()).replace("stats socket " + sock, "stats socket fd@3"));
            ProcessBuilder launcher = Sluice.launcher(List.of("-f", cfg.toString()), Map.of());
            List<String> cmd = new ArrayList<>(List.of("perl", "-e", INHERIT_UNIX_SOCKET, sock.toString()));
            cmd.addAll(launcher.command());
            ProcessBuilder pb = new ProcessBuilder(Program.command(cmd));
            pb.environment().putAll(launcher.environment());
            pb.directory(launcher.directory());
            try (Sluice s = Sluice.startWith(pb, cfg.getParent(), port)) {
                assertThat(AdminClient.run(sock, "show cli level\n")).isEqualTo("admin\n\n");
                assertThat(AdminClient.run(sock, "show backend\n")).isEqualTo("# name\nbe\n\n");
            }
        }
    }

    @Test
    void configurationErrorsNameTheLine() {
        Sluice.Result r = Sluice.check("""
                global
                    stats socket /tmp/x.sock level root
                    stats timeout 0
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
                .containsPattern("test\\.cfg:2: error: 'stats socket' : 'level' only supports 'user', 'operator', and 'admin' \\(got 'root'\\)\\.")
                .containsPattern("test\\.cfg:3: error: 'stats timeout' : expects a positive value");
    }

    @Test
    void unbindableSocketStopsTheStartWithHaproxysAlert() throws Exception {
        Path cfg = Sluice.writeConfig(config(Path.of("/nonexistent-dir/admin.sock"), Ports.free(), Ports.free()));
        ProcessBuilder pb = Sluice.launcher(List.of("-f", cfg.toString()), Map.of());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            out = String.join("\n", r.lines().toList());
        }
        assertThat(p.waitFor()).isEqualTo(1);
        assertThat(out).contains("[ALERT] Binding [" + cfg + ":2] for frontend GLOBAL: cannot bind UNIX socket (No such file or directory)"
                + " [/nonexistent-dir/admin.sock]");
    }
}
