package dev.sluice.proxy.backend;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A server's connections kept per event loop: the idle HTTP/1 ones, the multiplexed (HTTP/2) ones, and the
 * estimate of how many the loop needs ({@link ConnUse}). The slot of loop {@code i} is only touched by loop
 * {@code i}; {@link ServerConnector} takes from and gives back to them.
 */
final class ServerPools {
    private final ArrayDeque<ServerConnection>[] idle;
    private final ArrayList<MultiplexedConnection>[] mux;
    private final ConnUse[] use;
    /**
     * Each loop's count of idle connections as it last saw it, for {@code pool-max-conn} (a limit on the server's
     * total): written by its loop (only for a server with a limit), read by the others.
     */
    private final AtomicIntegerArray idleSeen;

    @SuppressWarnings("unchecked")
    ServerPools(int loops) {
        this.idle = new ArrayDeque[loops];
        this.mux = new ArrayList[loops];
        this.use = new ConnUse[loops];
        this.idleSeen = new AtomicIntegerArray(loops);
        for (int i = 0; i < loops; i++) {
            idle[i] = new ArrayDeque<>();
            mux[i] = new ArrayList<>(2);
            use[i] = new ConnUse();
        }
    }

    /** The multiplexed connections of one event loop; only that loop may call this. */
    ArrayList<MultiplexedConnection> mux(int loop) {
        return mux[loop];
    }

    /** The connection-need estimate of one event loop; only that loop may call this. */
    ConnUse use(int loop) {
        return use[loop];
    }

    /** Loop {@code loop} has {@code n} idle connections now; only that loop may call this. */
    void idleSeen(int loop, int n) {
        if (idleSeen.get(loop) != n) {
            idleSeen.set(loop, n);
        }
    }

    /** The idle connections of the other loops, as each last counted them. */
    int idleElsewhere(int loop) {
        int n = 0;
        for (int i = 0; i < idleSeen.length(); i++) {
            if (i != loop) {
                n += idleSeen.get(i);
            }
        }
        return n;
    }

    /** The idle connections of one event loop; only that loop may call this. */
    ArrayDeque<ServerConnection> idle(int loop) {
        return idle[loop];
    }
}
