package dev.sluice.regtests;

import static dev.sluice.regtests.MasterWorkerTest.answers;
import static dev.sluice.regtests.MasterWorkerTest.await;
import static dev.sluice.regtests.MasterWorkerTest.body;
import static dev.sluice.regtests.MasterWorkerTest.cli;
import static dev.sluice.regtests.MasterWorkerTest.config;
import static dev.sluice.regtests.MasterWorkerTest.rows;
import static dev.sluice.regtests.MasterWorkerTest.workerPid;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * How a master reloads: in place, by the current worker's admin command {@code reload}, while the program it started
 * from (the jar, the JVM and its options) is unchanged; by a new worker once the jar changed, as before. {@code show proc}
 * counts both kinds, in HAProxy 2.6's table; the master CLI's {@code reload} answers nothing either way, as 2.6's.
 * The tests of the in-place path need the worker's {@code reload} command: they are skipped when the worker answers
 * that it does not know it (the master then says it starts a new worker instead).
 */
class MasterWorkerReloadTest {

    /** The master's notice when its worker answered {@code Unknown command} to {@code reload}. */
    private static final String NO_IN_PLACE = "cannot reload in place: starting a new worker";

    /** Skips the test when the worker under test has no {@code reload} command (the master said so). */
    private static void assumeInPlace(Sluice s) {
        Assumptions.assumeFalse(s.output().contains(NO_IN_PLACE),
                "the worker has no 'reload' admin command yet (it answered Unknown command): a reload in place cannot be tested");
    }

    /** How many times the master's output says {@code line}. */
    private static int count(Sluice s, String line) {
        return s.output().split(java.util.regex.Pattern.quote(line), -1).length - 1;
    }

    /** A copy of the jar under test in a directory of its own, to change it under a running master. */
    static Path jarCopy() {
        try {
            Path dir = Files.createTempDirectory("sluice-jar");
            Path jar = dir.resolve("sluice.jar");
            Files.copy(Sluice.JAR, jar);
            // removed when the tests end (the jar first)
            dir.toFile().deleteOnExit();
            jar.toFile().deleteOnExit();
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Gives {@code jar} a new modification time, as a rebuild or a package upgrade would. */
    static void touch(Path jar) {
        try {
            Instant before = Files.getLastModifiedTime(jar).toInstant();
            Files.setLastModifiedTime(jar, FileTime.from(before.plusSeconds(2)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void withTheSameProgramTheWorkerReloadsInPlaceOnUsr2AndTheCliReload() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "gen1", ""));
        Path cli = cli(cfg);
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, "-W")) {
            long w1 = workerPid(cli);
            assertThat(body(port)).isEqualTo("gen1");

            Files.writeString(cfg, config(port, "gen2", ""));
            GracefulStopTest.signal(s.pid(), "USR2");
            await("the reload done", () -> count(s, "Loading success.") == 2 || s.output().contains(NO_IN_PLACE));
            assumeInPlace(s);
            await("gen2 served", () -> answers(port, "gen2"));
            // the same worker, which counts the reload it lived through
            assertThat(workerPid(cli)).isEqualTo(w1);
            assertThat(rows(AdminClient.run(cli, "show proc\n"))).containsExactly(
                    "#<PID>          <type>          <reloads>       <uptime>        <version>".strip(), s.pid() + " master 1 [failed: 0]",
                    "# workers", w1 + " worker 1", "# programs", "");
            assertThat(count(s, "New worker (")).isEqualTo(1);

            // the CLI's reload says nothing and ends the session, as HAProxy 2.6's
            Files.writeString(cfg, config(port, "gen3", ""));
            assertThat(AdminClient.run(cli, "reload\n")).isEmpty();
            await("gen3 served", () -> answers(port, "gen3"));
            await("the second reload counted", () -> rows(AdminClient.run(cli, "show proc\n")).contains(s.pid() + " master 2 [failed: 0]"));
            assertThat(rows(AdminClient.run(cli, "show proc\n"))).contains(w1 + " worker 2");
            assertThat(ProcessHandle.of(w1).map(ProcessHandle::isAlive)).contains(true);
            // HAProxy's lines around the worker's own messages (its reload's notice)
            String out = s.output();
            String m = "(" + s.pid() + ") : ";
            int reloading = out.lastIndexOf("[NOTICE]   " + m + "Reloading Sluice\n");
            assertThat(reloading).isPositive();
            assertThat(out.indexOf("Reloaded in the process", reloading)).isGreaterThan(reloading);
            assertThat(out.indexOf("[NOTICE]   " + m + "Loading success.\n", reloading)).isGreaterThan(out.indexOf("Reloaded in the process", reloading));
            assertThat(count(s, "New worker (")).isEqualTo(1);
            assertThat(count(s, "Reloaded in the process")).isEqualTo(2);
        }
    }

    @Test
    void aFailedReloadInPlaceKeepsTheWorkerServingAndSaysLoadingFailure() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "gen1", ""));
        Path cli = cli(cfg);
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, "-W")) {
            long w1 = workerPid(cli);
            Files.writeString(cfg, config(port, "gen2", "    bogus-keyword"));
            GracefulStopTest.signal(s.pid(), "USR2");
            await("the reload done", () -> s.output().contains("Loading failure!") || s.output().contains(NO_IN_PLACE));
            assumeInPlace(s);
            String m = "(" + s.pid() + ") : ";
            // the worker's diagnostics, then HAProxy's words
            assertThat(s.output()).contains("unknown keyword 'bogus-keyword'", "[WARNING]  " + m + "Loading failure!\n");
            assertThat(s.output().indexOf("unknown keyword 'bogus-keyword'")).isLessThan(s.output().indexOf("Loading failure!"));
            // said once (the worker prints its reload's messages itself; the master does not repeat them)
            assertThat(count(s, "unknown keyword 'bogus-keyword'")).isEqualTo(1);
            assertThat(body(port)).isEqualTo("gen1");
            assertThat(rows(AdminClient.run(cli, "show proc\n"))).contains(s.pid() + " master 1 [failed: 1]", w1 + " worker 1");
            assertThat(AdminClient.run(cli, "prompt\nquit\n")).isEqualTo("master[ReloadFailed]> ");
            assertThat(count(s, "New worker (")).isEqualTo(1);

            // fixed: the next reload takes, in the same worker
            Files.writeString(cfg, config(port, "gen3", ""));
            GracefulStopTest.signal(s.pid(), "USR2");
            await("gen3 served", () -> answers(port, "gen3"));
            await("the prompt back to normal", () -> AdminClient.run(cli, "prompt\nquit\n").equals("master> "));
            assertThat(rows(AdminClient.run(cli, "show proc\n"))).contains(s.pid() + " master 2 [failed: 1]", w1 + " worker 2");
        }
    }

    @Test
    void aNewThreadCountIsAppliedByANewWorker() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "gen1", "    nbthread 1"));
        Path cli = cli(cfg);
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, Map.of(), "-W")) {
            long w1 = workerPid(cli);
            // the rest of the configuration changes in place
            Files.writeString(cfg, config(port, "gen2", "    nbthread 1"));
            GracefulStopTest.signal(s.pid(), "USR2");
            await("gen2 served", () -> answers(port, "gen2"));
            assumeInPlace(s);
            assertThat(workerPid(cli)).isEqualTo(w1);
            Files.writeString(cfg, config(port, "gen3", "    nbthread 2"));
            GracefulStopTest.signal(s.pid(), "USR2");
            long w2 = MasterWorkerTest.newWorker(cli, w1);
            await("gen3 served", () -> answers(port, "gen3"));
            await("the first worker gone", () -> ProcessHandle.of(w1).map(h -> !h.isAlive()).orElse(true));
            assertThat(s.output()).contains("the configuration changes nbthread 2, which only a new worker applies: starting a new worker")
                    .doesNotContain("applies at the next restart");
            assertThat(AdminClient.run(cli, "@1 show info\n")).contains("Nbthread: 2\n");
        }
    }

    @Test
    void aReloadAfterTheJarChangedStartsANewWorker() throws Exception {
        Path jar = jarCopy();
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port, "gen1", ""));
        Path cli = cli(cfg);
        try (Sluice s = MasterWorkerTest.startMaster(cfg, port, Map.of("SLUICE_JAR", jar.toString()), "-W")) {
            long w1 = workerPid(cli);
            touch(jar);
            Files.writeString(cfg, config(port, "gen2", ""));
            GracefulStopTest.signal(s.pid(), "USR2");
            long w2 = MasterWorkerTest.newWorker(cli, w1);
            await("gen2 served", () -> answers(port, "gen2"));
            await("the first worker gone", () -> ProcessHandle.of(w1).map(h -> !h.isAlive()).orElse(true));
            String m = "(" + s.pid() + ") : ";
            assertThat(s.output()).contains("[NOTICE]   " + m + "the jar " + jar + " changed since the worker (" + w1 + ") started: starting a new worker\n"
                    + "[NOTICE]   " + m + "New worker (" + w2 + ") forked\n");
            await("the reload counted", () -> rows(AdminClient.run(cli, "show proc\n")).equals(List.of(
                    "#<PID>          <type>          <reloads>       <uptime>        <version>".strip(), s.pid() + " master 1 [failed: 0]",
                    "# workers", w2 + " worker 0", "# programs", "")));
        }
    }
}
