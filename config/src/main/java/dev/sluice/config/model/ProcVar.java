package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A global {@code set-var <name> <expr>} ({@code format} false) or {@code set-var-fmt <name> <format>} line: a process
 * variable ({@code proc.} scope) set when the configuration is read, in order, with the conditions written after its name
 * ({@code proc.x,ifnotset}); {@code directory} is where relative paths of its expression (maps) start from
 * ({@code default-path}; null: the start directory).
 */
public record ProcVar(String name, List<String> conditions, String expression, boolean format, SourceRef where, String directory) {
    public ProcVar {
        conditions = List.copyOf(conditions);
    }
}
