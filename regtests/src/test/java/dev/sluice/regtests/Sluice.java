package dev.sluice.regtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The daemon under test: started through the {@code ./sluice} launcher as a real OS process (the launcher
 * execs the JVM, so the process is the daemon), with a configuration written to a temporary directory,
 * its output captured to a file, stopped by PID. Netty's leak detector runs at PARANOID inside it, unexpected
 * exceptions are printed in full (sluice.reportUnexpected), and
 * {@link #close()} fails the test when it reported a leak or such an exception.
 */
final class Sluice implements AutoCloseable {
    static final Path ROOT = Path.of(System.getProperty("sluice.root", "..")).toAbsolutePath().normalize();
    static final Path JAR = Path.of(System.getProperty("sluice.jar", ROOT.resolve("proxy/target/sluice.jar").toString()));
    static final String JVM_OPTS = "-Dio.netty.leakDetection.level=paranoid -Dio.netty.leakDetection.targetRecords=10"
            + " -Dsluice.leakCheckOnExit=true -Dsluice.reportUnexpected=true -Xmx256m";

    /**
     * What the daemon prints about a fault of its own: an exception no handler expected (the proxy's
     * {@code UnexpectedErrors}), or one that Netty saw nobody handle.
     */
    static final List<String> FAULT_MARKS = List.of("[UNEXPECTED]", "An exceptionCaught() event was fired, and it reached at the tail",
            "A task raised an exception");

    static {
        ensureStartupCache();
    }

    private final Process process;
    private final Path dir;
    private final Path log;

    private Sluice(Process process, Path dir, Path log) {
        this.process = process;
        this.dir = dir;
        this.log = log;
    }

    /**
     * The launcher's start-up cache (JDK 25 AOT cache, {@code sluice.aot} beside the jar) for the jar under
     * test, trained once per build as {@code ./sluice build} does, so that the daemons here start as users'
     * do. When training fails the launcher says why in {@code sluice-aot.log} and the daemons start without it.
     */
    private static void ensureStartupCache() {
        try {
            Path aot = JAR.resolveSibling(JAR.getFileName().toString().replaceFirst("\\.jar$", "") + ".aot");
            if (Files.exists(aot) && Files.getLastModifiedTime(aot).compareTo(Files.getLastModifiedTime(JAR)) > 0) {
                return;
            }
            ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("sluice").toString(), "aot");
            pb.environment().put("SLUICE_JAR", JAR.toString());
            pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            Process p = pb.start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The launcher command with the jar under test and leak detection on. */
    static ProcessBuilder launcher(List<String> args, Map<String, String> env) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ROOT.resolve("sluice").toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("SLUICE_JAR", JAR.toString());
        pb.environment().put("SLUICE_JAVA_OPTS", JVM_OPTS);
        pb.environment().putAll(env);
        pb.directory(ROOT.toFile());
        return pb;
    }

    static Path writeConfig(String config) {
        try {
            Path dir = Files.createTempDirectory("sluice-test");
            Path cfg = dir.resolve("test.cfg");
            Files.writeString(cfg, config, StandardCharsets.UTF_8);
            return cfg;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the daemon on {@code config} and waits until every port in {@code ports} accepts connections. */
    static Sluice start(String config, int... ports) {
        return start(writeConfig(config), List.of(), Map.of(), ports);
    }

    static Sluice start(Path cfg, List<String> extraArgs, Map<String, String> env, int... ports) {
        List<String> args = new ArrayList<>(List.of("-f", cfg.toString()));
        args.addAll(extraArgs);
        return startWith(launcher(args, env), cfg.getParent(), ports);
    }

    /** Starts the process {@code pb} builds and waits for its ports. */
    static Sluice startWith(ProcessBuilder pb, Path dir, int... ports) {
        try {
            Path log = Files.createTempFile(dir, "sluice", ".log");
            pb.redirectErrorStream(true);
            pb.redirectOutput(log.toFile());
            Process p = pb.start();
            Sluice s = new Sluice(p, dir, log);
            s.awaitPorts(ports);
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitPorts(int... ports) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (int port : ports) {
            while (true) {
                if (!process.isAlive()) {
                    throw new AssertionError("sluice exited with " + process.exitValue() + " before listening on " + port + ":\n" + output());
                }
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                    break;
                } catch (IOException e) {
                    if (System.nanoTime() > deadline) {
                        close();
                        throw new AssertionError("sluice did not listen on " + port + " within 30 s:\n" + output());
                    }
                    sleep(25);
                }
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    Path dir() {
        return dir;
    }

    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<no output: " + e + ">";
        }
    }

    /** Stops the daemon (SIGTERM, then SIGKILL after 10 s) and fails on a leak report or a fault of its own. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        String out = output();
        if (out.contains("LEAK:")) {
            throw new AssertionError("Netty reported a buffer leak in the daemon:\n" + out);
        }
        for (String mark : FAULT_MARKS) {
            if (out.contains(mark)) {
                throw new AssertionError("the daemon reported a fault of its own (" + mark + "):\n" + out);
            }
        }
    }

    /** The outcome of a finished command. */
    record Result(int exitCode, String output) {
    }

    /** Runs {@code sluice <args>} to completion (for -c, -v, ...). */
    static Result run(List<String> args, Map<String, String> env) {
        try {
            ProcessBuilder pb = launcher(args, env);
            pb.redirectErrorStream(true);
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("sluice " + args + " did not finish");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Runs {@code sluice -c -f <config>}. */
    static Result check(String config) {
        return run(List.of("-c", "-f", writeConfig(config).toString()), Map.of());
    }
}
