package dev.sluice.config;

import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Program;
import org.junit.jupiter.api.Test;

/** The {@code program} section, with HAProxy 2.6.12's messages (haproxy -c). */
class ProgramKeywordsTest {

    @Test
    void programsWithTheirCommandsAndOptions() {
        Config c = valid(Configs.DEFAULTS + """
                program sleeper
                    command sleep 1000
                program keeper
                    command sh -c "echo started; exec sleep 1001"
                    user daemon
                    group daemon
                    no option start-on-reload
                program again
                    command true
                    no option start-on-reload
                    option start-on-reload
                """);
        assertThat(c.programs()).extracting(Program::name, Program::command, Program::user, Program::group, Program::startOnReload).containsExactly(
                tuple("sleeper", java.util.List.of("sleep", "1000"), null, null, true),
                tuple("keeper", java.util.List.of("sh", "-c", "echo started; exec sleep 1001"), "daemon", "daemon", false),
                tuple("again", java.util.List.of("true"), null, null, true));
        assertThat(c.programs().get(1).userAt().line()).isEqualTo(10);
    }

    @Test
    void linesAreCheckedAsHaproxyDoes() {
        var r = parse(Configs.DEFAULTS + """
                program p1
                    command
                    option
                    option foo
                    option start-on-reload x
                    user
                    bogus 1
                    user root
                    user daemon
                    group root
                    group daemon
                program p1
                program a b
                program
                program nocommand
                """);
        assertThat(Configs.errors(r)).extracting(Diagnostic::line, Diagnostic::message).containsExactly(
                tuple(7, "'command' expects a command with optional arguments separated in words."),
                tuple(8, "'option' expects an option name."),
                tuple(9, "unknown option 'foo'."),
                tuple(10, "'option start-on-reload' cannot handle unexpected argument 'x'."),
                tuple(11, "'user' expects a user name."),
                tuple(12, "unknown keyword 'bogus' in 'program' section"),
                tuple(14, "user/uid already specified. Continuing."),
                tuple(16, "group/gid already specified. Continuing."),
                tuple(17, "'p1' program section already exists in the configuration."),
                tuple(18, "'program' cannot handle unexpected argument 'b'."),
                tuple(19, "'program' expects an <id> argument"),
                tuple(6, "The program section 'p1' lacks a command to launch."),
                tuple(20, "The program section 'nocommand' lacks a command to launch."));
    }
}
