package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Txn;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code balance random(<draws>)}: draws a random point on the consistent-hashing ring (so weights count)
 * {@code draws} times and keeps the server with the fewest current requests relative to its weight
 * (power of two choices by default; {@code random(1)} is a weighted random pick), as HAProxy's get_server_rnd.
 * When the chosen server is at its maxconn or has requests in its own queue there is no server: the request waits in
 * the backend's queue, as in HAProxy. With no usable active server, the draws go to the first usable backup (or among
 * the backups with {@code option allbackups}), as the ring does.
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
        return pick(txn, null);
    }

    /**
     * HAProxy's get_server_rnd: {@code draws} random points, each going to its closest server other than {@code avoid}
     * (null: none to avoid), the later draw kept unless it is more loaded for its weight; no server (the backend's queue)
     * when the one kept is full or has requests in its own queue.
     */
    @Override
    public Server pick(Txn txn, Server avoid) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Server best = null;
        for (int d = 0; d < draws; d++) {
            Server s = ring.lookup(rnd.nextInt(), avoid);
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
