package dev.sluice.config.model;

/**
 * The {@code timeout} keywords of a proxy, in milliseconds; {@link #UNSET} when not configured.
 * {@code httpKeepAlive} falls back to {@code httpRequest} when unset, as in HAProxy.
 */
public record Timeouts(long client, long server, long connect, long httpRequest, long httpKeepAlive, long queue,
        long tunnel, long clientFin, long serverFin, long check, long tarpit) {

    public static final long UNSET = -1;
    public static final Timeouts NONE = new Timeouts(UNSET, UNSET, UNSET, UNSET, UNSET, UNSET, UNSET, UNSET, UNSET, UNSET, UNSET);

    public long effectiveKeepAlive() {
        return httpKeepAlive != UNSET ? httpKeepAlive : httpRequest;
    }
}
