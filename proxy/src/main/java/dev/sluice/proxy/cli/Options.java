package dev.sluice.proxy.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line, HAProxy's flags: {@code -f <file|dir>} (repeatable), {@code -c}, {@code -d},
 * {@code -D}, {@code -p <pidfile>}, {@code -q}, {@code -v}/{@code -vv}, {@code -sf|-st <pid>...},
 * {@code -m <megabytes>} (the pools' memory ceiling, 0 for none), {@code -x <socket>} (the old process's admin socket to
 * take the listening sockets from), {@code -W}/{@code -Ws} (master-worker mode, with systemd's notifications for {@code -Ws}), {@code -S <bind>[,option,value...]} (the master CLI), {@code --help};
 * {@code -cc <condition>}, {@code -L <peer>}, {@code -n}/{@code -N <maxconn>}, {@code -C <dir>}, {@code -V}, and the
 * debug flags {@code -db -dW -dV -dR -dD} that apply. HAProxy's other flags (meaningless on a JVM, or not implemented
 * yet) are accepted and listed in {@link #ignored()}, each with the reason that is warned about. Immutable.
 */
public record Options(List<Path> files, boolean check, boolean debug, boolean daemon, String pidfile, boolean quiet, int version,
        boolean help, List<Long> softStopPids, List<Long> hardStopPids, long memoryMb, boolean masterWorker, boolean systemd,
        String masterCli, String condition, String localPeer, long maxconn, long defaultMaxconn, Path chdir, boolean noBackground,
        boolean zeroWarning, boolean noServerVerify, boolean noReusePort, boolean diagnostic, String oldSocket, List<String> ignored) {

    /** HAProxy 2.6's flags accepted and ignored, with the reason warned about (meaningless on a JVM, or not implemented yet). */
    static final Map<String, String> IGNORED = new LinkedHashMap<>();

    static {
        IGNORED.put("-dM", "memory poisoning does not apply to the JVM's memory (pools are Sluice's own, see 'show pools')");
        IGNORED.put("-de", "Sluice picks its transport itself (epoll through Netty, else NIO)");
        IGNORED.put("-dp", "Sluice does not use poll()");
        // applied, not warned about: Main turns kernel splicing off
        IGNORED.put("-dS", "kernel splicing is turned off");
        IGNORED.put("-dG", "names are resolved by the JVM, not through getaddrinfo()");
        IGNORED.put("-dL", "a JVM loads no shared objects to list");
        IGNORED.put("-dK", "keyword dumps are not implemented (see docs/configuration.md for the keyword reference)");
        IGNORED.put("-dr", "server address resolution failures are not ignored yet");
    }

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
        String condition = null;
        String localPeer = null;
        long maxconn = -1;
        long defaultMaxconn = -1;
        Path chdir = null;
        boolean noBackground = false;
        boolean zeroWarning = false;
        boolean noServerVerify = false;
        boolean noReusePort = false;
        boolean diagnostic = false;
        String oldSocket = null;
        List<String> ignored = new ArrayList<>();
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
                case "-cc" -> {
                    if (i + 1 >= args.length) {
                        throw new UsageException("-cc expects a condition");
                    }
                    condition = args[++i];
                }
                case "-L" -> {
                    if (i + 1 >= args.length || args[i + 1].isEmpty()) {
                        throw new UsageException("-L expects a local peer name");
                    }
                    localPeer = args[++i];
                }
                case "-n", "-N" -> {
                    String v = i + 1 < args.length ? args[++i] : "";
                    long n;
                    try {
                        n = Long.parseLong(v);
                    } catch (NumberFormatException e) {
                        n = -1;
                    }
                    if (n < 0 || n > Integer.MAX_VALUE) {
                        throw new UsageException(a + " expects a number of connections, not '" + v + "'");
                    }
                    if (a.equals("-n")) {
                        maxconn = n;
                    } else {
                        defaultMaxconn = n;
                    }
                }
                case "-C" -> {
                    if (i + 1 >= args.length) {
                        throw new UsageException("-C expects a directory");
                    }
                    chdir = Path.of(args[++i]);
                }
                case "-V" -> quiet = false;
                case "-x" -> {
                    if (i + 1 >= args.length) {
                        throw new UsageException("-x expects a UNIX socket");
                    }
                    // the last one counts, as in HAProxy
                    oldSocket = args[++i];
                }
                case "--" -> {
                    while (i + 1 < args.length) {
                        files.add(Path.of(args[++i]));
                    }
                }
                case "-db" -> noBackground = true;
                case "-dW" -> zeroWarning = true;
                case "-dV" -> noServerVerify = true;
                case "-dR" -> noReusePort = true;
                case "-dD" -> diagnostic = true;
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
                    String ignoredFlag = a.length() >= 3 ? a.substring(0, 3) : a;
                    if (a.startsWith("-f") && a.length() > 2) {
                        files.add(Path.of(a.substring(2)));
                    } else if (IGNORED.containsKey(ignoredFlag) && (a.length() == 3 || ignoredFlag.equals("-dM") || ignoredFlag.equals("-dK"))) {
                        ignored.add(ignoredFlag);
                    } else {
                        throw new UsageException("unknown option '" + a + "'");
                    }
                }
            }
        }
        return new Options(List.copyOf(files), check, debug, daemon, pidfile, quiet, version, help, List.copyOf(sf), List.copyOf(st),
                memoryMb, masterWorker, systemd, masterCli, condition, localPeer, maxconn, defaultMaxconn, chdir, noBackground,
                zeroWarning, noServerVerify, noReusePort, diagnostic, oldSocket, List.copyOf(ignored));
    }

    public static String usage() {
        return """
                Usage : sluice [-f <cfgfile|cfgdir>]* [ -vdVD ] [ -n <maxconn> ] [ -N <maxpconn> ] [ -q ] [ -c ] [ -cc <condition> ]
                        [ -p <pidfile> ] [ -m <max megs> ] [ -C <dir> ] [ -L <name> ] [ -sf|-st <pid>* ] [ -x <unix_socket> ]
                        [ -W[s] ] [ -S <bind>[,<bind options>...] ]
                        -v displays version ; -vv shows build details.
                        -d enters debug mode (foreground, events printed) ; -db only disables background mode.
                        -D goes daemon ; -C changes to <dir> before loading files (relative -f paths and the files the
                           configuration names are read from it, unless 'default-path' says otherwise).
                        -V enters verbose mode (disables quiet mode).
                        -f <file|dir> reads a configuration file, or the *.cfg files of a directory in order (repeatable);
                           '--' makes every argument after it such a file or directory.
                        -c checks the configuration and exits (0 when valid, 1 on error, 2 when it has no listener).
                        -cc evaluates a condition as '.if' does and exits (0 when true, 1 when false, 2 on error).
                        -n sets the global maximum number of connections (as 'maxconn' in the global section).
                        -N <maxpconn> is accepted; the default per-proxy maximum is not applied from it yet.
                        -L sets the local peer name (default: the host name).
                        -p writes the process id to <pidfile>.
                        -m limits the memory of the pools (streams, connections) to <max megs> MB: past it a request
                           gets a 503 and a new connection is closed (show pools, show info PoolFailed count them).
                        -q quiet mode : don't display messages.
                        -sf/-st <pid>* sends a soft stop (finish, then exit) / a hard stop to those processes once started.
                        -x <unix_socket> takes the listening sockets of the old process (HAProxy's or Sluice's) from its
                           admin socket ('stats socket ... expose-fd listeners') before binding: with -sf, a reload drops
                           no connection waiting to be accepted. Master-worker reloads do it by themselves.
                        -W master-worker mode: a master process supervises the worker that serves; SIGUSR2 reloads.
                        -Ws master-worker mode with systemd notifications (Type=notify).
                        -S <bind>[,<option>,<value>...] binds the master CLI (a UNIX path or address:port; options as
                           'stats socket' takes them: mode, level, user, group, uid, gid).
                        -dW fails if any warning is emitted (as 'zero-warning').
                        -dV disables TLS verification on the server side (as 'ssl-server-verify none').
                        -dR disables SO_REUSEPORT (as 'noreuseport').
                        -dD diagnostic mode: the configuration's '.diag' messages are shown.
                        -dS disables kernel splicing (as 'nosplice').
                        Accepted and ignored with a warning, as meaningless on a JVM: -dM[...] (memory poisoning), -dp
                           (poll()), -dG (getaddrinfo()), -dL (shared objects); not implemented yet: -de (epoll is
                           chosen by the transport), -dK[...] (keyword dumps), -dr (resolution failures), -N (see above).
                        Without -f, the built-in quickstart configuration (examples/quickstart.cfg) is used by ./sluice.
                        ./sluice sizes the JVM from the configuration: heap 48 MB + 24 kB per global maxconn, direct
                           memory 64 MB + 2 x tune.bufsize per maxconn, both capped by -m; JVM flags of your own in
                           SLUICE_JAVA_OPTS come after and win. ./sluice aot -f <cfg> trains a start-up cache on that
                           configuration (its servers up), used by the starts that name the same files.
                """;
    }
}
