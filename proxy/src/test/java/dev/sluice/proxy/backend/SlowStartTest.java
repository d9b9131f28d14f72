package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Backends.server;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code slowstart}: a server coming back UP (or out of maintenance) starts at 1/16 of its effective weight and
 * a maxconn of 1, growing with the seconds; never at start-up.
 */
class SlowStartTest {

    @Test
    void noSlowStartAtStartUp() {
        Backend b = Backends.of("server s1 weight 2 maxconn 10 slowstart 10s\nserver s2");
        Server s1 = server(b, "s1");
        assertThat(s1.warming()).isFalse();
        assertThat(s1.eweight()).isEqualTo(32);
        assertThat(s1.effectiveMaxconn()).isEqualTo(10);
        assertThat(s1.throttle()).isEqualTo(-1);
    }

    @Test
    void aServerComingBackStartsSlowly() {
        Backend b = Backends.of("server s1 maxconn 10 slowstart 10s\nserver s2");
        Server s1 = server(b, "s1");
        s1.setUp(false);
        s1.setUp(true);
        assertThat(s1.warming()).isTrue();
        // HAProxy's (16 * elapsed + slowstart) / slowstart at 0 s: one sixteenth of the effective weight
        assertThat(s1.eweight()).isEqualTo(1);
        assertThat(s1.effectiveMaxconn()).isEqualTo(1);
        // HAProxy's throttle: 1/16 of the weight, 6.25 % rounded up
        assertThat(s1.throttle()).isEqualTo(7);
        // the round robin follows: s1 gets 1 request in 17
        List<String> p = Backends.picks(b, 170);
        assertThat(Collections.frequency(p, "s1")).isEqualTo(10);
        // one slot only: a second request finds it full
        assertThat(s1.tryTake()).isTrue();
        assertThat(s1.tryTake()).isFalse();
        s1.streamEnded();
        s1.endWarmup();
        assertThat(s1.eweight()).isEqualTo(16);
        assertThat(s1.effectiveMaxconn()).isEqualTo(10);
    }

    @Test
    void leavingMaintenanceStartsSlowlyToo() {
        Backend b = Backends.of("balance leastconn\nserver s1 slowstart 5s\nserver s2");
        Server s1 = server(b, "s1");
        s1.adminState(Server.FORCED_MAINT);
        assertThat(s1.warming()).isFalse();
        s1.adminState(0);
        assertThat(s1.warming()).isTrue();
        assertThat(s1.eweight()).isEqualTo(1);
    }
}
