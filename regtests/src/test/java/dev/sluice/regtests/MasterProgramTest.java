package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code program} sections in master-worker mode: the master starts each program before its worker, lists it in
 * {@code show proc} under {@code # programs}, starts it again at a reload (the former one gets SIGUSR1) unless
 * {@code no option start-on-reload} keeps it, and stops it with the workers; the table is laid out as HAProxy 2.6's.
 */
class MasterProgramTest {

    /** Each program appends its pid to a file, then sleeps. */
    private static String programs(Path dir) {
        return """
                program counter
                    command sh -c 'echo $$ >> %1$s/counter.pids; exec sleep 1000'
                program keeper
                    command sh -c 'echo $$ >> %1$s/keeper.pids; exec sleep 1001'
                    no option start-on-reload
                """.formatted(dir);
    }

    private static List<String> pids(Path f) {
        try {
            return Files.exists(f) ? Files.readAllLines(f) : List.of();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean alive(String pid) {
        return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
    }

    private static final Pattern ROW = Pattern.compile("^(\\d+)\\s+(\\S+)\\s+(\\d+(?: \\[failed: \\d+\\])?)\\s+(\\d+d\\d\\dh\\d\\dm\\d\\ds)\\s+(\\S+)\\s*$");

    /** {@code show proc}'s rows as "pid type reloads", the section lines as they are. */
    private static List<String> rows(String table) {
        return table.lines().filter(l -> !l.isBlank()).map(l -> {
            Matcher m = ROW.matcher(l);
            return m.matches() ? m.group(1) + " " + m.group(2) + " " + m.group(3) : l.strip();
        }).toList();
    }

    @Test
    void programsStartBeforeTheWorkerRestartPerStartOnReloadAndStopWithTheMaster() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(MasterWorkerTest.config(port, "up", ""));
        Path dir = cfg.getParent();
        Files.writeString(cfg, Files.readString(cfg) + programs(dir));
        Path cli = MasterWorkerTest.cli(cfg);
        Path counter = dir.resolve("counter.pids");
        Path keeper = dir.resolve("keeper.pids");
        String c1;
        String k1;
        String c2;
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, "-W")) {
            MasterWorkerTest.await("both programs started", () -> pids(counter).size() == 1 && pids(keeper).size() == 1);
            c1 = pids(counter).getFirst();
            k1 = pids(keeper).getFirst();
            List<String> r = rows(AdminClient.run(cli, "show proc\n"));
            assertThat(r.subList(r.indexOf("# programs"), r.size())).containsExactly("# programs", c1 + " counter 0", k1 + " keeper 0");
            String out = s.output();
            // as HAProxy: the programs are forked before the worker
            assertThat(out.indexOf("New program 'counter' (" + c1 + ") forked")).as(out).isPositive().isLessThan(out.indexOf("New worker ("));
            assertThat(out).contains("New program 'keeper' (" + k1 + ") forked");

            AdminClient.run(cli, "reload\n");
            MasterWorkerTest.await("counter started again", () -> pids(counter).size() == 2);
            c2 = pids(counter).get(1);
            MasterWorkerTest.await("the former counter gone", () -> !alive(c1));
            MasterWorkerTest.await("the former counter's exit said", () -> s.output().contains(
                    "Former program 'counter' (" + c1 + ") exited with code 138 (User defined signal 1)"));
            assertThat(pids(keeper)).containsExactly(k1);
            assertThat(alive(k1)).isTrue();
            r = rows(AdminClient.run(cli, "show proc\n"));
            assertThat(r.subList(r.indexOf("# programs"), r.size())).containsExactlyInAnyOrder("# programs", c2 + " counter 0", k1 + " keeper 1");
            assertThat(r).contains(s.pid() + " master 1 [failed: 0]");
        }
        // the master stopped: its programs with it
        MasterWorkerTest.await("the programs stopped", () -> !alive(c2) && !alive(k1));
    }

    @Test
    void aProgramNeedsMasterWorkerMode() {
        Sluice.Result r = Sluice.check(MasterWorkerTest.config(Ports.free(), "up", "") + "program p\n    command true\n");
        assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
        assertThat(r.output()).contains("error: Can't use a 'program' section without master worker mode.");
        Sluice.Result ok = Sluice.check(MasterWorkerTest.config(Ports.free(), "up", "    master-worker") + "program p\n    command true\n");
        assertThat(ok.exitCode()).as(ok.output()).isZero();
    }

    @Test
    void aProgramThatFailsStopsEverythingAsAWorkerDoes() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(MasterWorkerTest.config(port, "up", "") + "program failer\n    command sh -c 'sleep 2; exit 3'\n");
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, "-W")) {
            assertThat(s.process().waitFor(20, TimeUnit.SECONDS)).as(s.output()).isTrue();
            assertThat(s.process().exitValue()).isEqualTo(3);
            assertThat(s.output()).containsPattern("\\[ALERT\\] +\\(\\d+\\) : Current program 'failer' \\(\\d+\\) exited with code 3 \\(Exit\\)")
                    .contains("exit-on-failure: killing every processes with SIGTERM").contains("All workers exited. Exiting... (3)");
        }
    }

    @Test
    void aWorkerThatDiesTakesTheProgramsWithIt() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(MasterWorkerTest.config(port, "up", "") + "program sleeper\n    command sleep 1003\n");
        Path cli = MasterWorkerTest.cli(cfg);
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, "-W")) {
            List<String> r = rows(AdminClient.run(cli, "show proc\n"));
            String program = r.get(r.indexOf("# programs") + 1).split(" ")[0];
            long w = MasterWorkerTest.workerPid(cli);
            ProcessHandle.of(w).orElseThrow().destroyForcibly();
            assertThat(s.process().waitFor(15, TimeUnit.SECONDS)).as(s.output()).isTrue();
            assertThat(s.process().exitValue()).isEqualTo(137);
            assertThat(alive(program)).isFalse();
            assertThat(s.output()).contains("Current program 'sleeper' (" + program + ") exited with code 143 (Terminated)")
                    .contains("All workers exited. Exiting... (137)");
        }
    }

    @Test
    void aProgramRunsAsItsUserAndGroup() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "changing users needs root");
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(MasterWorkerTest.config(port, "up", "")
                + "program who\n    command sh -c 'echo \"ids: $(id -u) $(id -g) $(id -G)\"; exec sleep 1004'\n    user nobody\n    group nogroup\n");
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, "-W")) {
            MasterWorkerTest.await("the program's ids printed", () -> s.output().contains("ids: "));
            // the program's output is the master's; supplementary groups dropped
            assertThat(s.output()).contains("ids: 65534 65534 65534\n");
        }
    }

    /** Pids, uptimes and versions replaced by fixed-width marks; the columns' padding kept. */
    private static String masked(String table) {
        StringBuilder out = new StringBuilder();
        for (String l : table.split("\n", -1)) {
            Matcher m = ROW.matcher(l);
            out.append(m.matches() ? String.format("%-15s %-15s %-15s %-15s %-15s", "PID", m.group(2), m.group(3), "UPTIME",
                    m.group(5).equals("-") ? "-" : "VERSION") : l).append('\n');
        }
        return out.toString();
    }

    /** The master's row and the programs' rows, once no former program is listed. */
    private static String afterReload(Path cli) throws InterruptedException {
        String[] t = {null};
        MasterWorkerTest.await("no old program listed", () -> !(t[0] = AdminClient.run(cli, "show proc\n")).contains("# old programs"));
        String m = masked(t[0]);
        return m.lines().filter(l -> l.contains(" master ")).findFirst().orElseThrow() + "\n" + m.substring(m.indexOf("# programs"));
    }

    @Test
    void showProcListsProgramsAsHaproxyDoes() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(MasterWorkerTest.config(port, "up", "") + "program sleeper\n    command sleep 1000\n"
                + "program other\n    command sleep 1002\n");
        Path cli = MasterWorkerTest.cli(cfg);
        String sluice;
        String sluiceAfter;
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, "-W")) {
            sluice = masked(AdminClient.run(cli, "show proc\n"));
            AdminClient.run(cli, "reload\n");
            sluiceAfter = afterReload(cli);
        }
        Path hcli = cfg.getParent().resolve("haproxy-master.sock");
        Process h = new ProcessBuilder(haproxyPath, "-W", "-S", hcli.toString(), "-f", cfg.toString()).redirectErrorStream(true)
                .redirectOutput(cfg.getParent().resolve("haproxy.log").toFile()).start();
        try {
            // HAProxy's master executes itself again once its worker runs: a session opened meanwhile is reset
            String haproxy = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (haproxy == null) {
                try {
                    AdminClient.await(hcli);
                    String t = AdminClient.run(hcli, "show proc\n");
                    haproxy = t.contains("# workers\n") && !t.contains("# workers\n# programs") ? masked(t) : null;
                } catch (AssertionError e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                }
                if (haproxy == null) {
                    Thread.sleep(100);
                }
            }
            assertThat(sluice).isEqualTo(haproxy);
            AdminClient.run(hcli, "reload\n");
            String after = null;
            while (after == null) {
                try {
                    Thread.sleep(200);
                    AdminClient.await(hcli);
                    after = afterReload(hcli);
                    if (!after.contains(" 1 [failed: 0]")) {
                        after = null;
                    }
                } catch (AssertionError e) {
                    if (System.nanoTime() > deadline + TimeUnit.SECONDS.toNanos(20)) {
                        throw e;
                    }
                }
            }
            assertThat(sluiceAfter).isEqualTo(after);
        } finally {
            h.destroy();
            h.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
