package dev.sluice.pools;

/**
 * One thread slot's cache of free objects for one {@link Pool}: a ring used as a stack at the hot end
 * (release pushes, allocation pops the most recently released, still warm in the CPU cache) and drained
 * from the cold end when it is full. Only the slot's owner thread touches it, without synchronisation;
 * {@link #count} is read racily by {@code show pools} ("~N by thread caches", approximate by design).
 */
final class ThreadCache {
    private final Object[] items;
    private final int mask;
    private int base;
    int count;

    /** @param capacity a power of two */
    ThreadCache(int capacity) {
        items = new Object[capacity];
        mask = capacity - 1;
    }

    int capacity() {
        return items.length;
    }

    boolean isFull() {
        return count == items.length;
    }

    /** Adds at the hot end; the caller made room. */
    void push(Object o) {
        items[(base + count) & mask] = o;
        count++;
    }

    /** Removes the most recently pushed object, or returns null when empty. */
    Object pop() {
        if (count == 0) {
            return null;
        }
        count--;
        int i = (base + count) & mask;
        Object o = items[i];
        items[i] = null;
        return o;
    }

    /** Removes the least recently pushed object; the cache must not be empty. */
    Object removeOldest() {
        Object o = items[base];
        items[base] = null;
        base = (base + 1) & mask;
        count--;
        return o;
    }
}
