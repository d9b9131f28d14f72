package dev.sluice.proxy.admin;

import dev.sluice.config.model.StatsSocket.Level;
import java.util.List;

/**
 * The CLI's own commands: {@code help}, {@code prompt}, {@code quit} (listed by help on fixed lines, as
 * HAProxy does), {@code show cli level}, and {@code operator}/{@code user}, which lower the session's level
 * (raising it is refused).
 */
final class SessionCommands {
    private SessionCommands() {
    }

    static void register(CliRegistry r) {
        r.register(new CliCommand(List.of("help"), Level.USER, null, null, req -> req.registry().usage(req.args(), true)));
        r.register(new CliCommand(List.of("prompt"), Level.USER, null, null, SessionCommands::prompt));
        r.register(new CliCommand(List.of("quit"), Level.USER, null, null, req -> {
            req.session().requestQuit();
            return "";
        }));
        r.register(new CliCommand(List.of("show", "cli", "level"), Level.USER, "show cli level",
                "display the level of the current CLI session", req -> req.level().keyword() + "\n"));
        r.register(new CliCommand(List.of("operator"), Level.USER, "operator",
                "lower the level of the current CLI session to operator", req -> lower(req, Level.OPERATOR)));
        r.register(new CliCommand(List.of("user"), Level.USER, "user",
                "lower the level of the current CLI session to user", req -> lower(req, Level.USER)));
    }

    /**
     * {@code prompt} toggles interactive mode with a prompt (HAProxy 2.6 ignores any argument); as in
     * HAProxy 3.x, {@code prompt n}, {@code prompt i} and {@code prompt p} choose non-interactive,
     * interactive without prompt, and interactive with prompt.
     */
    private static String prompt(CliRequest req) {
        CliSession s = req.session();
        switch (req.arg(1)) {
            case "n" -> s.mode(CliSession.Mode.NON_INTERACTIVE);
            case "i" -> s.mode(CliSession.Mode.INTERACTIVE);
            case "p" -> s.mode(CliSession.Mode.PROMPT);
            default -> s.mode(s.mode() == CliSession.Mode.NON_INTERACTIVE ? CliSession.Mode.PROMPT : CliSession.Mode.NON_INTERACTIVE);
        }
        return "";
    }

    private static String lower(CliRequest req, Level to) {
        if (req.arg(1).equals("-")) {
            req.session().suppressNewline();
        }
        if (!req.allowed(to)) {
            return CliRequest.PERMISSION_DENIED;
        }
        req.level(to);
        return "";
    }
}
