package dev.sluice.proxy.cli;

import dev.sluice.config.model.Global;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRouter;
import dev.sluice.proxy.admin.CliSession;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The master CLI ({@code -S}): the admin socket of the master process, with the workers' session code (levels, line
 * syntax, prompt: {@link CliSession}) on the JDK's own sockets ({@link MasterCliSocket}; an inherited {@code fd@<n>}
 * socket, which only Netty's native transport can adopt, through the workers' socket code, {@link MasterCliOnNetty}).
 * Its own commands are
 * {@code show proc}, {@code show version} and {@code reload}; the prefixes {@code @<n>} (the n-th current worker),
 * {@code @!<pid>} (any worker, leaving ones included) and {@code @master}/{@code @} choose the process a command
 * goes to, alone for the rest of the session or before a command for that command only. A worker is reached through
 * the admin socket its master gave it (level admin, in the master's private directory); its answer is passed on as
 * it is.
 */
final class MasterCli implements CliRouter {
    private final Master master;
    private final Runnable close;

    private MasterCli(Master master, StatsSocket socket) {
        this.master = master;
        CliRegistry registry = new CliRegistry();
        register(registry);
        if (socket.address() instanceof ListenAddress.InheritedFd) {
            this.close = MasterCliOnNetty.start(socket, registry, this);
        } else {
            MasterCliSocket s = MasterCliSocket.bind(socket, () -> new CliSession(registry, socket.level(), this), Global.DEFAULT_STATS_TIMEOUT_MS);
            this.close = s::close;
        }
    }

    /** Binds the master CLI described by a parsed {@code -S} argument; throws {@link IllegalStateException} when it cannot. */
    static MasterCli start(StatsSocket socket, Master master) {
        return new MasterCli(master, socket);
    }

    private void register(CliRegistry r) {
        // listed by help as HAProxy's master lists them; the router takes these words before any lookup
        r.register(new CliCommand(List.of("@!<pid>"), Level.USER, "@!<pid>", "send a command to the <pid> process", req -> ""));
        r.register(new CliCommand(List.of("@<relative pid>"), Level.USER, "@<relative pid>", "send a command to the <relative pid> process",
                req -> ""));
        r.register(new CliCommand(List.of("@master"), Level.USER, "@master", "send a command to the master process", req -> ""));
        r.register(new CliCommand(List.of("reload"), Level.OPERATOR, "reload", "reload sluice", req -> {
            // as HAProxy's master, whose reload re-executes it: the session ends
            Thread.ofPlatform().daemon().stackSize(Master.STACK).name("sluice-reload").start(master::reload);
            req.session().requestQuit();
            return "";
        }));
        r.register(new CliCommand(List.of("show", "proc"), Level.USER, "show proc", "show processes status", req -> master.showProc()));
        r.register(new CliCommand(List.of("show", "version"), Level.USER, "show version", "show version of the current process",
                req -> Version.VERSION + "\n"));
    }

    @Override
    public CompletionStage<String> route(CliSession session, String line, List<String> args) {
        String first = args.isEmpty() ? "" : args.get(0);
        Object target;
        String rest;
        if (first.startsWith("@")) {
            String spec = first.substring(1);
            if (spec.isEmpty() || spec.equals("master")) {
                target = null;
            } else {
                Master.Worker w = find(spec);
                if (w == null) {
                    return CompletableFuture.completedFuture("Can't find the target PID matching the prefix '" + first + "'\n");
                }
                target = w.pid;
            }
            rest = afterFirstWord(line);
            if (rest.isBlank()) {
                session.target(target);
                return CompletableFuture.completedFuture("");
            }
        } else {
            target = session.target();
            rest = line;
        }
        if (target == null) {
            if (first.startsWith("@")) {
                // "@master show proc": run here whatever the session's target
                return CompletableFuture.completedFuture(session.executeHere(rest));
            }
            return null;
        }
        Master.Worker w = master.byPid((Long) target);
        if (w == null) {
            // the worker left since the session chose it
            return CompletableFuture.completedFuture("Can't find the target PID matching the prefix '@!" + target + "'\n");
        }
        String command = rest;
        return CompletableFuture.supplyAsync(() -> forward(w, command),
                r -> Thread.ofPlatform().daemon().stackSize(Master.STACK).name("sluice-master-cli-forward").start(r));
    }

    /** The worker {@code spec} names ({@code <n>} or {@code !<pid>}), or null. */
    private Master.Worker find(String spec) {
        try {
            if (spec.startsWith("!")) {
                return master.byPid(Long.parseLong(spec.substring(1)));
            }
            return master.relative(Integer.parseInt(spec));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String afterFirstWord(String line) {
        int i = 0;
        int n = line.length();
        while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
            i++;
        }
        while (i < n && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
            i += line.charAt(i) == '\\' ? 2 : 1;
        }
        return i >= n ? "" : line.substring(i + 1);
    }

    /** Sends one command to a worker's admin socket and returns its whole answer. */
    private static String forward(Master.Worker w, String command) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(w.cli));
            ch.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)));
            ch.shutdownOutput();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(8192);
            // the worker's session ends after its answer (non-interactive), or at its stats timeout
            while (ch.read(buf.clear()) >= 0) {
                out.write(buf.array(), 0, buf.position());
            }
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "Can't connect to the target CLI of process " + w.pid + " (" + e.getMessage() + ")\n\n";
        }
    }

    @Override
    public String prompt(CliSession session) {
        Object t = session.target();
        if (t != null) {
            return t.toString();
        }
        return master.lastReloadFailed() ? "master[ReloadFailed]" : "master";
    }

    void close() {
        close.run();
    }
}
