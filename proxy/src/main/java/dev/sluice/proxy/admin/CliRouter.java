package dev.sluice.proxy.admin;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The master CLI's process prefixes ({@code @1}, {@code @!<pid>}, {@code @master}, {@code @}): decides, before the
 * registry, whether a command is for another process, and names the process the session talks to in its prompt.
 * A session's target is kept in the session ({@link CliSession#target()}).
 */
public interface CliRouter {
    /**
     * The answer when {@code line} is for another process or only changes the session's target (no separator is
     * added then: the other process's answer carries its own); null when the command runs here.
     */
    CompletionStage<String> route(CliSession session, String line, List<String> args);

    /** What the prompt shows for the session's target ({@code master}, or a worker's pid). */
    String prompt(CliSession session);
}
