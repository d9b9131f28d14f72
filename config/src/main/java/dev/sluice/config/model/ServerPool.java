package dev.sluice.config.model;

/**
 * A server's idle connection pool ({@code pool-max-conn}, {@code pool-low-conn}, {@code pool-purge-delay}):
 * {@code maxConn} idle connections at most (-1: no limit, 0: none kept), {@code lowConn} idle connections kept beyond
 * the estimated need, {@code purgeDelayMs} the purge period (half of the excess idle connections closed each period;
 * 0: none kept; -1 when not set: the backend's, 5 s by default).
 */
public record ServerPool(int maxConn, int lowConn, long purgeDelayMs) {

    /** HAProxy's defaults: no limit, no margin, the purge period not set. */
    public static final ServerPool DEFAULT = new ServerPool(-1, 0, -1);

    public ServerPool withMaxConn(int n) {
        return new ServerPool(n, lowConn, purgeDelayMs);
    }

    public ServerPool withLowConn(int n) {
        return new ServerPool(maxConn, n, purgeDelayMs);
    }

    public ServerPool withPurgeDelayMs(long ms) {
        return new ServerPool(maxConn, lowConn, ms);
    }
}
