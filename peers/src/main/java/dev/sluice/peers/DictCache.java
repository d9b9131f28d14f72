package dev.sluice.peers;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The per-session dictionary of {@code server_key} values (HAProxy's dcache): the sender numbers each new value in a
 * ring of {@link Wire#DICT_ENTRIES} slots and sends it once with its number, then only the number; the receiver keeps
 * what each number stands for. Both sides start empty with each session. Not thread-safe: one session's.
 */
public final class DictCache {
    private DictCache() {
    }

    /** The sending side. */
    public static final class Tx {
        private final String[] slots = new String[Wire.DICT_ENTRIES];
        private final Map<String, Integer> ids = new HashMap<>();
        private int next;

        /** The value in slot {@code i}, or null (for 'show peers dict'). */
        public String slot(int i) {
            return slots[i];
        }

        /** Appends the encoding of {@code value} (null: none). */
        public void write(String value, ByteBuf out) {
            if (value == null) {
                VarInt.encode(0, out);
                return;
            }
            Integer id = ids.get(value);
            if (id != null) {
                VarInt.encode(1, out);
                VarInt.encode(id + 1, out);
                return;
            }
            int slot = next;
            next = (next + 1) % Wire.DICT_ENTRIES;
            if (slots[slot] != null) {
                ids.remove(slots[slot]);
            }
            slots[slot] = value;
            ids.put(value, slot);
            byte[] b = value.getBytes(StandardCharsets.UTF_8);
            int dataLen = VarInt.size(slot + 1) + VarInt.size(b.length) + b.length;
            VarInt.encode(dataLen, out);
            VarInt.encode(slot + 1, out);
            VarInt.encode(b.length, out);
            out.writeBytes(b);
        }
    }

    /** The receiving side. */
    public static final class Rx {
        private final String[] slots = new String[Wire.DICT_ENTRIES];
        private String last;

        /** The value in slot {@code i}, or null (for 'show peers dict'). */
        public String slot(int i) {
            return slots[i];
        }

        /** The value the last {@link #read} gave (null: none). */
        public String last() {
            return last;
        }

        /** Reads one value; MALFORMED as HAProxy finds it so (plus an id past the ring, which HAProxy does not check). */
        public TableCodec.Result read(ByteBuf in) {
            last = null;
            long len = VarInt.decodeInt(in);
            if (len < 0) {
                return TableCodec.Result.MALFORMED;
            }
            if (len == 0) {
                return TableCodec.Result.OK;
            }
            if (len > in.readableBytes()) {
                return TableCodec.Result.MALFORMED;
            }
            ByteBuf data = in.readSlice((int) len);
            long id = VarInt.decodeInt(data);
            if (id <= 0 || id > Wire.DICT_ENTRIES) {
                return TableCodec.Result.MALFORMED;
            }
            if (!data.isReadable()) {
                last = slots[(int) id - 1];
                return TableCodec.Result.OK;
            }
            long vlen = VarInt.decodeInt(data);
            if (vlen < 0 || vlen > data.readableBytes()) {
                return TableCodec.Result.MALFORMED;
            }
            last = data.readCharSequence((int) vlen, StandardCharsets.UTF_8).toString();
            slots[(int) id - 1] = last;
            return TableCodec.Result.OK;
        }
    }
}
