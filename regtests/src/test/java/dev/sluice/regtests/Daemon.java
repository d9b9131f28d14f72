package dev.sluice.regtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The proxy a behaviour test runs against: Sluice, or the real HAProxy 2.6 on the same configuration (to
 * compare what both do), each a real process with its output (logs on stdout) captured to a file and
 * stopped by PID on close. Starting HAProxy requires it ({@link Program#HAPROXY}): the test is skipped, or fails
 * under {@code sluice.requireExternal=true}, when it is not installed.
 */
final class Daemon implements AutoCloseable {
    private final Sluice sluice;
    private final Process haproxy;
    private final Path log;
    private final Path dir;

    private Daemon(Sluice sluice, Process haproxy, Path log, Path dir) {
        this.sluice = sluice;
        this.haproxy = haproxy;
        this.log = log;
        this.dir = dir;
    }

    /** Starts Sluice (or HAProxy when {@code haproxy}) on {@code config} ({@code @DIR@} is its directory) and waits for {@code port}. */
    static Daemon start(boolean haproxy, String config, int port) {
        String haproxyPath = haproxy ? Program.HAPROXY.require() : null;
        try {
            Path dir = Files.createTempDirectory(haproxy ? "haproxy-test" : "sluice-test");
            Path cfg = dir.resolve("test.cfg");
            Files.writeString(cfg, config.replace("@DIR@", dir.toString()), StandardCharsets.UTF_8);
            Daemon d;
            if (!haproxy) {
                d = new Daemon(Sluice.start(cfg, List.of(), java.util.Map.of(), port), null, null, dir);
            } else {
                Path log = dir.resolve("haproxy.log");
                Process p = new ProcessBuilder(haproxyPath, "-db", "-f", cfg.toString()).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start();
                d = new Daemon(null, p, log, dir);
                d.awaitPort(port);
            }
            if (config.contains("@DIR@/admin.sock")) {
                // the admin socket may come up just after the listeners
                AdminClient.await(dir.resolve("admin.sock"));
            }
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitPort(int port) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            if (!haproxy.isAlive()) {
                throw new AssertionError("haproxy exited: " + output());
            }
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    close();
                    throw new AssertionError("haproxy did not listen on " + port + ": " + output());
                }
                sleep(20);
            }
        }
    }

    boolean isHaproxy() {
        return haproxy != null;
    }

    Path dir() {
        return dir;
    }

    String name() {
        return haproxy != null ? "haproxy" : "sluice";
    }

    String output() {
        if (sluice != null) {
            return sluice.output();
        }
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<no output: " + e + ">";
        }
    }

    /** The output lines, once at least {@code n} of them match (within 10 s). */
    List<String> awaitLines(Predicate<String> which, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<String> l = output().lines().filter(which).toList();
            if (l.size() >= n || System.nanoTime() > deadline) {
                return l;
            }
            sleep(20);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        if (sluice != null) {
            sluice.close();
            return;
        }
        haproxy.destroy();
        try {
            if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                haproxy.destroyForcibly();
                haproxy.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            haproxy.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
