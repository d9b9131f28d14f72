package dev.sluice.sticktable;

/**
 * Where a table accounts the memory of its entries: the proxy backs it with a budget of its pools, held to
 * the {@code -m} ceiling, as HAProxy allocates entries from its {@code sticktables} pool. {@link #take} is
 * called before an entry is created (false: it is not, and the caller does nothing, as with a full
 * {@code nopurge} table), {@link #give} once for each entry that leaves the table. Implementations are
 * thread-safe and cheap: they run on the creating and purging threads, never under a shard lock.
 */
public interface EntryMemory {
    boolean take();

    void give();

    /** The estimated bytes of one entry of a table with this layout and key length, for the budget's size. */
    static int entrySize(DataLayout layout, int keyLength) {
        // StickEntry (header, refs, expiry, update links, references: ~96 bytes), its long[] (16 + 8 per slot),
        // the StickKey and its byte[] (16 + 16 + key), the index's map node (~48) and the expiry queue's (~40)
        return 96 + 16 + 8 * layout.slots() + 32 + keyLength + 48 + 40;
    }
}
