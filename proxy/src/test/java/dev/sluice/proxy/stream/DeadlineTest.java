package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The re-armable timeout on a real event loop. Lower time bounds are exact (a deadline never fires
 * early); upper bounds are generous so that a loaded machine does not fail them.
 */
class DeadlineTest {
    private static final long SLACK_MS = 2000;

    private EventLoop loop;
    private final AtomicInteger fired = new AtomicInteger();
    private final CopyOnWriteArrayList<Long> firedAt = new CopyOnWriteArrayList<>();
    private Deadline deadline;

    @BeforeEach
    void setUp() throws Exception {
        loop = new DefaultEventLoop();
        deadline = onLoop(() -> new Deadline(loop, () -> {
            assertThat(loop.inEventLoop()).isTrue();
            firedAt.add(System.nanoTime());
            fired.incrementAndGet();
        }));
    }

    @AfterEach
    void tearDown() throws Exception {
        loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
    }

    private <T> T onLoop(Callable<T> c) throws Exception {
        return loop.submit(c).get(5, TimeUnit.SECONDS);
    }

    private void run(Runnable r) throws Exception {
        loop.submit(r).get(5, TimeUnit.SECONDS);
    }

    /** Time on the loop thread when {@code r} ran. */
    private long runAt(Runnable r) throws Exception {
        return onLoop(() -> {
            long t = System.nanoTime();
            r.run();
            return t;
        });
    }

    private void awaitFired(int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SLACK_MS + 5000);
        while (fired.get() < n && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertThat(fired.get()).isGreaterThanOrEqualTo(n);
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Test
    void firesOnceAfterTheDeadline() throws Exception {
        long armed = runAt(() -> deadline.arm(50));
        assertThat(onLoop(deadline::armed)).isTrue();
        awaitFired(1);
        assertThat(ms(firedAt.getFirst() - armed)).isGreaterThanOrEqualTo(50).isLessThan(50 + SLACK_MS);
        assertThat(onLoop(deadline::armed)).isFalse();
        Thread.sleep(150);
        assertThat(fired.get()).isEqualTo(1);
    }

    @Test
    void disarmPreventsFiring() throws Exception {
        run(() -> deadline.arm(30));
        run(deadline::disarm);
        assertThat(onLoop(deadline::armed)).isFalse();
        Thread.sleep(200);
        assertThat(fired.get()).isZero();
    }

    @Test
    void zeroOrNegativeDisarms() throws Exception {
        // armed and disarmed in one loop task: a loaded machine cannot let the 30 ms pass in between
        run(() -> {
            deadline.arm(30);
            deadline.arm(0);
        });
        assertThat(onLoop(deadline::armed)).isFalse();
        run(() -> {
            deadline.arm(30);
            deadline.arm(-5);
        });
        Thread.sleep(200);
        assertThat(fired.get()).isZero();
        // never armed: nothing either
        run(() -> deadline.arm(0));
        Thread.sleep(50);
        assertThat(fired.get()).isZero();
    }

    @Test
    void reArmingLaterPostponesToTheLatestDeadline() throws Exception {
        // the re-arms run in one loop task, 60 ms apart: the scheduled task (due 400 ms after the first arm) cannot
        // run in between, however slow the machine, so when it runs it finds a later deadline and reschedules
        long[] firedBetween = {-1};
        long last = onLoop(() -> {
            deadline.arm(400);
            long at = 0;
            for (int i = 0; i < 4; i++) {
                Thread.sleep(60);
                at = System.nanoTime();
                deadline.arm(400);
            }
            firedBetween[0] = fired.get();
            return at;
        });
        // each re-arm came before the task ran: nothing fired yet
        assertThat(firedBetween[0]).isZero();
        awaitFired(1);
        assertThat(ms(firedAt.getFirst() - last)).isGreaterThanOrEqualTo(400);
        Thread.sleep(250);
        assertThat(fired.get()).isEqualTo(1);
    }

    @Test
    void reArmingEarlierFiresAtTheEarlierDeadline() throws Exception {
        run(() -> deadline.arm(60_000));
        long armed = runAt(() -> deadline.arm(40));
        awaitFired(1);
        assertThat(ms(firedAt.getFirst() - armed)).isGreaterThanOrEqualTo(40).isLessThan(40 + SLACK_MS);
        Thread.sleep(100);
        assertThat(fired.get()).isEqualTo(1);
        assertThat(onLoop(deadline::armed)).isFalse();
    }

    @Test
    void reArmAfterDisarmWhileTheOldTaskIsPending() throws Exception {
        run(() -> deadline.arm(50));
        run(deadline::disarm);
        long armed = runAt(() -> deadline.arm(150));
        awaitFired(1);
        assertThat(ms(firedAt.getFirst() - armed)).isGreaterThanOrEqualTo(150);
        Thread.sleep(250);
        assertThat(fired.get()).isEqualTo(1);
    }

    @Test
    void canBeArmedAgainAfterFiring() throws Exception {
        run(() -> deadline.arm(20));
        awaitFired(1);
        long armed = runAt(() -> deadline.arm(30));
        awaitFired(2);
        assertThat(ms(firedAt.get(1) - armed)).isGreaterThanOrEqualTo(30);
        Thread.sleep(100);
        assertThat(fired.get()).isEqualTo(2);
    }

    @Test
    void canBeArmedFromItsOwnExpiry() throws Exception {
        AtomicInteger count = new AtomicInteger();
        Deadline[] self = new Deadline[1];
        self[0] = onLoop(() -> new Deadline(loop, () -> {
            if (count.incrementAndGet() < 3) {
                self[0].arm(10);
            }
        }));
        run(() -> self[0].arm(10));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (count.get() < 3 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        Thread.sleep(100);
        assertThat(count.get()).isEqualTo(3);
        assertThat(onLoop(() -> self[0].armed())).isFalse();
    }

    @Test
    void cancelPreventsFiringAndAllowsReuse() throws Exception {
        run(() -> deadline.arm(30));
        run(deadline::cancel);
        assertThat(onLoop(deadline::armed)).isFalse();
        Thread.sleep(150);
        assertThat(fired.get()).isZero();
        run(() -> deadline.arm(20));
        awaitFired(1);
        Thread.sleep(100);
        assertThat(fired.get()).isEqualTo(1);
        // cancelling an idle deadline is harmless
        run(deadline::cancel);
        run(deadline::cancel);
    }

    @Test
    void manyReArmsScheduleLittle() throws Exception {
        // arming only moves the deadline: thousands of re-arms still give one expiry
        long armed = runAt(() -> {
            for (int i = 0; i < 10_000; i++) {
                deadline.arm(50);
            }
        });
        awaitFired(1);
        assertThat(ms(firedAt.getFirst() - armed)).isGreaterThanOrEqualTo(50);
        Thread.sleep(150);
        assertThat(fired.get()).isEqualTo(1);
    }
}
