package dev.sluice.config;

import static dev.sluice.config.Configs.FILE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.Diagnostic.Severity;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PreprocessorTest {

    private static final Map<String, String> ENV = Map.of("STAGE", "prod", "EMPTY", "", "HOST", "api.example.com");

    /** Parses a global section and returns the nbthread that the active branches set (0 when none). */
    private static int nbthread(String body) {
        return Configs.valid("global\n" + body, ENV).global().nbthread();
    }

    /** 1 when the condition is true, 2 otherwise. */
    private static int branch(String condition) {
        return nbthread(".if " + condition + "\n    nbthread 1\n.else\n    nbthread 2\n.endif\n");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "1 => true",
            "0 => false",
            "42 => true",
            "defined(STAGE) => true",
            "defined(EMPTY) => true",
            "defined(NOPE) => false",
            "!defined(NOPE) => true",
            "feature(OPENSSL) => true",
            "feature(openssl) => false",
            "feature(OPENSSL ) => false",
            "feature(LUA) => false",
            "streq(abc,abc) => true",
            "streq(abc,abd) => false",
            "streq(\"$STAGE\",prod) => true",
            "streq(\"$STAGE\",dev) => false",
            "strneq(\"$STAGE\",dev) => true",
            "strneq(a,a) => false",
            "streq(\"${NOPE}\",) => true",
            "version_atleast(3.2) => true",
            "version_atleast(3.2.0) => true",
            "version_atleast(3.1) => true",
            "version_atleast(2.10) => true",
            "version_atleast(3.3) => false",
            "version_atleast(3.10) => false",
            "version_atleast(4) => false",
            "version_before(3.3) => true",
            "version_before(3.10) => true",
            "version_before(3.2) => false",
            "version_before(3.2.1) => true",
            "version_before(3.1) => false",
            "`` => false",
            "defined() => false",
            "streq(a,) => false",
            "0x10 => true",
            "-1 => true",
            "! (0) => true",
            "1 && 1 => true",
            "1 && 0 => false",
            "0 || 1 => true",
            "0 || 0 => false",
            "0 || 1 && 0 => false",
            "1 || 0 && 0 => true",
            "(0 || 1) && 0 => false",
            "1 && (0 || 0) => false",
            "!(1 && 0) => true",
            "! 1 => false",
            "!!1 => true",
            "defined(STAGE)&&!defined(NOPE) => true",
            "( defined(NOPE) || feature(THREAD) ) && version_atleast(3.0) => true",
    })
    void conditions(String condition, boolean expected) {
        assertThat(branch(condition)).isEqualTo(expected ? 1 : 2);
    }

    @Test
    void emulatedVersionComesFromSettings() {
        var settings = new ConfigParser.Settings(ENV::get, Set.of(), "2.9");
        var parser = new ConfigParser(KeywordRegistry.standard(), settings);
        var r = parser.parse(List.of(new ConfigParser.Source(FILE,
                "global\n.if version_atleast(2.10)\n    nbthread 1\n.elif version_before(3.0)\n    nbthread 2\n.endif\n")));
        assertThat(r.diagnostics()).isEmpty();
        assertThat(r.config().global().nbthread()).isEqualTo(2);
    }

    @Test
    void elifChainTakesTheFirstTrueBranchOnly() {
        assertThat(nbthread(".if 0\n nbthread 1\n.elif 1\n nbthread 2\n.elif 1\n nbthread 3\n.else\n nbthread 4\n.endif\n")).isEqualTo(2);
        assertThat(nbthread(".if 1\n nbthread 1\n.elif 1\n nbthread 2\n.else\n nbthread 4\n.endif\n")).isEqualTo(1);
        assertThat(nbthread(".if 0\n nbthread 1\n.elif 0\n nbthread 2\n.else\n nbthread 4\n.endif\n")).isEqualTo(4);
        assertThat(nbthread(".if 0\n nbthread 1\n.elif 0\n nbthread 2\n.endif\n")).isZero();
    }

    @Test
    void nestedBlocks() {
        String text = """
                .if 1
                    .if 0
                        nbthread 1
                    .elif 1
                        .if 1
                            nbthread 2
                        .endif
                    .endif
                .else
                    .if 1
                        nbthread 3
                    .endif
                .endif
                """;
        assertThat(nbthread(text)).isEqualTo(2);
    }

    @Test
    void inactiveBranchesAreNotParsedNorEvaluated() {
        String text = """
                .if 0
                    this is not a keyword
                    pidfile "unterminated
                    .if bogus_predicate(
                    .endif
                    .unknown-directive
                    .alert not shown
                .endif
                nbthread 5
                """;
        assertThat(nbthread(text)).isEqualTo(5);
    }

    @Test
    void messagesOfActiveBranches() {
        var r = Configs.parse("""
                global
                .notice hello   world
                .warning be careful
                .if 0
                .alert hidden
                .warning hidden too
                .endif
                .diag only with -dD
                .alert stop here
                """);
        assertThat(r.diagnostics()).extracting(Diagnostic::file, Diagnostic::line, Diagnostic::severity, Diagnostic::message).containsExactly(
                tuple(FILE, 2, Severity.NOTICE, "hello world"),
                tuple(FILE, 3, Severity.WARNING, "be careful"),
                tuple(FILE, 8, Severity.DIAG, "only with -dD"),
                tuple(FILE, 9, Severity.ERROR, "stop here"));
        assertThat(r.ok()).isFalse();
        assertThat(r.diagnostics().get(1).toString()).isEqualTo("test.cfg:3: warning: be careful");
    }

    @Test
    void noticesAndWarningsKeepTheConfigurationValid() {
        var r = Configs.parse("global\n.notice n\n.warning w\n    nbthread 2\n");
        assertThat(r.ok()).isTrue();
        assertThat(r.config().global().nbthread()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "`.endif`                             => 3 => '.endif' without a matching '.if'.",
            "`.else`                              => 3 => '.else' without a matching '.if'.",
            "`.elif 1`                            => 3 => '.elif' without a matching '.if'.",
            "`.if 1\n.else\n.else\n.endif`        => 5 => '.else' without a matching '.if'.",
            "`.if 1\n.else\n.elif 1\n.endif`      => 5 => '.elif' without a matching '.if' (after '.else').",
            "`.if 1`                              => 3 => '.if' block is not closed by '.endif' before the end of the file.",
            "`.if 1\n.elif 0\n.else\n nbthread 2` => 3 => '.if' block is not closed by '.endif' before the end of the file.",
            "`.if 1\n.endif\n.endif`              => 5 => '.endif' without a matching '.if'.",
    })
    void unbalancedBlocks(String body, int line, String message) {
        var r = Configs.parse("global\n    daemon\n" + body + "\n");
        Diagnostic d = Configs.assertSingleError(r, line, message);
        assertThat(d.message()).isEqualTo(message);
    }

    @Test
    void everyUnclosedBlockIsReportedAtItsOwnLine() {
        var r = Configs.parse("global\n.if 1\n.if 0\n.else\n.if 1\n");
        assertThat(r.diagnostics()).extracting(Diagnostic::line, Diagnostic::message).containsExactlyInAnyOrder(
                tuple(2, "'.if' block is not closed by '.endif' before the end of the file."),
                tuple(3, "'.if' block is not closed by '.endif' before the end of the file."),
                tuple(5, "'.if' block is not closed by '.endif' before the end of the file."));
    }

    @Test
    void blocksDoNotSpanFiles() {
        var r = Configs.parse(List.of(new ConfigParser.Source("a.cfg", "global\n.if 0\n"),
                new ConfigParser.Source("b.cfg", "global\n    nbthread 3\n.endif\n")));
        assertThat(r.diagnostics()).extracting(Diagnostic::file, Diagnostic::line, Diagnostic::message).containsExactly(
                tuple("a.cfg", 2, "'.if' block is not closed by '.endif' before the end of the file."),
                tuple("b.cfg", 3, "'.endif' without a matching '.if'."));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "bogus         => failed to evaluate condition 'bogus': unparsable conditional expression 'bogus'.",
            "nope(1)       => failed to evaluate condition 'nope(1)': unparsable conditional expression 'nope(1)'.",
            "strstr(a,b)   => failed to evaluate condition 'strstr(a,b)': unparsable conditional expression 'strstr(a,b)'.",
            "enabled(POLL) => failed to evaluate condition 'enabled(POLL)': unparsable conditional expression 'enabled(POLL)'.",
            "streq(a)      => failed to evaluate condition 'streq(a)': missing arguments (got 1/2), type 'string' expected in argument 1 of predicate 'streq' used in conditional expression.",
            "streq(a,b,c)  => failed to evaluate condition 'streq(a,b,c)': expected ')' before ',c)' in argument 1 of predicate 'streq' used in conditional expression.",
            "defined(A     => failed to evaluate condition 'defined(A': expected ')' in argument 1 of predicate 'defined' used in conditional expression.",
            "(1            => failed to evaluate condition '(1': expected ')' after conditional expression '(1'.",
            "1 1           => failed to evaluate condition '1 1': unexpected character '1' at the end of conditional expression '1 1'.",
            "1 &&          => failed to evaluate condition '1 &&': unparsable conditional expression '&&'.",
            "1 & 1         => failed to evaluate condition '1 & 1': unexpected character '&' at the end of conditional expression '1 & 1'.",
            "!             => failed to evaluate condition '!': unparsable conditional expression '!'.",
    })
    void badConditions(String condition, String message) {
        // a condition that cannot be evaluated is false: the .else branch runs
        var r = Configs.parse("global\n.if " + condition + "\n    nbthread 1\n.else\n    nbthread 2\n.endif\n");
        Diagnostic d = Configs.assertSingleError(r, 2, message);
        assertThat(d.message()).isEqualTo(message);
    }

    @Test
    void unknownDirective() {
        var r = Configs.parse("global\n.include x.cfg\n");
        Configs.assertSingleError(r, 2,
                "unknown directive '.include' (expected .if, .elif, .else, .endif, .notice, .warning, .alert or .diag).");
    }

    @Test
    void sectionLinesInsideBlocks() {
        String text = Configs.DEFAULTS + """
                .if streq("$STAGE",prod)
                frontend fe
                    bind :80
                .else
                frontend fe
                    bind :8080
                .endif
                """;
        var c = Configs.valid(text, ENV);
        assertThat(Configs.proxy(c, "fe").binds().getFirst().text()).isEqualTo(":80");
        assertThat(c.proxies()).hasSize(1);
    }
}
