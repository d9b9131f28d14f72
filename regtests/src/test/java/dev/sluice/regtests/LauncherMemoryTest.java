package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The launcher sizes the JVM from the configuration (docs/design.md, "Footprint"): the heap from the global
 * maxconn (48 MB + 24 kB a connection), direct memory from maxconn and tune.bufsize (64 MB + two buffers a
 * connection), both capped by {@code -m}; Serial GC up to a 512 MB heap, G1 above; SLUICE_JAVA_OPTS comes after
 * and wins.
 */
class LauncherMemoryTest {

    private static String config(String global) {
        return """
                global
                %s
                defaults
                    mode http
                    timeout client 10s
                    timeout server 10s
                    timeout connect 2s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "sized"
                """.formatted(global, Ports.free());
    }

    /** The JVM flags the launcher would start the daemon with (SLUICE_PRINT_FLAGS=1). */
    private static List<String> flags(String global, String... extra) {
        Path cfg = Sluice.writeConfig(config(global));
        List<String> args = new java.util.ArrayList<>(List.of("-f", cfg.toString()));
        args.addAll(Arrays.asList(extra));
        Sluice.Result r = Sluice.run(args, Map.of("SLUICE_PRINT_FLAGS", "1", "SLUICE_JAVA_OPTS", ""));
        assertThat(r.exitCode()).isZero();
        return r.output().lines().toList();
    }

    @Test
    void heapAndDirectMemoryFollowMaxconnAndBufsize() {
        assertThat(flags("    maxconn 1000")).contains("-XX:+UseSerialGC", "-XX:-ShrinkHeapInSteps", "-Xms16m", "-Xmx71m",
                "-XX:MaxDirectMemorySize=95m").doesNotContain("-XX:+UseG1GC");
        assertThat(flags("    maxconn 4096\n    tune.bufsize 32768")).contains("-Xmx144m", "-XX:MaxDirectMemorySize=320m");
        // -m caps both
        assertThat(flags("    maxconn 4096", "-m", "100")).contains("-Xmx100m", "-XX:MaxDirectMemorySize=100m");
        // -n sets maxconn as it does for the daemon
        assertThat(flags("    maxconn 4096", "-n", "1000")).contains("-Xmx71m");
        // a heap over 512 MB: G1
        assertThat(flags("    maxconn 30000")).contains("-XX:+UseG1GC", "-XX:+ExplicitGCInvokesConcurrent", "-Xmx751m")
                .doesNotContain("-XX:+UseSerialGC", "-XX:-ShrinkHeapInSteps");
    }

    @Test
    void aCollectorNamedInSluiceJavaOptsReplacesTheLaunchers() {
        Path cfg = Sluice.writeConfig(config("    maxconn 1000"));
        Sluice.Result r = Sluice.run(List.of("-f", cfg.toString()), Map.of("SLUICE_PRINT_FLAGS", "1", "SLUICE_JAVA_OPTS", "-XX:+UseG1GC"));
        // the JVM refuses two collectors ("Multiple garbage collectors selected")
        assertThat(r.output().lines()).contains("-XX:+UseG1GC", "-Xmx71m").doesNotContain("-XX:+UseSerialGC");
        Sluice.Result c = Sluice.run(List.of("-c", "-f", cfg.toString()), Map.of("SLUICE_JAVA_OPTS", "-XX:+UseParallelGC"));
        assertThat(c.output()).isEqualTo("Configuration file is valid\n");
    }

    @Test
    void aMaxconnOutsideTheGlobalSectionDoesNotCount() {
        Path cfg = Sluice.writeConfig(config("    maxconn 1000").replace("    mode http", "    mode http\n    maxconn 30000"));
        Sluice.Result r = Sluice.run(List.of("-f", cfg.toString()), Map.of("SLUICE_PRINT_FLAGS", "1", "SLUICE_JAVA_OPTS", ""));
        assertThat(r.output().lines()).contains("-Xmx71m");
    }

    @Test
    void theDaemonRunsWithThemAndSluiceJavaOptsWins() throws IOException {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig("""
                global
                    maxconn 1000
                defaults
                    mode http
                    timeout client 10s
                    timeout server 10s
                    timeout connect 2s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "sized"
                """.formatted(port));
        try (Sluice s = Sluice.start(cfg, List.of(), Map.of("SLUICE_JAVA_OPTS", "-Xmx80m"), port)) {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(s.pid()), "cmdline"));
            List<String> args = Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
            assertThat(args).contains("-XX:+UseSerialGC", "-Xmx71m", "-XX:MaxDirectMemorySize=95m", "-Xmx80m");
            // the later -Xmx is the one the JVM applies
            assertThat(args.lastIndexOf("-Xmx80m")).isGreaterThan(args.indexOf("-Xmx71m"));
        }
    }

    /** The master's flags, then its workers' (SLUICE_PRINT_FLAGS=1 prints both, an empty line between). */
    private static List<List<String>> masterAndWorker(String global, Map<String, String> env, String... extra) {
        Path cfg = Sluice.writeConfig(config(global));
        List<String> args = new java.util.ArrayList<>(List.of("-f", cfg.toString()));
        args.addAll(Arrays.asList(extra));
        Map<String, String> e = new java.util.HashMap<>(Map.of("SLUICE_PRINT_FLAGS", "1", "SLUICE_JAVA_OPTS", ""));
        e.putAll(env);
        Sluice.Result r = Sluice.run(args, e);
        assertThat(r.exitCode()).isZero();
        List<String> lines = r.output().lines().toList();
        int gap = lines.indexOf("");
        return gap < 0 ? List.of(lines) : List.of(lines.subList(0, gap), lines.subList(gap + 1, lines.size()));
    }

    /**
     * A master (-W, -Ws, master-worker in the global section) runs no proxy: small flags of its own, without the daemon's
     * start-up cache and direct memory; its workers get the daemon's (docs/design.md, "Master-worker mode").
     */
    @Test
    void aMasterGetsFlagsOfItsOwnAndItsWorkersTheDaemons() {
        for (List<List<String>> mw : List.of(masterAndWorker("    maxconn 1000", Map.of(), "-W"), masterAndWorker("    maxconn 1000", Map.of(), "-Ws"),
                masterAndWorker("    maxconn 1000\n    master-worker", Map.of()))) {
            assertThat(mw).hasSize(2);
            assertThat(mw.get(0)).contains("-XX:+UseSerialGC", "-Xms4m", "-Xmx71m", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1")
                    .noneMatch(f -> f.startsWith("-XX:AOTCache=") || f.startsWith("-XX:MaxDirectMemorySize"));
            assertThat(mw.get(1)).contains("-XX:+UseSerialGC", "-Xms16m", "-Xmx71m", "-XX:MaxDirectMemorySize=95m")
                    .doesNotContain("-XX:TieredStopAtLevel=1");
        }
        // a check is no master
        assertThat(masterAndWorker("    master-worker", Map.of(), "-c")).hasSize(1);
        // the master's own options go to the master only; a collector named there replaces the launcher's
        List<List<String>> own = masterAndWorker("", Map.of("SLUICE_MASTER_JAVA_OPTS", "-XX:+UseEpsilonGC -Dmaster=1"), "-W");
        assertThat(own.get(0)).contains("-XX:+UseEpsilonGC", "-Dmaster=1").doesNotContain("-XX:+UseSerialGC");
        assertThat(own.get(1)).doesNotContain("-Dmaster=1");
    }

    /** The running master has its flags and its worker the daemon's: the launcher hands the workers' command to the master. */
    @Test
    void theRunningMasterAndWorkerHaveTheirOwnFlags() throws Exception {
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(MasterWorkerTest.config(port, "up", "    maxconn 1000"));
        try (Sluice s = Sluice.start(cfg, List.of("-W"), Map.of("SLUICE_JAVA_OPTS", "-Dopts=all"), port)) {
            long worker = ProcessHandle.of(s.pid()).orElseThrow().children().filter(h -> h.info().command().isPresent()).findFirst().orElseThrow().pid();
            List<String> master = cmdline(s.pid());
            List<String> w = cmdline(worker);
            assertThat(master).contains("-XX:TieredStopAtLevel=1", "-Xms4m", "-Dopts=all", "-W").noneMatch(f -> f.startsWith("-XX:AOTCache="));
            assertThat(w).contains("-Xms16m", "-XX:MaxDirectMemorySize=95m", "-Dopts=all").doesNotContain("-XX:TieredStopAtLevel=1", "-W");
            assertThat(w.get(0)).isEqualTo(master.get(0));
        }
    }

    private static List<String> cmdline(long pid) throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        return Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
    }
}
