package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Backends.picks;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** HAProxy's server map: the table of {@code balance static-rr} and of map-based hashing. */
class ServerMapTest {

    private static List<String> map(String body) {
        Backend b = Backends.of(body);
        ServerMap m = b.lb() instanceof ServerMap sm ? sm : (ServerMap) ((HashBalance) b.lb()).table();
        return Arrays.stream(m.map()).map(Server::name).toList();
    }

    @Test
    void equalWeightsGiveDeclarationOrder() {
        assertThat(map("balance static-rr\n" + Backends.servers("", 1, 1, 1, 1))).containsExactly("s1", "s2", "s3", "s4");
        assertThat(map("balance uri\n" + Backends.servers("", 7, 7, 7))).containsExactly("s1", "s2", "s3");
    }

    @Test
    void weightedMapsFollowHaproxysRecalc() {
        // (score + total) / total picks the heavy server until the light one overtakes: not the smooth interleave
        assertThat(map("balance static-rr\n" + Backends.servers("", 3, 1))).containsExactly("s1", "s1", "s1", "s2");
        assertThat(map("balance static-rr\n" + Backends.servers("", 5, 1, 1))).containsExactly("s1", "s1", "s1", "s2", "s1", "s1", "s3");
        // weights are divided by their gcd
        assertThat(map("balance static-rr\n" + Backends.servers("", 6, 2))).containsExactly("s1", "s1", "s1", "s2");
        assertThat(map("balance static-rr\n" + Backends.servers("", 1, 0, 2))).containsExactly("s1", "s3", "s3");
    }

    @Test
    void staticRoundRobinWalksTheMapAsHaproxyDoes() {
        // recorded from HAProxy 2.6
        assertThat(String.join(" ", picks(Backends.of("balance static-rr\n" + Backends.servers("", 3, 1, 2, 1)), 14)))
                .isEqualTo("s1 s2 s1 s3 s1 s3 s4 s1 s2 s1 s3 s1 s3 s4");
        assertThat(String.join(" ", picks(Backends.of("balance static-rr\n" + Backends.servers("", 5, 1, 1)), 14)))
                .isEqualTo("s1 s1 s1 s2 s1 s1 s3 s1 s1 s1 s2 s1 s1 s3");
    }

    @Test
    void withoutAllbackupsTheTotalIsTheFirstBackupsWeightButEveryBackupIsScored() {
        // HAProxy 2.6 sends everything to the second backup here (recorded with static-rr)
        String body = "balance static-rr\nserver s1 disabled\nserver s2 backup weight 2\nserver s3 backup weight 5";
        assertThat(map(body)).containsExactly("s3", "s3");
        assertThat(picks(Backends.of(body), 4)).containsOnly("s3");
        // the usual case: the first backup alone
        assertThat(map("balance static-rr\nserver s1 disabled\nserver s2 backup\nserver s3 backup")).containsExactly("s2");
        assertThat(map("balance static-rr\noption allbackups\nserver s1 disabled\nserver s2 backup weight 2\nserver s3 backup"))
                .containsExactly("s2", "s2", "s3");
    }

    @Test
    void downAndDisabledServersLeaveTheMap() {
        Backend b = Backends.of("balance static-rr\nserver s1\nserver s2 disabled\nserver s3 weight 0\nserver s4");
        assertThat(picks(b, 4)).containsExactly("s1", "s4", "s1", "s4");
        Backends.server(b, "s4").setUp(false);
        assertThat(picks(b, 3)).containsExactly("s1", "s1", "s1");
        Backends.server(b, "s1").setUp(false);
        assertThat(b.pickServer()).isNull();
        Backends.server(b, "s2").setMaintenance(false);
        assertThat(picks(b, 2)).containsExactly("s2", "s2");
    }

    @Test
    void activeServersComeBackBeforeBackups() {
        Backend b = Backends.of("balance static-rr\nserver a\nserver b backup");
        assertThat(picks(b, 2)).containsExactly("a", "a");
        Backends.server(b, "a").setUp(false);
        assertThat(picks(b, 2)).containsExactly("b", "b");
        Backends.server(b, "a").setUp(true);
        assertThat(picks(b, 2)).containsExactly("a", "a");
    }

    @Test
    void initStateDownStartsOutOfTheMap() {
        assertThat(map("balance static-rr\nserver s1 init-state down\nserver s2\nserver s3 init-state fully-up")).containsExactly("s2", "s3");
    }
}
