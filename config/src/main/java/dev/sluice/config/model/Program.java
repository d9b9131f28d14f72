package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A {@code program <name>} section: a command the master of master-worker mode starts beside its workers
 * ({@code command}, its words), as {@code user} and {@code group} (names; null: the master's), started again at each
 * reload unless {@code no option start-on-reload} ({@code startOnReload}). {@code userAt} and {@code groupAt} are where
 * those lines are, for the errors of their lookup. Immutable.
 */
public record Program(SourceRef where, String name, List<String> command, String user, SourceRef userAt, String group, SourceRef groupAt,
        boolean startOnReload) {

    public Program {
        command = List.copyOf(command);
    }
}
