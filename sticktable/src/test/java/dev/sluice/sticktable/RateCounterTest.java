package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The two-bucket counter, at and around period boundaries, with explicit dates. */
class RateCounterTest {
    private static final long P = 10_000;

    private final long[] d = new long[2];

    private void add(long now, long n) {
        RateCounter.add(d, 0, P, now, n);
    }

    private long read(long now) {
        return RateCounter.read(d, 0, P, now);
    }

    @Test
    void emptyCounterReadsZero() {
        assertThat(read(0)).isZero();
        assertThat(read(123_456)).isZero();
        assertThat(RateCounter.state(d, 0)).isEqualTo(RateState.EMPTY);
    }

    @Test
    void firstEventOpensAPeriodAtItsDate() {
        add(1000, 3);
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 1000, 3, 0));
        assertThat(read(1000)).isEqualTo(3);
        // Still the current period up to and including tick + period (remain = 0 is not negative).
        assertThat(read(10_999)).isEqualTo(3);
        assertThat(read(11_000)).isEqualTo(3);
        // One ms later the period is over: the 3 events become the previous period, weighted by what is left.
        assertThat(read(11_001)).isEqualTo(2); // 3 * 9999 / 10000
        assertThat(read(16_000)).isEqualTo(1); // 3 * 5000 / 10000
        assertThat(read(20_999)).isEqualTo(0); // 3 * 1 / 10000
        assertThat(read(21_000)).isEqualTo(0); // remain 0
        // Older than two periods: zero.
        assertThat(read(21_001)).isZero();
        assertThat(read(1_000_000)).isZero();
    }

    @Test
    void aClockAtZeroIsAValidDate() {
        add(0, 2);
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 0, 2, 0));
        assertThat(read(0)).isEqualTo(2);
    }

    @Test
    void antiFlapKeepsAVeryLowRateAtOneUntilItIsTwoPeriodsOld() {
        add(1000, 1);
        assertThat(read(11_001)).isEqualTo(1); // would be 0.9999 -> 0 without the rule
        assertThat(read(20_999)).isEqualTo(1);
        assertThat(read(21_001)).isZero();
        // The rule needs curr == 0: with events in the current period the formula applies.
        long[] e = new long[2];
        RateCounter.load(e, 0, true, 11_000, 1, 1);
        assertThat(RateCounter.read(e, 0, P, 20_000)).isEqualTo(1); // 1 + 1 * 1000 / 10000
        RateCounter.load(e, 0, true, 11_000, 0, 2);
        assertThat(RateCounter.read(e, 0, P, 20_000)).isEqualTo(0); // 2 * 1000 / 10000, prev > 1
    }

    @Test
    void theNextPeriodCarriesThePreviousCount() {
        add(1000, 4);
        add(12_000, 2); // now - tick = 11000: next period, which started at 11000
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 11_000, 2, 4));
        assertThat(read(12_000)).isEqualTo(5); // 2 + 4 * 9000 / 10000
        assertThat(read(20_999)).isEqualTo(2); // 2 + 4 * 1 / 10000
        assertThat(read(21_001)).isEqualTo(1); // previous = 2, 2 * 9999 / 10000
    }

    @Test
    void anEventExactlyAtTheBoundaryRotates() {
        add(1000, 4);
        add(10_999, 1);
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 1000, 5, 0));
        add(11_000, 1);
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 11_000, 1, 5));
    }

    @Test
    void twoIdlePeriodsResetThePreviousCount() {
        add(1000, 5);
        add(20_999, 1); // 19999 ms later: previous period kept
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 11_000, 1, 5));
        long[] e = new long[2];
        RateCounter.add(e, 0, P, 1000, 5);
        RateCounter.add(e, 0, P, 21_000, 1); // exactly two periods: a fresh period at the event's date
        assertThat(RateCounter.state(e, 0)).isEqualTo(new RateState(true, 21_000, 1, 0));
        assertThat(RateCounter.read(e, 0, P, 21_000)).isEqualTo(1);
    }

    @Test
    void setMakesTheValueTheCurrentPeriodCount() {
        add(1000, 9);
        RateCounter.set(d, 0, 5000, 7);
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 5000, 7, 0));
        assertThat(read(5000)).isEqualTo(7);
        assertThat(read(15_000)).isEqualTo(7);
        assertThat(read(15_001)).isEqualTo(6);
    }

    @Test
    void countsWrapAt32BitsWithoutTouchingThePreviousPeriod() {
        RateCounter.load(d, 0, true, 1000, 0xFFFF_FFFFL, 3);
        add(1000, 2);
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 1000, 1, 3));
    }

    @Test
    void loadAndStateRoundTrip() {
        RateState s = new RateState(true, 42_000, 17, 99);
        RateCounter.load(d, 0, s.started(), s.periodStartMs(), s.current(), s.previous());
        assertThat(RateCounter.state(d, 0)).isEqualTo(s);
    }

    @Test
    void concurrentAddsInOnePeriodAreAllCounted() throws Exception {
        int threads = 4;
        int each = 100_000;
        add(1000, 1);
        run(threads, () -> {
            for (int i = 0; i < each; i++) {
                add(5000, 1);
            }
        });
        assertThat(RateCounter.state(d, 0)).isEqualTo(new RateState(true, 1000, 1 + (long) threads * each, 0));
    }

    @Test
    void aRotationUnderContentionLosesNoEvent() throws Exception {
        for (int round = 0; round < 50; round++) {
            long[] e = new long[2];
            RateCounter.add(e, 0, P, 1000, 10);
            int threads = 4;
            int each = 1000;
            run(threads, () -> {
                for (int i = 0; i < each; i++) {
                    RateCounter.add(e, 0, P, 12_000, 1);
                }
            });
            // Exactly one thread rotated; every event of the new period is in curr, the old count in prev.
            assertThat(RateCounter.state(e, 0)).isEqualTo(new RateState(true, 11_000, (long) threads * each, 10));
        }
    }

    @Test
    void readersNeverSeeATornStateWhileWritersRotate() throws Exception {
        long[] e = new long[2];
        List<Throwable> errors = new ArrayList<>();
        Thread writer = new Thread(() -> {
            for (long t = 0; t < 2_000_000; t += 7) {
                RateCounter.add(e, 0, 100, t, 1);
            }
        });
        writer.start();
        while (writer.isAlive()) {
            RateState s = RateCounter.state(e, 0);
            // One event every 7 ms: a period of 100 ms holds at most 15, and curr + prev at most 30.
            if (s.current() > 15 || s.previous() > 15) {
                errors.add(new AssertionError("torn state " + s));
            }
        }
        writer.join();
        assertThat(errors).isEmpty();
    }

    private static void run(int threads, Runnable body) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException ex) {
                    throw new RuntimeException(ex);
                }
                body.run();
            });
            t.start();
            ts.add(t);
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
    }
}
