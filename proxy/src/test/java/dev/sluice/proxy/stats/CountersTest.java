package dev.sluice.proxy.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CountersTest {
    @Test
    void sessionsBeforeTheFirstSampleCountAsJustSeen() {
        Counters c = new Counters();
        assertThat(c.snapshot(0).lastSession()).isEqualTo(-1);
        c.add(Counter.SESSIONS);
        long before = System.currentTimeMillis();
        assertThat(c.snapshot(0).lastSession()).isBetween(before, System.currentTimeMillis());
    }

    @Test
    void aSampleKeepsTheTimeSessionsWereLastSeen() {
        Counters c = new Counters();
        c.add(Counter.SESSIONS);
        c.sample(1_000, 0);
        assertThat(c.snapshot(0).lastSession()).isEqualTo(1_000);
        c.sample(2_000, 0);
        assertThat(c.snapshot(0).lastSession()).isEqualTo(1_000);
        c.clear(true);
        assertThat(c.snapshot(0).lastSession()).isEqualTo(-1);
    }

    @Test
    void ratesAreWhatCountersGrewBySinceTheLastSample() {
        Counters c = new Counters();
        c.add(Counter.SESSIONS, 5);
        c.sample(1_000, 3);
        c.add(Counter.SESSIONS, 2);
        c.sample(2_000, 1);
        Counters.Snapshot s = c.snapshot(1);
        assertThat(s.get(Counter.SESSIONS)).isEqualTo(7);
        assertThat(s.rates()[Counter.SESSIONS.ordinal()]).isEqualTo(2);
        assertThat(s.rateMaxes()[Counter.SESSIONS.ordinal()]).isEqualTo(5);
        assertThat(s.currentMax()).isEqualTo(3);
    }
}
