package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * Persistence on servers that are down, and when to drop it: {@code option persist} ({@code downServers}: a request a
 * cookie, a stick match, a use-server rule or an RDP cookie sends to a down server still goes there), the
 * {@code force-persist} and {@code ignore-persist} rules (the first whose condition holds decides, as HAProxy evaluates them
 * once the backend is known), and {@code persist rdp-cookie[(<name>)]} ({@code rdpCookie}: the RDP cookie whose
 * {@code <ip>.<port>.} value names the server; null when not set).
 */
public record Persist(boolean downServers, List<Rule> rules, String rdpCookie) {

    public static final Persist NONE = new Persist(false, List.of(), null);

    public Persist {
        rules = List.copyOf(rules);
    }

    /** A {@code force-persist} ({@code force}) or {@code ignore-persist} rule. */
    public record Rule(SourceRef where, boolean force, Condition condition) {
    }
}
