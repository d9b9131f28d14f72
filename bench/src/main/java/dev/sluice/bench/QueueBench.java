package dev.sluice.bench;

import dev.sluice.proxy.backend.QueuedRequest;
import dev.sluice.proxy.backend.WaitQueue;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A server queue under two threads: each op is one request joining the queue (a new waiting request, as a
 * stream that found no slot makes one) and one request claimed from it for a freed slot (exactly once: the
 * claim moves it out of the waiting state), two threads doing it at once, as two event loops would.
 * {@code backlog} requests wait in the queue before the run, so that a claim does not always meet the
 * request just added (0: the queue is nearly empty and head and tail are the same few nodes).
 * {@code queue} picks the implementation:
 * <ul>
 * <li>{@code lockFree}: Sluice's {@link WaitQueue} of {@link QueuedRequest}s (Michael-Scott list, a
 * compare-and-set on the request's own state to claim it, atomic counts for qcur/qmax);</li>
 * <li>{@code locked}: the baseline, a {@link ConcurrentLinkedQueue} whose admission and dispatch hold one
 * queue-wide {@link ReentrantLock} (the lock makes "claimed exactly once" and the qcur/qmax counts
 * consistent, as a simple design would), with a request object of the same size.</li>
 * <li>{@code prioritised}: Sluice's {@link WaitQueue} with every request given a priority ({@code set-priority-class}
 * -1, 0 or 1 in turn and an offset), so that all of them go through its sorted set rather than its list.</li>
 * </ul>
 * Both run in the same JMH invocation, so compare their ops/s with each other, not across runs; on a shared
 * machine, {@code bench/jmh-paired.sh 4 QueueBench queue locked,lockFree} alternates them round by round.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar QueueBench -f 1 -wi 3 -i 5 -w 1s -r 1s} (two threads
 * are set here; {@code -t 1} shows the uncontended cost).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
public class QueueBench {

    @Param({"lockFree", "locked", "prioritised"})
    public String queue;

    @Param({"0", "64"})
    public int backlog;

    private WaitQueue waitQueue;
    private LockedQueue baseline;
    private boolean lockFree;
    private boolean prioritised;

    @Setup
    public void setUp() {
        lockFree = switch (queue) {
            case "lockFree", "prioritised" -> true;
            case "locked" -> false;
            default -> throw new IllegalArgumentException(queue);
        };
        prioritised = queue.equals("prioritised");
        waitQueue = new WaitQueue();
        baseline = new LockedQueue();
        for (int i = 0; i < backlog; i++) {
            waitQueue.add(request());
            baseline.add(new Pending());
        }
    }

    private QueuedRequest request() {
        // the arrival is the stream's first assignment time, read before (ServerSlot's): not this op's cost
        if (!prioritised) {
            return new QueuedRequest(null, null, 0, 0, 0);
        }
        int t = java.util.concurrent.ThreadLocalRandom.current().nextInt(15);
        return new QueuedRequest(null, null, t % 3 - 1, 1 + t % 5, 0);
    }

    /** One request joins the queue, one is claimed from it. */
    @Benchmark
    public Object addAndClaim() {
        if (lockFree) {
            waitQueue.add(request());
            return waitQueue.claim();
        }
        baseline.add(new Pending());
        return baseline.claim();
    }

    /** The baseline's waiting request: a state claimed once, as {@link QueuedRequest}'s. */
    static final class Pending {
        static final int WAITING = 0;
        static final int GRANTED = 1;
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Pending.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused")
        volatile int state;
        long ticket;
        long base;
        volatile int position;

        boolean leave(int to) {
            return STATE.compareAndSet(this, WAITING, to);
        }
    }

    /** A ConcurrentLinkedQueue with a queue-wide lock around admission and dispatch. */
    static final class LockedQueue {
        private final ConcurrentLinkedQueue<Pending> list = new ConcurrentLinkedQueue<>();
        private final ReentrantLock lock = new ReentrantLock();
        private long tickets;
        private long dequeues;
        private int length;
        private int max;

        void add(Pending p) {
            lock.lock();
            try {
                p.ticket = tickets++;
                p.base = dequeues;
                if (++length > max) {
                    max = length;
                }
                list.add(p);
            } finally {
                lock.unlock();
            }
        }

        Pending claim() {
            lock.lock();
            try {
                for (Pending p; (p = list.poll()) != null;) {
                    if (p.leave(Pending.GRANTED)) {
                        length--;
                        p.position = (int) (++dequeues - p.base);
                        return p;
                    }
                }
                return null;
            } finally {
                lock.unlock();
            }
        }
    }
}
