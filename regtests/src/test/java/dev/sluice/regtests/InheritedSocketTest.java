package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code bind fd@N} and {@code "fd@${NAME}"}: a supervisor (here a small Perl program, Perl being part of
 * every Debian system) opens the listening socket, leaves it open across exec, and starts the launcher.
 */
class InheritedSocketTest {

    /** Opens a blocking listening socket on 127.0.0.1:0 as fd 3, prints its port, execs the rest of argv. */
    private static final String PERL = """
            use strict; use Socket; use POSIX qw(dup2);
            $^F = 10;
            socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
            setsockopt($s, SOL_SOCKET, SO_REUSEADDR, 1);
            bind($s, sockaddr_in(0, inet_aton("127.0.0.1"))) or die "bind: $!";
            listen($s, 128) or die "listen: $!";
            my ($port) = sockaddr_in(getsockname($s));
            if (fileno($s) != 3) { dup2(fileno($s), 3) or die "dup2: $!"; }
            print STDOUT "$port\\n"; STDOUT->flush();
            exec(@ARGV) or die "exec: $!";
            """;

    private static int startAndReadPort(Process p) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
        return Integer.parseInt(r.readLine().trim());
    }

    private void inherit(String bindWord, Map<String, String> env) throws Exception {
        try (Origin o = Origin.start("s1")) {
            Path cfg = Sluice.writeConfig("""
                    defaults
                        mode http
                        timeout client 5s
                        timeout server 5s
                        timeout connect 5s
                    frontend fe
                        bind %s
                        default_backend be
                    backend be
                        server s1 127.0.0.1:%d
                    """.formatted(bindWord, o.port()));
            ProcessBuilder launcher = Sluice.launcher(List.of("-f", cfg.toString()), env);
            List<String> cmd = new java.util.ArrayList<>(List.of("perl", "-e", PERL));
            cmd.addAll(launcher.command());
            ProcessBuilder pb = new ProcessBuilder(Program.command(cmd));
            pb.environment().putAll(launcher.environment());
            pb.directory(launcher.directory());
            Path err = cfg.getParent().resolve("stderr.log");
            pb.redirectError(err.toFile());
            Process p = pb.start();
            try {
                int port = startAndReadPort(p);
                // perl exec'd the launcher, which exec'd the JVM: the daemon is this very process
                try (RawClient c = new RawClient(port)) {
                    RawClient.Response r = c.send("GET /fd HTTP/1.1\r\nHost: x\r\n\r\n").read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.header("x-origin")).isEqualTo("s1");
                }
                assertThat(ProcessHandle.of(p.pid()).flatMap(h -> h.info().command()).orElse("")).endsWith("java");
            } finally {
                p.destroy();
                p.waitFor();
                String out = java.nio.file.Files.readString(err);
                assertThat(out).doesNotContain("LEAK:");
                if (!out.isEmpty()) {
                    System.err.println(out);
                }
            }
        }
    }

    @Test
    void bindFdNumber() throws Exception {
        inherit("fd@3", Map.of());
    }

    @Test
    void bindFdFromEnvironment() throws Exception {
        inherit("\"fd@${LISTEN_FD}\"", Map.of("LISTEN_FD", "3"));
    }

    @Test
    void aDescriptorThatIsNotAListeningSocketIsAClearError() {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig("""
                defaults
                    mode http
                    timeout client 5s
                frontend fe
                    bind fd@0
                    bind 127.0.0.1:%d
                    http-request return status 200
                """.formatted(port));
        Sluice.Result r = Sluice.run(List.of("-f", cfg.toString()), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("cannot use inherited socket [fd@0]");
    }
}
