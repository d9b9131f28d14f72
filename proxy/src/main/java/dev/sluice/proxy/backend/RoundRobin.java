package dev.sluice.proxy.backend;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Smooth weighted round robin without a lock. The cycle (total weight / gcd entries) is computed once
 * with the smooth interleave (each step adds every weight to its server's credit and takes the highest,
 * ties going to the first declared), so equal weights give strict declaration order s1, s2, s3, s4, s1
 * and 5:1:1 gives a a b a c a a. Picking is one atomic increment into that array; a server that cannot
 * take traffic is skipped. Thread-safe; the schedule is replaced as a whole when weights change.
 */
public final class RoundRobin {
    private final Server[] servers;
    private volatile int[] schedule;
    private final AtomicLong next = new AtomicLong();

    public RoundRobin(Server[] servers) {
        this.servers = servers;
        rebuild();
    }

    /** Recomputes the cycle from the servers' current weights. */
    public void rebuild() {
        schedule = buildSchedule(servers);
    }

    static int[] buildSchedule(Server[] servers) {
        // one snapshot of the weights: they may change while the schedule is computed
        int[] weights = new int[servers.length];
        int g = 0;
        long total = 0;
        for (int i = 0; i < servers.length; i++) {
            weights[i] = servers[i].weight();
            if (weights[i] > 0) {
                g = gcd(g, weights[i]);
                total += weights[i];
            }
        }
        if (total == 0) {
            return new int[0];
        }
        int len = (int) (total / g);
        int[] out = new int[len];
        long[] credit = new long[servers.length];
        for (int step = 0; step < len; step++) {
            int best = -1;
            for (int i = 0; i < servers.length; i++) {
                int w = weights[i] / g;
                if (w == 0) {
                    continue;
                }
                credit[i] += w;
                if (best < 0 || credit[i] > credit[best]) {
                    best = i;
                }
            }
            credit[best] -= len;
            out[step] = best;
        }
        return out;
    }

    private static int gcd(int a, int b) {
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** The next server able to take a request, or null when none is. */
    public Server pick() {
        int[] s = schedule;
        int n = s.length;
        if (n == 0) {
            return null;
        }
        int start = (int) Math.floorMod(next.getAndIncrement(), (long) n);
        for (int k = 0; k < n; k++) {
            Server srv = servers[s[(start + k) % n]];
            if (srv.usable()) {
                return srv;
            }
        }
        return null;
    }
}
