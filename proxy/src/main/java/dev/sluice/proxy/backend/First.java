package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Txn;
import java.util.Arrays;
import java.util.Comparator;

/**
 * {@code balance first}: the eligible server with the lowest id that has a free slot (below its
 * maxconn), so that the first servers fill up before the next ones get anything. Weights are ignored,
 * as in HAProxy. Lock-free: a slot is taken with a compare-and-set, a lost race moves on to the next
 * server.
 */
public final class First implements LbAlgorithm {
    private final Server[] servers;
    private final boolean allBackups;
    private volatile Server[] byId;

    public First(Server[] servers, boolean allBackups) {
        this.servers = servers;
        this.allBackups = allBackups;
        rebuild();
    }

    @Override
    public synchronized void rebuild() {
        Server[] g = LbAlgorithm.eligible(servers, allBackups);
        Arrays.sort(g, Comparator.comparingInt(Server::id));
        byId = g;
    }

    @Override
    public Server pick(Txn txn) {
        for (Server s : byId) {
            if (s.usable() && s.tryTake()) {
                return s;
            }
        }
        return null;
    }
}
