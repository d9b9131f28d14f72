package dev.sluice.proxy.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line, HAProxy's flags: {@code -f <file|dir>} (repeatable), {@code -c}, {@code -d},
 * {@code -D}, {@code -p <pidfile>}, {@code -q}, {@code -v}/{@code -vv}, {@code -sf|-st <pid>...},
 * {@code -m <megabytes>} (the pools' memory ceiling, 0 for none), {@code -W}/{@code -Ws} (master-worker mode, with
 * systemd's notifications for {@code -Ws}), {@code -S <bind>[,option,value...]} (the master CLI), {@code --help}.
 * Immutable.
 */
public record Options(List<Path> files, boolean check, boolean debug, boolean daemon, String pidfile, boolean quiet, int version,
        boolean help, List<Long> softStopPids, List<Long> hardStopPids, long memoryMb, boolean masterWorker, boolean systemd,
        String masterCli) {

    /** Thrown for a command line that cannot be used; the message says why. */
    public static final class UsageException extends Exception {
        public UsageException(String message) {
            super(message);
        }
    }

    public static Options parse(String[] args) throws UsageException {
        List<Path> files = new ArrayList<>();
        boolean check = false;
        boolean debug = false;
        boolean daemon = false;
        String pidfile = null;
        boolean quiet = false;
        int version = 0;
        boolean help = false;
        List<Long> sf = new ArrayList<>();
        List<Long> st = new ArrayList<>();
        long memoryMb = 0;
        boolean masterWorker = false;
        boolean systemd = false;
        String masterCli = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-f" -> {
                    if (i + 1 >= args.length) {
                        throw new UsageException("-f expects a file or directory");
                    }
                    files.add(Path.of(args[++i]));
                }
                case "-c" -> check = true;
                case "-m" -> {
                    String v = i + 1 < args.length ? args[++i] : "";
                    try {
                        memoryMb = Long.parseLong(v);
                    } catch (NumberFormatException e) {
                        memoryMb = -1;
                    }
                    if (memoryMb < 0 || memoryMb > 1L << 40) {
                        throw new UsageException("-m expects a number of megabytes (0 for no limit), not '" + v + "'");
                    }
                }
                case "-d" -> debug = true;
                case "-D" -> daemon = true;
                case "-q" -> quiet = true;
                case "-v" -> version = Math.max(version, 1);
                case "-vv" -> version = 2;
                case "-h", "--help" -> help = true;
                case "-p" -> {
                    if (i + 1 >= args.length) {
                        throw new UsageException("-p expects a pid file");
                    }
                    pidfile = args[++i];
                }
                case "-sf", "-st" -> {
                    List<Long> target = a.equals("-sf") ? sf : st;
                    while (i + 1 < args.length && !args[i + 1].startsWith("-")) {
                        String p = args[++i];
                        try {
                            target.add(Long.parseLong(p));
                        } catch (NumberFormatException e) {
                            throw new UsageException(a + " expects process ids, not '" + p + "'");
                        }
                    }
                }
                case "-W" -> masterWorker = true;
                case "-Ws" -> {
                    masterWorker = true;
                    systemd = true;
                }
                case "-S" -> {
                    if (i + 1 >= args.length || args[i + 1].startsWith("-")) {
                        throw new UsageException("-S expects a socket address for the master CLI");
                    }
                    masterCli = args[++i];
                }
                default -> {
                    if (a.startsWith("-f") && a.length() > 2) {
                        files.add(Path.of(a.substring(2)));
                    } else {
                        throw new UsageException("unknown option '" + a + "'");
                    }
                }
            }
        }
        return new Options(List.copyOf(files), check, debug, daemon, pidfile, quiet, version, help, List.copyOf(sf), List.copyOf(st),
                memoryMb, masterWorker, systemd, masterCli);
    }

    public static String usage() {
        return """
                Usage : sluice [-f <cfgfile|cfgdir>]* [ -vdVD ] [ -q ] [ -c ] [ -p <pidfile> ] [ -m <max megs> ] [ -sf|-st <pid>* ]
                        [ -W[s] ] [ -S <bind>[,<bind options>...] ]
                        -v displays version ; -vv shows build details.
                        -d enters debug mode (foreground, events printed) ; -D goes daemon.
                        -f <file|dir> reads a configuration file, or the *.cfg files of a directory in order (repeatable).
                        -c checks the configuration and exits (0 when valid, 1 on error, 2 when it has no listener).
                        -p writes the process id to <pidfile>.
                        -m limits the memory of the pools (streams, connections) to <max megs> MB: past it a request
                           gets a 503 and a new connection is closed (show pools, show info PoolFailed count them).
                        -q quiet mode : don't display messages.
                        -sf/-st <pid>* sends a soft stop (finish, then exit) / a hard stop to those processes once started.
                        -W master-worker mode: a master process supervises the worker that serves; SIGUSR2 reloads.
                        -Ws master-worker mode with systemd notifications (Type=notify).
                        -S <bind>[,<option>,<value>...] binds the master CLI (a UNIX path or address:port; options as
                           'stats socket' takes them: mode, level, user, group, uid, gid).
                        Without -f, the built-in quickstart configuration (examples/quickstart.cfg) is used by ./sluice.
                """;
    }
}
