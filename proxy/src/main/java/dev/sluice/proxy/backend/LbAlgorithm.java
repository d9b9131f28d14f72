package dev.sluice.proxy.backend;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.HashType;
import dev.sluice.proxy.rules.SampleExpr;
import dev.sluice.proxy.rules.Txn;
import java.util.ArrayList;
import java.util.List;

/**
 * How a backend picks a server ({@code balance}). Implementations are thread-safe: picks run on every
 * event loop at once without a lock, reading a snapshot that {@link #rebuild} replaces when a server's
 * state changes. A pick takes a request slot on the server it returns ({@link Server#tryTake}).
 *
 * <p>Like HAProxy, every algorithm only considers the usable active servers; when none is usable, the
 * first usable backup server (in declaration order), or all usable backups with {@code option allbackups}.
 */
public interface LbAlgorithm {

    /**
     * Picks a server for a request and takes a slot on it; null when no server can take it (none usable,
     * or the chosen ones are at their maxconn). {@code txn} may be null (no request to hash: the hash
     * algorithms then fall back to their round robin).
     */
    Server pick(Txn txn);

    /**
     * {@link #pick(Txn)} for a retry moving away from {@code avoid} (HAProxy's srvtoavoid): by default another pick, kept
     * when it is another server, else {@code avoid} again; the random algorithm avoids it in each draw, as HAProxy's.
     */
    default Server pick(Txn txn, Server avoid) {
        Server s = pick(txn);
        if (s == null || s != avoid) {
            return s;
        }
        Server t = pick(txn);
        if (t == null) {
            return s;
        }
        // two slots are held now: keep one
        if (t == s) {
            t.streamEnded();
            return s;
        }
        s.streamEnded();
        return t;
    }

    /**
     * The server a request is bound to whatever its load (the hash algorithms, for a request with a key), its
     * slot not taken: the request waits in that server's own queue when it is full. Null when the algorithm
     * balances (or the request has no key): then {@link #pick} chooses among the servers with a free slot.
     */
    default Server bound(Txn txn) {
        return null;
    }

    /** Recomputes what the algorithm derives from the servers' states and weights. */
    void rebuild();

    /** A stream using {@code s} ended (after its slot was given back). */
    default void released(Server s) {
    }

    /** The algorithm configured by {@code balance} for these servers (in declaration order). */
    static LbAlgorithm of(Balance b, Server[] servers, SampleExpr hashExpr) {
        boolean all = b.allBackups();
        return switch (b.algorithm()) {
            case ROUNDROBIN -> new RoundRobin(servers, all);
            case STATIC_RR -> new ServerMap(servers, all);
            case LEASTCONN -> new LeastConn(servers, all);
            case FIRST -> new First(servers, all);
            case RANDOM -> new RandomDraws(new ConsistentRing(servers, all), b.draws());
            case SOURCE, URI, URL_PARAM, HDR, HASH, RDP_COOKIE -> {
                HashBalance.Table table = b.hashType().method() == HashType.Method.CONSISTENT ? new ConsistentRing(servers, all)
                        : new ServerMap(servers, all);
                yield new HashBalance(RequestKey.of(b, hashExpr), new HashFunction(b.hashType()), table);
            }
        };
    }

    /**
     * The servers an algorithm balances over now: the usable active servers; when there is none, the first
     * usable backup, or every usable backup when {@code allBackups}. Empty when nothing is usable.
     */
    static Server[] eligible(Server[] servers, boolean allBackups) {
        List<Server> active = new ArrayList<>();
        List<Server> backups = new ArrayList<>();
        for (Server s : servers) {
            if (s.usable()) {
                (s.backup() ? backups : active).add(s);
            }
        }
        if (!active.isEmpty()) {
            return active.toArray(new Server[0]);
        }
        if (!allBackups && !backups.isEmpty()) {
            return new Server[] {backups.getFirst()};
        }
        return backups.toArray(new Server[0]);
    }
}
