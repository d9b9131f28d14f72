package dev.sluice.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The lock-free wait queue on its own: order, claim-once, cancellation, and many threads at once. */
class WaitQueueTest {
    private static final EventLoop LOOP = new DefaultEventLoop();

    @AfterAll
    static void stop() {
        LOOP.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private static final QueuedRequest.Waiter NOBODY = new QueuedRequest.Waiter() {
        @Override
        public void granted(Server server) {
        }

        @Override
        public void requeued() {
        }
    };

    private static QueuedRequest request() {
        return new QueuedRequest(NOBODY, LOOP);
    }

    @Test
    void firstInFirstOutWithPositions() {
        WaitQueue q = new WaitQueue();
        List<QueuedRequest> in = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            QueuedRequest r = request();
            in.add(r);
            q.add(r);
        }
        assertThat(q.length()).isEqualTo(5);
        assertThat(q.max()).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            QueuedRequest r = q.claim();
            assertThat(r).isSameAs(in.get(i));
            // each was behind i requests served before it, plus itself
            assertThat(r.position()).isEqualTo(i + 1);
        }
        assertThat(q.claim()).isNull();
        assertThat(q.length()).isZero();
        assertThat(q.max()).isEqualTo(5);
        q.resetMax();
        assertThat(q.max()).isZero();
    }

    @Test
    void aCancelledRequestIsSkippedAndOnlyLeavesOnce() {
        WaitQueue q = new WaitQueue();
        QueuedRequest a = request();
        QueuedRequest b = request();
        QueuedRequest c = request();
        q.add(a);
        q.add(b);
        q.add(c);
        assertThat(b.cancel()).isTrue();
        assertThat(b.cancel()).isFalse();
        assertThat(q.length()).isEqualTo(2);
        assertThat(q.claim()).isSameAs(a);
        // a claimed request cannot be cancelled any more: its slot is on the way
        assertThat(a.cancel()).isFalse();
        assertThat(q.claim()).isSameAs(c);
        assertThat(q.claim()).isNull();
        assertThat(q.length()).isZero();
    }

    @Test
    void cancelledHeadsAreUnlinkedByTheirCanceller() {
        WaitQueue q = new WaitQueue();
        QueuedRequest a = request();
        QueuedRequest b = request();
        q.add(a);
        q.add(b);
        a.cancel();
        // the head is now b: it shows without any claim
        assertThat(q.head()).isSameAs(b);
        b.cancel();
        assertThat(q.head()).isNull();
        assertThat(q.isEmpty()).isTrue();
        // a timed-out request counts as having been behind the requests served while it waited
        QueuedRequest c = request();
        QueuedRequest d = request();
        q.add(c);
        q.add(d);
        assertThat(q.claim()).isSameAs(c);
        d.cancel();
        assertThat(d.position()).isEqualTo(2);
    }

    /**
     * Producers add, consumers claim and the producers cancel some of their own requests at random, all at once:
     * every request leaves exactly once (claimed or cancelled), none is lost, the length ends at 0.
     */
    /**
     * HAProxy's order: a lower class first whatever the arrival; within a class, arrival time plus offset (ms), then
     * arrival; requests without a priority keep arrival order among themselves.
     */
    @Test
    void priorityClassThenOffsetThenArrival() throws Exception {
        WaitQueue q = new WaitQueue();
        QueuedRequest plain1 = request();
        QueuedRequest late = new QueuedRequest(NOBODY, LOOP, 0, 5_000);
        QueuedRequest low = new QueuedRequest(NOBODY, LOOP, 1, -100_000);
        QueuedRequest plain2 = request();
        QueuedRequest urgent = new QueuedRequest(NOBODY, LOOP, -1, 0);
        QueuedRequest early = new QueuedRequest(NOBODY, LOOP, 0, -1_000);
        for (QueuedRequest r : List.of(plain1, late, low, plain2, urgent, early)) {
            q.add(r);
            Thread.sleep(2);
        }
        assertThat(q.length()).isEqualTo(6);
        assertThat(q.head()).isSameAs(urgent);
        List<QueuedRequest> out = new ArrayList<>();
        for (QueuedRequest r = q.claim(); r != null; r = q.claim()) {
            out.add(r);
        }
        assertThat(out).containsExactly(urgent, early, plain1, plain2, late, low);
        // the log's positions count the requests served from the queue, whatever their order
        assertThat(low.position()).isEqualTo(6);
        assertThat(q.length()).isZero();
    }

    @Test
    void aCancelledPrioritisedRequestLeavesItsSet() {
        WaitQueue q = new WaitQueue();
        QueuedRequest a = new QueuedRequest(NOBODY, LOOP, -5, 0);
        QueuedRequest b = request();
        q.add(a);
        q.add(b);
        assertThat(q.head()).isSameAs(a);
        assertThat(a.cancel()).isTrue();
        assertThat(q.length()).isEqualTo(1);
        assertThat(q.head()).isSameAs(b);
        assertThat(q.claim()).isSameAs(b);
        assertThat(q.claim()).isNull();
    }

    @Test
    void manyThreadsClaimEachRequestExactlyOnce() throws Exception {
        manyThreads(false);
    }

    /** The same with a third of the requests given a priority: the sorted set and the list together lose none. */
    @Test
    void manyThreadsClaimEachPrioritisedRequestExactlyOnce() throws Exception {
        manyThreads(true);
    }

    private void manyThreads(boolean priorities) throws Exception {
        WaitQueue q = new WaitQueue();
        int producers = 4;
        int consumers = 4;
        int perProducer = 50_000;
        int total = producers * perProducer;
        AtomicIntegerArray outcome = new AtomicIntegerArray(total);
        QueuedRequest[] all = new QueuedRequest[total];
        for (int i = 0; i < total; i++) {
            all[i] = priorities && i % 3 == 0 ? new QueuedRequest(NOBODY, LOOP, i % 7 - 3, i % 11 * 10 - 50) : request();
        }
        java.util.Map<QueuedRequest, Integer> index = new java.util.IdentityHashMap<>();
        for (int i = 0; i < total; i++) {
            index.put(all[i], i);
        }
        AtomicInteger claimed = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        AtomicInteger producing = new AtomicInteger(producers);
        CountDownLatch go = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int from = p * perProducer;
            threads.add(new Thread(() -> {
                try {
                    go.await();
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int i = from; i < from + perProducer; i++) {
                        q.add(all[i]);
                        if (rnd.nextInt(4) == 0) {
                            // cancel one of ours, perhaps already claimed
                            int j = from + rnd.nextInt(i - from + 1);
                            if (all[j].cancel()) {
                                cancelled.incrementAndGet();
                                if (outcome.getAndIncrement(j) != 0) {
                                    errors.add(new AssertionError("request " + j + " left twice (cancel)"));
                                }
                            }
                        }
                    }
                } catch (Throwable t) {
                    errors.add(t);
                } finally {
                    producing.decrementAndGet();
                }
            }));
        }
        for (int c = 0; c < consumers; c++) {
            threads.add(new Thread(() -> {
                try {
                    go.await();
                    while (true) {
                        // read before the claim: when no producer was left, an empty claim means nothing more comes
                        boolean done = producing.get() == 0;
                        QueuedRequest r = q.claim();
                        if (r == null) {
                            if (done) {
                                return;
                            }
                            Thread.onSpinWait();
                            continue;
                        }
                        claimed.incrementAndGet();
                        int i = index.get(r);
                        if (outcome.getAndIncrement(i) != 0) {
                            errors.add(new AssertionError("request " + i + " left twice (claim)"));
                        }
                    }
                } catch (Throwable t) {
                    errors.add(t);
                }
            }));
        }
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread t : threads) {
            t.join(60_000);
            assertThat(t.isAlive()).as("thread finished").isFalse();
        }
        assertThat(errors).isEmpty();
        assertThat(claimed.get() + cancelled.get()).isEqualTo(total);
        for (int i = 0; i < total; i++) {
            assertThat(outcome.get(i)).as("request %d left once", i).isEqualTo(1);
        }
        assertThat(q.length()).isZero();
        assertThat(q.head()).isNull();
    }

    /** With one consumer, the requests of each producer come out in the order that producer added them. */
    @Test
    void eachProducersRequestsComeOutInOrder() throws Exception {
        WaitQueue q = new WaitQueue();
        int producers = 3;
        int per = 30_000;
        java.util.Map<QueuedRequest, int[]> origin = new java.util.concurrent.ConcurrentHashMap<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            threads.add(new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < per; i++) {
                    QueuedRequest r = request();
                    origin.put(r, new int[] {id, i});
                    q.add(r);
                }
            }));
        }
        threads.forEach(Thread::start);
        go.countDown();
        int[] last = {-1, -1, -1};
        int seen = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (seen < producers * per) {
            QueuedRequest r = q.claim();
            if (r == null) {
                assertThat(System.nanoTime()).as("no request stuck").isLessThan(deadline);
                Thread.onSpinWait();
                continue;
            }
            int[] o = origin.get(r);
            assertThat(o[1]).as("producer %d's order", o[0]).isEqualTo(last[o[0]] + 1);
            last[o[0]] = o[1];
            seen++;
        }
        for (Thread t : threads) {
            t.join();
        }
    }
}
