package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Txn;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code balance roundrobin}: HAProxy's weighted round robin order ({@link FwrrSchedule}: equal weights
 * give strict declaration order s1, s2, s3, s4, s1; 5:1:1 gives s1 s1 s1 s2 s1 s1 s3), precomputed for
 * the eligible servers as a short prefix and a cycle, and walked with one atomic increment, without a
 * lock. A server that cannot take the request (at its maxconn, or no longer usable) is skipped. The
 * schedule is replaced as a whole when server states change; the walk goes on from where it was.
 */
public final class RoundRobin implements LbAlgorithm {
    /** The picks before the cycle and the cycle. */
    private record Walk(Server[] prefix, Server[] cycle) {
    }

    private final Server[] servers;
    private final boolean allBackups;
    private volatile Walk walk;
    private final AtomicLong next = new AtomicLong();

    public RoundRobin(Server[] servers) {
        this(servers, false);
    }

    public RoundRobin(Server[] servers, boolean allBackups) {
        this.servers = servers;
        this.allBackups = allBackups;
        rebuild();
    }

    /** Recomputes the schedule from the servers' current states and weights. */
    @Override
    public synchronized void rebuild() {
        Server[] group = LbAlgorithm.eligible(servers, allBackups);
        int[] weights = new int[group.length];
        for (int i = 0; i < group.length; i++) {
            weights[i] = group[i].eweight();
        }
        FwrrSchedule.Schedule s = FwrrSchedule.ofEffective(weights);
        walk = new Walk(pick(group, s.prefix()), pick(group, s.cycle()));
    }

    private static Server[] pick(Server[] group, int[] indexes) {
        Server[] out = new Server[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = group[indexes[i]];
        }
        return out;
    }

    /** One cycle of the schedule for servers of these weights (after its prefix), as indexes. */
    static int[] buildSchedule(Server[] servers) {
        int[] weights = new int[servers.length];
        for (int i = 0; i < servers.length; i++) {
            weights[i] = servers[i].weight();
        }
        return FwrrSchedule.of(weights).cycle();
    }

    static int gcd(int a, int b) {
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** The next server able to take a request, its slot taken, or null when none is. */
    public Server pick() {
        return pick(null);
    }

    @Override
    public Server pick(Txn txn) {
        Walk w = walk;
        Server[] c = w.cycle;
        int n = c.length;
        if (n == 0) {
            return null;
        }
        // a server that cannot take the request loses its turn, as in HAProxy: the next turn is taken
        int p = w.prefix.length;
        for (int i = 0; i <= n + p; i++) {
            long k = next.getAndIncrement();
            Server srv = k < p ? w.prefix[(int) k] : c[(int) ((k - p) % n)];
            if (srv.usable() && srv.tryTake()) {
                return srv;
            }
        }
        return null;
    }
}
