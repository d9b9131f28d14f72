package dev.sluice.pools;

import java.util.concurrent.atomic.AtomicBoolean;

/** A pooled test object that knows whether it is handed out, so a test sees an object handed out twice. */
final class Item {
    final AtomicBoolean out = new AtomicBoolean();
    final int serial;
    long value;
    int resets;

    Item(int serial) {
        this.serial = serial;
    }

    /** Marks the object taken by a caller; false if it already was. */
    boolean take() {
        return out.compareAndSet(false, true);
    }

    void giveBack() {
        out.set(false);
    }
}
