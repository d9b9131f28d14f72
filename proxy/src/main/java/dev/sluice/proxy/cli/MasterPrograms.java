package dev.sluice.proxy.cli;

import dev.sluice.config.Diagnostic;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Program;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The {@code program} sections of a master (HAProxy 2.6's src/mworker-prog.c): each one's command started as a child
 * of the master before the first worker ("New program 'x' (pid) forked"), shown by {@code show proc} under
 * {@code # programs} (and {@code # old programs} for those a reload replaced and which have not exited yet), signalled
 * with the workers when the master stops. At a reload the configuration's programs are started again, the former ones
 * marked leaving and sent SIGUSR1 once the reload succeeded (as HAProxy's new worker signals its {@code -sf} pids), unless
 * {@code no option start-on-reload}: then the running one stays, its reload count increased. {@code user}/{@code group}
 * are applied by {@code setpriv} (the JVM cannot change them between fork and exec). Thread-safe (this object's lock);
 * exits are reported to the {@link Master} outside it.
 */
final class MasterPrograms {
    /** One program process, current or leaving. */
    static final class Proc {
        final String name;
        final Process process;
        final long pid;
        final long startMillis = System.currentTimeMillis();
        /** Reloads it lived through. */
        int reloads;
        boolean leaving;

        Proc(String name, Process process) {
            this.name = name;
            this.process = process;
            this.pid = process.pid();
        }
    }

    /** The master's messages. */
    interface Log {
        void notice(String msg);

        void alert(String msg);
    }

    /** Where a program's end goes: the master's report and exit-on-failure. */
    interface Exits {
        void exited(Proc p, int status, boolean former);
    }

    private final Exits exits;
    private final List<Proc> procs = new ArrayList<>();

    MasterPrograms(Exits exits) {
        this.exits = exits;
    }

    /**
     * What HAProxy's configuration post-parser says of programs that the configuration module cannot know: a program
     * needs master-worker mode ({@code -W}, {@code master-worker}, or being a worker of a master), and its user and group
     * must exist.
     */
    static List<Diagnostic> problems(Config config, boolean masterWorker) {
        List<Diagnostic> out = new ArrayList<>();
        if (config == null || config.programs().isEmpty()) {
            return out;
        }
        for (Program p : config.programs()) {
            try {
                if (p.user() != null && Libc.userId(p.user()) < 0) {
                    out.add(new Diagnostic(p.userAt().file(), p.userAt().line(), Diagnostic.Severity.ERROR,
                            "cannot find user id for '" + p.user() + "' (0:Success)"));
                }
                if (p.group() != null && Libc.groupId(p.group()) < 0) {
                    out.add(new Diagnostic(p.groupAt().file(), p.groupAt().line(), Diagnostic.Severity.ERROR,
                            "cannot find group id for '" + p.group() + "' (0:Success)"));
                }
            } catch (Libc.Failure e) {
                out.add(new Diagnostic(p.where().file(), p.where().line(), Diagnostic.Severity.ERROR, e.getMessage()));
            }
        }
        if (!masterWorker) {
            out.add(new Diagnostic(null, 0, Diagnostic.Severity.ERROR, "Can't use a 'program' section without master worker mode."));
        }
        return out;
    }

    /** Starts every program; false (said) when one cannot be started. */
    boolean startAll(List<Program> programs, Log log) {
        for (Program p : programs) {
            if (start(p, 0, log) == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * A reload with {@code programs} the configuration has now: the current ones leave, except those kept by
     * {@code no option start-on-reload}, and the others start again. False (said) when one cannot be started.
     */
    boolean reload(List<Program> programs, Log log) {
        List<Proc> before;
        synchronized (this) {
            for (Proc p : procs) {
                p.reloads++;
                p.leaving = true;
            }
            before = List.copyOf(procs);
        }
        boolean ok = true;
        for (Program p : programs) {
            Proc kept = null;
            if (!p.startOnReload()) {
                for (Proc o : before) {
                    if (o.name.equals(p.name()) && o.process.isAlive()) {
                        kept = o;
                    }
                }
            }
            if (kept != null) {
                synchronized (this) {
                    kept.leaving = false;
                }
            } else if (start(p, 0, log) == null) {
                ok = false;
            }
        }
        return ok;
    }

    /** After a successful reload: the programs that leave get SIGUSR1, as HAProxy's {@code -sf} pids do. */
    void retire() {
        for (Proc p : snapshot()) {
            if (p.leaving && p.process.isAlive()) {
                Signals.send(p.pid, "USR1");
            }
        }
    }

    /** Sends {@code signal} to every program (the master stops). */
    void signalAll(String signal) {
        for (Proc p : snapshot()) {
            if (p.process.isAlive()) {
                Signals.send(p.pid, signal);
            }
        }
    }

    /** Programs still running. */
    synchronized int alive() {
        return procs.size();
    }

    /** {@code show proc}'s rows after {@code # programs}: current ones, then {@code # old programs}. */
    void rows(StringBuilder sb, long now) {
        List<Proc> all = snapshot();
        List<Proc> old = new ArrayList<>();
        for (Proc p : all) {
            if (p.leaving) {
                old.add(p);
            } else {
                row(sb, p, now);
            }
        }
        if (!old.isEmpty()) {
            sb.append("# old programs\n");
            old.forEach(p -> row(sb, p, now));
        }
    }

    private static void row(StringBuilder sb, Proc p, long now) {
        sb.append(String.format("%-15s %-15s %-15s %-15s %-15s%n", p.pid, p.name, p.reloads, Master.uptime(now - p.startMillis), "-"));
    }

    private synchronized List<Proc> snapshot() {
        List<Proc> l = new ArrayList<>(procs);
        l.sort(Comparator.comparingLong(p -> p.startMillis));
        return l;
    }

    private Proc start(Program p, int reloads, Log log) {
        List<String> cmd = new ArrayList<>();
        if (p.user() != null || p.group() != null) {
            cmd.add("setpriv");
            if (p.group() != null) {
                cmd.add("--regid=" + p.group());
                cmd.add("--clear-groups");
            }
            if (p.user() != null) {
                cmd.add("--reuid=" + p.user());
            }
            cmd.add("--");
        }
        cmd.addAll(p.command());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        // the launcher's own variables are not the program's
        env.remove(Main.READY_FILE_ENV);
        env.remove(WorkerProgram.ENV);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.INHERIT);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            // HAProxy's words when its fork fails; here the command could not be executed
            log.alert("Cannot fork program '" + p.name() + "'.");
            log.alert("Cannot execute " + p.command().getFirst() + ": " + e.getMessage());
            return null;
        }
        Proc proc = new Proc(p.name(), process);
        proc.reloads = reloads;
        synchronized (this) {
            procs.add(proc);
        }
        log.notice("New program '" + p.name() + "' (" + proc.pid + ") forked");
        process.onExit().thenRun(() -> ended(proc));
        return proc;
    }

    private void ended(Proc p) {
        boolean former;
        synchronized (this) {
            procs.remove(p);
            former = p.leaving;
        }
        exits.exited(p, p.process.exitValue(), former);
    }
}
