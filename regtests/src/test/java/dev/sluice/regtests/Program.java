package dev.sluice.regtests;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every external program the regtests run, with the Debian package that provides it: the one place that finds
 * them (PATH, then the sbin directories a non-root PATH lacks) and, for HAProxy, checks the version the
 * expected outputs were captured from. A test calls {@link #require()} before using one: when it is missing the
 * test is skipped with a message naming the program and its package ({@code needs haproxy 2.6 (Debian package
 * haproxy)}), or fails with that message when {@code sluice.requireExternal=true} (system property, or
 * {@code SLUICE_REQUIRE_EXTERNAL=true} in the environment: CI, where a skip would be a test that compared
 * nothing). {@code ./sluice test} summarises the skips by these messages.
 * <p>
 * For tests of the skip path, {@code -Dsluice.program.<command>=<path>} replaces the lookup ({@code none}: missing).
 * Looked up once per JVM, from any test thread.
 */
enum Program {
    HAPROXY("haproxy", "haproxy", "2.6"),
    CURL("curl", "curl"),
    SOCAT("socat", "socat"),
    H2LOAD("h2load", "nghttp2-client"),
    WRK("wrk", "wrk"),
    NGHTTP("nghttp", "nghttp2-client"),
    GTLSCLIENT("gtlsclient", "ngtcp2-client"),
    OPENSSL("openssl", "openssl"),
    PROMTOOL("promtool", "prometheus"),
    CHROMIUM("chromium", "chromium"),
    HATOP("hatop", "hatop"),
    TMUX("tmux", "tmux"),
    PERL("perl", "perl"),
    SS("ss", "iproute2"),
    KILL("kill", "procps"),
    DNSMASQ("dnsmasq", "dnsmasq-base"),
    PHP_FPM("php-fpm8.2", "php-fpm");

    /** The property (or, upper-cased with underscores, environment variable) that turns a skip into a failure. */
    static final String REQUIRE_PROPERTY = "sluice.requireExternal";

    private static final Pattern VERSION = Pattern.compile("version (\\d+\\.\\d+)[.\\d]*");
    private static final Map<Program, Lookup> FOUND = new ConcurrentHashMap<>();

    private final String command;
    private final String debianPackage;
    private final String version;

    Program(String command, String debianPackage) {
        this(command, debianPackage, null);
    }

    Program(String command, String debianPackage, String version) {
        this.command = command;
        this.debianPackage = debianPackage;
        this.version = version;
    }

    /** What one lookup found: the path when usable, otherwise why not. */
    private record Lookup(String path, String problem) {}

    /**
     * The absolute path of the program; when it is missing (or is not the required version) the calling test is
     * skipped, or failed under {@code sluice.requireExternal=true}.
     */
    String require() {
        Lookup l = FOUND.computeIfAbsent(this, Program::lookup);
        if (l.path() != null) {
            return l.path();
        }
        if (required()) {
            fail(l.problem() + "; " + REQUIRE_PROPERTY + "=true makes it a failure, not a skip");
        }
        abort(l.problem());
        throw new AssertionError("unreachable");
    }

    /**
     * {@code cmd} with its first element, a command of this enum ({@code "curl"}), required and replaced by its path;
     * a first element that is already a path is kept.
     */
    static List<String> command(List<String> cmd) {
        List<String> out = new ArrayList<>(cmd);
        if (!cmd.getFirst().startsWith("/")) {
            Program p = Arrays.stream(values()).filter(v -> v.command.equals(cmd.getFirst())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(cmd.getFirst() + " is not one of the external programs of Program"));
            out.set(0, p.require());
        }
        return out;
    }

    /** {@code curl} or {@code haproxy 2.6}: what a message says is needed. */
    String describe() {
        return version == null ? command : command + " " + version;
    }

    static boolean required() {
        return Boolean.getBoolean(REQUIRE_PROPERTY) || Boolean.parseBoolean(System.getenv("SLUICE_REQUIRE_EXTERNAL"));
    }

    private Lookup lookup() {
        String needs = "needs " + describe() + " (Debian package " + debianPackage + ")";
        String path = locate();
        if (path == null) {
            return new Lookup(null, needs);
        }
        if (version != null) {
            String found = versionOf(path);
            if (!version.equals(found)) {
                return new Lookup(null, needs + ": " + path + " is " + (found == null ? "of an unknown version" : found));
            }
        }
        return new Lookup(path, null);
    }

    private String locate() {
        String override = System.getProperty("sluice.program." + command);
        if (override != null) {
            return override.equals("none") || !Files.isExecutable(Path.of(override)) ? null : override;
        }
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/local/sbin", "/usr/sbin", "/sbin"));
        for (String d : dirs) {
            if (!d.isEmpty()) {
                Path p = Path.of(d, command);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p.toAbsolutePath().toString();
                }
            }
        }
        return null;
    }

    /** The major.minor that {@code <path> -v} prints ("HAProxy version 2.6.12-1+deb12u4 ..."), or null. */
    private static String versionOf(String path) {
        try {
            Process p = new ProcessBuilder(path, "-v").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            Matcher m = VERSION.matcher(out);
            return m.find() ? m.group(1) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
