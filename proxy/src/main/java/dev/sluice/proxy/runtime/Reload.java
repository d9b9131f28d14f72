package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.SavedServerState;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerCommands;
import dev.sluice.proxy.check.HealthCheck;
import dev.sluice.proxy.listener.Listener;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.Live;
import dev.sluice.proxy.stream.SoftStop;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An in-process reload, between the runtime that runs and the one that replaces it (see "Reloading in the process"
 * in docs/design.md). The new runtime was built beside the old one on the same event loops; {@link #start} binds what
 * is new (a failure closes what it bound and leaves the old runtime untouched), then takes over the listening sockets
 * whose address and options did not change (nothing is closed nor bound: no connection in a listen queue is lost),
 * the admin sockets, QUIC binds and peers; {@link #retire} closes the old runtime's other sockets and lets its streams
 * finish: each client connection takes the new configuration at its next request, and the old runtime is released
 * once none of its connections and streams is left.
 */
final class Reload {
    private Reload() {
    }

    /** The global settings a reload cannot change (they take effect at the next restart), as warnings. */
    static List<String> restartOnly(Config before, Config after, int loops, int threads) {
        List<String> notes = new ArrayList<>();
        for (String what : restartChanges(before, after, loops, threads)) {
            notes.add("[WARNING] " + what + " applies at the next restart" + (what.startsWith("nbthread") ? ": the process keeps its " + loops
                    + " threads." : "."));
        }
        return notes;
    }

    /** The settings only a new process applies that {@code after} changes: "nbthread 2", "cpu-map", "tune.maxpollevents". */
    static List<String> restartChanges(Config before, Config after, int loops, int threads) {
        List<String> changed = new ArrayList<>();
        if (threads != loops) {
            changed.add("nbthread " + threads);
        }
        if (!before.global().process().cpuMaps().equals(after.global().process().cpuMaps())) {
            changed.add("cpu-map");
        }
        if (!Objects.equals(before.global().tune().sockets().maxPollEvents(), after.global().tune().sockets().maxPollEvents())) {
            changed.add("tune.maxpollevents");
        }
        return changed;
    }

    /** Whether the QUIC binds and settings are the same (their sockets and connections then stay). */
    static boolean sameQuic(Config before, Config after) {
        return quicBinds(before).equals(quicBinds(after)) && before.global().quic().equals(after.global().quic());
    }

    private static List<String> quicBinds(Config c) {
        List<String> out = new ArrayList<>();
        for (Proxy p : c.frontends()) {
            for (Bind b : p.binds()) {
                if (b.isQuic()) {
                    out.add(p.name() + " " + b.text());
                }
            }
        }
        return out;
    }

    /** Whether the admin sockets are the same (they then stay, answering with the new configuration's commands). */
    static boolean sameAdmin(Config before, Config after) {
        var a = before.global().statsSockets();
        var b = after.global().statsSockets();
        if (a.size() != b.size() || before.global().statsTimeoutMs() != after.global().statsTimeoutMs()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            var x = a.get(i);
            var y = b.get(i);
            if (!x.address().equals(y.address()) || x.mode() != y.mode() || x.level() != y.level() || x.exposeFd() != y.exposeFd()
                    || !Objects.equals(x.owner(), y.owner()) || !Objects.equals(x.group(), y.group())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The servers' state in {@code previous} (operational and admin state, weights, check status: what
     * {@code show servers state} shows), for the servers of {@code config} that have the same backend and name; applied
     * as a server state file would be.
     */
    static Map<String, Map<String, SavedServerState>> liveStates(ProxyRuntime previous, Config config) {
        Map<String, Map<String, SavedServerState>> out = new HashMap<>();
        for (Proxy p : config.proxies()) {
            Backend be = previous.backends().get(p.name());
            if (be == null || !p.kind().hasBackend()) {
                continue;
            }
            Set<String> names = new HashSet<>();
            p.servers().forEach(s -> names.add(s.name()));
            Map<String, SavedServerState> states = new HashMap<>();
            long now = System.currentTimeMillis();
            for (Server s : be.servers()) {
                if (!names.contains(s.name())) {
                    continue;
                }
                // what its show servers state line holds, as load-server-state-from-file reads it
                SavedServerState st = ServerCommands.liveState(s, now);
                if (st != null) {
                    states.put(s.name(), st);
                }
            }
            if (!states.isEmpty()) {
                out.put(p.name(), states);
            }
        }
        return out;
    }

    /**
     * Starts {@code next} in place of {@code previous}: first what can fail (new listening sockets, new QUIC binds),
     * undone entirely on failure; then what cannot (the sockets taken over, the admin sockets, the peers).
     */
    static void start(ProxyRuntime next, ProxyRuntime previous, int backlog) {
        Map<Listener, Listener> takeOver = new IdentityHashMap<>();
        List<Listener> bound = new ArrayList<>();
        Set<Listener> claimed = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        try {
            for (Listener l : next.listeners()) {
                Listener old = null;
                for (Listener o : previous.listeners()) {
                    if (!claimed.contains(o) && o.sameSocket(l, backlog)) {
                        old = o;
                        break;
                    }
                }
                if (old != null) {
                    claimed.add(old);
                    takeOver.put(l, old);
                } else {
                    l.start(next.transport(), next.group(), backlog);
                    bound.add(l);
                }
            }
            if (next.quic() != previous.quic()) {
                next.quic().start(next.transport(), next.workers());
            }
        } catch (RuntimeException e) {
            bound.forEach(Listener::stop);
            if (next.quic() != previous.quic()) {
                // the QUIC sockets it bound before one failed
                next.quic().stop();
            }
            throw e;
        }
        takeOver.forEach(Listener::adopt);
        if (next.adminSockets() == previous.adminSockets()) {
            next.adminSockets().registry(next.registry());
        } else {
            previous.adminSockets().stop();
            try {
                next.adminSockets().start(next.transport(), next.group());
            } catch (RuntimeException e) {
                next.reloadNotes().add("[ALERT] the admin sockets could not be opened again: " + e.getMessage());
            }
        }
        // the tables with an unchanged definition are the same objects: no teaching needed
        previous.peers().stop();
        try {
            next.startPeers();
        } catch (RuntimeException e) {
            next.reloadNotes().add("[ALERT] the peers could not start again: " + e.getMessage());
        }
    }

    /**
     * Drops {@code next}, a runtime whose start failed: the periodic work its construction scheduled on the shared loops
     * (table purges) and its log writer's thread go with it; what it bound {@link #start} closed already.
     */
    static void discard(ProxyRuntime next) {
        next.tasks().forEach(t -> t.cancel(false));
        if (next.logWriter() != null) {
            next.logWriter().close();
        }
    }

    /**
     * Retires {@code old} once {@code next} runs: its periodic work stops, its listening sockets that were not taken
     * over close, its frontends point their connections to their successors (a frontend gone stops its connections
     * after their exchange), idle server connections close; it is released ({@code released} runs) once none of its
     * client connections and streams is left.
     */
    static void retire(ProxyRuntime old, ProxyRuntime next, List<ProxyRuntime> older, Runnable released) {
        ScheduledFuture<?> sampler = old.sampler();
        if (sampler != null) {
            sampler.cancel(false);
        }
        old.tasks().forEach(t -> t.cancel(false));
        old.checks().forEach(HealthCheck::stop);
        old.agents().forEach(dev.sluice.proxy.check.AgentCheck::stop);
        old.dns().stop();
        for (Listener l : old.listeners()) {
            if (l.channel() != null) {
                l.stop();
            }
        }
        // server connections: before the frontends switch, so that the new configuration's first requests find them. Each
        // old server names its successor (the same address and settings), where its busy connections go once idle; one
        // task per loop hands the idle ones over (a request on a loop whose turn has not come takes them from the
        // predecessor), the others close
        Map<Server, Server> successors = new IdentityHashMap<>();
        Map<String, Map<String, Server>> named = new HashMap<>();
        for (Backend nb : next.backends().values()) {
            Map<String, Server> m = new HashMap<>();
            for (Server x : nb.servers()) {
                m.put(x.name(), x);
            }
            named.put(nb.name(), m);
        }
        for (Backend be : old.backends().values()) {
            for (Server s : be.servers()) {
                Server n = successor(s, named.getOrDefault(be.name(), Map.of()).get(s.name()));
                if (n != null) {
                    successors.put(s, n);
                    n.predecessor(s);
                }
                s.retire(n);
            }
        }
        old.workers().onEachLoop(i -> {
            for (Backend be : old.backends().values()) {
                for (Server s : be.servers()) {
                    Server n = successors.get(s);
                    if (n != null) {
                        dev.sluice.proxy.backend.ServerConnector.handOver(s, n, i);
                    } else {
                        dev.sluice.proxy.backend.ServerConnector.closeIdle(s, i);
                    }
                }
            }
            return Boolean.TRUE;
        }).whenComplete((v, e) -> successors.values().forEach(n -> n.predecessor(null)));
        Set<Frontend> replaced = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Frontend fe : old.frontends().values()) {
            Frontend successor = next.frontends().get(fe.name());
            fe.succeededBy(successor);
            if (successor == null) {
                fe.limit().detach();
            }
            replaced.add(fe);
        }
        // configurations replaced before, still finishing, point to the newest one directly: a connection they keep
        // idle must not keep the ones in between alive
        for (ProxyRuntime r : older) {
            if (r != old) {
                r.frontends().values().forEach(fe -> fe.succeededBy(next.frontends().get(fe.name())));
            }
        }
        if (next.quic() != old.quic()) {
            old.quic().softStop(SoftStop.EVENT);
        }
        for (Channel ch : old.clients()) {
            ch.eventLoop().execute(() -> ch.pipeline().fireUserEventTriggered(SoftStop.IF_REMOVED));
        }
        boolean quicKept = next.quic() == old.quic();
        drain(old, replaced, quicKept, released);
    }

    /**
     * {@code n}, the new configuration's server of {@code s}'s backend and name (null: none), when it takes over
     * {@code s}'s idle connections: the same address and port, the same TLS context (reused because settings and files
     * did not change), the same protocol, and no PROXY header (such connections are private to a client connection
     * anyway); else null.
     */
    static Server successor(Server s, Server n) {
        if (n == null || !Objects.equals(n.address(), s.address()) || !Objects.equals(n.config().proto(), s.config().proto())
                || n.config().proxyVersion() != 0 || s.config().proxyVersion() != 0) {
            return null;
        }
        Server.Tls a = s.tls();
        Server.Tls b = n.tls();
        return a == null ? (b == null ? n : null) : b != null && a.context() == b.context() ? n : null;
    }

    /** Checks ten times a second whether {@code old} has any connection or stream left; releases it when not. */
    private static void drain(ProxyRuntime old, Set<Frontend> frontends, boolean quicKept, Runnable released) {
        if (old.group().isShuttingDown()) {
            return;
        }
        boolean connections = !old.clients().isEmpty() || !quicKept && !old.quic().drained();
        if (connections) {
            old.group().schedule(() -> drain(old, frontends, quicKept, released), 100, TimeUnit.MILLISECONDS);
            return;
        }
        old.workers().onEachLoop(i -> {
            for (Live s : old.streams().on(i)) {
                if (frontends.contains(s.frontend())) {
                    return Boolean.TRUE;
                }
            }
            return Boolean.FALSE;
        }).whenComplete((busy, e) -> {
            if (e != null || busy.contains(Boolean.TRUE)) {
                old.group().schedule(() -> drain(old, frontends, quicKept, released), 100, TimeUnit.MILLISECONDS);
            } else {
                release(old);
                released.run();
            }
        });
    }

    /** Closes what only the old runtime used: its log writer, its TLS bind contexts the new one did not take over. */
    private static void release(ProxyRuntime old) {
        if (old.logWriter() != null) {
            old.logWriter().close();
        }
        // its bind contexts (those the new configuration took over stay theirs); QUIC contexts are not closed here
        if (old.tls() != null) {
            old.tls().close();
        }
    }

    /**
     * A reload's messages to the global section's log targets of {@code rt}, each at the level its tag says
     * ({@code [ALERT]} alert, {@code [WARNING]} and {@code : warning:} warning, {@code [NOTICE]} notice, errors err).
     */
    static void log(ProxyRuntime rt, List<String> messages) {
        var global = rt.config().global();
        if (global.logs().isEmpty()) {
            return;
        }
        var writer = rt.logWriterOrNew();
        for (String m : messages) {
            int level = m.startsWith("[ALERT]") ? 1 : m.startsWith("[WARNING]") || m.contains(": warning: ") ? 4
                    : m.startsWith("[NOTICE]") || m.contains(": notice: ") ? 5 : 3;
            for (dev.sluice.config.model.LogTarget t : global.logs()) {
                writer.submit(t, global.logTag(), level, m);
            }
        }
    }

    /** A graceful stop reaches a replaced configuration too: its connections stop as they would in a soft stop. */
    static void softStop(ProxyRuntime old) {
        old.frontends().values().forEach(Frontend::stopped);
        old.quic().softStop(SoftStop.EVENT);
        for (Channel ch : old.clients()) {
            ch.eventLoop().execute(() -> ch.pipeline().fireUserEventTriggered(SoftStop.EVENT));
        }
    }
}
