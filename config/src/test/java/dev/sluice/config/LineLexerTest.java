package dev.sluice.config;

import static dev.sluice.config.Configs.FILE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.ListenAddress;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class LineLexerTest {

    private static final Map<String, String> ENV = Map.of(
            "HOME", "/home/u",
            "PORT", "8080",
            "LIST", "  a b\tc  ",
            "EMPTY", "");

    private final LineLexer lexer = new LineLexer(ENV::get);

    private List<String> words(String line) {
        LineLexer.Result r = lexer.split(line);
        assertThat(r.error()).as("error for <%s>", line).isNull();
        assertThat(r.ok()).isTrue();
        return r.words();
    }

    static Stream<Arguments> splitting() {
        return Stream.of(
                Arguments.of("", List.of()),
                Arguments.of("   \t  ", List.of()),
                Arguments.of("bind :80", List.of("bind", ":80")),
                Arguments.of("  a\tb   c  ", List.of("a", "b", "c")),
                Arguments.of("a\fb\rc", List.of("a", "b", "c")),
                // comments
                Arguments.of("# a comment", List.of()),
                Arguments.of("    # indented comment", List.of()),
                Arguments.of("a b # comment c", List.of("a", "b")),
                Arguments.of("a b#comment", List.of("a", "b")),
                Arguments.of("a \"#not a comment\"", List.of("a", "#not a comment")),
                Arguments.of("a '#not a comment'", List.of("a", "#not a comment")),
                Arguments.of("a \\#b", List.of("a", "#b")),
                // weak quoting and expansion
                Arguments.of("\"a b\"", List.of("a b")),
                Arguments.of("\"$HOME\"", List.of("/home/u")),
                Arguments.of("\"$HOME/x\"", List.of("/home/u/x")),
                Arguments.of("\"${HOME}x\"", List.of("/home/ux")),
                Arguments.of("\":${PORT}\"", List.of(":8080")),
                Arguments.of("\"${UNSET}\"", List.of("")),
                Arguments.of("\"$UNSET\"", List.of("")),
                Arguments.of("x\"${UNSET}\"y", List.of("xy")),
                Arguments.of("\"${UNSET-fallback}\"", List.of("fallback")),
                Arguments.of("\"${UNSET-}\"", List.of("")),
                Arguments.of("\"${PORT-9999}\"", List.of("8080")),
                Arguments.of("\"${EMPTY-x}\"", List.of("")),
                Arguments.of("\"${LIST[*]}\"", List.of("a", "b", "c")),
                Arguments.of("x \"<${LIST[*]}>\" y", List.of("x", "<a", "b", "c>", "y")),
                Arguments.of("\"$\"", List.of("$")),
                Arguments.of("\"a$ b\"", List.of("a$ b")),
                Arguments.of("\"\\$HOME\"", List.of("$HOME")),
                Arguments.of("\"a\\\"b\"", List.of("a\"b")),
                Arguments.of("\"a\\tb\"", List.of("a\tb")),
                // no expansion outside double quotes
                Arguments.of("$HOME", List.of("$HOME")),
                Arguments.of("${HOME}", List.of("${HOME}")),
                // strong quoting: nothing interpreted
                Arguments.of("'$HOME'", List.of("$HOME")),
                Arguments.of("'a\\nb'", List.of("a\\nb")),
                Arguments.of("'a \"b\" c'", List.of("a \"b\" c")),
                Arguments.of("'\\'", List.of("\\")),
                // juxtaposed parts form one word
                Arguments.of("\"a\"'b'c", List.of("abc")),
                Arguments.of("pre\"$PORT\"'$PORT'post", List.of("pre8080$PORTpost")),
                Arguments.of("x\" y \"z", List.of("x y z")),
                // empty quoted arguments are kept
                Arguments.of("a \"\" b", List.of("a", "", "b")),
                Arguments.of("a '' b", List.of("a", "", "b")),
                Arguments.of("\"\"", List.of("")),
                // escapes
                Arguments.of("a\\ b", List.of("a b")),
                Arguments.of("a\\\\b", List.of("a\\b")),
                Arguments.of("\\'x\\'", List.of("'x'")),
                Arguments.of("\\\"x\\\"", List.of("\"x\"")),
                Arguments.of("a\\nb\\rc\\td", List.of("a\nb\rc\td")),
                Arguments.of("\\x41\\x7a\\x7E", List.of("Az~")),
                Arguments.of("\\x4", List.of("\\x4")),
                Arguments.of("\\xZZ", List.of("\\xZZ")),
                // other backslashes are kept as they are
                Arguments.of("^/api\\.", List.of("^/api\\.")),
                Arguments.of("\\d+\\.\\w", List.of("\\d+\\.\\w")),
                Arguments.of("a\\", List.of("a\\")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource
    void splitting(String line, List<String> expected) {
        assertThat(words(line)).containsExactlyElementsOf(expected);
    }

    @Test
    void unsetVariableWithoutDefaultIsEmptyWithEnvFunction() {
        LineLexer noEnv = new LineLexer(name -> null);
        assertThat(noEnv.split("x \"${A}\" \"$B\" \"${C-d}\"").words()).containsExactly("x", "", "", "d");
    }

    @Test
    void environmentIsLookedUpByTheExactName() {
        LineLexer recording = new LineLexer(name -> "<" + name + ">");
        assertThat(recording.split("\"$A_1.b ${X[*]} ${Y-z} ${W}\"").words()).containsExactly("<A_1>.b <X> <Y> <W>");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "a 'b        => unmatched quote at position 3",
            "'           => unmatched quote at position 1",
            "a \"b       => unmatched quote at position 3",
            "\"          => unmatched quote at position 1",
            "a \"b\" \"c => unmatched quote at position 7",
            "\"ab\\\"    => unmatched quote at position 1",
            "\"${HOME\"  => unterminated '${' in environment variable reference at position 2",
    })
    void unterminatedQuotesAreErrors(String line, String error) {
        LineLexer.Result r = lexer.split(line.strip());
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).isEqualTo(error);
    }

    @Test
    void quoteCharacterInsideOtherQuotesIsLiteral() {
        assertThat(words("\"it's\" 'say \"hi\"'")).containsExactly("it's", "say \"hi\"");
    }

    /** Line splitting, continuation and line endings, seen through the parser. */
    @Nested
    class Lines {

        @Test
        void unterminatedQuoteIsReportedAtItsLine() {
            var r = Configs.parse("global\n    pidfile \"/run/x.pid\n");
            Configs.assertSingleError(r, 2, "parsing error: unmatched quote at position 13");
        }

        @Test
        void quotedWordsReachKeywordParsers() {
            Config c = Configs.valid(Configs.inGlobal("pidfile \"/run/${NAME}.pid\" # comment"), Map.of("NAME", "sluice"));
            assertThat(c.global().pidfile()).isEqualTo("/run/sluice.pid");
        }

        @Test
        void trailingBackslashContinuesTheLine() {
            String text = Configs.DEFAULTS + "frontend fe\n"
                    + "    bind \\\n"
                    + "        :80,:81\n"
                    + "    maxconn \\\n"
                    + "        50\n"
                    + "    bnd :82\n";
            var r = Configs.parse(text);
            // the error line counts the continuation lines
            Configs.assertSingleError(r, 11, "unknown keyword 'bnd'");

            Config c = Configs.valid(text.replace("    bnd :82\n", ""));
            var fe = Configs.proxy(c, "fe");
            assertThat(fe.binds()).extracting(b -> b.address()).containsExactly(new ListenAddress.Inet("", 80), new ListenAddress.Inet("", 81));
            assertThat(fe.binds()).extracting(b -> b.where().line()).containsExactly(7, 7);
            assertThat(fe.maxconn()).isEqualTo(50);
        }

        @Test
        void escapedBackslashAtEndOfLineDoesNotContinue() {
            var r = Configs.parse("global\n    pidfile /x\\\\\n    daemon\n");
            assertThat(r.diagnostics()).isEmpty();
            assertThat(r.config().global().pidfile()).isEqualTo("/x\\");
            assertThat(r.config().global().daemon()).isTrue();
        }

        @Test
        void continuationOnTheLastLineKeepsTheBackslash() {
            var r = Configs.parse("global\n    pidfile /x\\");
            assertThat(r.diagnostics()).isEmpty();
            assertThat(r.config().global().pidfile()).isEqualTo("/x\\");
        }

        @Test
        void crlfLineEndingsAreAccepted() {
            String text = (Configs.DEFAULTS + "frontend fe\n    bind :80\n    maxconn \\\n    7\n    bnd x\n").replace("\n", "\r\n");
            Configs.assertSingleError(Configs.parse(text), 10, "unknown keyword 'bnd' in 'frontend' section");

            Config c = Configs.valid(text.replace("    bnd x\r\n", ""));
            var fe = Configs.proxy(c, "fe");
            assertThat(fe.binds().getFirst().text()).isEqualTo(":80");
            assertThat(fe.maxconn()).isEqualTo(7);
            assertThat(fe.timeouts().client()).isEqualTo(5000);
        }

        @Test
        void lastLineWithoutLineFeedIsRead() {
            Config c = Configs.valid("global\n    nbthread 3");
            assertThat(c.global().nbthread()).isEqualTo(3);
            Configs.assertSingleError(Configs.parse("global\n    nbthread 3\n    bogus"), 3, "unknown keyword 'bogus'");
        }

        @Test
        void blankLinesAndCommentsAreSkippedButCounted() {
            var r = Configs.parse("\n# comment\n\nglobal\n   # x\n\n    nbthrd 2\n");
            Diagnostic d = Configs.assertSingleError(r, 7, "unknown keyword 'nbthrd' in 'global' section; did you mean 'nbthread' maybe ?");
            assertThat(d.file()).isEqualTo(FILE);
        }
    }
}
