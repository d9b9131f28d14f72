package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A reload that takes the old process's listening sockets ({@code -sf <pid> -x <admin socket>}, the old process's
 * {@code stats socket ... expose-fd listeners}) drops nothing: under a churn of short connections, ten hand-overs in a
 * row and not one connection refused, reset or left unanswered, the port's listening socket the same kernel socket from
 * the first process to the last. For comparison, the same reloads without {@code -x}: each process binds a socket of
 * its own (what that costs is measured and printed, not asserted: it depends on timing). Then with HAProxy 2.6 on
 * either side: HAProxy hands its sockets to Sluice, and Sluice its IPv6 ones to HAProxy (Netty binds an IPv4 address
 * on an IPv6 socket, which HAProxy's IPv4 bind does not take).
 */
class SocketHandoverTest {
    private static final int RELOADS = 10;

    static String config(String bind, Path admin) {
        return """
                global
                    stats socket %s level admin expose-fd listeners
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind %s
                    http-request return status 200 content-type text/plain string ok
                """.formatted(admin, bind);
    }

    /** The inodes of the sockets listening on TCP {@code port} (IPv4 and IPv6), from /proc/net. */
    static Set<String> listening(int port) throws IOException {
        Set<String> out = new TreeSet<>();
        String hexPort = String.format(":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals("0A")) {
                    out.add(f[9]);
                }
            }
        }
        return out;
    }

    static void awaitPort(String host, int port, Process p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && p.isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        throw new AssertionError("nothing listens on " + host + ":" + port);
    }

    /** Until the churn has had {@code more} answers more. */
    static void awaitAnswers(ConnectionChurn churn, long more) throws InterruptedException {
        long target = churn.ok.sum() + more;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (churn.ok.sum() < target) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the load got no answers: " + churn.summary());
            }
            Thread.sleep(10);
        }
    }

    /** {@code count} reloads of Sluice under load, with or without -x; returns the listening sockets' inodes after each one. */
    private static List<Set<String>> reloads(boolean handOver, ConnectionChurn[] churnOut, Path cfg, Path admin, int port, int count)
            throws Exception {
        List<Set<String>> sockets = new ArrayList<>();
        Sluice old = Sluice.start(cfg, List.of(), Map.of(), port);
        try (ConnectionChurn churn = new ConnectionChurn("127.0.0.1", port, 3)) {
            churnOut[0] = churn;
            awaitAnswers(churn, 200);
            sockets.add(listening(port));
            for (int i = 0; i < count; i++) {
                List<String> args = new ArrayList<>(List.of("-sf", Long.toString(old.pid())));
                if (handOver) {
                    args.addAll(List.of("-x", admin.toString()));
                }
                Sluice next = Sluice.start(cfg, args, Map.of());
                try {
                    // the new process tells the old one to finish once it listens; it may also fail and exit
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (old.process().isAlive() && next.process().isAlive() && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    assertThat(next.process().isAlive()).as("the new process serves (reload %d):\n%s", i + 1, next.output()).isTrue();
                    assertThat(old.process().waitFor(1, TimeUnit.SECONDS)).as("the old process finished (reload %d)", i + 1).isTrue();
                    old.close();
                } catch (Throwable t) {
                    next.close();
                    throw t;
                }
                old = next;
                awaitAnswers(churn, 100);
                sockets.add(listening(port));
            }
        } finally {
            old.close();
        }
        return sockets;
    }

    @Test
    void tenReloadsWithXUnderLoadDropNothing() throws Exception {
        int port = Ports.free();
        Path admin = Files.createTempDirectory("sluice-handover").resolve("admin.sock");
        Path cfg = Sluice.writeConfig(config("127.0.0.1:" + port, admin));
        ConnectionChurn[] churn = new ConnectionChurn[1];
        List<Set<String>> sockets = reloads(true, churn, cfg, admin, port, RELOADS);
        System.out.println("with -x, " + RELOADS + " reloads: " + churn[0].summary());
        assertThat(churn[0].failures()).as(churn[0].summary()).isZero();
        assertThat(sockets).as("one listening socket, the same from the first process to the last").allSatisfy(s -> {
            assertThat(s).hasSize(1);
            assertThat(s).isEqualTo(sockets.getFirst());
        });
    }

    @Test
    void withoutXEachProcessBindsItsOwnSocket() throws Exception {
        int port = Ports.free();
        Path admin = Files.createTempDirectory("sluice-handover").resolve("admin.sock");
        Path cfg = Sluice.writeConfig(config("127.0.0.1:" + port, admin));
        ConnectionChurn[] churn = new ConnectionChurn[1];
        // three are enough to show it (the figures with ten come from bench/load/handover.sh)
        List<Set<String>> sockets = reloads(false, churn, cfg, admin, port, 3);
        // measured, not asserted: connections left in a closed socket's accept queue are reset (timing decides how many)
        System.out.println("without -x, 3 reloads: " + churn[0].summary());
        assertThat(sockets).allSatisfy(s -> assertThat(s).hasSize(1));
        assertThat(sockets.stream().distinct().count()).as("a new listening socket at each reload").isEqualTo(4);
    }

    /**
     * Master-worker: each reload (SIGUSR2) starts the new worker with {@code -x} and the current worker's own admin
     * socket, with nothing in the configuration about it, as HAProxy's master does through its socketpair.
     */
    @Test
    void masterWorkerReloadsPassTheSocketsByThemselves() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(MasterWorkerTest.config(port, "gen", ""));
        Path cli = MasterWorkerTest.cli(cfg);
        // reloads by new workers (the program changed: a copy of the jar, touched before each; an unchanged one reloads in place)
        Path jar = MasterWorkerReloadTest.jarCopy();
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, Map.of("SLUICE_JAR", jar.toString()), "-W");
                ConnectionChurn churn = new ConnectionChurn("127.0.0.1", port, 3)) {
            awaitAnswers(churn, 200);
            Set<String> before = listening(port);
            long worker = MasterWorkerTest.workerPid(cli);
            for (int i = 0; i < 3; i++) {
                MasterWorkerReloadTest.touch(jar);
                GracefulStopTest.signal(s.pid(), "USR2");
                long old = worker;
                worker = MasterWorkerTest.newWorker(cli, old);
                MasterWorkerTest.await("the old worker gone", () -> ProcessHandle.of(old).map(h -> !h.isAlive()).orElse(true));
                awaitAnswers(churn, 100);
                assertThat(listening(port)).as("reload %d: the same listening socket", i + 1).isEqualTo(before).hasSize(1);
            }
            assertThat(ProcessHandle.of(worker).map(h -> h.info().arguments().map(List::of).orElse(List.of())).orElse(List.of()))
                    .as("the worker's command line").contains("-x");
            churn.close();
            System.out.println("master-worker, 3 reloads: " + churn.summary());
            assertThat(churn.failures()).as(churn.summary()).isZero();
            assertThat(s.output()).doesNotContain("Failed to get the sockets");
        }
    }

    /**
     * After an in-process reload (the admin socket's {@code reload}) that added a bind, {@code _getsocks} hands over
     * the sockets of the configuration running then: the one the reload took over and the one it bound.
     */
    @Test
    void afterAnInProcessReloadTheRunningConfigurationsSocketsGo() throws Exception {
        int port = Ports.free();
        int port2 = Ports.free();
        Path admin = Files.createTempDirectory("sluice-handover").resolve("admin.sock");
        Path cfg = Sluice.writeConfig(config("127.0.0.1:" + port, admin));
        try (Sluice old = Sluice.start(cfg, List.of(), Map.of(), port)) {
            Set<String> first = listening(port);
            Files.writeString(cfg, config("127.0.0.1:" + port, admin).replace("    bind 127.0.0.1:" + port + "\n",
                    "    bind 127.0.0.1:" + port + "\n    bind 127.0.0.1:" + port2 + "\n"));
            assertThat(AdminClient.run(admin, "reload\n")).startsWith("Success=1");
            awaitPort("127.0.0.1", port2, old.process());
            Set<String> second = listening(port2);
            assertThat(listening(port)).as("the reload took the socket over").isEqualTo(first);
            try (Sluice next = Sluice.start(cfg, List.of("-sf", Long.toString(old.pid()), "-x", admin.toString()), Map.of())) {
                assertThat(old.process().waitFor(30, TimeUnit.SECONDS)).as("the old process finished:\n%s", next.output()).isTrue();
                assertThat(next.process().isAlive()).as("the new process serves:\n%s", next.output()).isTrue();
                assertThat(listening(port)).isEqualTo(first);
                assertThat(listening(port2)).isEqualTo(second);
            }
        }
    }

    @Test
    void haproxyHandsItsListeningSocketsToSluice() throws Exception {
        String haproxy = Program.HAPROXY.require();
        int port = Ports.free();
        Path dir = Files.createTempDirectory("sluice-handover");
        Path hsock = dir.resolve("haproxy.sock");
        Path hcfg = dir.resolve("haproxy.cfg");
        Files.writeString(hcfg, config("127.0.0.1:" + port, hsock));
        Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        awaitPort("127.0.0.1", port, h);
        try (ConnectionChurn churn = new ConnectionChurn("127.0.0.1", port, 3)) {
            awaitAnswers(churn, 200);
            Set<String> before = listening(port);
            Path cfg = Sluice.writeConfig(config("127.0.0.1:" + port, dir.resolve("sluice.sock")));
            try (Sluice s = Sluice.start(cfg, List.of("-sf", Long.toString(h.pid()), "-x", hsock.toString()), Map.of())) {
                assertThat(h.waitFor(30, TimeUnit.SECONDS)).as("HAProxy finished").isTrue();
                assertThat(s.process().isAlive()).as("Sluice serves:\n%s", s.output()).isTrue();
                awaitAnswers(churn, 200);
                assertThat(listening(port)).as("Sluice accepts on HAProxy's socket").isEqualTo(before).hasSize(1);
                churn.close();
                System.out.println("HAProxy -> Sluice: " + churn.summary());
                assertThat(churn.failures()).as(churn.summary()).isZero();
            }
        } finally {
            h.destroy();
            h.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void sluiceHandsItsIpv6ListeningSocketsToHaproxy() throws Exception {
        String haproxy = Program.HAPROXY.require();
        int port = Ports.free();
        Path dir = Files.createTempDirectory("sluice-handover");
        Path ssock = dir.resolve("sluice.sock");
        Path cfg = Sluice.writeConfig(config("::1:" + port, ssock));
        try (Sluice s = Sluice.start(cfg, List.of(), Map.of())) {
            awaitPort("::1", port, s.process());
            ConnectionChurn churn = new ConnectionChurn("::1", port, 3);
            awaitAnswers(churn, 200);
            Set<String> before = listening(port);
            Path hcfg = dir.resolve("haproxy.cfg");
            // HAProxy takes a socket bound to an IPv6 address only with 'v6only' (the kernel set IPV6_V6ONLY when it bound it;
            // HAProxy 2.6 does not take its own socket either without it)
            Files.writeString(hcfg, config("::1:" + port + " v6only", dir.resolve("haproxy.sock")));
            Process h = new ProcessBuilder(haproxy, "-db", "-f", hcfg.toString(), "-sf", Long.toString(s.pid()), "-x", ssock.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
            try {
                assertThat(s.process().waitFor(30, TimeUnit.SECONDS)).as("Sluice finished").isTrue();
                assertThat(h.isAlive()).as("HAProxy serves: " + Files.readString(dir.resolve("haproxy.log"))).isTrue();
                awaitAnswers(churn, 200);
                assertThat(listening(port)).as("HAProxy accepts on Sluice's socket").isEqualTo(before).hasSize(1);
                churn.close();
                System.out.println("Sluice -> HAProxy: " + churn.summary());
                assertThat(churn.failures()).as(churn.summary()).isZero();
            } finally {
                churn.close();
                h.destroy();
                h.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
