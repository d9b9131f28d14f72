package dev.sluice.proxy.cli;

import dev.sluice.proxy.runtime.Generations;
import sun.misc.Signal;

/**
 * Signal handling, as HAProxy: SIGTERM and SIGINT stop at once, SIGUSR1 stops gracefully (listeners
 * close, running exchanges may finish); SIGUSR2 reloads the configuration in the process ({@link Generations}). Also sends signals to other processes for {@code -sf}/{@code -st}.
 *
 * <p>Not SIGQUIT, on which HAProxy dumps its pools to stderr and flushes them: the JVM keeps that signal for
 * its thread dump (printed on stdout; the process goes on) and refuses a Java handler for it ("Signal already
 * used by VM or OS"), with or without {@code -Xrs}, which would besides make SIGQUIT kill the process and take
 * SIGTERM and SIGINT away from Java handlers. The pools' dump and flush is the admin command
 * {@code flush pools} instead ({@code ProxyPools#flush}).
 */
final class Signals {
    private Signals() {
    }

    /** The signal HotSpot uses when the launcher does not choose one: Linux's SIGUSR2. */
    private static final int HOTSPOT_DEFAULT_SUSPEND = 12;

    /**
     * HotSpot suspends threads (JFR's sampler, profilers) by sending them its suspend signal, SIGUSR2 unless
     * {@code _JAVA_SR_SIGNUM} names another, and lets a Java handler take SIGUSR2 all the same: every sample would
     * then be a reload. The launcher gives the JVM another signal; a JVM started without it is told why at start.
     * Returns the warning to print, or null when the suspend signal is not SIGUSR2.
     */
    static String suspendSignalWarning(String srSignum) {
        int n;
        try {
            n = srSignum == null ? HOTSPOT_DEFAULT_SUSPEND : Integer.parseInt(srSignum.trim());
        } catch (NumberFormatException e) {
            // HotSpot warns and keeps its default
            n = HOTSPOT_DEFAULT_SUSPEND;
        }
        // HotSpot takes a value above SIGSEGV and SIGBUS and below NSIG, else warns and keeps its default
        if (n <= 11 || n >= 65) {
            n = HOTSPOT_DEFAULT_SUSPEND;
        }
        if (n != HOTSPOT_DEFAULT_SUSPEND) {
            return null;
        }
        return "[WARNING] the JVM suspends threads with SIGUSR2, the reload signal: a profiler or JFR would reload the"
                + " configuration at each sample. Start through ./sluice, or set _JAVA_SR_SIGNUM=40 in the environment.";
    }

    /** Prints {@link #suspendSignalWarning} for this process's environment, when there is one. */
    static void warnIfSuspendedByUsr2() {
        String w = suspendSignalWarning(System.getenv("_JAVA_SR_SIGNUM"));
        if (w != null) {
            System.err.println(w);
        }
    }

    static void install(Generations runtime) {
        warnIfSuspendedByUsr2();
        Signal.handle(new Signal("TERM"), s -> runtime.stop());
        Signal.handle(new Signal("INT"), s -> runtime.stop());
        Signal.handle(new Signal("USR1"), s -> runtime.softStop());
        // SIGUSR2: the configuration files again, in this process (a master reloads by starting a new worker); the
        // messages go to the console and the logs
        Signal.handle(new Signal("USR2"), s -> runtime.reload());
    }

    /** Sends {@code SIG<name>} to {@code pid}; failures are reported, not fatal. */
    static void send(long pid, String name) {
        try {
            Libc.kill(pid, new Signal(name).getNumber());
        } catch (Libc.Failure e) {
            System.err.println("[WARNING] cannot signal process " + pid + ": " + e.getMessage());
        }
    }
}
