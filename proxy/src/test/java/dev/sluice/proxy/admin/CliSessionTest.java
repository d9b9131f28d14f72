package dev.sluice.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.StatsSocket.Level;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The session commands, levels, prompt modes, help and the unknown-command message. */
class CliSessionTest {

    private static CliRegistry registry() {
        CliRegistry r = new CliRegistry();
        r.register(new CliCommand(List.of("show", "info"), Level.USER, "show info [desc|json|typed|float]*",
                "report information about the running process", req -> "info\n"));
        r.register(new CliCommand(List.of("show", "stat"), Level.USER, "show stat [desc|json|no-maint|typed|up]*",
                "report counters for each proxy and server", req -> "stat\n"));
        r.register(new CliCommand(List.of("set", "server"), Level.ADMIN, "set server <bk>/<srv> [opts]",
                "change a server's state or weight", req -> ""));
        r.register(new CliCommand(List.of("clear", "counters"), Level.OPERATOR, "clear counters [all]",
                "clear max statistics counters (or all counters)", req -> ""));
        return r;
    }

    @Test
    void answersEndWithAnEmptyLine() {
        CliSession s = new CliSession(registry(), Level.ADMIN);
        assertThat(s.execute("show info")).isEqualTo("info\n\n");
        assertThat(s.execute("set server a/b state ready")).isEqualTo("\n");
        assertThat(s.execute("show cli level")).isEqualTo("admin\n\n");
    }

    @Test
    void promptModeAddsThePrompt() {
        CliSession s = new CliSession(registry(), Level.ADMIN);
        assertThat(s.execute("prompt")).isEqualTo("\n> ");
        assertThat(s.mode()).isEqualTo(CliSession.Mode.PROMPT);
        assertThat(s.execute("show cli level")).isEqualTo("admin\n\n> ");
        assertThat(s.execute("prompt")).isEqualTo("\n");
        assertThat(s.mode()).isEqualTo(CliSession.Mode.NON_INTERACTIVE);
        assertThat(s.execute("prompt i")).isEqualTo("\n");
        assertThat(s.mode()).isEqualTo(CliSession.Mode.INTERACTIVE);
        assertThat(s.execute("prompt p")).isEqualTo("\n> ");
        assertThat(s.execute("prompt n")).isEqualTo("\n");
        assertThat(s.mode()).isEqualTo(CliSession.Mode.NON_INTERACTIVE);
    }

    @Test
    void quitAnswersNothing() {
        CliSession s = new CliSession(registry(), Level.USER);
        assertThat(s.execute("quit")).isEmpty();
        assertThat(s.quit()).isTrue();
    }

    @Test
    void levelsAreEnforcedAndOnlyGoDown() {
        CliSession user = new CliSession(registry(), Level.USER);
        assertThat(user.execute("set server a/b state maint")).isEqualTo("Permission denied\n\n");
        assertThat(user.execute("clear counters")).isEqualTo("Permission denied\n\n");
        assertThat(user.execute("operator")).isEqualTo("Permission denied\n\n");
        assertThat(user.execute("show cli level")).isEqualTo("user\n\n");

        CliSession admin = new CliSession(registry(), Level.ADMIN);
        assertThat(admin.execute("operator")).isEqualTo("\n");
        assertThat(admin.execute("show cli level")).isEqualTo("operator\n\n");
        assertThat(admin.execute("set server a/b state maint")).isEqualTo("Permission denied\n\n");
        assertThat(admin.execute("clear counters")).isEqualTo("\n");
        assertThat(admin.execute("user")).isEqualTo("\n");
        assertThat(admin.execute("clear counters")).isEqualTo("Permission denied\n\n");
        // "user -" leaves out the empty line, as HAProxy does
        assertThat(new CliSession(registry(), Level.ADMIN).execute("user -")).isEmpty();
    }

    @Test
    void helpListsSortedUsageThenTheFixedLines() {
        String help = new CliSession(registry(), Level.USER).execute("help");
        assertThat(help).isEqualTo("""
                The following commands are valid at this level:
                  clear counters [all]                    : clear max statistics counters (or all counters)
                  operator                                : lower the level of the current CLI session to operator
                  set server <bk>/<srv> [opts]            : change a server's state or weight
                  show cli level                          : display the level of the current CLI session
                  show info [desc|json|typed|float]*      : report information about the running process
                  show stat [desc|json|no-maint|typed|up]*: report counters for each proxy and server
                  user                                    : lower the level of the current CLI session to user
                  help [<command>]                        : list matching or all commands
                  prompt                                  : toggle interactive mode with prompt
                  quit                                    : disconnect

                """);
        assertThat(new CliSession(registry(), Level.USER).execute("help show")).startsWith("""
                The following commands are valid at this level:
                  show cli level                          : display the level of the current CLI session
                  show info [desc|json|typed|float]*      : report information about the running process
                  show stat [desc|json|no-maint|typed|up]*: report counters for each proxy and server
                  help [<command>]""");
        assertThat(new CliSession(registry(), Level.USER).execute("help quit")).isEqualTo("""
                The following commands are valid at this level:
                  help [<command>]                        : list matching or all commands
                  prompt                                  : toggle interactive mode with prompt
                  quit                                    : disconnect

                """);
    }

    @Test
    void unknownCommandsGetSuggestions() {
        assertThat(new CliSession(registry(), Level.USER).execute("show stats")).isEqualTo("""
                Unknown command, but maybe one of the following ones is a better match:
                  show stat [desc|json|no-maint|typed|up]*: report counters for each proxy and server
                  help [<command>]                        : list matching or all commands
                  prompt                                  : toggle interactive mode with prompt
                  quit                                    : disconnect

                """);
        assertThat(new CliSession(registry(), Level.USER).execute("")).startsWith(
                "Unknown command. Please enter one of the following commands only:\n  clear counters [all]");
        assertThat(new CliSession(registry(), Level.USER).execute("show")).startsWith(
                "Unknown command, but maybe one of the following ones is a better match:\n  show cli level");
    }

    @Test
    void fingerprintDistanceCountsTransitions() {
        assertThat(CliRegistry.distance(CliRegistry.fingerprint(List.of("stat")), CliRegistry.fingerprint(List.of("stat")))).isZero();
        // "stats" against "stat": t->end becomes t->s, s->end
        assertThat(CliRegistry.distance(CliRegistry.fingerprint(List.of("stats")), CliRegistry.fingerprint(List.of("stat")))).isEqualTo(3);
    }

    @Test
    void registeringTwiceFails() {
        CliRegistry r = registry();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> r.register(new CliCommand(List.of("show", "info"), Level.USER, "x", "y",
                req -> ""))).isInstanceOf(IllegalStateException.class);
    }
}
