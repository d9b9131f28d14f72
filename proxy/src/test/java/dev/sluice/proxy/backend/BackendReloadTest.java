package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.stats.Counter;
import org.junit.jupiter.api.Test;

/** An in-process reload's backend carries on the counters and timings of the one it replaces, server by server name. */
class BackendReloadTest {

    @Test
    void countersAndTimingsGoOnUnderTheSameNames() {
        Backend before = Backends.of("server s1\nserver s2\n");
        Backends.server(before, "s1").counters().add(Counter.BYTES_IN, 7);
        Backends.server(before, "s2").counters().add(Counter.BYTES_IN, 5);
        before.counters().add(Counter.BYTES_IN, 12);

        Backend after = Backends.after(before, "server s3\nserver s1\n");

        Server s1 = Backends.server(after, "s1");
        assertThat(s1.counters()).isSameAs(Backends.server(before, "s1").counters());
        assertThat(s1.timeStats()).isSameAs(Backends.server(before, "s1").timeStats());
        assertThat(s1.counters().get(Counter.BYTES_IN)).isEqualTo(7);
        // a new name starts from zero; a removed one's counters go with it
        Server s3 = Backends.server(after, "s3");
        assertThat(s3.counters().get(Counter.BYTES_IN)).isZero();
        assertThat(s3.counters()).isNotSameAs(Backends.server(before, "s2").counters());
        assertThat(after.counters()).isSameAs(before.counters());
        assertThat(after.timeStats()).isSameAs(before.timeStats());
        // a backend built without a predecessor has its own
        assertThat(Backends.of("server s1\n").counters().get(Counter.BYTES_IN)).isZero();
    }
}
