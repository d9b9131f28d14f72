package dev.sluice.proxy.admin;

import dev.sluice.config.model.StatsSocket.Level;
import java.util.List;

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

    CliSession session() {
        return session;
    }
}
