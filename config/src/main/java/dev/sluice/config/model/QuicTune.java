package dev.sluice.config.model;

/**
 * QUIC transport settings of the process ({@code tune.quic.*} in {@code global}), applied to every QUIC
 * bind: the idle timeout and stream limit advertised to clients, the flow-control windows a client may
 * fill before being told it can send more (per connection and per request stream), HyStart++ for the
 * congestion controller, the number of half-open connections above which new clients must pass a Retry,
 * and {@code cluster-secret} (null: a random secret per process), from which Retry-token keys and
 * stateless-reset tokens are derived so that several processes can share them.
 */
public record QuicTune(long maxIdleTimeoutMs, int maxStreamsBidi, long maxData, long streamData, boolean hystart, int retryThreshold,
        String clusterSecret) {

    /** HAProxy's defaults for what it has (30 s idle, 100 streams, Retry above 100 half-open); Sluice's windows. */
    public static final QuicTune DEFAULT = new QuicTune(30_000, 100, 16L << 20, 256L << 10, true, 100, null);
}
