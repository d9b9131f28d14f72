package dev.sluice.sticktable;

import java.util.List;

/**
 * A parsed {@code show table}, {@code clear table} or {@code set table} command on one table: which
 * entries it addresses and, for {@code set}, the values to store. Built by {@link TableCommandArgs}; the
 * admin layer runs it with {@link StickTable#forEach}, {@link StickTable#clear} or
 * {@link StickTable#set}. Immutable.
 */
public record TableCommand(Action action, TableQuery query, List<DataAssignment> values) {

    /** The three table commands. */
    public enum Action { SHOW, CLEAR, SET }

    public TableCommand {
        values = List.copyOf(values);
    }
}
