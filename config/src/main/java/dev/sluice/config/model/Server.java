package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A {@code server} line of a backend, with {@code default-server} values already applied. {@code host}
 * is an IP literal (no brackets) or a host name resolved at start-up.
 */
public record Server(SourceRef where, String name, String host, int port, int weight) {
}
