package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Backends.server;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Slots and queues of a backend: a request finding no free server waits (in its bound server's queue or the
 * backend's), a slot given back goes to the oldest waiting request on that request's own event loop, servers
 * changing state take or send away waiting requests; and under many threads no slot is over-granted, no
 * wake-up is lost, no request is served twice or left waiting.
 */
class ServerQueuesTest {
    private static final DefaultEventLoopGroup LOOPS = new DefaultEventLoopGroup(4);

    @AfterAll
    static void stop() {
        LOOPS.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /** A waiter recording what happened to it, and on which thread. */
    private static final class Recorder implements QueuedRequest.Waiter {
        final LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
        final EventLoop loop;
        final String name;
        volatile Thread thread;

        Recorder(String name, EventLoop loop) {
            this.name = name;
            this.loop = loop;
        }

        @Override
        public void granted(Server server) {
            thread = Thread.currentThread();
            events.add(name + " granted " + server.name());
        }

        @Override
        public void requeued() {
            thread = Thread.currentThread();
            events.add(name + " requeued");
        }

        String next() throws InterruptedException {
            String e = events.poll(10, TimeUnit.SECONDS);
            assertThat(e).as("%s heard of its slot", name).isNotNull();
            return e;
        }
    }

    @Test
    void aReleasedSlotGoesToTheOldestWaitingRequestOnItsOwnLoop() throws Exception {
        Backend b = Backends.of("balance roundrobin\nserver s1 maxconn 1");
        Server s1 = server(b, "s1");
        assertThat(b.pickServer()).isSameAs(s1);
        assertThat(b.pickServer()).isNull();
        List<Recorder> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Recorder r = new Recorder("r" + i, LOOPS.next());
            waiting.add(r);
            b.enqueue(null, new QueuedRequest(r, r.loop));
        }
        assertThat(b.queue().length()).isEqualTo(3);
        assertThat(b.queueing()).isTrue();
        for (int i = 0; i < 3; i++) {
            s1.streamEnded();
            Recorder r = waiting.get(i);
            assertThat(r.next()).isEqualTo("r" + i + " granted s1");
            assertThat(r.loop.inEventLoop(r.thread)).as("granted on its own loop").isTrue();
            assertThat(s1.activeStreams()).isEqualTo(1);
        }
        s1.streamEnded();
        assertThat(s1.activeStreams()).isZero();
        assertThat(b.queue().length()).isZero();
        assertThat(b.queue().max()).isEqualTo(3);
    }

    /**
     * The lost wake-up: a request finds the server full, the last slot is given back (nothing waits yet), then
     * the request joins the queue. Queueing looks at the slots again, so it gets the free one.
     */
    @Test
    void aRequestQueuedJustAfterTheLastSlotWasGivenBackStillGetsIt() throws Exception {
        for (String line : List.of("balance roundrobin", "balance uri")) {
            Backend b = Backends.of(line + "\nserver s1 maxconn 1");
            Server s1 = server(b, "s1");
            assertThat(s1.tryTake()).isTrue();
            // the new request's pick fails here...
            assertThat(s1.tryTake()).isFalse();
            // ...the holder gives its slot back while nothing waits...
            s1.streamEnded();
            // ...and the request joins the queue
            Recorder r = new Recorder("r", LOOPS.next());
            b.enqueue(line.endsWith("uri") ? s1 : null, new QueuedRequest(r, r.loop));
            assertThat(r.next()).isEqualTo("r granted s1");
            assertThat(s1.activeStreams()).isEqualTo(1);
            s1.streamEnded();
        }
    }

    @Test
    void aHashedRequestWaitsForItsOwnServerAndNewRequestsQueueBehindIt() throws Exception {
        Backend b = Backends.of("balance uri\nserver s1 maxconn 1\nserver s2 maxconn 1");
        Server bound = b.bound(Requests.get("/x"));
        assertThat(bound).isNotNull();
        assertThat(bound.tryTake()).isTrue();
        assertThat(bound.tryTake()).isFalse();
        Recorder r = new Recorder("r", LOOPS.next());
        b.enqueue(bound, new QueuedRequest(r, r.loop));
        assertThat(bound.queue().length()).isEqualTo(1);
        assertThat(bound.full()).isTrue();
        // the other server is free: its slot is not for a request bound elsewhere
        Server other = server(b, bound.name().equals("s1") ? "s2" : "s1");
        assertThat(other.queue().length()).isZero();
        bound.streamEnded();
        assertThat(r.next()).isEqualTo("r granted " + bound.name());
        // the slot went to the waiting request: a newcomer still finds the server full
        assertThat(bound.tryTake()).isFalse();
        bound.streamEnded();
        assertThat(bound.tryTake()).isTrue();
    }

    @Test
    void theOlderOfTheServersAndTheBackendsHeadGoesFirst() throws Exception {
        Backend b = Backends.of("balance uri\nserver s1 maxconn 1");
        Server s1 = server(b, "s1");
        assertThat(s1.tryTake()).isTrue();
        Recorder balanced = new Recorder("balanced", LOOPS.next());
        Recorder hashed = new Recorder("hashed", LOOPS.next());
        b.enqueue(null, new QueuedRequest(balanced, balanced.loop));
        b.enqueue(s1, new QueuedRequest(hashed, hashed.loop));
        s1.streamEnded();
        assertThat(balanced.next()).isEqualTo("balanced granted s1");
        s1.streamEnded();
        assertThat(hashed.next()).isEqualTo("hashed granted s1");
    }

    @Test
    void aServerComingUpTakesWaitingRequestsAndOneGoingDownSendsItsOwnAway() throws Exception {
        Backend b = Backends.of("balance roundrobin\noption redispatch\nserver s1 maxconn 1\nserver s2 maxconn 1 init-state down");
        Server s1 = server(b, "s1");
        Server s2 = server(b, "s2");
        assertThat(b.pickServer()).isSameAs(s1);
        Recorder r = new Recorder("r", LOOPS.next());
        b.enqueue(null, new QueuedRequest(r, r.loop));
        assertThat(s2.setUp(true)).isEqualTo(1);
        assertThat(r.next()).isEqualTo("r granted s2");
        assertThat(b.queue().length()).isZero();
        // a request bound to s1 (stickiness) waits there; s1 going down sends it back to the balancing
        Recorder bound = new Recorder("bound", LOOPS.next());
        b.enqueue(s1, new QueuedRequest(bound, bound.loop));
        assertThat(s1.setUp(false)).isEqualTo(1);
        assertThat(bound.next()).isEqualTo("bound requeued");
        assertThat(s1.queue().length()).isZero();
    }

    @Test
    void withoutRedispatchRequestsWaitForTheirServerToComeBack() throws Exception {
        Backend b = Backends.of("balance uri\nserver s1 maxconn 1");
        Server s1 = server(b, "s1");
        assertThat(s1.tryTake()).isTrue();
        Recorder r = new Recorder("r", LOOPS.next());
        b.enqueue(s1, new QueuedRequest(r, r.loop));
        assertThat(s1.setUp(false)).isZero();
        assertThat(s1.queue().length()).isEqualTo(1);
        // HAProxy still serves a server's own queue when a slot frees, down or not
        s1.streamEnded();
        assertThat(r.next()).isEqualTo("r granted s1");
    }

    @Test
    void aCancelledRequestGetsNoSlotAndTheSlotGoesOn() throws Exception {
        Backend b = Backends.of("server s1 maxconn 1");
        Server s1 = server(b, "s1");
        assertThat(b.pickServer()).isSameAs(s1);
        Recorder gone = new Recorder("gone", LOOPS.next());
        Recorder next = new Recorder("next", LOOPS.next());
        QueuedRequest g = new QueuedRequest(gone, gone.loop);
        b.enqueue(null, g);
        b.enqueue(null, new QueuedRequest(next, next.loop));
        assertThat(g.cancel()).isTrue();
        assertThat(b.queue().length()).isEqualTo(1);
        s1.streamEnded();
        assertThat(next.next()).isEqualTo("next granted s1");
        assertThat(gone.events).isEmpty();
    }

    /**
     * Client threads take slots on three servers of maxconn 1, 2 and 3 through the queues, hold them a moment
     * and give them back, while some of their waiting requests time out (cancel) at random; slots are handed
     * over on four event loops. At no time does a server serve more than its maxconn; every request ends
     * (served or cancelled, never both, never twice); no slot stays taken and no request stays queued.
     */
    @Test
    void underConcurrencyNoSlotIsOvergrantedAndNoRequestIsLostOrServedTwice() throws Exception {
        for (String balance : List.of("roundrobin", "leastconn", "first", "uri")) {
            runStorm(balance);
        }
    }

    private void runStorm(String balance) throws Exception {
        Backend b = Backends.of("balance " + balance + "\nserver s1 maxconn 1\nserver s2 maxconn 2\nserver s3 maxconn 3");
        List<Server> servers = b.servers();
        AtomicIntegerArray inflight = new AtomicIntegerArray(servers.size());
        int clients = 8;
        int perClient = 3000;
        int total = clients * perClient;
        AtomicIntegerArray outcome = new AtomicIntegerArray(total);
        AtomicInteger served = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(total);
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();

        class Request implements QueuedRequest.Waiter {
            final int id;
            QueuedRequest entry;

            Request(int id) {
                this.id = id;
            }

            void serve(Server s) {
                if (outcome.getAndIncrement(id) != 0) {
                    errors.add("request " + id + " ended twice (served)");
                }
                int i = servers.indexOf(s);
                int n = inflight.incrementAndGet(i);
                if (n > s.maxconn()) {
                    errors.add(s.name() + " served " + n + " requests at once (maxconn " + s.maxconn() + ")");
                }
                if (ThreadLocalRandom.current().nextInt(8) == 0) {
                    Thread.yield();
                }
                inflight.decrementAndGet(i);
                served.incrementAndGet();
                done.countDown();
                s.streamEnded();
            }

            @Override
            public void granted(Server s) {
                if (!entry.loop().inEventLoop()) {
                    errors.add("request " + id + " granted off its loop");
                }
                serve(s);
            }

            @Override
            public void requeued() {
                errors.add("request " + id + " requeued");
            }
        }

        for (int c = 0; c < clients; c++) {
            int from = c * perClient;
            threads.add(new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int id = from; id < from + perClient; id++) {
                    Request r = new Request(id);
                    dev.sluice.proxy.rules.Txn txn = Requests.get("/p" + rnd.nextInt(16));
                    Server bound = b.bound(txn);
                    Server s = bound != null ? (bound.tryTake() ? bound : null) : b.queueing() ? null : b.pickServer(txn);
                    if (s != null) {
                        r.serve(s);
                        continue;
                    }
                    r.entry = new QueuedRequest(r, LOOPS.next());
                    b.enqueue(bound, r.entry);
                    if (rnd.nextInt(5) == 0) {
                        // a queue timeout or a client abort racing with the hand-off
                        if (rnd.nextBoolean()) {
                            Thread.yield();
                        }
                        QueuedRequest e = r.entry;
                        e.loop().execute(() -> {
                            if (e.cancel()) {
                                if (outcome.getAndIncrement(r.id) != 0) {
                                    errors.add("request " + r.id + " ended twice (cancelled)");
                                }
                                cancelled.incrementAndGet();
                                done.countDown();
                            }
                        });
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(60_000);
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).as("%s: every request ended (%d served, %d cancelled of %d)", balance, served.get(),
                cancelled.get(), total).isTrue();
        assertThat(errors).as(balance).isEmpty();
        assertThat(served.get() + cancelled.get()).isEqualTo(total);
        // let the last hand-offs settle
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (b.served() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        for (Server s : servers) {
            assertThat(s.activeStreams()).as("%s: %s slots left taken", balance, s.name()).isZero();
            assertThat(s.queue().length()).as("%s: %s queue", balance, s.name()).isZero();
        }
        assertThat(b.queue().length()).as(balance).isZero();
        assertThat(b.served()).isZero();
    }
}
