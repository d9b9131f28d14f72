package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The launcher's start-up cache (JDK 25's AOT cache trained by {@code ./sluice aot}): the daemon starts with the
 * cache of its jar while the cache is newer than the jar, without it when {@code SLUICE_AOT=off}, and a cache the
 * JVM cannot use (damaged, or made for another jar) changes nothing a user sees: no output of its own, the same
 * answers.
 */
class StartupCacheTest {

    private static String config(int port) {
        return """
                defaults
                    mode http
                    timeout client 10s
                    timeout server 10s
                    timeout connect 2s
                frontend fe
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "cached"
                """.formatted(port);
    }

    private static Path cacheOf(Path jar) {
        return jar.resolveSibling(jar.getFileName().toString().replaceFirst("\\.jar$", "") + ".aot");
    }

    /** The JVM's arguments of a running daemon, from /proc. */
    private static List<String> arguments(Sluice s) throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(s.pid()), "cmdline"));
        return Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
    }

    private static String get(int port) throws Exception {
        try (HttpClient c = HttpClient.newHttpClient()) {
            return c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    @Test
    void theTrainedCacheIsUsedUnlessTurnedOff() throws Exception {
        Path cache = cacheOf(Sluice.JAR);
        // the training of this build ran when the harness loaded (as `./sluice build` runs it) and succeeded
        assertThat(cache).exists();
        assertThat(Files.getLastModifiedTime(cache)).isGreaterThan(Files.getLastModifiedTime(Sluice.JAR));
        int port = Ports.free();
        Path cfg = Sluice.writeConfig(config(port));
        try (Sluice s = Sluice.start(cfg, List.of(), Map.of(), port)) {
            assertThat(arguments(s)).contains("-XX:AOTCache=" + cache, "-Xlog:aot*=off");
            assertThat(get(port)).isEqualTo("cached");
        }
        try (Sluice s = Sluice.start(cfg, List.of(), Map.of("SLUICE_AOT", "off"), port)) {
            assertThat(arguments(s)).noneMatch(a -> a.startsWith("-XX:AOTCache"));
            assertThat(get(port)).isEqualTo("cached");
        }
    }

    @Test
    void aCacheTheJvmCannotUseChangesNothingVisible() throws Exception {
        Path dir = Files.createTempDirectory("sluice-aot-test");
        Path jar = Files.copy(Sluice.JAR, dir.resolve("sluice.jar"));
        Path cfg = Sluice.writeConfig(config(Ports.free()));
        Map<String, String> env = Map.of("SLUICE_JAR", jar.toString());
        Sluice.Result reference = Sluice.run(List.of("-c", "-f", cfg.toString()), Map.of("SLUICE_JAR", jar.toString(), "SLUICE_AOT", "off"));
        assertThat(reference.exitCode()).isZero();
        assertThat(reference.output()).isEqualTo("Configuration file is valid\n");

        // damaged: not a cache at all
        Path cache = cacheOf(jar);
        Files.write(cache, new byte[] {'n', 'o', 't', ' ', 'a', 'n', ' ', 'A', 'O', 'T', ' ', 'c', 'a', 'c', 'h', 'e'});
        Files.setLastModifiedTime(cache, FileTime.from(Instant.now().plusSeconds(5)));
        assertThat(Sluice.run(List.of("-c", "-f", cfg.toString()), env)).isEqualTo(reference);

        // made for another jar (this build's cache beside a copy: another path)
        Files.copy(cacheOf(Sluice.JAR), cache, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(cache, FileTime.from(Instant.now().plusSeconds(5)));
        assertThat(Sluice.run(List.of("-c", "-f", cfg.toString()), env)).isEqualTo(reference);
        int port = Ports.free();
        Path served = Sluice.writeConfig(config(port));
        try (Sluice s = Sluice.start(served, List.of(), env, port)) {
            assertThat(arguments(s)).contains("-XX:AOTCache=" + cache);
            assertThat(get(port)).isEqualTo("cached");
            assertThat(s.output()).isEmpty();
        }
    }

    /**
     * {@code ./sluice aot -f <cfg>}: the daemon runs on that configuration while requests go to its listeners, and
     * the cache it leaves beside the jar ({@code sluice.aot.d/}) is the one the next start on that configuration
     * uses. {@code -XX:AOTMode=on} makes a JVM that cannot map its cache refuse to start, so the check below passes
     * only when the cache is valid for the launcher's flags.
     */
    @Test
    void aCacheTrainedOnTheConfigurationIsMadeAndUsed() throws Exception {
        Path dir = Files.createTempDirectory("sluice-aot-own");
        Path jar = Files.copy(Sluice.JAR, dir.resolve("sluice.jar"));
        int h1 = Ports.free();
        int h2c = Ports.free();
        Path cfg = Sluice.writeConfig(config(h1) + """
                frontend fe_h2c
                    bind 127.0.0.1:%d proto h2
                    http-request return status 200 content-type text/plain string "cached"
                """.formatted(h2c));
        Map<String, String> env = Map.of("SLUICE_JAR", jar.toString(), "SLUICE_JAVA_OPTS", "", "SLUICE_AOT_SECONDS", "1");
        Sluice.Result trained = Sluice.run(List.of("aot", "-f", cfg.toString()), env);
        assertThat(trained.exitCode()).as(trained.output()).isZero();
        Path caches = dir.resolve("sluice.aot.d");
        List<Path> made;
        try (var files = Files.list(caches)) {
            made = files.filter(f -> f.toString().endsWith(".aot")).toList();
        }
        assertThat(made).hasSize(1);
        Path cache = made.get(0);
        String log = Files.readString(Path.of(cache.toString().replaceFirst("\\.aot$", ".log")));
        assertThat(log).contains("aot training: fe h1 127.0.0.1:" + h1 + ": ", "aot training: fe_h2c h2c 127.0.0.1:" + h2c + ": ")
                .doesNotContain(": 0 answers");

        Sluice.Result on = Sluice.run(List.of("-c", "-f", cfg.toString()),
                Map.of("SLUICE_JAR", jar.toString(), "SLUICE_JAVA_OPTS", "-XX:AOTMode=on"));
        assertThat(on.exitCode()).as(on.output()).isZero();
        assertThat(on.output()).isEqualTo("Configuration file is valid\n");
        try (Sluice s = Sluice.start(cfg, List.of(), Map.of("SLUICE_JAR", jar.toString()), h1)) {
            assertThat(arguments(s)).contains("-XX:AOTCache=" + cache, "-Djava.library.path=" + dir.resolve("sluice.native"));
            assertThat(get(h1)).isEqualTo("cached");
            // the native libraries come from the folder beside the jar (not copied to /tmp), and only those the
            // configuration uses: epoll, neither BoringSSL nor QUIC without a TLS or QUIC bind
            String maps = Files.readString(Path.of("/proc", Long.toString(s.pid()), "maps"));
            assertThat(maps).contains(dir.resolve("sluice.native") + "/libnetty_transport_native_epoll")
                    .doesNotContain("libnetty_tcnative").doesNotContain("libnetty_quiche");
        }
        // another configuration (another path) does not get it: the jar's own cache, when there is one
        Path other = Sluice.writeConfig(config(h1));
        Sluice.Result printed = Sluice.run(List.of("-f", other.toString()), Map.of("SLUICE_JAR", jar.toString(), "SLUICE_PRINT_FLAGS", "1"));
        assertThat(printed.output()).doesNotContain(cache.toString());
    }
}
