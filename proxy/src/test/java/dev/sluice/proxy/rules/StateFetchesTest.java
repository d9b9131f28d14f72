package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.rules.ProxyStates.BackendState;
import dev.sluice.proxy.rules.ProxyStates.ServerState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The proxy and server state fetches (HAProxy 2.6's backend.c and frontend.c) over fake states. */
class StateFetchesTest {
    record Srv(int id, String name, boolean isUp, boolean stopped, long connections, long queued, int maxconn, int maxqueue, long sessionRate,
            int weight, int initialWeight, int userWeight, long connectionsFree) implements ServerState {
    }

    record Fe(long connections, long sessionRate, long requestRate) implements ProxyStates.FrontendState {
    }

    record Be(int id, int usableServers, long connections, long queued, long sessionRate, List<ServerState> servers, long serverTimeout,
            long tunnelTimeout, long connectionsFree) implements BackendState {
        @Override
        public ServerState server(String name) {
            return servers.stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
        }
    }

    private static final Srv S1 = new Srv(1, "s1", true, false, 3, 1, 10, 5, 7, 2, 4, 3, 7);
    private static final Srv S2 = new Srv(2, "s2", false, true, 0, 0, 10, 5, 0, 1, 1, 1, -1);
    private static final Be BE = new Be(3, 1, 3, 4, 9, List.of(S1, S2), 5000, 0, 7);
    private static final Be WEB = new Be(4, 0, 0, 3, 0, List.of(), 0, 60000, 0);

    private static FakeTxn txn(Be current, Srv server) {
        FakeTxn t = new FakeTxn("GET", "/");
        Map<String, BackendState> byName = Map.of("be", BE, "web", WEB);
        t.states = new ProxyStates() {
            @Override
            public BackendState backend(String name) {
                return byName.get(name);
            }

            @Override
            public BackendState currentBackend() {
                return current;
            }

            @Override
            public ServerState currentServer() {
                return server;
            }

            @Override
            public FrontendState frontend(String name) {
                return name.equals("fe") ? new Fe(5, 6, 8) : null;
            }

            @Override
            public String frontendDefaultBackend() {
                return "be";
            }

            @Override
            public boolean stopping() {
                return false;
            }

            @Override
            public int frontendId() {
                return 2;
            }

            @Override
            public long frontendClientTimeout() {
                return 30000;
            }
        };
        return t;
    }

    private static final ProxyNames NAMES = new ProxyNames().add("fe", true, false, List.of()).add("be", false, true, List.of("s1", "s2"))
            .add("web", false, true, List.of());

    private static Object get(String expr, String proxy, FakeTxn t) {
        return CompileScope.in(new StickTables().names(NAMES), proxy, null, () -> RuleCompiler.sample(expr)).get(t);
    }

    @Test
    void backendStates() {
        FakeTxn t = txn(BE, S1);
        assertThat(get("nbsrv(be)", "fe", t)).isEqualTo(1L);
        assertThat(get("nbsrv", "be", t)).isEqualTo(1L);
        assertThat(get("be_conn(be)", "fe", t)).isEqualTo(3L);
        assertThat(get("queue(be)", "fe", t)).isEqualTo(4L);
        assertThat(get("be_sess_rate(be)", "fe", t)).isEqualTo(9L);
        // avg_queue: rounded up over the usable servers, twice the total without any
        assertThat(get("avg_queue(be)", "fe", t)).isEqualTo(4L);
        assertThat(get("avg_queue(web)", "fe", t)).isEqualTo(6L);
        // connslots: free connection and queue slots of the servers not stopped
        assertThat(get("connslots(be)", "fe", t)).isEqualTo(7L + 4L);
        assertThat(get("connslots(web)", "fe", t)).isEqualTo(0L);
        assertThat(get("nbsrv(web)", "fe", t)).isEqualTo(0L);
        assertThat(get("be_conn_free(be)", "fe", t)).isEqualTo(7L);
    }

    @Test
    void frontendStates() {
        FakeTxn t = txn(BE, S1);
        assertThat(get("fe_conn", "fe", t)).isEqualTo(5L);
        assertThat(get("fe_conn(fe)", "be", t)).isEqualTo(5L);
        assertThat(get("fe_sess_rate", "fe", t)).isEqualTo(6L);
        assertThat(get("fe_req_rate(fe)", "fe", t)).isEqualTo(8L);
        assertThat(Samples.str(get("fe_defbe", "fe", t)).toString()).isEqualTo("be");
        assertThat(get("stopping", "fe", t)).isEqualTo(false);
        assertThatThrownBy(() -> get("fe_conn", "be", t)).hasMessageContaining("proxy 'be', referenced in arg 1 of sample fetch keyword 'fe_conn', has not frontend capability");
        assertThatThrownBy(() -> get("fe_conn(be)", "fe", t)).hasMessageContaining("unable to find frontend 'be' referenced in arg 1");
    }

    @Test
    void serverStates() {
        FakeTxn t = txn(BE, S1);
        assertThat(get("srv_is_up(be/s1)", "fe", t)).isEqualTo(1L);
        assertThat(get("srv_is_up(be/s2)", "fe", t)).isEqualTo(0L);
        assertThat(get("srv_is_up(s2)", "be", t)).isEqualTo(0L);
        assertThat(get("srv_conn(be/s1)", "fe", t)).isEqualTo(3L);
        assertThat(get("srv_queue(be/s1)", "fe", t)).isEqualTo(1L);
        assertThat(get("srv_sess_rate(be/s1)", "fe", t)).isEqualTo(7L);
        assertThat(get("srv_weight(be/s1)", "fe", t)).isEqualTo(2L);
        assertThat(get("srv_iweight(be/s1)", "fe", t)).isEqualTo(4L);
        assertThat(get("srv_uweight(be/s1)", "fe", t)).isEqualTo(3L);
        assertThat(get("srv_conn_free(be/s1)", "fe", t)).isEqualTo(7L);
        assertThat(get("srv_conn_free(be/s2)", "fe", t)).isEqualTo(-1L);
    }

    @Test
    void streamStates() {
        FakeTxn t = txn(BE, S1);
        assertThat(get("be_id", "fe", t)).isEqualTo(3L);
        assertThat(get("srv_id", "fe", t)).isEqualTo(1L);
        assertThat(Samples.str(get("srv_name", "fe", t)).toString()).isEqualTo("s1");
        assertThat(get("fe_id", "fe", t)).isEqualTo(2L);
        assertThat(get("fe_client_timeout", "fe", t)).isEqualTo(30000L);
        assertThat(get("be_server_timeout", "fe", t)).isEqualTo(5000L);
        assertThat(get("be_tunnel_timeout", "fe", t)).isEqualTo(0L);
        FakeTxn none = txn(null, null);
        assertThat(get("be_id", "fe", none)).isNull();
        assertThat(get("srv_name", "fe", none)).isNull();
        assertThat(get("be_server_timeout", "fe", none)).isNull();
        // without states (a check, a generated answer): no sample
        assertThat(get("nbsrv(be)", "fe", new FakeTxn("GET", "/"))).isNull();
    }

    @Test
    void namesAreResolvedWhenCompiling() {
        FakeTxn t = txn(BE, S1);
        assertThatThrownBy(() -> get("nbsrv(nope)", "fe", t)).hasMessageContaining("unable to find backend 'nope' referenced in arg 1 of sample fetch keyword 'nbsrv'");
        assertThatThrownBy(() -> get("be_conn", "fe", t)).hasMessageContaining("proxy 'fe', referenced in arg 1 of sample fetch keyword 'be_conn', has not backend capability");
        assertThatThrownBy(() -> get("srv_is_up(be/zz)", "fe", t)).hasMessageContaining("unable to find server 'zz' in proxy 'be', referenced in arg 1");
        assertThatThrownBy(() -> get("srv_conn(nob/zz)", "fe", t)).hasMessageContaining("unable to find proxy 'nob' referenced in arg 1");
        assertThatThrownBy(() -> get("nbsrv(fe)", "fe", t)).hasMessageContaining("unable to find backend 'fe' referenced in arg 1");
        assertThatThrownBy(() -> get("srv_conn", "fe", t)).isInstanceOf(IllegalArgumentException.class);
        // srv_id and srv_name need the server: response rules only, as HAProxy says
        assertThatThrownBy(() -> RuleCompiler.checkPhase("srv_name", RuleCompiler.Phase.REQUEST)).hasMessageContaining("because it needs 'server'");
        RuleCompiler.checkPhase("nbsrv(be)", RuleCompiler.Phase.RESPONSE);
    }
}
