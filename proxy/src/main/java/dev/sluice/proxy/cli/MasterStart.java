package dev.sluice.proxy.cli;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.Diagnostic;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Program;
import dev.sluice.config.model.StatsSocket;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The start of a master ({@code -W}, {@code -Ws}, {@code master-worker}) once its configuration parsed without error. A
 * master runs no proxy, so it stops there: the runtime's checks, which build rules, load TLS material and native
 * libraries, are left to its workers, which print their errors and exit before they listen (the master then says so
 * and exits with their status). What it still checks itself is what the parsed model tells: that something listens, and
 * {@code zero-warning} against the parser's warnings. It prints the parser's warnings only when it stops there: a worker
 * prints them as it starts, so that they are said once, as HAProxy says them.
 */
final class MasterStart {
    private MasterStart() {
    }

    static int run(Options opts, String[] args, Main.Parsed parsed) {
        Config config = parsed.config();
        List<String> messages = Main.messages(opts, parsed.diagnostics());
        // TEMPORARY (issue 16): what the configuration accepts but the daemon cannot run yet; delete with NotYetRunnable
        List<String> notYet = NotYetRunnable.problems(config);
        if (!notYet.isEmpty()) {
            print(opts, messages);
            print(opts, notYet);
            print(opts, List.of("Fatal errors found in configuration."));
            return 1;
        }
        boolean warned = parsed.diagnostics().stream().anyMatch(d -> d.severity() == Diagnostic.Severity.WARNING);
        if (warned && (config.global().process().zeroWarning() || opts.zeroWarning())) {
            print(opts, messages);
            print(opts, List.of("[ALERT] Some warnings were found and 'zero-warning' is set. Aborting."));
            return 1;
        }
        // as HAProxy: a configuration with nothing to listen on (no bind, no stats socket) does not start
        boolean listens = !config.global().statsSockets().isEmpty() || config.proxies().stream().anyMatch(p -> !p.binds().isEmpty())
                || config.peers().stream().anyMatch(p -> p.active() && p.bind() != null);
        if (!listens) {
            print(opts, messages);
            Main.noListener(opts);
            return 1;
        }
        // starting: the parser's warnings are the worker's to say (it parses the same files as it starts), once
        boolean daemon = (opts.daemon() || config.global().daemon()) && !opts.debug() && !opts.noBackground();
        String pidfile = opts.pidfile() != null ? opts.pidfile() : config.global().pidfile();
        if (daemon && System.getenv(Main.READY_FILE_ENV) == null) {
            return Daemon.spawn(args, pidfile);
        }
        StatsSocket cli = null;
        if (opts.masterCli() != null) {
            cli = masterSocket(opts.masterCli(), opts.quiet());
            if (cli == null) {
                return 1;
            }
        }
        WorkerProgram program = WorkerProgram.forWorkers(args, System.getenv(WorkerProgram.ENV));
        if (program == null) {
            System.err.println("[ALERT] cannot find the java command to start a worker");
            return 1;
        }
        Master master = new Master(program, Master.workerArgs(args), opts.softStopPids(), opts.hardStopPids(), opts.oldSocket(),
                config.global().process().exitOnFailure(), config.global().process().maxReloads(), opts.systemd(), System.err, config.programs(),
                () -> programsNow(opts));
        String daemonReady = System.getenv(Main.READY_FILE_ENV);
        long pid = ProcessHandle.current().pid();
        int rc = master.run(cli, () -> {
            Main.writePidfile(pidfile, pid);
            if (daemonReady != null) {
                try {
                    Files.writeString(Path.of(daemonReady), Long.toString(pid), StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    // the parent gives up waiting: nothing else to do
                }
                if (!opts.debug()) {
                    Main.detachStdio();
                }
            }
        });
        Main.deletePidfile(pidfile, pid);
        return rc;
    }

    /** The programs of the configuration as it is now (a reload), or null when it does not parse. */
    private static List<Program> programsNow(Options opts) {
        Main.Parsed p = Main.parse(opts, null);
        if (p.config() == null || p.diagnostics().stream().anyMatch(Diagnostic::isError)) {
            return null;
        }
        return p.config().programs();
    }

    private static void print(Options opts, List<String> lines) {
        if (!opts.quiet()) {
            lines.forEach(System.err::println);
        }
    }

    /**
     * The master CLI's socket from {@code -S <bind>[,option,value...]}: read as a {@code stats socket} line (level
     * admin unless an option says otherwise), so addresses and options mean what they mean there. Null (reported)
     * when the line is wrong.
     */
    static StatsSocket masterSocket(String spec, boolean quiet) {
        String[] parts = spec.split(",");
        StringBuilder line = new StringBuilder("global\n    stats socket ").append(parts[0]).append(" level admin");
        for (int i = 1; i < parts.length; i++) {
            line.append(' ').append(parts[i]);
        }
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), Main.settings(false))
                .parse(List.of(new ConfigParser.Source("-S", line.append('\n').toString())));
        boolean bad = r.config() == null || r.diagnostics().stream().anyMatch(Diagnostic::isError)
                || r.config().global().statsSockets().size() != 1;
        if (bad) {
            if (!quiet) {
                System.err.println("[ALERT] invalid master CLI socket '-S " + spec + "':");
                r.diagnostics().forEach(System.err::println);
            }
            return null;
        }
        return r.config().global().statsSockets().get(0);
    }
}
