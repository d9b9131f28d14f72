package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A {@code log-forward} section: syslog listeners over TCP ({@code bind}, RFC 6587 octet counting or line feeds) and UDP
 * ({@code dgram-bind}); every message received is parsed (RFC 5424 or RFC 3164 header) and sent to the section's
 * {@code log} targets, re-headed in each target's format.
 */
public record LogForward(SourceRef where, String name, List<Address> binds, List<Address> dgramBinds, List<LogTarget> targets,
        int maxConn, int backlog, long clientTimeoutMs) {

    public LogForward {
        binds = List.copyOf(binds);
        dgramBinds = List.copyOf(dgramBinds);
        targets = List.copyOf(targets);
    }

    /** A listening address; an empty host is every address. */
    public record Address(SourceRef where, String host, int port) {
    }
}
