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

    static void install(Generations runtime) {
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
