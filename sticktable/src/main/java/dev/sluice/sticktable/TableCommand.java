package dev.sluice.sticktable;

import java.util.List;

/**
 * A parsed {@code show table}, {@code clear table} or {@code set table} command on one table: which
 * entries it addresses and, for {@code set}, the values to store. Built by {@link TableCommandArgs}; run
 * by {@link TableCli}. Immutable.
 *
 * @param values for {@code set}: the assignments that parsed, in order
 * @param error for {@code set}: HAProxy's message for the first assignment that did not parse (null when
 *              all did). HAProxy creates or finds the entry, stores the values before the bad one, touches
 *              the entry and only then answers the error, so the error is kept for after the change.
 */
public record TableCommand(Action action, TableQuery query, List<DataAssignment> values, String error) {

    /** The three table commands. */
    public enum Action { SHOW, CLEAR, SET }

    public TableCommand {
        values = List.copyOf(values);
    }

    public TableCommand(Action action, TableQuery query, List<DataAssignment> values) {
        this(action, query, values, null);
    }

    /** True when the command addresses one entry ({@code key} or {@code ptr}): HAProxy then needs operator level. */
    public boolean singleEntry() {
        return query instanceof TableQuery.ByKey || query instanceof TableQuery.ByPtr;
    }
}
