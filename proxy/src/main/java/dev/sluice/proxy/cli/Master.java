package dev.sluice.proxy.cli;

import dev.sluice.config.model.Program;
import dev.sluice.config.model.StatsSocket;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Supplier;
import sun.misc.Signal;

/**
 * Master-worker mode ({@code -W}, {@code -Ws}, {@code master-worker} in the global section), as HAProxy's: this
 * process only supervises; the proxy runs in a worker, a child process started with the same proxy arguments (without
 * the master's own flags) and the workers' java command ({@link WorkerProgram}). On SIGUSR2 (or the master CLI's
 * {@code reload}), when the program on disk is still the one the current worker started from, the worker reloads its
 * configuration in place ({@link WorkerReload}); when it changed, or the worker cannot do that (an older one), the
 * master starts a new worker with {@code -sf} and the current workers' pids, and {@code -x} and the current worker's
 * admin socket: the new one takes the current one's listening sockets (so no connection waiting to be accepted is
 * lost) and tells the old ones to finish once it listens. Either way a failed reload (a broken configuration, a port a new worker cannot bind) leaves the
 * current worker serving ("Loading failure!"). SIGTERM, SIGINT and SIGUSR1 are passed on to every worker and the
 * master leaves with the last one. When the current worker dies on its own, the master stops every other worker and exits with its status
 * (HAProxy's exit-on-failure), unless {@code master-worker no-exit-on-failure} is set. The master CLI ({@code -S})
 * is {@link MasterCli}; with {@code -Ws}, systemd is told READY=1 and RELOADING=1 on its {@code NOTIFY_SOCKET}.
 * Messages are HAProxy's, on stderr, with the master's pid.
 */
final class Master implements MasterPrograms.Log {
    /** In a worker: the master's pid. */
    static final String WORKER_ENV = "SLUICE_MASTER_PID";
    /** In a worker: the file to write its pid to once it listens. */
    static final String WORKER_READY_ENV = "SLUICE_WORKER_READY";
    /** In a worker: the UNIX path of the admin socket (level admin) the master CLI reaches it through. */
    static final String WORKER_CLI_ENV = "SLUICE_WORKER_CLI";

    /** How long a worker may take to reload in place and answer. */
    static final long IN_PLACE_RELOAD_TIMEOUT_MS = 60_000;
    /** How long the messages of a reload in place may take through the worker's pipe once it answered. */
    static final long PRINTED_WAIT_MS = 1_000;

    /** A worker process, current or leaving. */
    static final class Worker {
        final Process process;
        final long pid;
        final long startMillis = System.currentTimeMillis();
        /**
         * The master's reload count when it started: it has lived through the difference since (reloads in place
         * included, as HAProxy counts the reloads a process lived through).
         */
        final int reloadsAtStart;
        /** Its admin socket, for the master CLI and reloads in place. */
        final Path cli;
        /** The program it started from, stamped just before. */
        final WorkerProgram.Fingerprint program;
        /** Its output, on its way to the master's stderr. */
        final WorkerOutput output;

        Worker(Process process, int reloadsAtStart, Path cli, WorkerProgram.Fingerprint program, WorkerOutput output) {
            this.process = process;
            this.pid = process.pid();
            this.reloadsAtStart = reloadsAtStart;
            this.cli = cli;
            this.program = program;
            this.output = output;
        }
    }

    private final WorkerProgram program;
    private final List<String> args;
    private final List<Long> initialSoftStop;
    private final List<Long> initialHardStop;
    private final String initialOldSocket;
    private final boolean exitOnFailure;
    private final int maxReloads;
    private final boolean systemd;
    private final PrintStream err;
    /** The {@code program} sections' processes; the configuration's programs at the start, and how to read them again. */
    private final MasterPrograms programs = new MasterPrograms(this::programExited);
    private final List<Program> initialPrograms;
    private final Supplier<List<Program>> reparse;
    /** The stack of the master's own threads: they read and write a few lines. */
    static final long STACK = 256 * 1024;

    private final long pid = ProcessHandle.current().pid();
    private final long startMillis = System.currentTimeMillis();
    private final CountDownLatch done = new CountDownLatch(1);
    private final Object reloading = new Object();
    private Path runDir;
    private MasterCli cli;

    // guarded by this
    private final List<Worker> workers = new ArrayList<>();
    private Worker current;
    private int reloads;
    private int failedReloads;
    private int spawned;
    private boolean stopping;
    private boolean lastReloadFailed;
    private boolean finished;
    /** Workers being started (not yet in {@link #workers}). */
    private int starting;
    private int exitCode = -1;

    /**
     * @param program the workers' java command, up to the jar or main class
     * @param args    the proxy's arguments without the master's own ({@code -W}, {@code -Ws}, {@code -S}, {@code -D},
     *                {@code -p}, {@code -sf}, {@code -st}, {@code -x}; see {@link #workerArgs})
     * @param oldSocket the {@code -x} of the master's command line, for the first worker (null: none)
     */
    Master(WorkerProgram program, List<String> args, List<Long> softStop, List<Long> hardStop, String oldSocket, boolean exitOnFailure,
            int maxReloads, boolean systemd, PrintStream err, List<Program> programs, Supplier<List<Program>> reparse) {
        this.initialPrograms = List.copyOf(programs);
        this.reparse = reparse;
        this.program = program;
        this.args = List.copyOf(args);
        this.initialSoftStop = List.copyOf(softStop);
        this.initialHardStop = List.copyOf(hardStop);
        this.initialOldSocket = oldSocket;
        this.exitOnFailure = exitOnFailure;
        this.maxReloads = maxReloads;
        this.systemd = systemd;
        this.err = err;
    }

    /** A worker's proxy arguments: the master's, without the master's own flags. */
    static List<String> workerArgs(String[] args) {
        List<String> cmd = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-W", "-Ws", "-D" -> {
                }
                case "-S", "-p", "-x" -> i++;
                case "-sf", "-st" -> {
                    while (i + 1 < args.length && !args[i + 1].startsWith("-")) {
                        i++;
                    }
                }
                default -> cmd.add(a);
            }
        }
        return cmd;
    }

    /**
     * Runs the master: the master CLI when {@code cliBind} is given, the first worker, then supervision until the
     * last worker is gone. {@code started} runs once the first worker listens (the pid file, a daemon's parent).
     * Returns the exit status.
     */
    int run(StatsSocket cliSocket, Runnable started) {
        try {
            runDir = Files.createTempDirectory("sluice-master-" + pid + "-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            alert("cannot create a directory for the workers' sockets: " + e.getMessage());
            return 1;
        }
        try {
            if (cliSocket != null) {
                try {
                    cli = MasterCli.start(cliSocket, this);
                } catch (IllegalStateException e) {
                    alert(e.getMessage());
                    return 1;
                }
            }
            Signals.warnIfSuspendedByUsr2();
            Signal.handle(new Signal("USR2"), s -> Thread.ofPlatform().daemon().name("sluice-reload").start(this::reload));
            Signal.handle(new Signal("TERM"), s -> stop("TERM"));
            Signal.handle(new Signal("INT"), s -> stop("INT"));
            Signal.handle(new Signal("USR1"), s -> stop("USR1"));
            synchronized (reloading) {
                // as HAProxy: the programs are forked before the worker
                if (!programs.startAll(initialPrograms, this)) {
                    stop("TERM");
                    return 1;
                }
                if (spawn(initialSoftStop, initialHardStop, initialOldSocket) == null) {
                    programs.signalAll("TERM");
                    return 1;
                }
            }
            notice("Loading success.");
            notifySystemd("READY=1\nMAINPID=" + pid + "\nSTATUS=Ready.\n");
            started.run();
            done.await();
            synchronized (this) {
                return Math.max(exitCode, 0);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            if (cli != null) {
                cli.close();
            }
            deleteRunDir();
        }
    }

    /**
     * Starts a worker telling {@code softStop} to finish and {@code hardStop} to stop once it listens, taking the listening
     * sockets of the process behind {@code oldSocket} (null: none); waits until it listens. Null (reported) when it exits
     * or does not listen within a minute.
     */
    private Worker spawn(List<Long> softStop, List<Long> hardStop, String oldSocket) {
        int n;
        int reloadsNow;
        synchronized (this) {
            n = ++spawned;
            reloadsNow = reloads;
            starting++;
        }
        Worker w = null;
        try {
            w = start(n, reloadsNow, softStop, hardStop, oldSocket);
            return w;
        } finally {
            boolean last;
            synchronized (this) {
                starting--;
                last = w == null && allGone();
            }
            if (last) {
                finish();
            }
        }
    }

    private Worker start(int n, int reloadsNow, List<Long> softStop, List<Long> hardStop, String oldSocket) {
        Path ready = runDir.resolve("ready-" + n);
        Path socket = runDir.resolve("cli-" + n + ".sock");
        // stamped before the start: a change made while it starts shows at the next reload
        WorkerProgram.Fingerprint stamp = program.fingerprint();
        List<String> cmd = new ArrayList<>(program.jvm());
        cmd.addAll(args);
        if (!softStop.isEmpty()) {
            cmd.add("-sf");
            softStop.forEach(p -> cmd.add(Long.toString(p)));
        }
        if (!hardStop.isEmpty()) {
            cmd.add("-st");
            hardStop.forEach(p -> cmd.add(Long.toString(p)));
        }
        if (oldSocket != null) {
            cmd.add("-x");
            cmd.add(oldSocket);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.remove(Main.READY_FILE_ENV);
        env.remove("NOTIFY_SOCKET");
        env.remove(WorkerProgram.ENV);
        env.put(WORKER_ENV, Long.toString(pid));
        env.put(WORKER_READY_ENV, ready.toString());
        env.put(WORKER_CLI_ENV, socket.toString());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        // the worker's output goes through the master's stderr: to the terminal, or nowhere once a daemon detached (a
        // worker holding the terminal itself would keep a daemon's parent's pipe open)
        pb.redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            alert("cannot start a worker: " + e.getMessage());
            return null;
        }
        WorkerOutput output = new WorkerOutput();
        Thread.ofPlatform().daemon().stackSize(STACK).name("sluice-worker-output-" + p.pid()).start(() -> output.copy(p.getInputStream()));
        Worker w = new Worker(p, reloadsNow, socket, stamp, output);
        notice("New worker (" + w.pid + ") forked");
        switch (Daemon.awaitReady(ready, p)) {
            case READY -> {
            }
            case EXITED -> {
                // it printed its own errors
                int status = p.exitValue();
                alert("New worker (" + w.pid + ") exited with code " + status + " (" + reason(status) + ") before it was ready");
                return null;
            }
            case TIMEOUT -> {
                alert("the worker (" + w.pid + ") did not start listening within 60 s: stopping it");
                p.destroyForcibly();
                return null;
            }
            case FAILED -> {
                alert("cannot tell whether the worker (" + w.pid + ") started: stopping it");
                p.destroyForcibly();
                return null;
            }
        }
        boolean stop;
        synchronized (this) {
            // listening: the current worker now, the others leave
            workers.add(w);
            current = w;
            stop = stopping;
        }
        if (stop) {
            Signals.send(w.pid, "TERM");
        }
        p.onExit().thenRun(() -> exited(w));
        return w;
    }

    /**
     * SIGUSR2 or the CLI's {@code reload}: the current worker reloads in place when it runs the program on disk and
     * can, else a new worker takes over from the current ones. One at a time.
     */
    void reload() {
        synchronized (reloading) {
            List<Long> old = new ArrayList<>();
            String oldSocket;
            Worker now;
            synchronized (this) {
                if (stopping) {
                    return;
                }
                reloads++;
                for (Worker w : workers) {
                    old.add(w.pid);
                }
                now = current;
                // as HAProxy's master (-x sockpair@ of the current worker): its admin socket has expose-fd listeners
                oldSocket = current == null ? null : current.cli.toString();
            }
            notice("Reloading Sluice");
            notifySystemd("RELOADING=1\n");
            // the master reads the programs again (a configuration that does not parse leaves them as they are: the
            // worker's reload fails and says why)
            List<Program> next = reparse.get();
            boolean programsOk = next == null || programs.reload(next, this);
            Boolean inPlace = now == null ? null : reloadInPlace(now);
            boolean ok;
            if (inPlace != null) {
                ok = inPlace;
            } else {
                ok = spawn(old, List.of(), oldSocket) != null;
            }
            if (ok) {
                programs.retire();
            }
            killOverReloaded();
            reloaded(ok && programsOk);
        }
    }

    /**
     * Reloads {@code w} in place when the program is unchanged since it started: true or false as it succeeded (its
     * diagnostics printed), null when a new worker must take over (said why).
     */
    private Boolean reloadInPlace(Worker w) {
        String changed = program.changedSince(w.program);
        if (changed != null) {
            notice(changed + " since the worker (" + w.pid + ") started: starting a new worker");
            return null;
        }
        w.output.record();
        try {
            return switch (WorkerReload.request(w.pid, w.cli, IN_PLACE_RELOAD_TIMEOUT_MS)) {
                case WorkerReload.Done d -> {
                    // the worker's own words, as a new worker would have printed them: by the worker itself (then they
                    // are through its pipe before the master says more), else here
                    if (!d.diagnostics().isEmpty() && !w.output.awaitLine(d.diagnostics().getLast(), PRINTED_WAIT_MS)) {
                        d.diagnostics().forEach(err::println);
                    }
                    yield d.success();
                }
                case WorkerReload.Unsupported u -> {
                    notice(u.why() + ": starting a new worker");
                    yield null;
                }
                case WorkerReload.Failed f -> {
                    alert(f.why());
                    yield false;
                }
            };
        } finally {
            w.output.stop();
        }
    }

    /** The end of a reload: counted, said, and told to systemd. */
    private void reloaded(boolean ok) {
        synchronized (this) {
            lastReloadFailed = !ok;
            if (!ok) {
                failedReloads++;
            }
        }
        if (ok) {
            notice("Loading success.");
            notifySystemd("READY=1\nSTATUS=Ready.\n");
        } else {
            warning("Loading failure!");
            notifySystemd("READY=1\nSTATUS=Reload failed!\n");
        }
    }

    /** {@code mworker-max-reloads}: a leaving worker that outlived more reloads than that gets a SIGTERM. */
    private void killOverReloaded() {
        if (maxReloads < 0) {
            return;
        }
        forEachWorker(w -> {
            boolean over;
            synchronized (this) {
                over = w != current && reloads - w.reloadsAtStart > maxReloads;
            }
            if (over) {
                Signals.send(w.pid, "TERM");
            }
        });
    }

    /** SIGTERM, SIGINT (stop now) or SIGUSR1 (finish first): passed on to every worker; the master leaves with the last. */
    void stop(String signal) {
        boolean none;
        synchronized (this) {
            if (!stopping) {
                warning("Exiting Master process...");
            }
            stopping = true;
            // a worker still starting is told once it listens (spawn)
            none = workers.isEmpty() && starting == 0 && programs.alive() == 0;
        }
        programs.signalAll(signal);
        notifySystemd("STOPPING=1\n");
        // (a terminal's ^C reaches the workers of its process group by itself: one may be gone already)
        forEachWorker(w -> {
            if (w.process.isAlive()) {
                Signals.send(w.pid, signal);
            }
        });
        if (none) {
            finish();
        }
    }

    private void forEachWorker(Consumer<Worker> action) {
        List<Worker> all;
        synchronized (this) {
            all = List.copyOf(workers);
        }
        all.forEach(action);
    }

    /** A worker process ended. */
    private void exited(Worker w) {
        int status = w.process.exitValue();
        boolean last;
        synchronized (this) {
            workers.remove(w);
            boolean wasCurrent = w == current;
            if (wasCurrent) {
                current = null;
            }
            reportExit(w, status, !wasCurrent);
            if (wasCurrent && !stopping) {
                if (status != 0 && status != 130 && status != 143 && exitOnFailure) {
                    alert("exit-on-failure: killing every processes with SIGTERM");
                }
                if (exitOnFailure) {
                    stopping = true;
                    for (Worker o : workers) {
                        Signals.send(o.pid, "TERM");
                    }
                    // and the programs, as HAProxy's mworker_kill
                    programs.signalAll("TERM");
                }
            }
            // 0 and SIGTERM are normal ends; anything else is the master's status
            if (wasCurrent && exitCode < 0 && status != 0 && status != 143) {
                exitCode = status;
            }
            last = allGone();
        }
        if (last) {
            finish();
        }
    }

    /** Stopping, and no worker or program left. Under the lock. */
    private boolean allGone() {
        return stopping && workers.isEmpty() && starting == 0 && programs.alive() == 0;
    }

    /** A program ended: HAProxy's words, and exit-on-failure as for the current worker. */
    private void programExited(MasterPrograms.Proc p, int status, boolean former) {
        boolean last;
        synchronized (this) {
            String line = (former ? "Former" : "Current") + " program '" + p.name + "' (" + p.pid + ") exited with code " + status + " ("
                    + reason(status) + ")";
            if (former) {
                warning(line);
            } else {
                alert(line);
                if (status != 0 && status != 130 && status != 143 && exitOnFailure && !stopping) {
                    alert("exit-on-failure: killing every processes with SIGTERM");
                    stopping = true;
                    for (Worker o : workers) {
                        Signals.send(o.pid, "TERM");
                    }
                    programs.signalAll("TERM");
                }
                if (exitCode < 0 && status != 0 && status != 143) {
                    exitCode = status;
                }
            }
            last = allGone();
        }
        if (last) {
            finish();
        }
    }

    private void reportExit(Worker w, int status, boolean former) {
        String line = (former ? "Former" : "Current") + " worker (" + w.pid + ") exited with code " + status + " (" + reason(status) + ")";
        if (status == 0) {
            warning(line);
        } else {
            alert(line);
        }
    }

    private void finish() {
        int code;
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
            code = Math.max(exitCode, 0);
        }
        warning("All workers exited. Exiting... (" + code + ")");
        done.countDown();
    }

    /** HAProxy's words for an exit status: "Exit", or the signal's name (strsignal) for 128 + signal. */
    static String reason(int status) {
        if (status <= 128) {
            return "Exit";
        }
        return switch (status - 128) {
            case 1 -> "Hangup";
            case 2 -> "Interrupt";
            case 3 -> "Quit";
            case 4 -> "Illegal instruction";
            case 6 -> "Aborted";
            case 7 -> "Bus error";
            case 8 -> "Floating point exception";
            case 9 -> "Killed";
            case 10 -> "User defined signal 1";
            case 11 -> "Segmentation fault";
            case 12 -> "User defined signal 2";
            case 13 -> "Broken pipe";
            case 14 -> "Alarm clock";
            case 15 -> "Terminated";
            default -> "Signal " + (status - 128);
        };
    }

    /** {@code show proc}: HAProxy 2.6's table. */
    String showProc() {
        StringBuilder sb = new StringBuilder();
        row(sb, "#<PID>", "<type>", "<reloads>", "<uptime>", "<version>");
        long now = System.currentTimeMillis();
        String version = Version.VERSION;
        synchronized (this) {
            row(sb, Long.toString(pid), "master", reloads + " [failed: " + failedReloads + "]", uptime(now - startMillis), version);
            sb.append("# workers\n");
            if (current != null) {
                workerRow(sb, current, now);
            }
            List<Worker> leaving = workers.stream().filter(w -> w != current).sorted(Comparator.comparingLong(w -> w.startMillis)).toList();
            if (!leaving.isEmpty()) {
                sb.append("# old workers\n");
                leaving.forEach(w -> workerRow(sb, w, now));
            }
        }
        sb.append("# programs\n");
        programs.rows(sb, now);
        return sb.toString();
    }

    /** A worker's row: its reloads are those since it started. Under the lock. */
    private void workerRow(StringBuilder sb, Worker w, long now) {
        row(sb, Long.toString(w.pid), "worker", Integer.toString(reloads - w.reloadsAtStart), uptime(now - w.startMillis), Version.VERSION);
    }

    private static void row(StringBuilder sb, String... cols) {
        // HAProxy's "%-15s %-15s %-15s %-15s %-15s\n"
        sb.append(String.format("%-15s %-15s %-15s %-15s %-15s%n", (Object[]) cols));
    }

    /** HAProxy's uptime: {@code 0d00h02m07s}. */
    static String uptime(long millis) {
        long s = Math.max(0, millis / 1000);
        return String.format("%dd%02dh%02dm%02ds", s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
    }

    /** Whether the last reload failed (the CLI's prompt says so). */
    synchronized boolean lastReloadFailed() {
        return lastReloadFailed;
    }

    /** The worker {@code @<n>} names: the n-th current worker, from 1 (a single one here). */
    synchronized Worker relative(int n) {
        return n == 1 ? current : null;
    }

    /** The worker {@code @!<pid>} names, current or leaving. */
    synchronized Worker byPid(long p) {
        return workers.stream().filter(w -> w.pid == p).findFirst().orElse(null);
    }

    private void notifySystemd(String state) {
        if (!systemd) {
            return;
        }
        String socket = System.getenv("NOTIFY_SOCKET");
        if (socket == null || socket.isEmpty()) {
            return;
        }
        try {
            Libc.sendUnixDatagram(socket, state.getBytes(StandardCharsets.UTF_8));
        } catch (Libc.Failure e) {
            warning("cannot notify systemd on " + socket + ": " + e.getMessage());
        }
    }

    private void deleteRunDir() {
        if (runDir == null) {
            return;
        }
        try (var files = Files.list(runDir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(runDir);
        } catch (IOException e) {
            // a temporary directory: nothing else to do
        }
    }

    @Override
    public void notice(String msg) {
        err.println("[NOTICE]   (" + pid + ") : " + msg);
    }

    private void warning(String msg) {
        err.println("[WARNING]  (" + pid + ") : " + msg);
    }

    @Override
    public void alert(String msg) {
        err.println("[ALERT]    (" + pid + ") : " + msg);
    }
}
