package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Process management: the launcher execs the JVM, -D detaches, -p writes the pid, signals stop it. */
class DaemonTest {

    static String config(int port) {
        return """
                defaults
                    mode http
                    timeout client 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "up"
                """.formatted(port);
    }

    @Test
    void launcherExecsTheJvmAndSigtermStopsIt() throws Exception {
        int port = Ports.free();
        Path pidfile = Files.createTempFile("sluice", ".pid");
        Path cfg = Sluice.writeConfig(config(port));
        try (Sluice s = Sluice.start(cfg, List.of("-p", pidfile.toString()), Map.of(), port)) {
            assertThat(ProcessHandle.of(s.pid()).flatMap(h -> h.info().command()).orElse("")).endsWith("/java");
            // the pid file is written just after the listeners are bound
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (Files.readString(pidfile).isBlank() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(Files.readString(pidfile).trim()).isEqualTo(Long.toString(s.pid()));
            s.process().destroy();
            assertThat(s.process().waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(s.output()).isEmpty();
        }
    }

    @Test
    void daemonModeDetachesAndWritesThePidFile() throws Exception {
        int port = Ports.free();
        Path pidfile = Files.createTempFile("sluice", ".pid");
        Files.delete(pidfile);
        Path cfg = Sluice.writeConfig(config(port));
        Sluice.Result r = Sluice.run(List.of("-D", "-p", pidfile.toString(), "-f", cfg.toString()), Map.of());
        assertThat(r.exitCode()).isZero();
        assertThat(r.output()).isEmpty();
        long pid = Long.parseLong(Files.readString(pidfile).trim());
        ProcessHandle daemon = ProcessHandle.of(pid).orElseThrow();
        try (RawClient c = new RawClient(port)) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText()).isEqualTo("up");
        } finally {
            daemon.destroy();
            daemon.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertThat(daemon.isAlive()).isFalse();
    }

    /**
     * The reload HAProxy's init scripts do: {@code -D -p file -sf $(cat file)}, three times. The pid file must name
     * the serving process after each reload (the leaving one must not delete its successor's file), so each
     * reload stops the one before it and a single daemon is left.
     */
    @Test
    void reloadsThroughThePidFileLeaveOneDaemonNamedByIt() throws Exception {
        int port = Ports.free();
        Path pidfile = Files.createTempFile("sluice", ".pid");
        Files.delete(pidfile);
        Path cfg = Sluice.writeConfig(config(port));
        List<ProcessHandle> started = new java.util.ArrayList<>();
        try {
            Sluice.Result first = Sluice.run(List.of("-D", "-p", pidfile.toString(), "-f", cfg.toString()), Map.of());
            assertThat(first.exitCode()).isZero();
            started.add(ProcessHandle.of(Long.parseLong(Files.readString(pidfile).trim())).orElseThrow());
            for (int reload = 1; reload <= 3; reload++) {
                ProcessHandle old = started.getLast();
                String oldPid = Files.readString(pidfile).trim();
                assertThat(oldPid).as("pid file before reload %d", reload).isEqualTo(Long.toString(old.pid()));
                Sluice.Result r = Sluice.run(List.of("-D", "-p", pidfile.toString(), "-f", cfg.toString(), "-sf", oldPid), Map.of());
                assertThat(r.exitCode()).isZero();
                long newPid = Long.parseLong(Files.readString(pidfile).trim());
                assertThat(newPid).isNotEqualTo(old.pid());
                started.add(ProcessHandle.of(newPid).orElseThrow());
                old.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(Files.exists(pidfile)).as("pid file after the old process left, reload %d", reload).isTrue();
                assertThat(Files.readString(pidfile).trim()).isEqualTo(Long.toString(newPid));
            }
            assertThat(started.stream().filter(ProcessHandle::isAlive).toList()).containsExactly(started.getLast());
            try (RawClient c = new RawClient(port)) {
                assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText()).isEqualTo("up");
            }
            ProcessHandle last = started.getLast();
            last.destroy();
            last.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(Files.exists(pidfile)).as("the last process removes its own pid file").isFalse();
        } finally {
            for (ProcessHandle h : started) {
                h.destroyForcibly();
            }
        }
    }

    @Test
    void aBusyPortIsReportedAndTheProcessExits() throws Exception {
        int port = Ports.free();
        try (java.net.ServerSocket busy = new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            Sluice.Result r = Sluice.run(List.of("-f", Sluice.writeConfig(config(port)).toString()), Map.of());
            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.output()).contains("Starting frontend fe: cannot bind socket (Address already in use) [127.0.0.1:" + port + "]");
        }
    }

    @Test
    void softStopWithSfHandsOverToTheNewProcess() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port));
        try (Sluice old = Sluice.start(cfg, List.of(), Map.of(), port)) {
            // the new process binds the same port (SO_REUSEADDR is not enough: the old one must stop first)
            // so here the new one listens elsewhere and tells the old one to finish
            int port2 = Ports.free();
            Path cfg2 = Sluice.writeConfig(config(port2));
            try (Sluice fresh = Sluice.start(cfg2, List.of("-sf", Long.toString(old.pid())), Map.of(), port2)) {
                assertThat(old.process().waitFor(Duration.ofSeconds(10).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)).isTrue();
                try (RawClient c = new RawClient(port2)) {
                    assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                }
            }
        }
    }
}
