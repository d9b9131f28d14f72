package dev.sluice.proxy.backend;

/**
 * Ends the streams in progress on a server when its state changes ({@code on-marked-down shutdown-sessions},
 * {@code on-marked-up shutdown-backup-sessions}): the stream layer implements it over its live streams and the runtime
 * attaches it to each backend. {@code up}: a server of higher priority came up (the streams end with HAProxy's
 * termination flag U), else the server went down (D). Any thread; the streams end on their own loops, after the call.
 */
public interface ServerStreams {
    ServerStreams NONE = (server, up) -> {
    };

    void shutdown(Server server, boolean up);
}
