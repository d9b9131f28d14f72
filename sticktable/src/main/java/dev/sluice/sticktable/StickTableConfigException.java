package dev.sluice.sticktable;

/**
 * A problem in a {@code stick-table} line or a {@code store} list. The message is HAProxy-like and carries
 * no file or line (the config module adds them); {@link #argIndex()} is the index of the offending word in
 * the argument list given to the parser, or -1 when the problem is not tied to one word (a missing
 * {@code type}, say). Extends {@link IllegalArgumentException} so callers that already catch that get it.
 */
public final class StickTableConfigException extends IllegalArgumentException {
    private final int argIndex;

    public StickTableConfigException(String message, int argIndex) {
        super(message);
        this.argIndex = argIndex;
    }

    public StickTableConfigException(String message) {
        this(message, -1);
    }

    public int argIndex() {
        return argIndex;
    }

    /** The same problem pinned to word {@code index}, unless it is already pinned to one. */
    StickTableConfigException at(int index) {
        return argIndex >= 0 ? this : new StickTableConfigException(getMessage(), index);
    }
}
