package dev.sluice.pools;

/** A pools admin command the admin layer answers with this message (HAProxy's text). */
public final class PoolCommandException extends RuntimeException {
    public PoolCommandException(String message) {
        super(message, null, false, false);
    }
}
