package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The launcher's own decisions, without starting a daemon: which JDK it runs (JAVA_HOME, then java on PATH, then the
 * newest under /usr/lib/jvm, by the JDK's release file or, without one, {@code java -version}), and how few programs
 * it runs before the JVM (each costs a fork and an exec: 300 ms of start-up when it ran sixty of them).
 */
class LauncherTest {

    private static final String JAVA_HOME = System.getProperty("java.home");

    private static Path dir() {
        try {
            return Files.createTempDirectory("sluice-launcher");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void executable(Path p, String text) {
        try {
            Files.createDirectories(p.getParent());
            Files.writeString(p, text);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JDK home whose java prints its name and arguments; its release file says {@code version} (null: none). */
    private static Path fakeJdk(Path dir, String name, String version) {
        Path home = dir.resolve(name);
        executable(home.resolve("bin/java"), """
                #!/bin/sh
                if [ "$1" = -version ]; then echo 'openjdk version "%s" 2026-09-15' >&2; exit 0; fi
                echo "%s $*"
                """.formatted(version == null ? "25.0.1" : version, name));
        try {
            if (version != null) {
                Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return home;
    }

    private static Sluice.Result run(Map<String, String> env, String... args) {
        return Sluice.run(List.of(args), env);
    }

    @Test
    void aJdk25IsFoundBehindAnOlderJavaHomeOnPathThroughASymbolicLink() throws IOException {
        Path dir = dir();
        Path old = fakeJdk(dir, "jdk17", "17.0.9");
        Path jdk25 = fakeJdk(dir, "jdk25", "25.0.1");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("java"), jdk25.resolve("bin/java"));
        Sluice.Result r = run(Map.of("JAVA_HOME", old.toString(), "PATH", bin + ":/usr/bin:/bin"), "-v");
        assertThat(r.output()).as(r.output()).startsWith("jdk25 ").contains("-jar").endsWith(" -v\n");

        // JAVA_HOME first when it is a 25
        r = run(Map.of("JAVA_HOME", jdk25.toString(), "PATH", "/usr/bin:/bin"), "-v");
        assertThat(r.output()).startsWith("jdk25 ");
        // a JDK without a release file answers java -version
        Path bare = fakeJdk(dir, "bare", null);
        r = run(Map.of("JAVA_HOME", bare.toString(), "PATH", "/usr/bin:/bin"), "-v");
        assertThat(r.output()).startsWith("bare ");
        // nothing 25 or newer anywhere it looks at first: it says where it looked
        r = run(Map.of("JAVA_HOME", old.toString(), "PATH", old.resolve("bin") + ":/usr/bin:/bin"), "-v");
        if (!r.output().contains("no JDK 25")) {
            // a machine with a JDK 25 under /usr/lib/jvm: that one
            assertThat(r.output()).as(r.output()).startsWith("Sluice version ");
        }
    }

    @Test
    void runByBashFromItsFolderItKeepsTheWorkingDirectory() throws Exception {
        // `bash sluice` from the checkout: the script's own path has no slash; relative paths stay relative to here
        ProcessBuilder pb = new ProcessBuilder("bash", "sluice", "-c", "-f", "examples/quickstart.cfg").directory(Sluice.ROOT.toFile())
                .redirectErrorStream(true);
        pb.environment().put("SLUICE_JAR", Sluice.JAR.toString());
        pb.environment().put("OLDPWD", "/tmp");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("Configuration file is valid");
    }

    @Test
    void aStartRunsOneProgramBeforeTheJvm() throws IOException {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/awk")), "needs awk in /usr/bin");
        Path dir = dir();
        Path log = dir.resolve("ran.log");
        Path shims = Files.createDirectories(dir.resolve("shims"));
        // every program the launcher could reach through PATH, counted as it runs
        for (String p : List.of("awk", "sed", "head", "tail", "cut", "cksum", "dirname", "basename", "readlink", "find", "date",
                "cat", "mktemp", "tr", "grep", "uname", "sort", "wc", "expr", "ls", "env", "id", "stat", "realpath", "nproc", "getconf")) {
            for (String where : List.of("/usr/bin/", "/bin/")) {
                if (Files.isExecutable(Path.of(where + p))) {
                    executable(shims.resolve(p), "#!/bin/sh\necho %s >> %s\nexec %s%s \"$@\"\n".formatted(p, log, where, p));
                    break;
                }
            }
        }
        Path cfg = Sluice.writeConfig("""
                global
                    maxconn 1000
                defaults
                    mode http
                frontend fe
                    bind 127.0.0.1:%d
                """.formatted(Ports.free()));
        Sluice.Result r = run(Map.of("JAVA_HOME", JAVA_HOME, "PATH", shims + ":/usr/bin:/bin", "SLUICE_PRINT_FLAGS", "1",
                "SLUICE_JAVA_OPTS", ""), "-f", cfg.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("-Xmx71m");
        // reflection through the native accessor: no method handle classes spun at start
        assertThat(r.output()).contains("-Djdk.reflect.useNativeAccessorOnly=true");
        // awk reads the configuration's sizes; nothing else runs (SLUICE_JAR: no staleness check)
        assertThat(Files.readAllLines(log)).containsExactly("awk");

        // in master-worker mode too
        Files.delete(log);
        r = run(Map.of("JAVA_HOME", JAVA_HOME, "PATH", shims + ":/usr/bin:/bin", "SLUICE_PRINT_FLAGS", "1", "SLUICE_JAVA_OPTS", ""),
                "-W", "-f", cfg.toString());
        assertThat(r.output()).contains("-XX:TieredStopAtLevel=1", "-Xmx71m");
        assertThat(Files.readAllLines(log)).containsExactly("awk");
    }
}
