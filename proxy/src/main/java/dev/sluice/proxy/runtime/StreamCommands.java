package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Mode;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.stream.Live;
import dev.sluice.proxy.stream.LiveStreams;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.transport.Workers;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.ToLongFunction;

/**
 * The admin commands on streams in progress and on the event loops: {@code show sess [all|<id>]},
 * {@code shutdown session <id>}, {@code shutdown sessions server <bk>/<srv>} and {@code show activity}. Each
 * reads or acts on a loop's own state with a task on that loop ({@link Workers#onEachLoop}); nothing on the
 * request path is shared or locked for them. As in HAProxy, only streams (requests in progress) are listed,
 * not idle keep-alive connections; unlike HAProxy, the CLI session itself is not one of them.
 */
final class StreamCommands {
    private StreamCommands() {
    }

    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss.SSS", Locale.ROOT)
            .withZone(ZoneId.systemDefault());

    static void register(CliRegistry r, Workers workers, LiveStreams live, Collection<Backend> backends, IntSupplier generations) {
        r.register(new CliCommand(List.of("show", "sess"), Level.OPERATOR, "show sess [id]", "report the list of current sessions or dump this exact session",
                req -> showSess(workers, live, req)));
        r.register(new CliCommand(List.of("shutdown", "session"), Level.ADMIN, "shutdown session [id]", "kill a specific session",
                req -> shutdownSession(workers, live, req)));
        r.register(new CliCommand(List.of("shutdown", "sessions", "server"), Level.ADMIN, "shutdown sessions server <bk>/<srv>",
                "kill sessions on a server", req -> shutdownServer(workers, live, backends, req)));
        r.register(new CliCommand(List.of("show", "activity"), Level.USER, "show activity", "show per-thread activity stats (for support/developers)",
                req -> showActivity(workers, live, generations, req)));
        // on-marked-down shutdown-sessions, on-marked-up shutdown-backup-sessions: the same kill, with HAProxy's D and U
        for (Backend be : backends) {
            be.streams((srv, up) -> killOn(workers, live, srv, up ? Cause.SERVER_UP : Cause.SERVER_DOWN));
        }
    }

    /** Ends the streams of {@code srv} on every loop with {@code why}; done when each loop has. */
    private static CompletableFuture<List<String>> killOn(Workers workers, LiveStreams live, Server srv, Cause why) {
        return workers.onEachLoop(loop -> {
            for (Live s : live.on(loop)) {
                if (s.server() == srv) {
                    s.kill(why);
                }
            }
            return "";
        });
    }

    /** What {@code show sess} prints of one stream, taken on its loop. */
    private record View(long id, String proto, InetSocketAddress src, InetSocketAddress dst, String fe, int feId, String feMode, String be,
            int beId, String beMode, String srv, int srvId, InetSocketAddress srvAddr, int epoch, long start, char state, String request) {
        static View of(Live s) {
            InetSocketAddress src = s.client().remoteAddress();
            Backend be = s.backend();
            Server srv = s.server();
            return new View(s.id(), src != null && src.getAddress() instanceof Inet6Address ? "tcpv6"
                    : src != null && src.getAddress() == null ? "unix_stream" : "tcpv4", src,
                    s.client().localAddress(), s.frontend().name(), s.frontend().id(), mode(s.frontend().config().mode()),
                    be == null ? null : be.name(), be == null ? -1 : be.id(), be == null ? null : mode(be.config().mode()),
                    srv == null ? null : srv.name(), srv == null ? -1 : srv.id(), srv == null ? null : srv.address(), s.epoch(), s.startDate(),
                    s.phase().letter(), s.describe());
        }

        private static String mode(Mode m) {
            return m == Mode.TCP ? "tcp" : "http";
        }
    }

    private static String showSess(Workers workers, LiveStreams live, CliRequest req) {
        String arg = req.arg(2);
        long wanted = -1;
        boolean all = arg.equals("all");
        if (!arg.isEmpty() && !all) {
            wanted = parseId(arg);
            if (wanted <= 0 || live.loopOf(wanted) < 0) {
                return "Session not found.\n";
            }
        }
        int epoch = live.nextEpoch() - 1;
        long want = wanted;
        CompletableFuture<List<List<View>>> views = workers.onEachLoop(loop -> {
            List<View> out = new ArrayList<>();
            for (Live s : live.on(loop)) {
                if (want < 0 || s.id() == want) {
                    out.add(View.of(s));
                }
            }
            return out;
        });
        long now = System.currentTimeMillis();
        return req.later(views.thenApply(perLoop -> {
            StringBuilder b = new StringBuilder();
            int found = 0;
            for (List<View> l : perLoop) {
                for (View v : l) {
                    found++;
                    if (want < 0 && !all) {
                        line(b, v, now);
                    } else {
                        detailed(b, v, now);
                    }
                }
            }
            if (want > 0 && found == 0) {
                return "Session not found.\n";
            }
            return b.toString();
        }));
    }

    /** HAProxy's one-line form: {@code 0x..: proto=tcpv4 src=.. fe=.. be=.. srv=.. ts=00 epoch=0x.. age=..}, then Sluice's state and request. */
    private static void line(StringBuilder b, View v, long now) {
        b.append("0x").append(Long.toHexString(v.id())).append(": proto=").append(v.proto()).append(" src=").append(addr(v.src()))
                .append(" fe=").append(v.fe()).append(" be=").append(v.be() == null ? "<NONE>" : v.be()).append(" srv=")
                .append(v.srv() == null ? "<none>" : v.srv()).append(" ts=00 epoch=0x").append(Integer.toHexString(v.epoch())).append(" age=")
                .append(humanTime((now - v.start()) / 1000)).append(" state=").append(v.state());
        if (v.request() != null) {
            b.append(" req=\"").append(v.request()).append('"');
        }
        b.append('\n');
    }

    /** The multi-line form of {@code show sess <id>} and {@code show sess all}, with what Sluice knows of a stream. */
    private static void detailed(StringBuilder b, View v, long now) {
        b.append("0x").append(Long.toHexString(v.id())).append(": [").append(DATE.format(Instant.ofEpochMilli(v.start()))).append("] proto=")
                .append(v.proto()).append(" source=").append(addr(v.src())).append('\n');
        b.append("  epoch=0x").append(Integer.toHexString(v.epoch())).append(" age=").append(humanTime((now - v.start()) / 1000))
                .append(" state=").append(v.state()).append('\n');
        b.append("  frontend=").append(v.fe()).append(" (id=").append(v.feId()).append(" mode=").append(v.feMode()).append(") addr=").append(addr(v.dst())).append('\n');
        if (v.be() == null) {
            b.append("  backend=<NONE> (id=-1 mode=-)\n");
        } else {
            b.append("  backend=").append(v.be()).append(" (id=").append(v.beId()).append(" mode=").append(v.beMode()).append(")\n");
        }
        if (v.srv() == null) {
            b.append("  server=<NONE> (id=-1)\n");
        } else {
            b.append("  server=").append(v.srv()).append(" (id=").append(v.srvId()).append(") addr=").append(addr(v.srvAddr())).append('\n');
        }
        if (v.request() != null) {
            b.append("  request=\"").append(v.request()).append("\"\n");
        }
    }

    private static String shutdownSession(Workers workers, LiveStreams live, CliRequest req) {
        if (req.arg(2).isEmpty()) {
            return "Session pointer expected (use 'show sess').\n";
        }
        long id = parseId(req.arg(2));
        int loop = id <= 0 ? -1 : live.loopOf(id);
        if (loop < 0) {
            return "No such session (use 'show sess').\n";
        }
        CompletableFuture<String> done = new CompletableFuture<>();
        workers.loop(loop).execute(() -> {
            for (Live s : live.on(loop)) {
                if (s.id() == id) {
                    s.kill();
                    done.complete("");
                    return;
                }
            }
            done.complete("No such session (use 'show sess').\n");
        });
        return req.later(done);
    }

    private static String shutdownServer(Workers workers, LiveStreams live, Collection<Backend> backends, CliRequest req) {
        String arg = req.arg(3);
        int slash = arg.indexOf('/');
        if (slash < 0 || slash == arg.length() - 1) {
            return "Require 'backend/server'.\n";
        }
        Backend be = null;
        for (Backend b : backends) {
            if (b.name().equals(arg.substring(0, slash)) || arg.substring(0, slash).equals("#" + b.id())) {
                be = b;
            }
        }
        if (be == null) {
            return "No such backend.\n";
        }
        Server srv = be.server(arg.substring(slash + 1));
        if (srv == null) {
            return "No such server.\n";
        }
        return req.later(killOn(workers, live, srv, Cause.KILLED).thenApply(x -> ""));
    }

    /** One loop's figures for {@code show activity}. */
    private record Activity(long accepted, long streams, long current, int runQueue, long cpuMs) {
    }

    /**
     * {@code show activity} in HAProxy's layout ({@code name: total [ per thread ]}) with what Sluice counts
     * per event loop: connections accepted (HAProxy's {@code accepted}), and three of its own lines, streams
     * started, streams in progress, tasks waiting in the loop's queue and the loop thread's CPU time; then the
     * configurations alive (the current one and those an in-process reload replaced, still finishing their streams).
     */
    private static String showActivity(Workers workers, LiveStreams live, IntSupplier generations, CliRequest req) {
        int self = workers.currentIndex();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        return req.later(workers.onEachLoop(loop -> {
            int pending = workers.loop(loop) instanceof SingleThreadEventExecutor st ? st.pendingTasks() : 0;
            long cpu = mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() / 1_000_000 : 0;
            return new Activity(live.acceptedOn(loop), live.created(loop), live.on(loop).size(), pending, cpu);
        }).thenApply(list -> {
            long now = System.currentTimeMillis();
            StringBuilder b = new StringBuilder();
            b.append("thread_id: ").append(self + 1).append(" (1..").append(list.size()).append(")\n");
            b.append("date_now: ").append(now / 1000).append('.').append(String.format("%06d", now % 1000 * 1000)).append('\n');
            row(b, "accepted", list, Activity::accepted);
            row(b, "streams", list, Activity::streams);
            row(b, "cur_streams", list, Activity::current);
            row(b, "run_queue", list, a -> a.runQueue());
            row(b, "cpu_ms_tot", list, Activity::cpuMs);
            b.append("generations: ").append(generations.getAsInt()).append('\n');
            return b.toString();
        }));
    }

    private static void row(StringBuilder b, String name, List<Activity> list, ToLongFunction<Activity> f) {
        long total = 0;
        StringBuilder per = new StringBuilder();
        for (Activity a : list) {
            long v = f.applyAsLong(a);
            total += v;
            per.append(' ').append(v);
        }
        b.append(name).append(": ").append(total).append(" [").append(per).append(" ]\n");
    }

    /** HAProxy reads a stream pointer with strtoul(.., 0): hex with 0x, octal with 0, else decimal. */
    static long parseId(String s) {
        try {
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return Long.parseUnsignedLong(s.substring(2), 16);
            }
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static String addr(InetSocketAddress a) {
        if (a == null) {
            return "?";
        }
        String ip = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + a.getPort();
    }

    /** HAProxy's human_time: 5s, 2m05s, 1h02m, 3d04h. */
    static String humanTime(long sec) {
        if (sec < 60) {
            return sec + "s";
        }
        if (sec < 3600) {
            return String.format("%dm%02ds", sec / 60, sec % 60);
        }
        if (sec < 86400) {
            return String.format("%dh%02dm", sec / 3600, sec / 60 % 60);
        }
        return String.format("%dd%02dh", sec / 86400, sec / 3600 % 24);
    }
}
