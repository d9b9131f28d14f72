package dev.sluice.sticktable;

/**
 * What a {@code clear table} did: entries removed, and matching entries kept because trackers hold them.
 * For a clear by key or pointer, {@code inUse > 0} is HAProxy's "Entry currently in use, cannot remove".
 */
public record ClearResult(int removed, int inUse) {
}
