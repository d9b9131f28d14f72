package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Txn;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code balance random(<draws>)}: draws a random point on the consistent-hashing ring (so weights count)
 * {@code draws} times and keeps the server with the fewest current requests relative to its weight
 * (power of two choices by default), as HAProxy's get_server_rnd. When the chosen server is at its
 * maxconn there is no server (HAProxy would queue the request).
 */
public final class RandomDraws implements LbAlgorithm {
    private final ConsistentRing ring;
    private final int draws;

    public RandomDraws(ConsistentRing ring, int draws) {
        this.ring = ring;
        this.draws = draws;
    }

    @Override
    public void rebuild() {
        ring.rebuild();
    }

    @Override
    public Server pick(Txn txn) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Server best = null;
        for (int d = 0; d < draws; d++) {
            Server s = ring.lookup(rnd.nextInt());
            if (s == null) {
                return null;
            }
            // keep the previous choice when the new one is more loaded for its weight
            if (best == null || best != s && (long) s.activeStreams() * best.eweight() <= (long) best.activeStreams() * s.eweight()) {
                best = s;
            }
        }
        return best.usable() && best.tryTake() ? best : null;
    }
}
