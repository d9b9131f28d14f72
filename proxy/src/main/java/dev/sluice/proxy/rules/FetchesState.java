package dev.sluice.proxy.rules;

import dev.sluice.proxy.rules.ProxyStates.BackendState;
import dev.sluice.proxy.rules.ProxyStates.ServerState;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * HAProxy 2.6's fetches of proxy and server states (backend.c, frontend.c): {@code nbsrv}, {@code be_conn},
 * {@code srv_is_up}... Their backend or server argument is resolved when the rule is compiled (an unknown name is an
 * error, a backend argument left out is the rule's own proxy, which must have backend capability); the state is read
 * through {@link Txn#states()} when the rule runs. Registered by {@link Fetches}.
 */
final class FetchesState {
    private FetchesState() {
    }

    /** The state fetches that read neither message: usable in every phase (all but srv_id and srv_name). */
    private static final java.util.Set<String> ANY_PHASE = new java.util.HashSet<>();

    static boolean anyPhase(String name) {
        return ANY_PHASE.contains(name);
    }

    static void register() {
        backend("nbsrv", b -> (long) b.usableServers());
        backend("be_conn", BackendState::connections);
        backend("be_sess_rate", BackendState::sessionRate);
        backend("queue", BackendState::queued);
        backend("be_conn_free", BackendState::connectionsFree);
        server("srv_conn_free", ServerState::connectionsFree);
        frontend("fe_conn", ProxyStates.FrontendState::connections);
        frontend("fe_sess_rate", ProxyStates.FrontendState::sessionRate);
        frontend("fe_req_rate", ProxyStates.FrontendState::requestRate);
        ANY_PHASE.addAll(java.util.List.of("fe_defbe", "stopping", "last_rule_file", "last_rule_line", "prio_class", "prio_offset"));
        Fetches.def("prio_class", 0, 0, Match.INT, false, a -> t -> (long) t.priorityClass());
        // cpu_calls counts the stream's processing runs as HAProxy's task does; its CPU and latency times are those of
        // HAProxy without task profiling (profiling.tasks, off by default, which Sluice does not have): 0
        ANY_PHASE.addAll(java.util.List.of("cpu_calls", "cpu_ns_avg", "cpu_ns_tot", "lat_ns_avg", "lat_ns_tot"));
        Fetches.def("cpu_calls", 0, 0, Match.INT, false, a -> t -> t.processCalls() < 0 ? null : (Object) (long) t.processCalls());
        for (String n : new String[] {"cpu_ns_avg", "cpu_ns_tot", "lat_ns_avg", "lat_ns_tot"}) {
            Fetches.def(n, 0, 0, Match.INT, false, a -> t -> t.processCalls() < 0 ? null : (Object) 0L);
        }
        Fetches.def("prio_offset", 0, 0, Match.INT, false, a -> t -> (long) t.priorityOffset());
        // the file as the configuration was named (as in its diagnostics), the line of the rule in it
        Fetches.def("last_rule_file", 0, 0, Match.STR, false, a -> t -> t.lastRule() == null ? null : t.lastRule().file());
        Fetches.def("last_rule_line", 0, 0, Match.INT, false, a -> t -> t.lastRule() == null ? null : (Object) (long) t.lastRule().line());
        Fetches.def("fe_defbe", 0, 0, Match.STR, false, a -> t -> t.states() == null ? null : t.states().frontendDefaultBackend());
        Fetches.def("stopping", 0, 0, Match.BOOL, false, a -> t -> t.states() == null ? null : (Object) t.states().stopping());
        backend("avg_queue", b -> {
            int n = b.usableServers();
            long pending = b.queued();
            return n > 0 ? (pending + n - 1) / n : pending * 2;
        });
        backend("connslots", FetchesState::connslots);
        server("srv_is_up", s -> s.isUp() ? 1L : 0L);
        server("srv_conn", ServerState::connections);
        server("srv_queue", ServerState::queued);
        server("srv_sess_rate", ServerState::sessionRate);
        server("srv_weight", s -> (long) s.weight());
        server("srv_iweight", s -> (long) s.initialWeight());
        server("srv_uweight", s -> (long) s.userWeight());
        Fetches.def("be_id", 0, 0, Match.INT, false, a -> t -> {
            BackendState b = t.states() == null ? null : t.states().currentBackend();
            return b == null ? null : (Object) (long) b.id();
        });
        // the stream's server: known once connected, so in response rules only (SMP_USE_SERVR)
        Fetches.def("srv_id", 0, 0, Match.INT, true, a -> t -> {
            ServerState s = t.states() == null ? null : t.states().currentServer();
            return s == null ? null : (Object) (long) s.id();
        });
        Fetches.def("srv_name", 0, 0, Match.STR, true, a -> t -> {
            ServerState s = t.states() == null ? null : t.states().currentServer();
            return s == null ? null : s.name();
        });
        ANY_PHASE.addAll(java.util.List.of("be_id", "fe_id", "fe_client_timeout"));
        Fetches.def("fe_id", 0, 0, Match.INT, false, a -> t -> t.states() == null ? null : (Object) (long) t.states().frontendId());
        Fetches.def("fe_client_timeout", 0, 0, Match.INT, false,
                a -> t -> t.states() == null ? null : (Object) t.states().frontendClientTimeout());
        current("be_server_timeout", BackendState::serverTimeout);
        current("be_tunnel_timeout", BackendState::tunnelTimeout);
        // backend.c's converters: the sample names the backend (nbsrv) or the server, "[<backend>/]<server>" (srv_queue,
        // without a backend the rule's proxy when it is one); no sample when no such one exists
        Converters.def("nbsrv", 0, 0, a -> (t, v) -> {
            BackendState b = t.states() == null ? null : t.states().backend(Samples.str(v).toString());
            return b == null ? null : (Object) (long) b.usableServers();
        });
        Converters.def("srv_queue", 0, 0, a -> {
            String own = CompileScope.proxy();
            return (t, v) -> {
                String in = Samples.str(v).toString();
                int slash = in.indexOf('/');
                BackendState b = t.states() == null ? null : t.states().backend(slash >= 0 ? in.substring(0, slash) : own);
                ServerState s = b == null ? null : b.server(in.substring(slash + 1));
                return s == null ? null : (Object) s.queued();
            };
        });
    }

    /** smp_fetch_connslots: over the servers not stopped, free connection and queue slots; -1 when one has no maxconn or maxqueue. */
    private static long connslots(BackendState b) {
        long n = 0;
        for (ServerState s : b.servers()) {
            if (s.stopped()) {
                continue;
            }
            if (s.maxconn() == 0 || s.maxqueue() == 0) {
                return -1;
            }
            n += (s.maxconn() - s.connections()) + (s.maxqueue() - s.queued());
        }
        return n;
    }

    /** A fetch of the stream's backend, no argument. */
    private static void current(String name, ToLongFunction<BackendState> read) {
        ANY_PHASE.add(name);
        Fetches.def(name, 0, 0, Match.INT, false, a -> t -> {
            BackendState b = t.states() == null ? null : t.states().currentBackend();
            return b == null ? null : (Object) read.applyAsLong(b);
        });
    }

    /** A fetch of a backend: {@code name([<backend>])}, the rule's own proxy without argument. */
    private static void backend(String name, Function<BackendState, Long> read) {
        ANY_PHASE.add(name);
        Fetches.def(name, 0, 1, Match.INT, false, a -> {
            String be = resolveBackend(a.isEmpty() ? null : a.get(0), name);
            return t -> {
                BackendState b = t.states() == null || be == null ? null : t.states().backend(be);
                return b == null ? null : read.apply(b);
            };
        });
    }

    /** A fetch of a frontend: {@code name([<frontend>])}, the rule's own proxy without argument. */
    private static void frontend(String name, Function<ProxyStates.FrontendState, Long> read) {
        ANY_PHASE.add(name);
        Fetches.def(name, 0, 1, Match.INT, false, a -> {
            String arg = a.isEmpty() ? null : a.get(0);
            ProxyNames n = names();
            String fe = n != null ? n.frontend(arg, name) : arg != null && !arg.isEmpty() ? arg : CompileScope.proxy();
            return t -> {
                ProxyStates.FrontendState f = t.states() == null || fe == null ? null : t.states().frontend(fe);
                return f == null ? null : read.apply(f);
            };
        });
    }

    /** A fetch of a server: {@code name([<backend>/]<server>)}. */
    private static void server(String name, Function<ServerState, Long> read) {
        ANY_PHASE.add(name);
        Fetches.def(name, 1, 1, Match.INT, false, a -> {
            String[] bs = resolveServer(a.get(0), name);
            return t -> {
                BackendState b = t.states() == null ? null : t.states().backend(bs[0]);
                ServerState s = b == null ? null : b.server(bs[1]);
                return s == null ? null : read.apply(s);
            };
        });
    }

    private static ProxyNames names() {
        StickTables tables = CompileScope.tables();
        return tables == null ? null : tables.names();
    }

    static String resolveBackend(String arg, String keyword) {
        ProxyNames n = names();
        if (n != null) {
            return n.backend(arg, keyword);
        }
        return arg != null && !arg.isEmpty() ? arg : CompileScope.proxy();
    }

    static String[] resolveServer(String arg, String keyword) {
        ProxyNames n = names();
        if (n != null) {
            return n.server(arg, keyword);
        }
        int slash = arg.indexOf('/');
        return slash < 0 ? new String[] {CompileScope.proxy(), arg} : new String[] {arg.substring(0, slash), arg.substring(slash + 1)};
    }
}
