package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The process scope: the global section's set-var and set-var-fmt lines evaluated in order, process variables shared by
 * every stream's rules, and the environment as setenv left it. The values are those HAProxy 2.6.12 gave for the same
 * global section (checked with an http-request return of each variable).
 */
class ProcScopeTest {
    private static final Map<String, String> ENV = Map.of("HOME", "/root");

    private static Config parse(String text) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(ENV::get, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source("p.cfg", text)));
        assertThat(r.diagnostics()).as("diagnostics").isEmpty();
        return r.config();
    }

    private static ProcScope scope(String global, List<String> problems) {
        return ProcScope.of(parse("global\n" + global.indent(4)).global(), ENV::get, problems);
    }

    @Test
    void globalLinesAreEvaluatedInOrder() {
        List<String> problems = new ArrayList<>();
        ProcScope s = scope("""
                set-var proc.a int(100)
                set-var proc.b int(200),sub(proc.a)
                set-var-fmt proc.c "%ci|x%[var(proc.b)]|%b|%f"
                set-var proc.d str(hello),upper
                set-var proc.e env(HOME)
                set-var proc.f bool(1)
                set-var proc.g str(abc) ,ifexists
                set-var proc.h,ifnotexists str(first)
                set-var proc.i,ifexists str(yes)
                setenv MYV fromsetenv
                set-var proc.k env(MYV)
                set-var proc.l,ifnotset str(first)
                set-var proc.l,ifnotset str(second)
                """, problems);
        assertThat(problems).isEmpty();
        Map<String, Object> v = s.vars();
        assertThat(v.get("proc.a")).isEqualTo(100L);
        assertThat(v.get("proc.b")).isEqualTo(100L);
        assertThat(v.get("proc.c")).isEqualTo("|x100|CFG|CFG");
        assertThat(v.get("proc.d")).isEqualTo("HELLO");
        assertThat(v.get("proc.e")).isEqualTo("/root");
        assertThat(v.get("proc.f")).isEqualTo(true);
        assertThat(v.get("proc.g")).isEqualTo("abc");
        // process variables exist from the moment the configuration names them: ifnotexists never holds
        assertThat(v).doesNotContainKey("proc.h");
        assertThat(v.get("proc.i")).isEqualTo("yes");
        assertThat(v.get("proc.k")).isEqualTo("fromsetenv");
        assertThat(v.get("proc.l")).isEqualTo("first");
        assertThat(s.env("MYV")).isEqualTo("fromsetenv");
        assertThat(s.env("HOME")).isEqualTo("/root");
    }

    @Test
    void rulesShareTheProcessVariablesAndTheEnvironment() {
        List<String> problems = new ArrayList<>();
        Config c = parse("""
                global
                    set-var proc.hits int(0)
                    setenv ZONE eu
                defaults
                    mode http
                    timeout client 1s
                frontend fe
                    bind :8080
                    http-request set-var(proc.hits) var(proc.hits),add(1)
                    http-request set-var(txn.zone) env(ZONE)
                """);
        ProcScope s = ProcScope.of(c.global(), ENV::get, problems);
        Proxy fe = c.proxy("fe").orElseThrow();
        ProxyRules rules = ProxyRules.compile(fe, problems);
        assertThat(problems).isEmpty();
        RequestTxn one = new RequestTxn(null, null, null, "fe", null).process(s);
        RequestTxn two = new RequestTxn(null, null, null, "fe", null).process(s);
        Rule.run(rules.request(), one);
        Rule.run(rules.request(), two);
        assertThat(s.vars().get("proc.hits")).isEqualTo(2L);
        assertThat(one.vars().get("proc.hits")).isEqualTo(2L);
        // the stream's own variables stay its own
        assertThat(one.vars().get("txn.zone")).isEqualTo("eu");
        assertThat(s.vars()).doesNotContainKey("txn.zone");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "set-var proc.b src => fetch method 'set-var(proc.b)' extracts information from 'client address', none of which is available here",
            "set-var proc.l hdr(x) => fetch method 'set-var(proc.l)' extracts information from 'HTTP request headers,HTTP response headers', none of which is available here",
            "set-var proc.i nosuch => unknown fetch method 'nosuch'",
            "set-var proc.h str(x),foo => unknown converter 'foo'",
            "set-var-fmt proc.j %[src] => sample fetch <src]> may not be reliably used here because it needs 'client address' which is not available here",
    })
    void whatCannotBeEvaluatedWhenReadingIsRefused(String line, String message) {
        List<String> problems = new ArrayList<>();
        scope(line, problems);
        assertThat(problems).singleElement().asString().startsWith("p.cfg:2: error: " + message);
    }
}
