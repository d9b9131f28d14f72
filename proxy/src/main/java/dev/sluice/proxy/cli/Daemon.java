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
        Optional<String> java = ProcessHandle.current().info().command();
        if (java.isEmpty()) {
            System.err.println("[ALERT] cannot find the java command to start the daemon");
            return 1;
        }
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.add(java.get());
        cmd.addAll(ProcessHandle.current().info().arguments().map(List::of).orElse(List.of()));
        // the JVM's own arguments end with the main class or jar; ours follow and are re-added without -D
        int ours = cmd.size() - args.length;
        List<String> jvm = new ArrayList<>(cmd.subList(0, ours));
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
        long deadline = System.nanoTime() + 60_000_000_000L;
        try {
            while (System.nanoTime() < deadline) {
                if (Files.exists(ready) && Files.size(ready) > 0) {
                    Files.deleteIfExists(ready);
                    return 0;
                }
                if (!child.isAlive()) {
                    return 1;
                }
                Thread.sleep(20);
            }
        } catch (IOException e) {
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
        System.err.println("[ALERT] the daemon did not start listening within 60 s");
        return 1;
    }
}
