package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Backends.picks;
import static dev.sluice.proxy.backend.Backends.server;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Backup servers, option allbackups, disabled servers and state changes, for every algorithm. */
class BackupTest {

    private static Backend backend(String algo, String extra) {
        return Backends.of("balance " + algo + "\n" + extra + "\nserver a1\nserver a2\nserver b1 backup\nserver b2 backup\nserver b3 backup");
    }

    @ParameterizedTest
    @ValueSource(strings = {"roundrobin", "static-rr", "leastconn", "first", "random", "source", "uri", "hdr(x)", "url_param p",
            "hash path"})
    void backupsServeOnlyWhenNoActiveServerIsUsable(String algo) {
        Backend b = backend(algo, "");
        assertThat(picks(b, 8)).allMatch(n -> n.startsWith("a"));
        server(b, "a1").setUp(false);
        assertThat(picks(b, 4)).containsOnly("a2");
        server(b, "a2").setMaintenance(true);
        // the first backup only
        assertThat(picks(b, 6)).containsOnly("b1");
        server(b, "b1").setUp(false);
        assertThat(picks(b, 6)).containsOnly("b2");
        server(b, "a1").setUp(true);
        assertThat(picks(b, 4)).containsOnly("a1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"roundrobin", "static-rr", "leastconn", "random", "hdr(x)", "hash path,lower"})
    void allbackupsBalancesOverEveryBackup(String algo) {
        Backend b = backend(algo, "option allbackups");
        server(b, "a1").setUp(false);
        server(b, "a2").setUp(false);
        List<String> p = picks(b, 300);
        assertThat(p).allMatch(n -> n.startsWith("b"));
        if (!algo.startsWith("hash")) {
            assertThat(p).contains("b1", "b2", "b3");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"roundrobin", "static-rr", "leastconn", "first", "random", "uri"})
    void nothingUsableGivesNoServer(String algo) {
        Backend b = backend(algo, "");
        for (Server s : b.servers()) {
            s.setUp(false);
        }
        assertThat(b.pickServer()).isNull();
        assertThat(b.pickServer(Requests.get("/x"))).isNull();
        assertThat(b.hasUsableServer()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"roundrobin", "static-rr", "leastconn", "first", "random", "uri", "hash path"})
    void disabledAndZeroWeightServersAreNeverChosen(String algo) {
        Backend b = Backends.of("balance " + algo + "\nserver a disabled\nserver b weight 0\nserver c\nserver d backup");
        assertThat(picks(b, 20)).containsOnly("c");
        for (int i = 0; i < 20; i++) {
            assertThat(Requests.names(b, Requests.get("/p" + i))).isEqualTo("c");
        }
    }
}
