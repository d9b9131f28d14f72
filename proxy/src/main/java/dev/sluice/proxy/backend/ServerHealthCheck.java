package dev.sluice.proxy.backend;

import java.net.InetAddress;

/**
 * A server's health check as the backend and its admin commands drive it: what {@link Server} and
 * {@link ServerCommands} read and change of it. The check itself (package {@code check}) implements it and is
 * attached to its server by the runtime; the backend never depends on how checks run. Thread-safe: readers see
 * volatile state, changes are handed to the check's event loop.
 */
public interface ServerHealthCheck {
    /** {@code enable|disable health}. */
    boolean enabled();

    void enabled(boolean on);

    /** The health counter (0 .. rise + fall - 1). */
    int health();

    /** {@code set server ... health up|down}: the counter jumps to fully up or 0. */
    void forceHealth(boolean up);

    /** Maintenance begins ({@code true}) or ends: checks pause, then resume. */
    void maintenance(boolean on);

    /** {@code set server ... check-port}. */
    void port(int port);

    /** {@code set server ... check-addr}. */
    void addr(InetAddress addr);

    /** HAProxy's {@code srv_check_status} of the last check ({@code show servers state}). */
    int statusCode();

    /** HAProxy's {@code srv_check_result} of the last check. */
    int resultCode();

    /** HAProxy's {@code srv_check_state} bits. */
    int stateBits();

    int checkPort();

    /** The address checks go to, as text ("-" style null when none is configured). */
    String checkAddr();

    int rise();

    int fall();

    /**
     * The state of a server state file, before the checks start: the health counter, the last status (HAProxy's
     * {@code srv_check_status} number) and whether checks stay enabled.
     */
    void restore(int health, int status, boolean enabled);

    /** What a stream saw of the server ({@code observe}); nothing by default. Any thread. */
    default void observed(TrafficEvent event) {
    }
}
