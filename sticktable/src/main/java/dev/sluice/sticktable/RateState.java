package dev.sluice.sticktable;

/**
 * A raw snapshot of one rate counter: the start of its current period (ms on the table clock), the
 * event count of the current period and of the previous one (both unsigned 32-bit). {@code started} is
 * false for a counter that never saw an event. Peers replication sends and applies rates in this form
 * (age of the current period, current, previous). Immutable.
 */
public record RateState(boolean started, long periodStartMs, long current, long previous) {

    public static final RateState EMPTY = new RateState(false, 0, 0, 0);
}
