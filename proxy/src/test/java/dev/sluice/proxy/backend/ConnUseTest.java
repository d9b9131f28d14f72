package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** HAProxy's estimate of the connections a server needs: what may stay idle, and what each purge closes. */
class ConnUseTest {

    @Test
    void theLastIdleConnectionGoesAtTheThirdPurgeAfterItsUse() {
        ConnUse u = new ConnUse();
        u.use();
        assertThat(u.keepIdle(0, 0)).as("the first idle one is always kept").isTrue();
        u.unuse();
        // the estimate decays: 1, then (1 + 0) / 2 = 0, then the idle connection exceeds it
        assertThat(u.purge(1)).isZero();
        assertThat(u.purge(1)).isZero();
        assertThat(u.purge(1)).isEqualTo(1);
    }

    @Test
    void aConnectionBeyondTheEstimateIsNotKeptIdle() {
        ConnUse u = new ConnUse();
        u.use();
        u.unuse();
        // one idle already; a second one was used alone (the estimate stays 1): 1 used + 1 idle > 1
        u.use();
        assertThat(u.keepIdle(1, 0)).isFalse();
        u.unuse();
        // after a burst of 4 at once, 4 may wait idle
        ConnUse b = new ConnUse();
        for (int i = 0; i < 4; i++) {
            b.use();
        }
        for (int idle = 0; idle < 4; idle++) {
            assertThat(b.keepIdle(idle, 0)).as("idle %d", idle).isTrue();
            b.unuse();
        }
    }

    /** pool-low-conn: that many more may wait idle beyond the estimate. */
    @Test
    void poolLowConnKeepsMoreBeyondTheEstimate() {
        ConnUse u = new ConnUse();
        u.use();
        // 1 used, estimate 1: a second idle one exceeds it, unless the margin allows 2 more
        assertThat(u.keepIdle(1, 0)).isFalse();
        assertThat(u.keepIdle(1, 2)).isTrue();
        assertThat(u.keepIdle(2, 2)).isTrue();
        assertThat(u.keepIdle(3, 2)).isFalse();
    }

    @Test
    void aBurstShrinksBackByHalvesOfTheExcess() {
        ConnUse u = new ConnUse();
        for (int i = 0; i < 8; i++) {
            u.use();
        }
        for (int i = 0; i < 8; i++) {
            u.unuse();
        }
        int idle = 8;
        // the period's peak (8) holds the estimate for one purge, then it halves (4, 2, 1, 0) as nothing is used;
        // each purge closes half the excess over it, rounded up
        int[] expected = {0, 0, 2, 2, 2, 1};
        for (int k : expected) {
            int kill = u.purge(idle);
            assertThat(kill).isEqualTo(k);
            idle -= kill;
        }
        assertThat(idle).isEqualTo(1);
        assertThat(u.purge(idle)).isEqualTo(1);
        // without idle connections nothing moves, as in HAProxy
        assertThat(u.purge(0)).isZero();
    }
}
