package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * {@code use_backend <name> [if|unless <cond>]}. {@code backend} may be a log-format expression
 * ({@code %[...]}) resolved per request. {@code condition} is null when the rule is unconditional.
 */
public record UseBackend(SourceRef where, String backend, Condition condition) {

    public boolean isDynamic() {
        return backend.contains("%[");
    }
}
