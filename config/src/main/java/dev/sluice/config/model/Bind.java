package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/** A {@code bind} line: where a frontend accepts connections. */
public record Bind(SourceRef where, ListenAddress address, String text) {
}
