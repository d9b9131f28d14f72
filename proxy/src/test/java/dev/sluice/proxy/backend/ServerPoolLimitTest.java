package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code pool-max-conn} over several event loops: the server's idle connections on every loop together stay under the
 * limit (the other loops' as each last counted them); {@code pool-purge-delay} of the server, else its backend's.
 */
class ServerPoolLimitTest {

    @Test
    void theOtherLoopsIdleConnectionsCountAsTheyLastSawThem() {
        ServerPools p = new ServerPools(3);
        p.idleSeen(0, 2);
        p.idleSeen(2, 1);
        assertThat(p.idleElsewhere(1)).isEqualTo(3);
        assertThat(p.idleElsewhere(0)).isEqualTo(1);
        p.idleSeen(0, 0);
        assertThat(p.idleElsewhere(1)).isEqualTo(1);
    }

    @Test
    void aLoopKeepsNoIdleConnectionOnceTheOthersHoldTheLimit() {
        Backend be = Backends.of("server s1 pool-max-conn 2\nserver s2 pool-max-conn -1", 2);
        Server s1 = Backends.server(be, "s1");
        Server s2 = Backends.server(be, "s2");
        // loop 0's first idle connection is kept: none anywhere yet
        ServerConnector.used(s1, 0);
        assertThat(ServerConnector.keepIdle(s1, 0)).isTrue();
        // loop 1 has two idle ones (as it last counted): the limit is reached for loop 0
        s1.pools().idleSeen(1, 2);
        assertThat(ServerConnector.keepIdle(s1, 0)).isFalse();
        s1.pools().idleSeen(1, 1);
        assertThat(ServerConnector.keepIdle(s1, 0)).isTrue();
        // without a limit, the others' count plays no part
        ServerConnector.used(s2, 0);
        s2.pools().idleSeen(1, 100);
        assertThat(ServerConnector.keepIdle(s2, 0)).isTrue();
    }

    @Test
    void theServersPurgeDelayElseTheBackends() {
        Backend be = Backends.of("pool-purge-delay 7s\nserver s1 pool-purge-delay 2s\nserver s2\nserver s3 pool-purge-delay 0");
        assertThat(Backends.server(be, "s1").purgeDelayMs()).isEqualTo(2000);
        assertThat(Backends.server(be, "s2").purgeDelayMs()).isEqualTo(7000);
        assertThat(Backends.server(be, "s3").purgeDelayMs()).isZero();
        assertThat(ServerConnector.purgePeriods(be)).containsExactly(2000L, 7000L);
    }
}
