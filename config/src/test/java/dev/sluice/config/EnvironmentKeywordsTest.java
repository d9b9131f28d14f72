package dev.sluice.config;

import static dev.sluice.config.Configs.GLOBAL_LINE;
import static dev.sluice.config.Configs.assertSingleError;
import static dev.sluice.config.Configs.inGlobal;
import static dev.sluice.config.Configs.parse;
import static dev.sluice.config.Configs.valid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.Config;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** setenv, presetenv, unsetenv, resetenv: in order, seen by the following lines (HAProxy 2.6's messages). */
class EnvironmentKeywordsTest {
    private static final Map<String, String> INHERITED = Map.of("HOME", "/home/u", "KEEP", "k", "ZONE", "eu");

    private static String node(String globalLines) {
        Config c = valid(inGlobal(globalLines), INHERITED);
        return c.global().node();
    }

    @Test
    void setenvIsSeenByTheNextLines() {
        assertThat(node("setenv NAME edge-1\nnode \"${NAME}\"")).isEqualTo("edge-1");
        assertThat(node("node \"${NAME}x\"\nsetenv NAME edge-1")).isEqualTo("x");
        assertThat(node("setenv HOME /srv\nnode \"$HOME\"")).isEqualTo("/srv");
        // the value itself is expanded when the line is read
        assertThat(node("setenv BASE \"${ZONE}-lb\"\nsetenv ZONE us\nnode \"${BASE}/${ZONE}\"")).isEqualTo("eu-lb/us");
    }

    @Test
    void presetenvKeepsAnExistingValue() {
        assertThat(node("presetenv ZONE us\nnode \"${ZONE}\"")).isEqualTo("eu");
        assertThat(node("presetenv REGION us\npresetenv REGION eu\nnode \"${REGION}\"")).isEqualTo("us");
    }

    @Test
    void unsetenvAndResetenv() {
        assertThat(node("unsetenv HOME ZONE\nnode \"${HOME-none}${ZONE}\"")).isEqualTo("none");
        assertThat(node("setenv A 1\nresetenv KEEP A\nnode \"${HOME}|${KEEP}|${A}|${ZONE}\"")).isEqualTo("|k|1|");
        assertThat(node("resetenv\nsetenv B 2\nnode \"${KEEP}${B}\"")).isEqualTo("2");
        assertThat(node("unsetenv HOME\nsetenv HOME back\nnode \"${HOME}\"")).isEqualTo("back");
    }

    @Test
    void conditionsSeeTheChanges() {
        assertThat(node("setenv FLAG 1\n.if defined(FLAG)\nnode yes\n.else\nnode no\n.endif")).isEqualTo("yes");
        assertThat(node("unsetenv HOME\n.if defined(HOME)\nnode yes\n.else\nnode no\n.endif")).isEqualTo("no");
    }

    @Test
    void theModelKeepsTheChangesForTheRuntime() {
        Config c = valid(inGlobal("setenv A 1\nunsetenv HOME"), INHERITED);
        assertThat(c.global().environment().get(INHERITED::get, "A")).isEqualTo("1");
        assertThat(c.global().environment().get(INHERITED::get, "HOME")).isNull();
        assertThat(c.global().environment().get(INHERITED::get, "ZONE")).isEqualTo("eu");
    }

    @Test
    void laterFilesSeeTheChanges() {
        var r = parse(java.util.List.of(new ConfigParser.Source("a.cfg", "global\n    setenv N from-a\n"),
                new ConfigParser.Source("b.cfg", "global\n    node \"${N}\"\n")));
        assertThat(r.diagnostics()).isEmpty();
        assertThat(r.config().global().node()).isEqualTo("from-a");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "setenv          => 'setenv' expects a name and a value.",
            "setenv A        => 'setenv' expects a name and a value.",
            "setenv A ''     => 'setenv' expects a name and a value.",
            "presetenv A     => 'presetenv' expects a name and a value.",
            "setenv A b c d  => 'setenv' cannot handle unexpected argument 'd'.",
            "setenv A=B c    => 'setenv' failed on variable 'A=B' : Invalid argument.",
            "unsetenv        => 'unsetenv' expects at least one variable name.",
            "unsetenv A=B    => 'unsetenv' failed on variable 'A=B' : Invalid argument.",
            "set-var proc.d  => 'set-var' requires a process-wide variable name ('proc.<name>') and a sample expression.",
            "set-var-fmt proc.k => 'set-var-fmt' requires a process-wide variable name ('proc.<name>') and a format string.",
            "set-var txn.c int(1) => 'set-var': cannot set variable 'txn.c', only scope 'proc' is permitted in the global section.",
            "set-var-fmt txn.k x => 'set-var-fmt': cannot set variable 'txn.k', only scope 'proc' is permitted in the global section.",
            "set-var foo.x int(1) => invalid variable name 'foo.x'. A variable name must be start by its scope. The scope can be 'proc', 'sess', 'txn', 'req', 'res' or 'check'",
            "set-var proc. int(1) => invalid variable name 'proc.'. A variable name must be start by its scope. The scope can be 'proc', 'sess', 'txn', 'req', 'res' or 'check'",
            "set-var proc.a-b int(1) => invalid syntax at char '-b)'",
            "set-var proc.a,b int(1) => unknown condition \"b\"",
    })
    void errors(String line, String message) {
        var d = assertSingleError(parse(inGlobal(line)), GLOBAL_LINE, message);
        assertThat(d.message()).isEqualTo(message);
    }

    @Test
    void setVarLinesAreKeptInOrderForTheRuntime() {
        Config c = valid(inGlobal("set-var proc.a int(1)\nset-var-fmt proc.b,ifnotset \"%pid\" ignored\nset-var proc.c_1.x str(y)"));
        assertThat(c.global().vars()).extracting(v -> v.name() + " " + v.conditions() + " " + v.expression() + " " + v.format())
                .containsExactly("proc.a [] int(1) false", "proc.b [ifnotset] %pid true", "proc.c_1.x [] str(y) false");
        assertThat(c.global().vars().get(0).where().line()).isEqualTo(GLOBAL_LINE);
    }

    @Test
    void extraWordsAreIgnoredAsHaproxyDoes() {
        assertThat(node("setenv A b c\nnode \"${A}\"")).isEqualTo("b");
    }
}
