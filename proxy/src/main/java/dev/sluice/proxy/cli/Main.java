package dev.sluice.proxy.cli;

import dev.sluice.config.Conditions;
import dev.sluice.config.ConfigFiles;
import dev.sluice.config.ConfigParser;
import dev.sluice.config.Diagnostic;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.LineLexer;
import dev.sluice.config.model.Config;
import dev.sluice.proxy.listener.ReceivedSockets;
import dev.sluice.proxy.listener.SocketHandover;
import dev.sluice.proxy.memory.ProxyPools;
import dev.sluice.proxy.runtime.Generations;
import dev.sluice.proxy.runtime.ProxyRuntime;
import dev.sluice.proxy.transport.Transport;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.quic.Quic;
import io.netty.handler.ssl.OpenSsl;
import io.netty.util.Version;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code sluice} command: HAProxy's command line. Checks the configuration ({@code -c}), or starts
 * the proxy in the foreground (the default, and {@code -d}) or as a daemon ({@code -D}), writes the
 * pid file, and handles stop signals (SIGTERM/SIGINT stop at once, SIGUSR1 stops gracefully).
 */
public final class Main {
    private Main() {
    }

    /**
     * Features that {@code .if feature(...)} and {@code -cc} see as present, and that {@code -vv} lists. OPENSSL when
     * Netty's BoringSSL is there, as HAProxy builds on BoringSSL say. Computed at the first look (a configuration
     * without {@code .if feature(...)} never looks): finding out loads the QUIC and TLS native libraries, ~0.1-0.2 s of a
     * start that may use neither.
     */
    static final Set<String> FEATURES = new AbstractSet<>() {
        @Override
        public Iterator<String> iterator() {
            return Features.SET.iterator();
        }

        @Override
        public int size() {
            return Features.SET.size();
        }

        @Override
        public boolean contains(Object o) {
            return Features.SET.contains(o);
        }
    };

    /** Holder of {@link #FEATURES}' content: its class initialisation is the first look. */
    private static final class Features {
        static final Set<String> SET = features();
    }

    private static Set<String> features() {
        Set<String> f = new TreeSet<>(Set.of("EPOLL", "LINUX_SPLICE", "TFO"));
        if (Quic.isAvailable()) {
            f.add("QUIC");
        }
        if (OpenSsl.isAvailable()) {
            f.add("OPENSSL");
        }
        return Set.copyOf(f);
    }

    /** The TLS library's name as {@code ssllib_name_startswith()} sees it (BoringSSL), null without one. */
    static String sslLibrary() {
        return OpenSsl.isAvailable() ? OpenSsl.versionString() : null;
    }

    /** The TLS library's OpenSSL-compatible version, x.y.z from its version number (BoringSSL says 1.1.1). */
    static String sslVersion() {
        if (!OpenSsl.isAvailable()) {
            return null;
        }
        long v = OpenSsl.version();
        return ((v >> 28) & 0xf) + "." + ((v >> 20) & 0xff) + "." + ((v >> 12) & 0xff);
    }

    static ConfigParser.Settings settings() {
        return settings(true);
    }

    /**
     * With {@code ssl} false the TLS library is not asked its name and version (loading it costs start-up time): for
     * texts that test neither ({@link #testsSslLibrary}).
     */
    static ConfigParser.Settings settings(boolean ssl) {
        return ssl ? ConfigParser.Settings.fromSystem(FEATURES, sslLibrary(), sslVersion()) : ConfigParser.Settings.fromSystem(FEATURES);
    }

    /** Whether a configuration text may ask the TLS library's name or version in a condition. */
    static boolean testsSslLibrary(List<ConfigParser.Source> sources) {
        return sources.stream().anyMatch(s -> s.text().contains("ssllib_name_startswith") || s.text().contains("openssl_version_"));
    }

    /** Set in the child of {@code -D}: where to write the pid once listening. */
    static final String READY_FILE_ENV = "SLUICE_READY_FILE";

    public static void main(String[] args) {
        fastInMemoryKeyStores();
        noNettyFlightRecorderEvents();
        nettyLogsToJdkLogging();
        System.exit(run(args));
    }

    /**
     * Netty's internal logging, as it would find it: no SLF4J or Log4J in the jar, so the JDK's. Named here, Netty does
     * not look for the other two first: the failed class lookups opened the jar's index and threw, 40 ms of each start.
     */
    static void nettyLogsToJdkLogging() {
        io.netty.util.internal.logging.InternalLoggerFactory.setDefaultFactory(io.netty.util.internal.logging.JdkLoggerFactory.INSTANCE);
    }

    /**
     * Netty's pooled allocator emits Flight Recorder events (chunk and buffer allocations) when JFR is available, and
     * the first one it checks registers its event classes with JFR: 0.18 s of the quickstart's 0.76 s to its first
     * answer, on every start, recording or not. Off unless asked for ({@code -Dio.netty.jfr.enabled=true} in
     * SLUICE_JAVA_OPTS); a JFR recording of the daemon still gets the JVM's own events.
     */
    static void noNettyFlightRecorderEvents() {
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
    }

    /**
     * Netty hands each certificate's key to BoringSSL through an in-memory PKCS12 key store, where the JDK protects
     * it with 10,000 rounds of PBKDF2: run by the interpreter at start-up, 0.1 s of CPU for the bench configuration's
     * three TLS contexts. Nothing here ever writes a key store, so one round; a value given on the command line stays.
     */
    static void fastInMemoryKeyStores() {
        if (System.getProperty("keystore.pkcs12.keyPbeIterationCount") == null) {
            System.setProperty("keystore.pkcs12.keyPbeIterationCount", "1");
        }
    }

    static int run(String[] args) {
        Options opts;
        try {
            opts = Options.parse(args);
        } catch (Options.UsageException e) {
            System.err.println("sluice: " + e.getMessage());
            System.err.print(Options.usage());
            return 1;
        }
        if (opts.help()) {
            System.out.print(Options.usage());
            return 0;
        }
        if (opts.version() > 0) {
            printVersion(opts.version() > 1);
            return 0;
        }
        if (opts.condition() != null) {
            return checkCondition(opts.condition(), System.err);
        }
        if (!opts.quiet()) {
            for (String flag : opts.ignored()) {
                if (flag.equals("-dS")) {
                    continue;
                }
                System.err.println("[WARNING] " + flag + " is accepted and ignored: " + Options.IGNORED.get(flag) + ".");
            }
            if (opts.defaultMaxconn() >= 0) {
                System.err.println("[WARNING] -N is accepted and not applied yet: a frontend without 'maxconn' keeps the global limit.");
            }
        }
        if (opts.oldSocket() != null && !opts.check() && !opts.masterWorker()) {
            // the calls that take the old process's sockets are linked while the configuration is read
            Thread.ofPlatform().daemon().name("sluice-link").start(SocketHandover::prepareFetch);
        }
        if (opts.files().isEmpty()) {
            System.err.println("sluice: no configuration file given (use -f <file|dir>)");
            System.err.print(Options.usage());
            return 1;
        }
        PrintStream err = System.err;
        String workerCli = System.getenv(Master.WORKER_CLI_ENV);
        Parsed parsed = parse(opts, workerCli);
        // a worker of a master-worker pair: the master daemonised, holds the pid file, and reloads
        boolean worker = System.getenv(Master.WORKER_ENV) != null;
        if (!worker && !opts.check() && parsed.config() != null && parsed.diagnostics().stream().noneMatch(Diagnostic::isError)
                && (opts.masterWorker() || parsed.config().global().process().masterWorker())) {
            // the master runs no proxy: the runtime's checks (and the classes, TLS and native libraries they load) are
            // its workers' business, which print their own errors and exit before they listen (see MasterStart)
            return MasterStart.run(opts, args, parsed);
        }
        Checked checked = check(opts, parsed, null);
        if (!opts.quiet()) {
            checked.loaded().messages().forEach(err::println);
        }
        if (checked.loaded().config() == null) {
            return 1;
        }
        Config config = checked.loaded().config();
        ProxyRuntime.Prepared prepared = checked.loaded().prepared();
        Privileges.Resolved privileges = checked.privileges();
        boolean warned = checked.warned();
        boolean listens = listens(config, workerCli);
        if (opts.check()) {
            if (!opts.quiet()) {
                if (warned) {
                    System.out.println("Warnings were found.");
                }
                System.out.println(listens ? "Configuration file is valid" : "Configuration file has no error but will not start (no listener) => exit(2).");
            }
            return listens ? 0 : 2;
        }
        if (!listens) {
            noListener(opts);
            return 1;
        }
        if (opts.masterCli() != null && !worker) {
            err.println("[ALERT] -S requires master-worker mode (-W, or 'master-worker' in the global section)");
            return 1;
        }
        if (opts.ignored().contains("-dS")) {
            // HAProxy's -dS: no kernel splicing
            dev.sluice.proxy.stream.Splicing.disable();
        }
        boolean daemon = (opts.daemon() || config.global().daemon()) && !opts.debug() && !opts.noBackground() && !worker;
        String pidfile = worker ? null : opts.pidfile() != null ? opts.pidfile() : config.global().pidfile();
        if (daemon && System.getenv(READY_FILE_ENV) == null) {
            return Daemon.spawn(args, pidfile);
        }
        return serve(opts, config, prepared, privileges, pidfile);
    }

    /** When the reload path is run once after the start ({@link Generations#warmUp}): after the first requests' warm-up. */
    private static final long RELOAD_WARM_UP_MS = 2000;

    /**
     * As HAProxy: a configuration with nothing to listen on (no bind, no stats socket) does not start; the master's own
     * socket in a worker ({@code workerCli}) does not count; a peers section's listener counts.
     */
    static boolean listens(Config config, String workerCli) {
        return config.global().statsSockets().size() > (workerCli == null ? 0 : 1)
                || config.proxies().stream().anyMatch(p -> !p.binds().isEmpty())
                || config.peers().stream().anyMatch(p -> p.active() && p.bind() != null);
    }

    static void noListener(Options opts) {
        if (!opts.quiet()) {
            System.err.println("[ALERT] No enabled listener found (check for 'bind' directives) ! Exiting.");
        }
    }

    /** The parser's diagnostics as they are printed: the diagnostic mode's ({@code -dD}) only when asked. */
    static List<String> messages(Options opts, List<Diagnostic> diags) {
        List<String> messages = new ArrayList<>();
        for (Diagnostic d : diags) {
            if (d.severity() != Diagnostic.Severity.DIAG || opts.diagnostic()) {
                messages.add(d.toString());
            }
        }
        return messages;
    }

    /** Writes {@code pid} to the pid file (when there is one); false (reported) when it cannot be. */
    static boolean writePidfile(String pidfile, long pid) {
        if (pidfile != null) {
            try {
                Files.writeString(Path.of(pidfile), pid + "\n", StandardCharsets.US_ASCII);
            } catch (IOException e) {
                System.err.println("[ALERT] cannot create pidfile " + pidfile);
                return false;
            }
        }
        return true;
    }

    /**
     * Deletes the pid file if it still names this process. A reload ({@code -sf}) writes the new process's pid over
     * the old one's before the old one leaves: the old process must leave the file alone then, or the next reload
     * through the file would find no pid and start a second daemon beside the first.
     */
    static void deletePidfile(String pidfile, long pid) {
        if (pidfile != null) {
            Path p = Path.of(pidfile);
            try {
                if (Files.readString(p, StandardCharsets.US_ASCII).strip().equals(Long.toString(pid))) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                // gone already, or unreadable (a chroot hides it): nothing to do
            }
        }
    }

    /** A daemon once started: nothing more reaches the terminal it was started from. */
    static void detachStdio() {
        PrintStream nul = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(nul);
        System.setErr(nul);
        DetachedStdio.detach();
    }

    /** The configuration read and checked as {@code -c} does, with the messages to print; its privileges resolved. */
    record Checked(Generations.Loaded loaded, Privileges.Resolved privileges, boolean warned) {
    }

    /**
     * Reads the files, then checks what the runtime needs (the same code at start-up, for {@code -c} and for each
     * in-process reload): the messages in the order they are printed, and a model only when it can run.
     */
    static Checked load(Options opts, String workerCli) {
        return load(opts, workerCli, null);
    }

    /** As {@link #load(Options, String)} for a reload of {@code running}: its unchanged TLS contexts are taken over. */
    static Checked load(Options opts, String workerCli, ProxyRuntime running) {
        Checked c = check(opts, parse(opts, workerCli), running);
        Config config = c.loaded().config();
        if (running != null && config != null && !listens(config, workerCli)) {
            // a new process would not start on it (an empty file read while an editor rewrote it, say): the running
            // configuration stays, its listeners and admin sockets with it
            List<String> messages = new ArrayList<>(c.loaded().messages());
            messages.add("[ALERT] No enabled listener found (check for 'bind' directives) !");
            if (c.loaded().prepared().tls() != null) {
                c.loaded().prepared().tls().close();
            }
            return new Checked(Generations.Loaded.failed(messages), c.privileges(), c.warned());
        }
        return c;
    }

    /** The files of the command line read and parsed, with the worker's own socket when {@code workerCli} is given. */
    static Parsed parse(Options opts, String workerCli) {
        Parsed p = parse(files(opts), commandLineSource(opts, workerCli), opts.chdir() == null ? null : opts.chdir().toString(), opts.localPeer());
        // what HAProxy's program post-parser says that the configuration cannot know (master-worker mode, users)
        List<Diagnostic> programs = MasterPrograms.problems(p.config(), opts.masterWorker() || System.getenv(Master.WORKER_ENV) != null
                || p.config() != null && p.config().global().process().masterWorker());
        if (programs.isEmpty()) {
            return p;
        }
        List<Diagnostic> all = new ArrayList<>(p.diagnostics());
        all.addAll(programs);
        return new Parsed(all, p.config());
    }

    /** What {@link #load} checks once the files are parsed. */
    static Checked check(Options opts, Parsed parsed, ProxyRuntime running) {
        List<Diagnostic> diags = parsed.diagnostics();
        List<String> messages = messages(opts, diags);
        Config config = parsed.config();
        if (diags.stream().anyMatch(Diagnostic::isError) || config == null) {
            messages.add("Fatal errors found in configuration.");
            return new Checked(Generations.Loaded.failed(messages), null, false);
        }
        // TEMPORARY (issue 16): what the configuration accepts but the daemon cannot run yet; delete with NotYetRunnable
        List<String> notYet = NotYetRunnable.problems(config);
        if (!notYet.isEmpty()) {
            messages.addAll(notYet);
            messages.add("Fatal errors found in configuration.");
            return new Checked(Generations.Loaded.failed(messages), null, false);
        }
        ProxyRuntime.Prepared prepared = ProxyRuntime.check(config, running);
        Privileges.Resolved privileges = Privileges.resolve(config.global().process(), prepared.problems());
        messages.addAll(prepared.warnings());
        if (!prepared.problems().isEmpty()) {
            messages.addAll(prepared.problems());
            messages.add("Fatal errors found in configuration.");
            if (prepared.tls() != null) {
                prepared.tls().close();
            }
            return new Checked(Generations.Loaded.failed(messages), privileges, false);
        }
        boolean warned = prepared.warnings().stream().anyMatch(w -> w.contains(": warning: "))
                || diags.stream().anyMatch(d -> d.severity() == Diagnostic.Severity.WARNING);
        if (warned && (config.global().process().zeroWarning() || opts.zeroWarning())) {
            messages.add("[ALERT] Some warnings were found and 'zero-warning' is set. Aborting.");
            if (prepared.tls() != null) {
                prepared.tls().close();
            }
            return new Checked(Generations.Loaded.failed(messages), privileges, true);
        }
        return new Checked(new Generations.Loaded(config, prepared, messages), privileges, warned);
    }

    /** The configuration files read and parsed: every diagnostic, and the model (null when files could not be read). */
    record Parsed(List<Diagnostic> diagnostics, Config config) {
    }

    static Parsed parse(List<Path> files) {
        return parse(files, null, null);
    }

    /**
     * With {@code extra} (when not null) read after the files, and the configuration's relative paths starting from
     * {@code directory} ({@code -C}; null: the working directory).
     */
    static Parsed parse(List<Path> files, ConfigParser.Source extra, String directory) {
        return parse(files, extra, directory, null);
    }

    /** The same, the local peer named by {@code -L} ({@code localPeer}; null: the global localpeer, else the host name). */
    static Parsed parse(List<Path> files, ConfigParser.Source extra, String directory, String localPeer) {
        ConfigFiles.Loaded loaded = ConfigFiles.load(files);
        List<Diagnostic> diags = new ArrayList<>(loaded.problems());
        Config config = null;
        if (loaded.problems().isEmpty()) {
            List<ConfigParser.Source> sources = new ArrayList<>(loaded.sources());
            if (extra != null) {
                sources.add(extra);
            }
            ConfigParser.Result r = new ConfigParser(Keywords.STANDARD, settings(testsSslLibrary(sources)).inDirectory(directory).withLocalPeer(localPeer))
                    .parse(sources);
            diags.addAll(r.diagnostics());
            // the UNIX binds' user and group names, which HAProxy resolves while parsing
            UnixOwners.Resolved owners = UnixOwners.resolve(r.config());
            diags.addAll(owners.problems());
            config = owners.config();
        }
        return new Parsed(diags, config);
    }

    /** The keywords, registered once: every reload parses with them (nothing registers on it after). */
    private static final class Keywords {
        static final KeywordRegistry STANDARD = KeywordRegistry.standard();
    }

    private static int serve(Options opts, Config config, ProxyRuntime.Prepared prepared, Privileges.Resolved privileges, String pidfile) {
        Privileges.applyFdLimit(privileges, System.err);
        ProxyRuntime runtime = ProxyRuntime.build(config, prepared, new ProxyPools(opts.memoryMb()));
        runtime.oldProcess(!opts.softStopPids().isEmpty() || !opts.hardStopPids().isEmpty());
        if (opts.quiet()) {
            runtime.quiet();
        }
        if (opts.debug() && runtime.transport().fallbackReason() != null) {
            System.err.println("[NOTICE] using the NIO transport: " + runtime.transport().fallbackReason());
        }
        // _getsocks on the admin sockets with expose-fd listeners: the listeners of the configuration running then
        Generations[] running = new Generations[1];
        SocketHandover.offer(() -> running[0] == null ? List.of() : running[0].current().listeners());
        ReceivedSockets received;
        try {
            received = takeOldSockets(opts, runtime);
        } catch (SocketHandover.Failure e) {
            return 1;
        }
        try {
            runtime.start();
        } catch (IllegalStateException e) {
            if (!opts.quiet()) {
                System.err.println("[ALERT] " + e.getMessage());
            }
            return 1;
        } finally {
            if (received != null) {
                // as HAProxy: the sockets the new configuration does not use are closed (the old process closes its own)
                received.closeUnused();
            }
        }
        long pid = ProcessHandle.current().pid();
        if (!writePidfile(pidfile, pid)) {
            runtime.stop();
            return 1;
        }
        String workerCli = System.getenv(Master.WORKER_CLI_ENV);
        Generations generations = new Generations(runtime, current -> load(opts, workerCli, current).loaded(), opts.quiet());
        running[0] = generations;
        // from now on through the generations only: a reference kept here would keep every replaced one alive
        runtime = null;
        Signals.install(generations);
        if (opts.debug()) {
            for (var l : generations.current().listeners()) {
                System.err.println("[NOTICE] listening on " + (l.localAddress() != null ? l.localAddress() : l.bind().address()) + " (" + generations.current().transport().name() + ")");
            }
        }
        // as HAProxy: the old processes are told once the new one listens, then privileges are dropped
        for (long p : opts.softStopPids()) {
            Signals.send(p, "USR1");
        }
        for (long p : opts.hardStopPids()) {
            Signals.send(p, "TERM");
        }
        watchMaster(generations);
        // the first reload's code loaded and compiled before it is needed (a reload's build, dropped)
        generations.warmUp(RELOAD_WARM_UP_MS);
        // a daemon's parent, or a master, waits for this file to hold the pid
        String daemonReady = System.getenv(READY_FILE_ENV);
        String ready = daemonReady != null ? daemonReady : System.getenv(Master.WORKER_READY_ENV);
        OutputStream readyOut = null;
        if (ready != null) {
            try {
                // opened before a chroot, which would hide its path
                readyOut = Files.newOutputStream(Path.of(ready));
            } catch (IOException e) {
                // the parent will see the child alive without the file and give up waiting: nothing else to do
            }
        }
        String alert = Privileges.drop(privileges, System.err);
        if (alert != null) {
            if (!opts.quiet()) {
                System.err.println("[ALERT] " + alert);
            }
            generations.stop();
            return 1;
        }
        Privileges.setDumpable(config.global().process().dumpable(), opts.quiet() ? new PrintStream(OutputStream.nullOutputStream()) : System.err);
        if (ready != null) {
            if (readyOut != null) {
                try (OutputStream out = readyOut) {
                    out.write(Long.toString(pid).getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // as above
                }
            }
            if (daemonReady != null && !opts.debug()) {
                detachStdio();
            }
        }
        try {
            generations.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (Boolean.getBoolean("sluice.leakCheckOnExit")) {
            surfaceLeakReports();
        }
        deletePidfile(pidfile, pid);
        return 0;
    }

    /**
     * {@code -x <socket>}: the old process's listening sockets, each given to the listener whose bind it matches, before
     * anything binds; null without {@code -x} (or with {@code -x /dev/null}, as HAProxy). When they cannot be had,
     * HAProxy's warning and alert; then a worker binds its own sockets (as HAProxy's master-worker mode does), and
     * another process stops (throws, as HAProxy exits).
     */
    private static ReceivedSockets takeOldSockets(Options opts, ProxyRuntime runtime) throws SocketHandover.Failure {
        String path = opts.oldSocket();
        if (path == null || path.equals("/dev/null")) {
            return null;
        }
        if (!runtime.transport().canInherit()) {
            if (!opts.quiet()) {
                System.err.println("[WARNING] -x is ignored: the " + runtime.transport().name() + " transport cannot use received sockets ("
                        + runtime.transport().fallbackReason() + "); binding new ones.");
            }
            return null;
        }
        ReceivedSockets received;
        long t0 = System.nanoTime();
        try {
            received = SocketHandover.fetch(path);
            if (opts.debug()) {
                System.err.println("[NOTICE] received " + received.left().size() + " sockets from " + path + " in "
                        + (System.nanoTime() - t0) / 1_000_000 + " ms");
            }
        } catch (SocketHandover.Failure e) {
            if (!opts.quiet()) {
                System.err.println("[WARNING] " + e.getMessage());
                System.err.println("[ALERT] Failed to get the sockets from the old process!");
            }
            if (System.getenv(Master.WORKER_ENV) != null) {
                return null;
            }
            throw e;
        }
        for (var l : runtime.listeners()) {
            int fd = received.take(l.bind());
            if (fd >= 0) {
                l.useReceivedSocket(fd);
                if (opts.debug()) {
                    System.err.println("[NOTICE] " + l.bind().address() + " takes the old process's socket");
                }
            }
        }
        return received;
    }

    /** A worker stops at once when its master is gone (killed): nothing would reload or supervise it any more. */
    private static void watchMaster(Generations runtime) {
        String m = System.getenv(Master.WORKER_ENV);
        if (m == null) {
            return;
        }
        long masterPid;
        try {
            masterPid = Long.parseLong(m);
        } catch (NumberFormatException e) {
            return;
        }
        Runnable gone = () -> {
            System.err.println("[ALERT]    (" + ProcessHandle.current().pid() + ") : the master process (" + masterPid + ") is gone: exiting.");
            runtime.stop();
        };
        ProcessHandle.of(masterPid).ifPresentOrElse(h -> h.onExit().thenRun(gone), gone);
    }

    /**
     * Tests run the daemon with the leak detector at PARANOID; reports only appear once a leaked buffer
     * was collected and another one is tracked, so before exiting force both.
     */
    private static void surfaceLeakReports() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            for (int i = 0; i < 64; i++) {
                PooledByteBufAllocator.DEFAULT.directBuffer(8).release();
            }
        }
    }

    /**
     * {@code -cc}: the condition read as a configuration line reads its words (quotes, escapes, "${VAR}"), then
     * evaluated as {@code .if} does; 0 when true, 1 when false, 2 with HAProxy's message on {@code err} when it cannot
     * be evaluated.
     */
    public static int checkCondition(String condition, PrintStream err) {
        LineLexer.Result lexed = new LineLexer(System::getenv).split(condition);
        if (!lexed.ok()) {
            // HAProxy's words for the lexer's commonest error
            String why = lexed.error().startsWith("unmatched quote") ? "Unmatched quote." : lexed.error();
            err.println("[ALERT] config : Syntax Error in condition: " + why);
            return 2;
        }
        try {
            return Conditions.evaluate(settings().conditions(), String.join(" ", lexed.words())) ? 0 : 1;
        } catch (Conditions.ConditionException e) {
            if (!e.getMessage().isEmpty()) {
                err.println("[ALERT] config : Failed to evaluate condition: " + e.getMessage());
            }
            return 2;
        }
    }

    /** The files of {@code -f}, relative ones read from {@code -C}'s directory when given. */
    static List<Path> files(Options opts) {
        return opts.chdir() == null ? opts.files() : opts.files().stream().map(opts.chdir()::resolve).toList();
    }

    /**
     * Global lines read after the files: the worker's own admin socket (in a master-worker pair) and what {@code -n},
     * {@code -dV} and {@code -dR} set; null when there are none.
     */
    static ConfigParser.Source commandLineSource(Options opts, String workerCli) {
        StringBuilder g = new StringBuilder();
        if (workerCli != null) {
            // expose-fd: the next worker takes this one's listening sockets through it at a reload (-x)
            g.append("    stats socket \"").append(workerCli).append("\" level admin mode 600 expose-fd listeners\n");
        }
        if (opts.maxconn() >= 0) {
            g.append("    maxconn ").append(opts.maxconn()).append('\n');
        }
        if (opts.noServerVerify()) {
            g.append("    ssl-server-verify none\n");
        }
        if (opts.noReusePort()) {
            g.append("    noreuseport\n");
        }
        return g.isEmpty() ? null : new ConfigParser.Source(workerCli != null ? "<master>" : "<command line>", "global\n" + g);
    }

    private static void printVersion(boolean details) {
        System.out.println("Sluice version " + dev.sluice.proxy.cli.Version.VERSION + " " + dev.sluice.proxy.cli.Version.DATE
                + " - HAProxy " + ConfigParser.HAPROXY_LANGUAGE_VERSION + " configuration language and behaviour");
        if (details) {
            System.out.println("Running on: Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + "), "
                    + System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
            Map<String, Version> netty = Version.identify();
            Version v = netty.get("netty-common");
            System.out.println("Built with Netty " + (v == null ? "unknown" : v.artifactVersion()));
            System.out.println("Transport: " + Transport.select().name());
            System.out.println("Feature list : " + String.join(" ", FEATURES.stream().sorted().map(f -> "+" + f).toList()));
            if (sslLibrary() != null) {
                System.out.println("Built with OpenSSL version : " + sslLibrary() + " (netty-tcnative, OpenSSL " + sslVersion() + " API)");
                System.out.println("Running on OpenSSL version : " + sslLibrary());
                System.out.println("RSA signatures by : " + dev.sluice.proxy.tls.TlsProvider.detect().rsaSigner());
            }
        }
    }
}
