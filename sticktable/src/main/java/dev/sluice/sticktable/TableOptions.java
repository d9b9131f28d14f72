package dev.sluice.sticktable;

/**
 * How a {@link StickTable} is built, beyond its config: the number of key-index shards (a power of two),
 * the clock, and where updates are recorded. Immutable.
 *
 * @param shards number of shards of the key index, a power of two between 1 and 1024
 * @param clock the millisecond clock for expiry and rates
 * @param updates where touches record updates for peers; null picks {@link UpdateRecording#OWN_LOCK}
 *                when the table has {@code peers}, {@link UpdateRecording#OFF} otherwise
 * @param memory where entries are accounted (the proxy's {@code -m} ceiling); null for nowhere
 */
public record TableOptions(int shards, TableClock clock, UpdateRecording updates, EntryMemory memory) {

    /** Where a table records updates for peer replication. */
    public enum UpdateRecording {
        /** No update log (no peers): touches only move the expiry date. */
        OFF,
        /** The design: an update log guarded by its own lock, alone on its cache line. */
        OWN_LOCK,
        /**
         * The layout HAProxy had before splitting the lock, kept for comparison benchmarks: one shard, one
         * table-wide read-write lock taken shared by lookups and exclusively by creations, removals, update
         * recording and peers reading the log.
         */
        UNDER_TABLE_LOCK
    }

    public static final int DEFAULT_SHARDS = 16;
    public static final TableOptions DEFAULT = new TableOptions(DEFAULT_SHARDS, TableClock.SYSTEM, null, null);

    public TableOptions {
        if (shards < 1 || shards > 1024 || Integer.bitCount(shards) != 1) {
            throw new IllegalArgumentException("shards must be a power of two between 1 and 1024, not " + shards);
        }
        if (clock == null) {
            throw new IllegalArgumentException("clock is required");
        }
    }

    public TableOptions withClock(TableClock c) {
        return new TableOptions(shards, c, updates, memory);
    }

    public TableOptions withUpdates(UpdateRecording u) {
        return new TableOptions(shards, clock, u, memory);
    }

    public TableOptions withShards(int n) {
        return new TableOptions(n, clock, updates, memory);
    }

    public TableOptions withMemory(EntryMemory m) {
        return new TableOptions(shards, clock, updates, m);
    }
}
