package dev.sluice.proxy.stream;

/** How a server exchange failed. */
public enum ServerFailure {
    /** The connection closed (or reset) before any byte of the response. */
    CLOSED_BEFORE_RESPONSE,
    /** The response head was invalid. */
    INVALID_RESPONSE,
    /** The connection closed in the middle of the response. */
    TRUNCATED,
    /** {@code timeout server} expired. */
    TIMEOUT
}
