package dev.sluice.peers;

import dev.sluice.sticktable.DataLayout;
import dev.sluice.sticktable.DataType;
import dev.sluice.sticktable.KeyType;
import dev.sluice.sticktable.RateState;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;
import dev.sluice.sticktable.StoreItem;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The stick-table messages of the peers protocol: table definitions (sent and read), updates (written from an entry,
 * applied to a table), acks and switches, byte for byte as HAProxy 2.6's peer_prepare_switchmsg/updatemsg/ackmsg write
 * them and peer_treat_definemsg/updatemsg read them. Each {@code write*} method appends a whole message (class, type,
 * varint length, payload).
 */
public final class TableCodec {
    private TableCodec() {
    }

    /** The outcome of reading a message. */
    public enum Result {
        /** Read and applied. */
        OK,
        /** Skipped as HAProxy skips it (an unknown table, another key type, a table full). */
        IGNORED,
        /** Malformed: the session answers with a protocol error and closes. */
        MALFORMED
    }

    /** The network key type of a table (HAProxy's peer_net_key_type). */
    public static int netKeyType(KeyType t) {
        return switch (t) {
            case IP -> Wire.KT_IPV4;
            case IPV6 -> Wire.KT_IPV6;
            case INTEGER -> Wire.KT_SINT;
            case STRING -> Wire.KT_STR;
            case BINARY -> Wire.KT_BIN;
        };
    }

    /**
     * HAProxy's key_size of a table: 4 for ip and integer, 16 for ipv6, the length for binary, and for string the
     * length plus one for the terminating zero when {@code len} was given, 32 when not.
     */
    public static int keySize(KeyType t, int keyLength, boolean explicitLength) {
        if (t == KeyType.STRING) {
            return explicitLength ? keyLength + 1 : 32;
        }
        return t == KeyType.BINARY ? keyLength : t.defaultLength();
    }

    // ------------------------------------------------------------------ definition

    /** Appends the definition of {@code t} under the sender id {@code t.id()}. */
    public static void writeDefinition(ByteBuf out, SharedTable t) {
        ByteBuf p = out.alloc().heapBuffer(64);
        try {
            VarInt.encode(t.id(), p);
            byte[] name = t.name().getBytes(StandardCharsets.ISO_8859_1);
            VarInt.encode(name.length, p);
            p.writeBytes(name);
            VarInt.encode(netKeyType(t.table().keyType()), p);
            VarInt.encode(t.keySize(), p);
            long bits = 0;
            for (StoreItem it : t.table().spec().store().byId()) {
                bits |= 1L << it.type().id();
            }
            VarInt.encode(bits, p);
            VarInt.encode(t.table().expireMs(), p);
            for (StoreItem it : t.table().spec().store().byId()) {
                if (it.type().isArray()) {
                    VarInt.encode(it.type().id(), p);
                    VarInt.encode(it.count(), p);
                    if (it.type().isRate()) {
                        VarInt.encode(it.periodMs(), p);
                    }
                } else if (it.type().isRate()) {
                    VarInt.encode(it.type().id(), p);
                    VarInt.encode(it.periodMs(), p);
                }
            }
            writeMessage(out, Wire.STKT_DEFINE, p);
        } finally {
            p.release();
        }
    }

    /**
     * Reads a definition into {@code into} (one of {@code tables}, matched by name): its remote id, data types and
     * array sizes. Returns the table it names (null when IGNORED or MALFORMED, told by {@code result[0]}).
     */
    public static SharedTable readDefinition(ByteBuf in, Iterable<SharedTable> tables, Result[] result) {
        result[0] = Result.MALFORMED;
        long id = VarInt.decodeInt(in);
        if (id < 0) {
            return null;
        }
        long nameLen = VarInt.decodeInt(in);
        if (nameLen < 0 || nameLen == 0 || nameLen >= in.readableBytes()) {
            return null;
        }
        String name = in.toString(in.readerIndex(), (int) nameLen, StandardCharsets.ISO_8859_1);
        SharedTable match = null;
        for (SharedTable t : tables) {
            // as HAProxy: a new definition takes the id from whatever table had it
            if (t.remoteId == id) {
                t.remoteId = 0;
            }
            if (match == null && t.name().equals(name)) {
                match = t;
            }
        }
        if (match == null) {
            result[0] = Result.IGNORED;
            return null;
        }
        in.skipBytes((int) nameLen);
        long type = VarInt.decodeInt(in);
        long keyLen = type < 0 ? -1 : VarInt.decodeInt(in);
        long bits = keyLen < 0 ? -1 : VarInt.decode(in);
        if (type < 0 || keyLen < 0 || bits == VarInt.TRUNCATED || bits == VarInt.MALFORMED) {
            return null;
        }
        if (type != netKeyType(match.table().keyType()) || keyLen != match.keySize()) {
            result[0] = Result.IGNORED;
            return null;
        }
        int[] nbelem = new int[64];
        long expire = VarInt.decode(in);
        if (expire >= 0) {
            for (int dt = 0; dt < 64; dt++) {
                if ((bits & (1L << dt)) == 0) {
                    continue;
                }
                DataType d = DataType.byId(dt);
                if (d == null) {
                    break; // a type this side does not know: its parameters cannot be read (HAProxy stops at its last type too)
                }
                if (d.isArray() || d.isRate()) {
                    long prefix = VarInt.decode(in);
                    if (prefix != dt) {
                        result[0] = Result.IGNORED;
                        return null;
                    }
                    if (d.isArray()) {
                        long n = VarInt.decodeInt(in);
                        if (n < 0 || n > DataType.MAX_ARRAY_SIZE) {
                            result[0] = Result.IGNORED;
                            return null;
                        }
                        nbelem[dt] = (int) n;
                    }
                    if (d.isRate() && VarInt.decode(in) < 0) {
                        result[0] = Result.IGNORED;
                        return null;
                    }
                }
            }
        } else {
            for (int dt = 0; dt < 64; dt++) {
                DataType d = DataType.byId(dt);
                if ((bits & (1L << dt)) != 0 && d != null && d.isArray()) {
                    result[0] = Result.IGNORED;
                    return null;
                }
            }
        }
        match.remoteId = (int) id;
        match.remoteData = bits;
        match.remoteNbElem = nbelem;
        result[0] = Result.OK;
        return match;
    }

    // ------------------------------------------------------------------ switch, ack

    public static void writeAck(ByteBuf out, int remoteTableId, int update) {
        ByteBuf p = out.alloc().heapBuffer(10);
        try {
            VarInt.encode(remoteTableId, p);
            p.writeInt(update);
            writeMessage(out, Wire.STKT_ACK, p);
        } finally {
            p.release();
        }
    }

    public static void writeSwitch(ByteBuf out, int tableId) {
        ByteBuf p = out.alloc().heapBuffer(5);
        try {
            VarInt.encode(tableId, p);
            writeMessage(out, Wire.STKT_SWITCH, p);
        } finally {
            p.release();
        }
    }

    // ------------------------------------------------------------------ updates

    /**
     * Appends an update of {@code e}: with its 32-bit {@code updateId} unless {@code incremental} (the receiver counts
     * one up), with the remaining expire when {@code timed}. Values are read from the entry as they are now.
     */
    public static void writeUpdate(ByteBuf out, SharedTable t, StickEntry e, int updateId, boolean incremental, boolean timed,
            DictCache.Tx dict) {
        StickTable table = t.table();
        long now = table.now();
        ByteBuf p = out.alloc().heapBuffer(64);
        try {
            if (!incremental) {
                p.writeInt(updateId);
            }
            if (timed) {
                long remain = e.expireAt() - now;
                p.writeInt((int) Math.max(0, remain));
            }
            byte[] key = e.key().bytes();
            switch (table.keyType()) {
                case STRING -> {
                    int len = Math.min(key.length, t.keySize() - 1);
                    VarInt.encode(len, p);
                    p.writeBytes(key, 0, len);
                }
                case BINARY -> {
                    p.writeBytes(key, 0, Math.min(key.length, t.keySize()));
                    p.writeZero(Math.max(0, t.keySize() - key.length));
                }
                default -> p.writeBytes(key);
            }
            DataLayout layout = table.layout();
            for (StoreItem it : table.spec().store().byId()) {
                DataType d = it.type();
                for (int i = 0; i < it.count(); i++) {
                    switch (d.kind()) {
                        case SINT -> VarInt.encode(e.get(d, i) & 0xFFFF_FFFFL, p);
                        case UINT, ULL -> VarInt.encode(e.get(d, i), p);
                        case RATE -> {
                            RateState s = e.rateState(d, i);
                            VarInt.encode(s.started() ? (now - s.periodStartMs()) & 0xFFFF_FFFFL : 0, p);
                            VarInt.encode(s.current(), p);
                            VarInt.encode(s.previous(), p);
                        }
                        case DICT -> dict.write(e.serverKey(), p);
                    }
                }
            }
            assert layout != null;
            writeMessage(out, timed ? (incremental ? Wire.STKT_INCUPDATE_TIMED : Wire.STKT_UPDATE_TIMED)
                    : (incremental ? Wire.STKT_INCUPDATE : Wire.STKT_UPDATE), p);
        } finally {
            p.release();
        }
    }

    /**
     * Applies an update message of type {@code type} to {@code t} (the table the last definition or switch named; null:
     * the update is skipped). {@code t.lastGet} becomes the update's id. Entries are created as needed; types the table
     * does not store, {@code conn_cur} and elements beyond the local array sizes are read and dropped.
     */
    public static Result readUpdate(ByteBuf in, int type, SharedTable t, DictCache.Rx dict) {
        if (t == null) {
            return Result.IGNORED;
        }
        boolean withId = type == Wire.STKT_UPDATE || type == Wire.STKT_UPDATE_TIMED;
        boolean timed = type == Wire.STKT_UPDATE_TIMED || type == Wire.STKT_INCUPDATE_TIMED;
        if (withId) {
            if (in.readableBytes() < 4) {
                return Result.MALFORMED;
            }
            t.lastGet = in.readInt();
        } else {
            t.lastGet++;
        }
        long expire = -1;
        if (timed) {
            if (in.readableBytes() < 4) {
                return Result.MALFORMED;
            }
            expire = in.readInt();
            expire = expire < 0 ? 0 : expire;
        }
        StickTable table = t.table();
        StickKey key;
        switch (table.keyType()) {
            case STRING -> {
                long len = VarInt.decodeInt(in);
                if (len < 0 || len > in.readableBytes()) {
                    return Result.MALFORMED;
                }
                byte[] b = new byte[(int) Math.min(len, t.keySize() - 1)];
                in.getBytes(in.readerIndex(), b);
                in.skipBytes((int) len);
                key = table.keyOfBytes(b);
            }
            case INTEGER -> {
                if (in.readableBytes() < 4) {
                    return Result.MALFORMED;
                }
                key = table.keyOfInteger(in.readInt());
            }
            default -> {
                int n = t.keySize();
                if (in.readableBytes() < n) {
                    return Result.MALFORMED;
                }
                byte[] b = new byte[n];
                in.readBytes(b);
                key = table.keyType() == KeyType.BINARY ? table.keyOfBytes(b)
                        : table.keyType() == KeyType.IP ? StickKey.ipv4(b) : StickKey.ipv6(b);
            }
        }
        StickEntry e = table.track(key);
        if (e == null) {
            return Result.IGNORED;
        }
        try {
            Result r = readValues(in, t, e, dict);
            table.touchLearned(e, expire);
            return r;
        } finally {
            table.untrack(e);
        }
    }

    private static Result readValues(ByteBuf in, SharedTable t, StickEntry e, DictCache.Rx dict) {
        DataLayout layout = t.table().layout();
        long now = t.table().now();
        for (int dt = 0; dt < 64; dt++) {
            if ((t.remoteData & (1L << dt)) == 0) {
                continue;
            }
            DataType d = DataType.byId(dt);
            if (d == null) {
                return Result.OK; // a type this side does not know, and what follows it cannot be read
            }
            int n = d.isArray() ? t.remoteNbElem[dt] : 1;
            boolean keep = layout.stores(d) && d != DataType.CONN_CUR;
            int localCount = keep ? layout.count(d) : 0;
            for (int i = 0; i < n; i++) {
                if (d.kind() == DataType.Kind.DICT) {
                    Result r = dict.read(in);
                    if (r != Result.OK) {
                        return r;
                    }
                    if (keep && dict.last() != null) {
                        e.setServerKey(dict.last());
                    }
                    continue;
                }
                long v = VarInt.decode(in);
                if (v == VarInt.TRUNCATED || v == VarInt.MALFORMED) {
                    return Result.MALFORMED;
                }
                if (d.isRate()) {
                    long curr = VarInt.decode(in);
                    if (curr == VarInt.TRUNCATED || curr == VarInt.MALFORMED) {
                        return Result.MALFORMED;
                    }
                    long prev = VarInt.decode(in);
                    if (prev == VarInt.TRUNCATED || prev == VarInt.MALFORMED) {
                        return Result.MALFORMED;
                    }
                    if (keep && i < localCount) {
                        // an age past two periods means nothing is left; the table clock starts at 1 with the process,
                        // so a period that began before it is taken as beginning then
                        long period = layout.periodMs(d);
                        long age = Math.min(v & 0xFFFF_FFFFL, 2 * period + 1);
                        e.loadRate(d, i, curr == 0 && prev == 0 ? RateState.EMPTY
                                : new RateState(true, Math.max(1, now - age), curr & 0xFFFF_FFFFL, prev & 0xFFFF_FFFFL));
                    }
                } else if (keep && i < localCount) {
                    e.set(d, i, v);
                }
            }
        }
        return Result.OK;
    }

    /** Class, type, varint length, payload. */
    static void writeMessage(ByteBuf out, int type, ByteBuf payload) {
        out.writeByte(Wire.CLASS_STICKTABLE);
        out.writeByte(type);
        VarInt.encode(payload.readableBytes(), out);
        out.writeBytes(payload, payload.readerIndex(), payload.readableBytes());
    }
}
