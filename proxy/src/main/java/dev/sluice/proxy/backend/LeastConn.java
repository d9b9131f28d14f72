package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Txn;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code balance leastconn}: the eligible server with the fewest current requests relative to its
 * weight, HAProxy's key {@code (n + 1) * 4096 / (weight * 16)} for {@code n > 0} requests and 0 for an
 * idle server. Among servers of equal key the one whose load changed longest ago wins, which is the
 * order HAProxy's tree keeps (a server is re-inserted behind its equals each time it takes or gives back
 * a request): sequential requests rotate s1 s2 s3 s1, and a busy server is passed over. A server at its
 * maxconn is skipped. A pick reads every server's count (no lock): O(servers), no allocation.
 */
public final class LeastConn implements LbAlgorithm {
    private final Server[] servers;
    private final boolean allBackups;
    private volatile Server[] group;
    /** When each server's load last changed, by server index; the initial order is declaration order. */
    private final AtomicLongArray stamps;
    private final AtomicLong clock;

    public LeastConn(Server[] servers, boolean allBackups) {
        this.servers = servers;
        this.allBackups = allBackups;
        this.stamps = new AtomicLongArray(servers.length);
        for (int i = 0; i < servers.length; i++) {
            stamps.set(i, i);
        }
        this.clock = new AtomicLong(servers.length);
        rebuild();
    }

    @Override
    public synchronized void rebuild() {
        group = LbAlgorithm.eligible(servers, allBackups);
    }

    /** HAProxy's fwlc key: 0 when idle, else (n + 1) * SRV_EWGHT_MAX / eweight. */
    static long key(int inflight, int eweight) {
        return inflight == 0 ? 0 : (inflight + 1L) * ConsistentRing.ID_RANGE / eweight;
    }

    @Override
    public Server pick(Txn txn) {
        Server[] g = group;
        // a lost race for the last slot of a server: look again (each try sees that server full)
        for (int attempt = 0; attempt <= g.length; attempt++) {
            Server best = null;
            long bestKey = 0;
            long bestStamp = 0;
            for (Server s : g) {
                if (!s.usable() || s.full()) {
                    continue;
                }
                long k = key(s.activeStreams(), s.eweight());
                long st = stamps.get(s.index());
                if (best == null || k < bestKey || k == bestKey && st < bestStamp) {
                    best = s;
                    bestKey = k;
                    bestStamp = st;
                }
            }
            if (best == null) {
                return null;
            }
            if (best.tryTake()) {
                stamps.set(best.index(), clock.incrementAndGet());
                return best;
            }
        }
        return null;
    }

    @Override
    public void released(Server s) {
        stamps.set(s.index(), clock.incrementAndGet());
    }
}
