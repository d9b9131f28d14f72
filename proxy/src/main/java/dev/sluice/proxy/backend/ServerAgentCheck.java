package dev.sluice.proxy.backend;

/**
 * A server's agent check ({@code agent-check}) as the server's other check and the statistics see it. The check itself
 * (package {@code check}) implements it and is attached by the runtime. Thread-safe reads.
 */
public interface ServerAgentCheck {
    /** {@code enable|disable agent}. */
    boolean enabled();

    void enabled(boolean on);

    /** {@code set server ... agent up|down}: the agent's counter, on the agent's loop. */
    void forceHealth(boolean up);

    /** {@code set server ... agent-send}. */
    void send(String text);

    /** {@code set server ... agent-addr}. */
    void addr(java.net.InetAddress addr);

    /** {@code set server ... agent-port}. */
    void port(int port);

    /** The agent's health counter: 0 (the agent said down, stopped or fail) or 1. */
    int health();

    /** HAProxy's {@code srv_agent_state} bits. */
    int stateBits();

    /** The agent's address as {@code show servers state} prints it, null when it uses the server's. */
    String addr();

    int port();
}
