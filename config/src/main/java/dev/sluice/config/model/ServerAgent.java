package dev.sluice.config.model;

/**
 * The agent check of a {@code server} line ({@code agent-check}, {@code default-server} values applied), as HAProxy 2.6:
 * a TCP connection to {@code port} (from {@code agent-port}, else the check's {@code port}) at {@code addr} (from
 * {@code agent-addr}, else the check's {@code addr}, null: the server's address), which sends {@code send} (null: nothing)
 * and reads one line of words that set the server's health, administrative state, weight and maxconn. {@code inter} is
 * {@code agent-inter} in milliseconds (0: the check's {@code inter}). The agent's own rise and fall are 1.
 */
public record ServerAgent(boolean enabled, int port, String addr, long inter, String send) {

    /** No agent check. */
    public static final ServerAgent NONE = new ServerAgent(false, 0, null, 0, null);
}
