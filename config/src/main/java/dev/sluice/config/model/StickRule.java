package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A {@code stick on|match|store-request|store-response <expr> [table <t>] [if|unless <cond>]} line of a
 * backend: {@code kind} is the second word, {@code table} null for the backend's own table, {@code condition}
 * null when unconditional.
 */
public record StickRule(SourceRef where, String kind, String expr, String table, Condition condition) {
}
