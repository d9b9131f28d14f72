package dev.sluice.proxy.admin;

import dev.sluice.config.model.StatsSocket.Level;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * What a command handler sees: the words of the command line (the command's own words included, as
 * HAProxy's {@code args[]}), the session's level, and the few session changes a command may make.
 * Lives for one command, on the session's event loop.
 */
public final class CliRequest {
    /** HAProxy's answer when the session's level is too low. */
    public static final String PERMISSION_DENIED = "Permission denied\n";

    private final List<String> args;
    private final CliSession session;

    CliRequest(List<String> args, CliSession session) {
        this.args = args;
        this.session = session;
    }

    public List<String> args() {
        return args;
    }

    /** Word {@code i} of the line, or "" when the line is shorter (HAProxy pads its args with empty strings). */
    public String arg(int i) {
        return i < args.size() ? args.get(i) : "";
    }

    public Level level() {
        return session.level();
    }

    /** Whether the session may do what needs {@code required}. */
    public boolean allowed(Level required) {
        return session.level().allows(required);
    }

    /** The registry the command was found in (for {@code help}). */
    public CliRegistry registry() {
        return session.registry();
    }

    void level(Level l) {
        session.level(l);
    }

    /**
     * Answers later: the handler returns what this returns (null) and the session sends {@code answer} once
     * it completes, taking no further command meanwhile. For commands that read or change state owned by
     * the event loops (live streams, idle connections): they gather it with a task on each loop rather than
     * share it under a lock. The answer may complete on any thread.
     */
    public String later(CompletionStage<String> answer) {
        session.defer(answer);
        return null;
    }

    /**
     * Answers with a stream: the handler returns what this returns (null) and the connection writes the stream's
     * chunks until it ends or the client sends anything or leaves; then, unless the session ends, the separator.
     */
    public String stream(CliStream s) {
        session.stream(s);
        return null;
    }

    /** HAProxy prints some answers without the empty line that ends the others ({@code del server}): this one too. */
    public void noSeparator() {
        session.suppressNewline();
    }

    public CliSession session() {
        return session;
    }
}
