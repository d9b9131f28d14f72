package dev.sluice.sticktable;

/**
 * The millisecond clock a table reads for expiry dates and rate periods (HAProxy's {@code now_ms}). Must
 * be monotonic and stay within [0, 2^60). Implementations are called from any thread. Tests inject a
 * settable clock; the proxy may pass a coarse per-loop clock to save the {@code nanoTime} call.
 */
@FunctionalInterface
public interface TableClock {

    long nowMillis();

    /** Milliseconds since this class was loaded, plus one, from {@link System#nanoTime()}. */
    TableClock SYSTEM = new TableClock() {
        private final long origin = System.nanoTime();

        @Override
        public long nowMillis() {
            return (System.nanoTime() - origin) / 1_000_000L + 1;
        }
    };
}
