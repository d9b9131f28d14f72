package dev.sluice.sticktable;

/**
 * One {@code data.<type>[<index>] <value>} of a {@code set table} command: {@code value} for numeric
 * types (for a rate, the count of the current period), {@code text} for {@code server_key}. Immutable.
 */
public record DataAssignment(DataType type, int index, long value, String text) {

    public static DataAssignment of(DataType type, long value) {
        return new DataAssignment(type, 0, value, null);
    }

    /** Applies the value to an entry of a table that stores the type. */
    void applyTo(StickEntry e) {
        if (type == DataType.SERVER_KEY) {
            e.setServerKey(text);
        } else {
            e.set(type, index, value);
        }
    }
}
