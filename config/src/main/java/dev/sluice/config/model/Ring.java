package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A {@code ring} section: a bounded in-memory buffer of log messages (the oldest are dropped to make room), written by
 * {@code log ring@<name>} lines and log-forward sections, read with {@code show events <name>} and forwarded to the
 * section's TCP syslog {@code server}s. {@code format}: the syslog header each message gets as it is written;
 * {@code maxLen}: the longest message (header included) kept; {@code size}: the buffer's bytes.
 */
public record Ring(SourceRef where, String name, String description, LogTarget.Format format, int maxLen, int size,
        long connectTimeoutMs, long serverTimeoutMs, List<Server> servers) {

    /** HAProxy 2.6's defaults: a BUFSIZE ring whose messages may fill it, written raw. */
    public static final int DEFAULT_SIZE = 16384;

    public Ring {
        servers = List.copyOf(servers);
    }

    /**
     * A TCP syslog server the ring's messages are sent to: {@code octetCount} frames each as RFC 6587's
     * {@code <length> <message>} ({@code log-proto octet-count}), otherwise each ends with a line feed ({@code legacy}).
     */
    public record Server(SourceRef where, String name, String host, int port, boolean octetCount) {
    }
}
