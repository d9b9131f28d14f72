package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Master-worker mode ({@code -W}, {@code -Ws}, {@code -S}, {@code master-worker}): a master process supervises the
 * worker that serves, reloads it on SIGUSR2 and the master CLI's {@code reload} (a broken configuration leaves the
 * old worker serving), passes stop signals on, and leaves with a worker that dies; the master CLI shows and reaches
 * the processes. Lines and tables as HAProxy 2.6 prints them; the table's layout is compared with HAProxy's when it
 * is installed. The tests of reloads by a new worker run the master on a copy of the jar and touch it before each
 * reload (an unchanged program reloads in place: {@link MasterWorkerReloadTest}).
 */
class MasterWorkerTest {

    static String config(int port, String body, String global) {
        return """
                global
                %s
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "%s"
                """.formatted(global, port, body);
    }

    static String body(int port) {
        try (RawClient c = new RawClient(port)) {
            return c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText();
        }
    }

    /** Polls until {@code what} holds (20 s at most). */
    static void await(String description, Supplier<Boolean> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!what.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + description);
            }
            Thread.sleep(20);
        }
    }

    static boolean answers(int port, String expected) {
        try {
            return expected.equals(body(port));
        } catch (RuntimeException | AssertionError e) {
            return false;
        }
    }

    private static final Pattern ROW = Pattern.compile("^(\\d+)\\s+(master|worker)\\s+(\\d+(?: \\[failed: \\d+\\])?)\\s+(\\d+d\\d\\dh\\d\\dm\\d\\ds)\\s+(\\S+)\\s*$");

    /** The pid, type and reloads of each row of {@code show proc}, with the section lines. */
    static List<String> rows(String showProc) {
        return showProc.lines().map(l -> {
            Matcher m = ROW.matcher(l);
            return m.matches() ? m.group(1) + " " + m.group(2) + " " + m.group(3) : l.strip();
        }).toList();
    }

    /** The current worker's pid, once the master lists one (it may answer before it has recorded its first worker). */
    static long workerPid(Path cli) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<String> r = rows(AdminClient.run(cli, "show proc\n"));
            int i = r.indexOf("# workers");
            assertThat(i).as("show proc:\n%s", r).isPositive();
            if (i + 1 < r.size() && !r.get(i + 1).startsWith("#")) {
                return Long.parseLong(r.get(i + 1).split(" ")[0]);
            }
            assertThat(System.nanoTime()).as("no worker listed in show proc:\n%s", r).isLessThan(deadline);
            Daemon.sleep(20);
        }
    }

    /** The master CLI's socket beside the configuration. */
    static Path cli(Path cfg) {
        return cfg.getParent().resolve("master.sock");
    }

    /**
     * Starts a master with {@code flags} and its CLI ({@link #cli}); returns once the port and the CLI answer and the
     * master lists its worker (it learns that the worker listens a moment after the worker's first answer).
     */
    static Sluice startMaster(Path cfg, int port, String... flags) {
        return startMaster(cfg, port, Map.of(), flags);
    }

    /** The same, the launcher run with {@code env} besides. */
    static Sluice startMaster(Path cfg, int port, Map<String, String> env, String... flags) {
        List<String> args = new java.util.ArrayList<>(List.of(flags));
        args.addAll(List.of("-S", cli(cfg).toString()));
        Sluice s = Sluice.start(cfg, args, env, port);
        AdminClient.await(cli(cfg));
        workerPid(cli(cfg));
        return s;
    }

    /** The current worker once it is another than {@code old} (the master takes it as current once it listens). */
    static long newWorker(Path cli, long old) throws InterruptedException {
        long[] w = {old};
        await("a new current worker", () -> (w[0] = workerPid(cli)) != old);
        return w[0];
    }

    @Test
    void theMasterReloadsOnUsr2AndItsCliAndKeepsTheOldWorkerOnABrokenConfiguration() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "gen1", ""));
        Path cli = cli(cfg);
        Path jar = MasterWorkerReloadTest.jarCopy();
        try (Sluice s = startMaster(cfg, port, Map.of("SLUICE_JAR", jar.toString()), "-W")) {
            assertThat(body(port)).isEqualTo("gen1");
            long w1 = workerPid(cli);
            String table = AdminClient.run(cli, "show proc\n");
            assertThat(table.lines().findFirst().orElse("")).isEqualTo("#<PID>          <type>          <reloads>       <uptime>        <version>      ");
            assertThat(rows(table)).containsExactly("#<PID>          <type>          <reloads>       <uptime>        <version>".strip(),
                    s.pid() + " master 0 [failed: 0]", "# workers", w1 + " worker 0", "# programs", "");
            // the worker is the master's child and serves; the master CLI reaches it
            assertThat(ProcessHandle.of(w1).flatMap(ProcessHandle::parent).map(ProcessHandle::pid)).contains(s.pid());
            assertThat(AdminClient.run(cli, "@1 show info\n")).contains("Pid: " + w1 + "\n");
            assertThat(AdminClient.run(cli, "@!" + w1 + " show info\n")).contains("Pid: " + w1 + "\n");
            assertThat(AdminClient.run(cli, "@1; show version; @master; show version\n")).isEqualTo(
                    AdminClient.run(cli, "show version\n").repeat(2));
            assertThat(AdminClient.run(cli, "@2 show info\n")).isEqualTo("Can't find the target PID matching the prefix '@2'\n");
            assertThat(AdminClient.run(cli, "@!1 show info\n")).isEqualTo("Can't find the target PID matching the prefix '@!1'\n");

            // SIGUSR2: a new worker with the new configuration, the old one finishes and leaves
            Files.writeString(cfg, config(port, "gen2", ""));
            MasterWorkerReloadTest.touch(jar);
            GracefulStopTest.signal(s.pid(), "USR2");
            await("gen2 served", () -> answers(port, "gen2"));
            await("the first worker gone", () -> ProcessHandle.of(w1).map(h -> !h.isAlive()).orElse(true));
            long w2 = newWorker(cli, w1);
            await("reload counted", () -> rows(AdminClient.run(cli, "show proc\n")).contains(s.pid() + " master 1 [failed: 0]"));

            // the CLI's reload: the same, and the session ends
            Files.writeString(cfg, config(port, "gen3", ""));
            MasterWorkerReloadTest.touch(jar);
            assertThat(AdminClient.run(cli, "reload\n")).isEmpty();
            await("gen3 served", () -> answers(port, "gen3"));
            await("the second worker gone", () -> ProcessHandle.of(w2).map(h -> !h.isAlive()).orElse(true));
            long w3 = newWorker(cli, w2);

            // a broken configuration: the new worker fails, the old one goes on serving, the master says so
            Files.writeString(cfg, config(port, "gen4", "    bogus-keyword"));
            MasterWorkerReloadTest.touch(jar);
            GracefulStopTest.signal(s.pid(), "USR2");
            await("the failed reload", () -> rows(AdminClient.run(cli, "show proc\n")).contains(s.pid() + " master 3 [failed: 1]"));
            assertThat(rows(AdminClient.run(cli, "show proc\n"))).contains(w3 + " worker 1");
            assertThat(body(port)).isEqualTo("gen3");
            assertThat(s.output()).contains("unknown keyword 'bogus-keyword'", "[WARNING]  (" + s.pid() + ") : Loading failure!");
            // the prompt tells the reload failed, and which process a session talks to
            assertThat(AdminClient.run(cli, "prompt\nshow version\n@1\nshow version\n@\nquit\n")).isEqualTo(
                    "master[ReloadFailed]> " + version() + "\n\nmaster[ReloadFailed]> " + w3 + "> " + version() + "\n\n" + w3
                            + "> master[ReloadFailed]> ");

            // SIGTERM: passed on, the master leaves with the worker, status 0
            s.process().destroy();
            assertThat(s.process().waitFor(15, TimeUnit.SECONDS)).isTrue();
            assertThat(s.process().exitValue()).isZero();
            await("the worker gone", () -> ProcessHandle.of(w3).map(h -> !h.isAlive()).orElse(true));
            String out = s.output();
            String m = "(" + s.pid() + ") : ";
            assertThat(out).contains("[NOTICE]   " + m + "New worker (" + w1 + ") forked\n[NOTICE]   " + m + "Loading success.\n",
                    "[NOTICE]   " + m + "Reloading Sluice\n", "[WARNING]  " + m + "Former worker (" + w1 + ") exited with code 0 (Exit)\n",
                    "[WARNING]  " + m + "Exiting Master process...\n", "[WARNING]  " + m + "Current worker (" + w3 + ") exited with code 0 (Exit)\n",
                    "[WARNING]  " + m + "All workers exited. Exiting... (0)\n");
        }
    }

    private static String version() {
        Sluice.Result r = Sluice.run(List.of("-v"), Map.of());
        Matcher m = Pattern.compile("Sluice version (\\S+)").matcher(r.output());
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    @Test
    void aWorkerThatDiesTakesTheMasterAndItsStatusWithItUnlessNoExitOnFailure() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "up", ""));
        Path cli = cli(cfg);
        try (Sluice s = startMaster(cfg, port, "-W")) {
            long w = workerPid(cli);
            ProcessHandle.of(w).orElseThrow().destroyForcibly();
            assertThat(s.process().waitFor(15, TimeUnit.SECONDS)).isTrue();
            assertThat(s.process().exitValue()).isEqualTo(137);
            String m = "(" + s.pid() + ") : ";
            assertThat(s.output()).contains("[ALERT]    " + m + "Current worker (" + w + ") exited with code 137 (Killed)\n"
                    + "[ALERT]    " + m + "exit-on-failure: killing every processes with SIGTERM\n"
                    + "[WARNING]  " + m + "All workers exited. Exiting... (137)\n");
        }
        // with no-exit-on-failure, the master stays and a reload brings a worker back
        port = Ports.free();
        int p = port;
        cfg = Sluice.writeConfig(config(port, "up", "    master-worker no-exit-on-failure"));
        cli = cli(cfg);
        try (Sluice s = startMaster(cfg, port)) {
            long w = workerPid(cli);
            ProcessHandle.of(w).orElseThrow().destroyForcibly();
            Path c = cli;
            await("no worker left", () -> rows(AdminClient.run(c, "show proc\n")).equals(List.of(
                    "#<PID>          <type>          <reloads>       <uptime>        <version>".strip(), s.pid() + " master 0 [failed: 0]",
                    "# workers", "# programs", "")));
            assertThat(s.process().isAlive()).isTrue();
            GracefulStopTest.signal(s.pid(), "USR2");
            await("served again", () -> answers(p, "up"));
        }
    }

    /**
     * A worker still finishing a request after a reload is listed under "# old workers"; with
     * {@code mworker-max-reloads 1} the second reload it outlives stops it.
     */
    @Test
    void aLeavingWorkerIsListedAsOldAndStoppedPastMworkerMaxReloads() throws Exception {
        java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Origin o = GracefulStopTest.origin(arrived, release)) {
            int port = Ports.free();
            Path cfg = Sluice.writeConfig("""
                    global
                        mworker-max-reloads 1
                    defaults
                        mode http
                        timeout connect 1s
                        timeout client 30s
                        timeout server 30s
                    frontend fe
                        bind 127.0.0.1:%d
                        default_backend be
                    backend be
                        server o1 127.0.0.1:%d
                    """.formatted(port, o.port()));
            Path cli = cli(cfg);
            Path jar = MasterWorkerReloadTest.jarCopy();
            try (Sluice s = startMaster(cfg, port, Map.of("SLUICE_JAR", jar.toString()), "-W");
                    RawClient slow = new RawClient(port, 30_000)) {
                long w1 = workerPid(cli);
                slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
                MasterWorkerReloadTest.touch(jar);
                GracefulStopTest.signal(s.pid(), "USR2");
                await("w1 leaving", () -> {
                    List<String> r = rows(AdminClient.run(cli, "show proc\n"));
                    return r.indexOf("# old workers") > 0 && r.get(r.indexOf("# old workers") + 1).equals(w1 + " worker 1");
                });
                assertThat(ProcessHandle.of(w1).map(ProcessHandle::isAlive)).contains(true);
                MasterWorkerReloadTest.touch(jar);
                GracefulStopTest.signal(s.pid(), "USR2");
                await("w1 stopped after its second reload", () -> ProcessHandle.of(w1).map(h -> !h.isAlive()).orElse(true));
                // (the second worker, leaving since that reload, may still be listed for a moment)
                await("w1 no longer listed", () -> rows(AdminClient.run(cli, "show proc\n")).stream().noneMatch(l -> l.startsWith(w1 + " ")));
                assertThat(s.output()).contains("Former worker (" + w1 + ") exited with code ");
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void inDaemonModeThePidFileHoldsTheMasterAndAWorkerWhoseMasterIsKilledLeaves() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "up", ""));
        Path pidfile = cfg.getParent().resolve("sluice.pid");
        Sluice.Result r = Sluice.run(List.of("-W", "-D", "-p", pidfile.toString(), "-f", cfg.toString()), Map.of());
        assertThat(r.exitCode()).as(r.output()).isZero();
        long master = Long.parseLong(Files.readString(pidfile).trim());
        ProcessHandle m = ProcessHandle.of(master).orElseThrow();
        List<ProcessHandle> workers = m.children().toList();
        try {
            assertThat(workers).hasSize(1);
            assertThat(body(port)).isEqualTo("up");
            // the master killed outright: its worker notices and stops
            m.destroyForcibly();
            m.onExit().get(10, TimeUnit.SECONDS);
            workers.get(0).onExit().get(15, TimeUnit.SECONDS);
        } finally {
            m.destroyForcibly();
            workers.forEach(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void withWsSystemdIsToldWhenTheWorkerIsReadyAndAtEachReload() throws Exception {
        Program.SOCAT.require();
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "up", ""));
        Path notify = cfg.getParent().resolve("notify.sock");
        Path received = cfg.getParent().resolve("notify.txt");
        Process socat = new ProcessBuilder(Program.SOCAT.require(), "-u", "UNIX-RECV:" + notify, "OPEN:" + received + ",creat,append").start();
        try {
            await("socat bound", () -> Files.exists(notify));
            try (Sluice s = Sluice.start(cfg, List.of("-Ws"), Map.of("NOTIFY_SOCKET", notify.toString()), port)) {
                await("READY=1", () -> read(received).contains("READY=1\nMAINPID=" + s.pid() + "\n"));
                GracefulStopTest.signal(s.pid(), "USR2");
                await("RELOADING=1 then READY=1", () -> read(received).matches("(?s).*RELOADING=1\n.*READY=1\n.*"));
            }
        } finally {
            socat.destroy();
            socat.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    @Test
    void theMasterCliNeedsMasterWorkerModeAndAUsableAddress() throws Exception {
        Path cfg = Sluice.writeConfig(config(Ports.free(), "up", ""));
        Sluice.Result r = Sluice.run(List.of("-S", cfg.getParent().resolve("m.sock").toString(), "-f", cfg.toString()), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("[ALERT] -S requires master-worker mode (-W, or 'master-worker' in the global section)");
        r = Sluice.run(List.of("-W", "-S", cfg.getParent().resolve("m.sock") + ",bogus,1", "-f", cfg.toString()), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("invalid master CLI socket");
        r = Sluice.run(List.of("-c", "-f", Sluice.writeConfig(config(Ports.free(), "up", "    master-worker bogus")).toString()), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("'master-worker' only supports 'no-exit-on-failure' option.");
    }

    /**
     * The master runs no proxy: the runtime's checks (a certificate that cannot be loaded) are its worker's, which says
     * what is wrong and exits before it listens, and the master with its status; the parser's warnings are said once
     * (by the worker), unless {@code zero-warning} stops the master, which then says them.
     */
    @Test
    void theMasterLeavesTheRuntimesChecksAndTheWarningsToItsWorker() throws Exception {
        int port = Ports.free();
        String tcpRules = config(port, "up", "").replace("    http-request return", "    mode tcp\n    http-request return");
        String warning = "warning: 'http-request' rules ignored for frontend 'fe' as they require HTTP mode.";
        Path cfg = Sluice.writeConfig(tcpRules);
        try (Sluice s = Sluice.start(cfg, List.of("-W"), Map.of(), port)) {
            await("the worker started", () -> s.output().contains("Loading success."));
            assertThat(s.output().split(Pattern.quote(warning), -1)).as(s.output()).hasSize(2);
        }
        Sluice.Result zero = Sluice.run(List.of("-W", "-f", Sluice.writeConfig(tcpRules.replace("global\n", "global\n    zero-warning\n")).toString()),
                Map.of());
        assertThat(zero.exitCode()).isEqualTo(1);
        assertThat(zero.output()).contains(warning, "[ALERT] Some warnings were found and 'zero-warning' is set. Aborting.").doesNotContain("New worker");

        Path tls = Sluice.writeConfig(config(Ports.free(), "up", "").replaceAll("(bind 127\\.0\\.0\\.1:\\d+)", "$1 ssl crt /nonexistent.pem"));
        Sluice.Result r = Sluice.run(List.of("-W", "-f", tls.toString()), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("unable to load certificate from '/nonexistent.pem'", "Fatal errors found in configuration.")
                .containsPattern("\\[ALERT]    \\(\\d+\\) : New worker \\(\\d+\\) exited with code 1 \\(Exit\\) before it was ready\n");
        assertThat(r.output().split("unable to load certificate", -1)).hasSize(2);
    }

    /** The {@code show proc} table and the prefix errors, as HAProxy 2.6 prints them (pids, uptimes, versions aside). */
    @Test
    void showProcIsLaidOutAsHaproxys() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "up", ""));
        Path cli = cli(cfg);
        String sluice;
        try (Sluice s = startMaster(cfg, port, "-W")) {
            sluice = masked(AdminClient.run(cli, "show proc\n")) + AdminClient.run(cli, "@3 show info\n");
        }
        Path hcli = cfg.getParent().resolve("haproxy-master.sock");
        Process h = new ProcessBuilder(haproxyPath, "-W", "-S", hcli.toString(), "-f", cfg.toString()).redirectErrorStream(true)
                .redirectOutput(cfg.getParent().resolve("haproxy.log").toFile()).start();
        try {
            // HAProxy's master executes itself again once its worker runs (its "wait mode"): a session opened meanwhile
            // is reset, so the table is asked for until a session holds
            String haproxy = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (haproxy == null) {
                try {
                    AdminClient.await(hcli);
                    haproxy = masked(AdminClient.run(hcli, "show proc\n")) + AdminClient.run(hcli, "@3 show info\n");
                } catch (AssertionError e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
            assertThat(sluice).isEqualTo(haproxy);
        } finally {
            h.destroy();
            h.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Pids, uptimes and versions replaced by fixed-width marks; the columns' padding kept. */
    private static String masked(String table) {
        StringBuilder out = new StringBuilder();
        for (String l : table.split("\n", -1)) {
            Matcher m = ROW.matcher(l);
            out.append(m.matches() ? String.format("%-15s %-15s %-15s %-15s %-15s", "PID", m.group(2), m.group(3), "UPTIME", "VERSION") : l)
                    .append('\n');
        }
        return out.toString();
    }
}
