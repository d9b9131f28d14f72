package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code on-marked-down shutdown-sessions} and {@code on-marked-up shutdown-backup-sessions}: which state changes end
 * which servers' streams, as HAProxy's srv_update_status calls srv_shutdown_streams and srv_shutdown_backup_streams.
 */
class ServerStreamsShutdownTest {
    private final List<String> shut = new ArrayList<>();

    private Backend backend(String lines) {
        Backend be = Backends.of(lines);
        be.streams((server, up) -> shut.add(server.name() + (up ? " U" : " D")));
        return be;
    }

    @Test
    void goingDownEndsItsStreamsOnlyWithTheOption() {
        Backend be = backend("server s1 on-marked-down shutdown-sessions\nserver s2");
        Server s1 = Backends.server(be, "s1");
        Server s2 = Backends.server(be, "s2");
        s1.setHealth(false, false);
        s2.setHealth(false, false);
        assertThat(shut).containsExactly("s1 D");
        // coming back up, or going down again while down, ends nothing
        s1.setHealth(true, false);
        s1.setHealth(false, false);
        s1.setHealth(false, false);
        assertThat(shut).containsExactly("s1 D", "s1 D");
    }

    @Test
    void maintenanceOfARunningServerEndsItsStreams() {
        Backend be = backend("server s1 on-marked-down shutdown-sessions\nserver s2");
        Server s1 = Backends.server(be, "s1");
        s1.adminState(Server.FORCED_MAINT);
        assertThat(shut).containsExactly("s1 D");
        s1.adminState(0);
        // a server already down entering maintenance has none to end
        s1.setHealth(false, false);
        s1.adminState(Server.FORCED_MAINT);
        assertThat(shut).containsExactly("s1 D", "s1 D");
    }

    @Test
    void anActiveServerComingUpEndsTheBackupServersStreams() {
        Backend be = backend("server s1 on-marked-up shutdown-backup-sessions\nserver s2 on-marked-up shutdown-backup-sessions weight 0\n"
                + "server b1 backup\nserver b2 backup on-marked-up shutdown-backup-sessions");
        Server s1 = Backends.server(be, "s1");
        s1.setHealth(false, false);
        assertThat(shut).isEmpty();
        s1.setHealth(true, false);
        assertThat(shut).containsExactly("b1 U", "b2 U");
        shut.clear();
        // no weight, or a backup server itself: nothing
        Server s2 = Backends.server(be, "s2");
        s2.setHealth(false, false);
        s2.setHealth(true, false);
        Server b2 = Backends.server(be, "b2");
        b2.setHealth(false, false);
        b2.setHealth(true, false);
        assertThat(shut).isEmpty();
        // leaving maintenance UP is coming up too
        s1.adminState(Server.FORCED_MAINT);
        s1.adminState(0);
        assertThat(shut).containsExactly("b1 U", "b2 U");
    }
}
