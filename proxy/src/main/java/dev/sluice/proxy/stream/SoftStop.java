package dev.sluice.proxy.stream;

/**
 * The user event a client connection receives when the process stops gracefully ({@code SIGUSR1}, or a new
 * process started with {@code -sf}): HTTP/1 closes at once when idle, else after the response in progress
 * (sent with {@code Connection: close}); HTTP/2 sends GOAWAY and closes once its streams are done. Fired on the
 * connection's own event loop.
 */
public final class SoftStop {
    public static final SoftStop EVENT = new SoftStop();
    /**
     * The configuration was reloaded in the process: a connection whose frontend is gone from the new one stops as
     * for {@link #EVENT}; the others go on, their next request under the new configuration.
     */
    public static final SoftStop IF_REMOVED = new SoftStop();

    private SoftStop() {
    }
}
