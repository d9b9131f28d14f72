package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.Condition.Term;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConditionParserTest {

    private static List<String> words(String s) {
        return s.isBlank() ? List.of() : Arrays.asList(s.trim().split(" +"));
    }

    private static Condition parse(String s) {
        return ConditionParser.parse(false, words(s));
    }

    private static Term acl(String name) {
        return new Term(false, name, null);
    }

    private static Term notAcl(String name) {
        return new Term(true, name, null);
    }

    private static Term anon(boolean negated, String sample, List<String> flags, List<String> values) {
        return new Term(negated, null, new AclExpr(sample, flags, values));
    }

    @Test
    void singleName() {
        assertThat(parse("is_api")).isEqualTo(new Condition(false, List.of(List.of(acl("is_api")))));
    }

    @Test
    void juxtapositionIsAnd() {
        assertThat(parse("a b c").alternatives()).containsExactly(List.of(acl("a"), acl("b"), acl("c")));
    }

    @ParameterizedTest
    @CsvSource({"a || b", "a or b"})
    void alternatives(String text) {
        assertThat(parse(text).alternatives()).containsExactly(List.of(acl("a")), List.of(acl("b")));
    }

    @Test
    void andBindsTighterThanOr() {
        assertThat(parse("a b || c or d e").alternatives()).containsExactly(
                List.of(acl("a"), acl("b")), List.of(acl("c")), List.of(acl("d"), acl("e")));
    }

    @Test
    void negation() {
        assertThat(parse("! a").alternatives()).containsExactly(List.of(notAcl("a")));
        assertThat(parse("!a b").alternatives()).containsExactly(List.of(notAcl("a"), acl("b")));
        assertThat(parse("! !a").alternatives()).containsExactly(List.of(acl("a")));
        assertThat(parse("! ! a").alternatives()).containsExactly(List.of(acl("a")));
        assertThat(parse("a || !b").alternatives()).containsExactly(List.of(acl("a")), List.of(notAcl("b")));
    }

    @Test
    void unlessIsKept() {
        Condition c = ConditionParser.parse(true, List.of("a"));
        assertThat(c.unless()).isTrue();
        assertThat(c.alternatives()).containsExactly(List.of(acl("a")));
    }

    @Test
    void anonymousAcls() {
        assertThat(parse("{ path_beg /api /v2 }").alternatives()).containsExactly(
                List.of(anon(false, "path_beg", List.of(), List.of("/api", "/v2"))));
        assertThat(parse("! { hdr(host) -i -m str example.com }").alternatives()).containsExactly(
                List.of(anon(true, "hdr(host)", List.of("-i", "-m", "str"), List.of("example.com"))));
        assertThat(parse("{ src -f /etc/allow.lst } || { req.hdr(x) -- -dash }").alternatives()).containsExactly(
                List.of(anon(false, "src", List.of("-f", "/etc/allow.lst"), List.of())),
                List.of(anon(false, "req.hdr(x)", List.of(), List.of("-dash"))));
        // as HAProxy 2.6: a word starting with '-' is an option, a negative number too; "--" first makes it a value
        assertThat(parse("{ int -- -5 }").alternatives()).containsExactly(List.of(anon(false, "int", List.of(), List.of("-5"))));
        assertThatThrownBy(() -> parse("{ int -5 }")).hasMessage("'-5' is not a valid ACL option. Please use '--' before any pattern beginning with a '-'.");
        assertThatThrownBy(() -> parse("{ int - }")).hasMessage("'-' is not a valid ACL option. Please use '--' before any pattern beginning with a '-'.");
        assertThat(parse("{ always_true }").alternatives()).containsExactly(List.of(anon(false, "always_true", List.of(), List.of())));
        assertThat(parse("{ hdr(x) -n -M -u 3 v }").alternatives()).containsExactly(
                List.of(anon(false, "hdr(x)", List.of("-n", "-M", "-u", "3"), List.of("v"))));
    }

    @Test
    void namedAndAnonymousMix() {
        assertThat(parse("a { src 10.0.0.0/8 } !b || c").alternatives()).containsExactly(
                List.of(acl("a"), anon(false, "src", List.of(), List.of("10.0.0.0/8")), notAcl("b")),
                List.of(acl("c")));
    }

    @Test
    void printsBackAsWritten() {
        assertThat(parse("a !b || { path_beg -i /api }")).hasToString("if a !b || { path_beg -i /api }");
        assertThat(ConditionParser.parse(true, List.of("!", "x"))).hasToString("unless !x");
    }

    @Test
    void resultIsImmutable() {
        Condition c = parse("a b");
        assertThatThrownBy(() -> c.alternatives().getFirst().add(acl("z"))).isInstanceOf(UnsupportedOperationException.class);
    }

    @ParameterizedTest(name = "if {0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "{ path /       => missing closing '}' in condition.",
            "a { path       => missing closing '}' in condition.",
            "{ path_beg /a} => missing closing '}' in condition.",
            "{ }            => missing fetch method in ACL expression ''.",
            "!{ }           => missing fetch method in ACL expression ''.",
            "{ path -x y }  => '-x' is not a valid ACL option. Please use '--' before any pattern beginning with a '-'.",
            "{ path -m }    => missing argument after '-m' in ACL expression 'path'.",
            "{ src -f }     => missing argument after '-f' in ACL expression 'src'.",
    })
    void errors(String text, String message) {
        assertThatThrownBy(() -> parse(text)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    /** What HAProxy 2.6's parse_acl_cond accepts (checked with haproxy -c): the names are resolved later. */
    @ParameterizedTest(name = "if {0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "a OR b         => if a || b",
            "a Or b oR c    => if a || b || c",
            "!a || !b       => if !a || !b",
            "!!a            => if a",
            "!!!a           => if !a",
            "! a            => if !a",
            "! ! a          => if a",
            "! !a           => if a",
            "or a           => if a",
            "OR a           => if a",
            "a or           => if a",
            "a || || b      => if a || b",
            "!or a          => if a",
            "! || a         => if a",
            "a !            => if a",
            "``             => if",
            "}              => if }",
            "a }            => if a }",
            "{a }           => if {a }",
            "a/b            => if a/b",
            "{ a { b } }    => if { a { b } }",
            "!{ src 1.2.3.4 } OR ! { path / } => if !{ src 1.2.3.4 } || !{ path / }",
    })
    void acceptedAsHaproxy(String text, String printed) {
        assertThat(parse(text)).hasToString(printed);
    }

    @Test
    void nestedBraceIsAValue() {
        assertThat(parse("{ a { b } }").alternatives()).containsExactly(
                List.of(anon(false, "a", List.of(), List.of("{", "b")), acl("}")));
    }

    @Test
    void emptyConditionHasNoAlternative() {
        assertThat(parse("").alternatives()).isEmpty();
        assertThat(ConditionParser.parse(true, List.of("!")).alternatives()).isEmpty();
    }

    @Test
    void emptyExpression() {
        assertThatThrownBy(() -> ConditionParser.parseExpr(List.of())).hasMessage("missing sample fetch in ACL expression.");
    }

    @Test
    void conditionsInConfiguration() {
        var fe = Configs.frontendOf("""
                acl api path_beg /api
                acl internal src 10.0.0.0/8
                http-request return status 403 if api !internal
                use_backend be if api internal || { hdr(host) -m end .internal }
                use_backend be unless !api
                """);
        assertThat(fe.useBackends().get(0).condition()).isEqualTo(new Condition(false, List.of(
                List.of(acl("api"), acl("internal")),
                List.of(anon(false, "hdr(host)", List.of("-m", "end"), List.of(".internal"))))));
        assertThat(fe.useBackends().get(1).condition()).isEqualTo(new Condition(true, List.of(List.of(notAcl("api")))));
        assertThat(fe.httpRequestRules().getFirst().condition()).isEqualTo(new Condition(false, List.of(
                List.of(acl("api"), notAcl("internal")))));
    }

    @Test
    void missingClosingBraceInConfiguration() {
        var r = Configs.parse(Configs.inFrontend("use_backend be if { path_beg /api"));
        Diagnostic d = Configs.assertSingleError(r, Configs.FRONTEND_LINE, "");
        assertThat(d.message()).isEqualTo("error detected while parsing a 'use_backend' condition : missing closing '}' in condition.");
    }

    @Test
    void emptyBracesInConfiguration() {
        var r = Configs.parse(Configs.inFrontend("http-request return if { }"));
        Diagnostic d = Configs.assertSingleError(r, Configs.FRONTEND_LINE, "");
        assertThat(d.message()).isEqualTo("error detected while parsing a 'http-request return' condition : missing fetch method in ACL expression ''.");
    }

    @Test
    void upperCaseOrInConfiguration() {
        var fe = Configs.frontendOf("""
                acl a path /a
                acl b path /b
                use_backend be if a OR !b
                """);
        assertThat(fe.useBackends().getFirst().condition().alternatives()).containsExactly(List.of(acl("a")), List.of(notAcl("b")));
    }

    @Test
    void unknownNameInConfiguration() {
        var r = Configs.parse(Configs.inFrontend("use_backend be if }"));
        Diagnostic d = Configs.assertSingleError(r, Configs.FRONTEND_LINE, "");
        assertThat(d.message()).startsWith("error detected while parsing").contains("no such ACL : '}'");
    }

    @Test
    void quotedBraceIsStillABrace() {
        // quotes are gone after lexing: a quoted "{" is the word "{", as in HAProxy
        var fe = Configs.frontendOf("use_backend be if \"{\" path / \"}\"");
        assertThat(fe.useBackends().getFirst().condition().alternatives()).containsExactly(List.of(anon(false, "path", List.of(), List.of("/"))));
    }
}
