package dev.sluice.peers;

import java.util.ArrayList;
import java.util.List;

/**
 * One peer of a section (HAProxy's struct peer): where it is, the session with it (at most one), the status of the
 * last handshake, the timers and flags of the sync task, the tables as this peer sees them, and the counters
 * {@code show peers} prints. Confined to the section's event loop; the fields {@code show peers} and the metrics read
 * are volatile.
 */
public final class Peer {
    // flags (HAProxy's PEER_F_*)
    static final int TEACH_PROCESS = 0x1;
    static final int TEACH_FINISHED = 0x8;
    static final int TEACH_COMPLETE = 0x10;
    static final int LEARN_ASSIGN = 0x100;
    static final int LEARN_NOTUP2DATE = 0x200;
    static final int ALIVE = 0x20000000;
    static final int HEARTBEAT = 0x40000000;

    private final String name;
    private final String host;
    private final int port;
    private final boolean local;
    final List<SharedTable> tables = new ArrayList<>();

    volatile PeerSession session;
    volatile int statusCode;
    volatile int flags;
    volatile long reconnectAt = Long.MIN_VALUE;
    volatile long heartbeatAt = Long.MAX_VALUE;
    volatile long lastHandshake;
    volatile long lastChange;
    int confirm;
    /** The table the last update sent belonged to (HAProxy's last_local_table). */
    SharedTable lastLocalTable;

    // counters
    volatile long newConn;
    volatile long protoErr;
    volatile long coll;
    volatile long noHbt;
    volatile long txHbt;
    volatile long rxHbt;
    volatile long messagesIn;
    volatile long messagesOut;

    Peer(String name, String host, int port, boolean local, List<SharedTable> sectionTables) {
        this.name = name;
        this.host = host;
        this.port = port;
        this.local = local;
        for (SharedTable t : sectionTables) {
            tables.add(t.copy());
        }
    }

    public String name() {
        return name;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public boolean local() {
        return local;
    }

    public int statusCode() {
        return statusCode;
    }

    public int flags() {
        return flags;
    }

    public boolean connected() {
        PeerSession s = session;
        return s != null && s.established();
    }

    public PeerSession session() {
        return session;
    }

    public List<SharedTable> tables() {
        return tables;
    }

    public long reconnectAt() {
        return reconnectAt;
    }

    public long heartbeatAt() {
        return heartbeatAt;
    }

    public long lastHandshake() {
        return lastHandshake;
    }

    public long newConn() {
        return newConn;
    }

    public long protoErr() {
        return protoErr;
    }

    public long coll() {
        return coll;
    }

    public long noHbt() {
        return noHbt;
    }

    public long txHbt() {
        return txHbt;
    }

    public long rxHbt() {
        return rxHbt;
    }

    public long messagesIn() {
        return messagesIn;
    }

    public long messagesOut() {
        return messagesOut;
    }

    public int confirm() {
        return confirm;
    }

    boolean has(int f) {
        return (flags & f) != 0;
    }

    void set(int f) {
        flags |= f;
    }

    void clear(int f) {
        flags &= ~f;
    }

    SharedTable tableByRemoteId(int id) {
        for (SharedTable t : tables) {
            if (t.remoteId == id) {
                return t;
            }
        }
        return null;
    }

    SharedTable tableByLocalId(int id) {
        for (SharedTable t : tables) {
            if (t.id() == id) {
                return t;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "peer " + name + (local ? " (local)" : "") + " " + host + ":" + port;
    }
}
