package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server given the state a previous process saved ({@link Server#restore}), with HAProxy 2.6's rules: the forced
 * maintenance unless the configuration changed {@code disabled}, the drain unless the configured weight went from 0 to
 * more, the weight unless the configured one changed, the port always, the operational state.
 */
class ServerRestoreTest {

    /** A saved line's fields from srv_addr on. */
    private static SavedServerState saved(String fields) {
        List<String> w = new ArrayList<>();
        SavedServerState st = SavedServerState.of("be", "s", List.of(fields.split(" ")), w);
        assertThat(w).isEmpty();
        return st;
    }

    private static String state(Backend b) {
        StringBuilder out = new StringBuilder();
        for (Server s : b.servers()) {
            out.append(s.name()).append(' ').append(ServerCommands.opState(s)).append('/').append(s.adminState())
                    .append(s.configuredMaintenance() ? "+cfg" : "").append(" w").append(s.weight()).append(" p")
                    .append(s.address().getPort()).append(s.usable() ? " usable" : "").append('\n');
        }
        return out.toString();
    }

    @Test
    void maintenanceDrainWeightPort() {
        Backend b = Backends.of("""
                server s1
                server s2 weight 10
                server s3 disabled
                server s4 weight 0
                server s5 weight 20
                server s6 disabled
                """);
        // s1 forced maint; s2 weight 50 of 10 and another port; s3 set ready while disabled; s4 drained;
        // s5 weight 7 but of a configured 30 (the configuration changed: its weight stays); s6 maint from the configuration
        Backends.server(b, "s1").restore(saved("127.0.0.1 0 1 1 1 0 1 0 0 0 0 0 0 - 8001 - 0 0 - - 0"));
        Backends.server(b, "s2").restore(saved("127.0.0.1 2 0 50 10 0 1 0 2 0 0 0 0 - 9999 - 0 0 - - 0"));
        Backends.server(b, "s3").restore(saved("127.0.0.1 2 4 1 1 0 1 0 0 8 0 0 0 - 8003 - 0 0 - - 0"));
        Backends.server(b, "s4").restore(saved("127.0.0.1 2 8 0 0 0 1 0 2 0 0 0 0 - 8004 - 0 0 - - 0"));
        Backends.server(b, "s5").restore(saved("127.0.0.1 2 0 7 30 0 1 0 2 0 0 0 0 - 8005 - 0 0 - - 0"));
        Backends.server(b, "s6").restore(saved("127.0.0.1 2 0 1 1 0 1 0 2 0 0 0 0 - 8006 - 0 0 - - 0"));
        assertThat(state(b)).isEqualTo("""
                s1 0/1 w1 p8001
                s2 2/0 w50 p9999 usable
                s3 2/0 w1 p8003 usable
                s4 2/8 w0 p8004
                s5 2/0 w20 p8005 usable
                s6 0/0+cfg w1 p8006
                """);
        // the balancing follows at once: the usable ones only
        assertThat(Backends.picks(b, 71)).containsOnly("s2", "s3", "s5");
    }

    @Test
    void operationalStates() {
        Backend b = Backends.of("""
                server s1
                server s2
                server s3
                """);
        Backends.server(b, "s1").restore(saved("127.0.0.1 0 0 1 1 0 1 0 0 0 0 0 0 - 8001 - 0 0 - - 0"));
        Backends.server(b, "s2").restore(saved("127.0.0.1 3 0 1 1 0 1 0 4 0 0 0 0 - 8002 - 0 0 - - 0"));
        Backends.server(b, "s3").restore(saved("127.0.0.1 2 0 1 1 0 1 0 0 0 0 0 0 - 8003 - 0 0 - - 0"));
        // STOPPED: down; STOPPING: up, no new request (NOLB), health at rise; RUNNING: fully up
        assertThat(state(b)).isEqualTo("""
                s1 0/0 w1 p8001
                s2 3/0 w1 p8002
                s3 2/0 w1 p8003 usable
                """);
        assertThat(Backends.server(b, "s2").checkHealth()).isEqualTo(2);
        assertThat(Backends.server(b, "s3").checkHealth()).isEqualTo(4);
        // a forced drain of a server whose configured weight went from 0 to more is dropped
        Backend c = Backends.of("server s1 weight 5");
        Backends.server(c, "s1").restore(saved("127.0.0.1 2 8 0 0 0 1 0 2 0 0 0 0 - 8001 - 0 0 - - 0"));
        assertThat(state(c)).isEqualTo("s1 2/0 w5 p8001 usable\n");
    }

    @Test
    void lastChangeIsCarriedOver() {
        Backend b = Backends.of("server s1");
        long before = System.currentTimeMillis();
        Backends.server(b, "s1").restore(saved("127.0.0.1 2 0 1 1 3600 1 0 4 0 0 0 0 - 8001 - 0 0 - - 0"));
        assertThat(before - Backends.server(b, "s1").lastChange()).isBetween(3_599_000L, 3_700_000L);
    }

    @Test
    void strtolAsC() {
        assertThat(SavedServerState.strtol("12abc")).isEqualTo(12);
        assertThat(SavedServerState.strtol(" -3")).isEqualTo(-3);
        assertThat(SavedServerState.strtol("+7")).isEqualTo(7);
        assertThat(SavedServerState.strtol("abc")).isEqualTo(SavedServerState.BAD);
        assertThat(SavedServerState.strtol("")).isEqualTo(SavedServerState.BAD);
        assertThat(SavedServerState.strtol("99999999999999999999")).isEqualTo(SavedServerState.BAD);
    }

    /** What a reload carries is what the state line says, read back as a state file: the same values, the same refusals. */
    @Test
    void liveStateIsTheStateLineReadBack() {
        Backend b = Backends.of("""
                server s1
                server s2 weight 10
                server s3 disabled
                server s4 weight 0
                server s5 weight 20
                server s6
                """);
        Backends.server(b, "s1").restore(saved("127.0.0.1 0 1 1 1 0 1 0 0 0 0 0 0 - 8001 - 0 0 - - 0"));
        Backends.server(b, "s2").restore(saved("127.0.0.1 2 0 50 10 0 1 0 2 0 0 0 0 - 9999 - 0 0 - - 0"));
        Backends.server(b, "s4").restore(saved("127.0.0.1 2 8 0 0 0 1 0 2 0 0 0 0 - 8004 - 0 0 - - 0"));
        // maintenance and drain at once: a state file may not hold it, so neither way carries it
        Backends.server(b, "s6").adminState(Server.FORCED_MAINT | Server.FORCED_DRAIN);
        long now = System.currentTimeMillis();
        for (Server s : b.servers()) {
            List<String> f = ServerCommands.stateFields(b, s, now);
            SavedServerState read = SavedServerState.of("be", s.name(), f.subList(4, f.size()), new ArrayList<>());
            assertThat(ServerCommands.liveState(s, now)).as(s.name()).isEqualTo(read);
        }
        assertThat(ServerCommands.liveState(Backends.server(b, "s6"), now)).isNull();
        assertThat(ServerCommands.liveState(Backends.server(b, "s1"), now).adminState()).isEqualTo(Server.FORCED_MAINT);
    }
}
