package dev.sluice.proxy.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code -D}: the JVM cannot fork, so the daemon is a new process (the same command without {@code -D},
 * in a new session when {@code setsid} exists, input from /dev/null). The parent waits until the child
 * listens (it writes its pid to a file the parent names), prints nothing, and exits 0; if the child dies
 * first, the parent exits 1 (the child's errors went to the shared stderr).
 */
final class Daemon {
    private Daemon() {
    }

    static int spawn(String[] args, String pidfile) {
        List<String> java = jvmCommand(args);
        if (java == null) {
            System.err.println("[ALERT] cannot find the java command to start the daemon");
            return 1;
        }
        List<String> jvm = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            jvm.add("/usr/bin/setsid");
        }
        jvm.addAll(java);
        for (String a : args) {
            if (!a.equals("-D")) {
                jvm.add(a);
            }
        }
        Path ready;
        try {
            ready = Files.createTempFile("sluice-ready", ".pid");
            Files.delete(ready);
        } catch (IOException e) {
            System.err.println("[ALERT] cannot create a temporary file: " + e.getMessage());
            return 1;
        }
        ProcessBuilder pb = new ProcessBuilder(jvm);
        pb.environment().put(Main.READY_FILE_ENV, ready.toString());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process child;
        try {
            child = pb.start();
        } catch (IOException e) {
            System.err.println("[ALERT] cannot start the daemon: " + e.getMessage());
            return 1;
        }
        return switch (awaitReady(ready, child)) {
            case READY -> 0;
            case EXITED, FAILED -> 1;
            case TIMEOUT -> {
                System.err.println("[ALERT] the daemon did not start listening within 60 s");
                yield 1;
            }
        };
    }

    /**
     * This JVM's command without the proxy's arguments: the java binary, the JVM's options and the main class or
     * jar, to start another process of the same program ({@code -D}'s daemon, a master's worker). Null when the
     * JVM's command line cannot be read.
     */
    static List<String> jvmCommand(String[] args) {
        ProcessHandle.Info info = ProcessHandle.current().info();
        Optional<String> java = info.command();
        String[] all = info.arguments().orElse(null);
        // the JVM's own arguments end with the main class or jar; the proxy's follow
        if (java.isEmpty() || all == null || all.length < args.length) {
            return null;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(java.get());
        cmd.addAll(List.of(all).subList(0, all.length - args.length));
        return cmd;
    }

    /** How waiting for a started process to listen ended. */
    enum Ready {
        /** It wrote its pid to the ready file. */
        READY,
        /** It exited first. */
        EXITED,
        /** It did not within 60 s. */
        TIMEOUT,
        /** The file could not be read, or the wait was interrupted. */
        FAILED
    }

    /** Waits until {@code child} wrote its pid to {@code ready} (the file is removed then), exits, or 60 s pass. */
    static Ready awaitReady(Path ready, Process child) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        try {
            while (System.nanoTime() < deadline) {
                if (Files.exists(ready) && Files.size(ready) > 0) {
                    Files.deleteIfExists(ready);
                    return Ready.READY;
                }
                if (!child.isAlive()) {
                    return Ready.EXITED;
                }
                Thread.sleep(10);
            }
        } catch (IOException e) {
            return Ready.FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Ready.FAILED;
        }
        return Ready.TIMEOUT;
    }
}
