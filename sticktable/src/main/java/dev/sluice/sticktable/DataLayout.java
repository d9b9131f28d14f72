package dev.sluice.sticktable;

import java.util.Arrays;

/**
 * Where each stored data type lives in an entry's {@code long[]}: one slot per 32/64-bit value, two per
 * rate counter ({@link RateCounter}), {@code n} times that for an array type; types are laid out in id
 * order. {@code server_key} has no slot (it is a string kept in a side field of the entry). Built once per
 * table from its {@link StoreSpec}; immutable and shared by all threads.
 */
public final class DataLayout {
    private final StoreSpec store;
    private final int[] offset = new int[DataType.values().length];
    private final int[] count = new int[DataType.values().length];
    private final long[] period = new long[DataType.values().length];
    private final int slots;

    public DataLayout(StoreSpec store) {
        this.store = store;
        Arrays.fill(offset, -1);
        int next = 0;
        for (StoreItem it : store.byId()) {
            int id = it.type().id();
            count[id] = it.count();
            period[id] = it.periodMs();
            if (it.type().kind() == DataType.Kind.DICT) {
                offset[id] = 0;
                continue;
            }
            offset[id] = next;
            next += it.count() * slotsPerElement(it.type());
        }
        this.slots = next;
    }

    static int slotsPerElement(DataType t) {
        return switch (t.kind()) {
            case RATE -> RateCounter.SLOTS;
            case DICT -> 0;
            default -> 1;
        };
    }

    public StoreSpec store() {
        return store;
    }

    /** True when the table stores {@code type}. A fetch on a type not stored is "no match". */
    public boolean stores(DataType type) {
        return offset[type.ordinal()] >= 0;
    }

    /** Number of elements of {@code type} (1 for scalars), 0 when not stored. */
    public int count(DataType type) {
        return count[type.ordinal()];
    }

    /** Rate period in ms of {@code type} (0 for non-rates and types not stored). */
    public long periodMs(DataType type) {
        return period[type.ordinal()];
    }

    /** Slots of the per-entry array. */
    public int slots() {
        return slots;
    }

    /**
     * Slot of element {@code index} of {@code type}, or -1 when not stored or out of range. Hot paths call
     * this with constants, so it stays a couple of array loads.
     */
    int slot(DataType type, int index) {
        int id = type.ordinal();
        int off = offset[id];
        if (off < 0 || index < 0 || index >= count[id]) {
            return -1;
        }
        return type.kind() == DataType.Kind.RATE ? off + index * RateCounter.SLOTS : off + index;
    }

    /** Slot of a scalar type, or -1. */
    int slot(DataType type) {
        return offset[type.ordinal()];
    }

    long period(DataType type) {
        return period[type.ordinal()];
    }
}
