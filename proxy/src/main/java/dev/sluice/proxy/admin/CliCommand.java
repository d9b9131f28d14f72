package dev.sluice.proxy.admin;

import dev.sluice.config.model.StatsSocket.Level;
import java.util.List;

/**
 * One admin command: the words that name it ({@code show servers state}), the level a session needs to
 * run it at all (a handler may demand more for some arguments, as {@code clear counters all} does), the
 * syntax and description printed by {@code help}, and the handler. Immutable.
 */
public record CliCommand(List<String> words, Level level, String syntax, String description, Handler handler) {

    public CliCommand {
        words = List.copyOf(words);
    }

    /** Runs a command: returns its whole output (usually ending with a newline), or "" for none. */
    @FunctionalInterface
    public interface Handler {
        String run(CliRequest request);
    }

    /** The help line, HAProxy's layout: syntax padded to 40 columns, then ": " and the description. */
    public String usage() {
        return String.format("%-40s: %s", syntax, description);
    }
}
