package dev.sluice.sticktable;

import java.util.concurrent.atomic.AtomicLong;

/** A table clock tests move by hand. */
final class ManualClock implements TableClock {
    private final AtomicLong now;

    ManualClock(long start) {
        now = new AtomicLong(start);
    }

    @Override
    public long nowMillis() {
        return now.get();
    }

    void set(long ms) {
        now.set(ms);
    }

    void advance(long ms) {
        now.addAndGet(ms);
    }

    static TableOptions options(ManualClock c) {
        return TableOptions.DEFAULT.withClock(c);
    }
}
