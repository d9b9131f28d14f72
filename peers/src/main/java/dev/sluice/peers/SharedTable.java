package dev.sluice.peers;

import dev.sluice.sticktable.StickTable;

/**
 * One table as one peer session sees it (HAProxy's shared_table): the local table with its id in this section and
 * HAProxy's key size, what the remote side announced for it (its id, data types, array sizes), and the positions:
 * {@code lastGet} (the last update id received, acknowledged when it differs from {@code lastAcked}), {@code lastPushed}
 * (the last local update number sent), {@code acked} (the last number the peer acknowledged: where a new session
 * starts), {@code teachingOrigin}. Confined to the session's event loop, except the positions {@code show peers} reads.
 */
public final class SharedTable {
    private final int id;
    private final StickTable table;
    private final int keySize;
    private final String wireName;

    volatile int remoteId;
    volatile long remoteData;
    int[] remoteNbElem = new int[64];
    volatile int lastGet;
    volatile int lastAcked;
    volatile long lastPushed;
    volatile long acked;
    volatile long teachingOrigin;
    /** The entries of a lesson still to send (null when none is under way); whether the lesson of this table is over. */
    java.util.ArrayDeque<dev.sluice.sticktable.StickEntry> teach;
    boolean teachDone;

    /**
     * @param wireName the name sent in definitions and matched in the peer's: a proxy's table goes by the proxy's name,
     *                 a peers section's table by {@code /<table>} (HAProxy 2.6 sends the part of {@code <section>/<table>}
     *                 after the section's name)
     */
    public SharedTable(int id, StickTable table, int keySize, String wireName) {
        this.id = id;
        this.table = table;
        this.keySize = keySize;
        this.wireName = wireName;
    }

    /** The wire name of a table named {@code name} in Sluice ({@code <section>/<table>} for a peers section's). */
    public static String wireName(String name, String section) {
        return name.startsWith(section + "/") ? name.substring(section.length()) : name;
    }

    /** A copy for another peer: same table and id, fresh positions. */
    public SharedTable copy() {
        return new SharedTable(id, table, keySize, wireName);
    }

    public int id() {
        return id;
    }

    /** The name on the wire (see the constructor). */
    public String name() {
        return wireName;
    }

    public StickTable table() {
        return table;
    }

    public int keySize() {
        return keySize;
    }

    public int remoteId() {
        return remoteId;
    }

    public long remoteData() {
        return remoteData;
    }

    public int lastGet() {
        return lastGet;
    }

    public int lastAcked() {
        return lastAcked;
    }

    public long lastPushed() {
        return lastPushed;
    }

    public long acked() {
        return acked;
    }

    public long teachingOrigin() {
        return teachingOrigin;
    }
}
