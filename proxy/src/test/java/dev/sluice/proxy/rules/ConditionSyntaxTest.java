package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConditionParser;
import dev.sluice.config.model.AclExpr;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Conditions written as HAProxy 2.6's parse_acl_cond takes them ({@code OR}/{@code or}/{@code ||}, {@code !} before
 * named and anonymous ACLs, empty alternatives), compiled and evaluated on a request to {@code /a} from 10.1.2.3.
 */
class ConditionSyntaxTest {
    private static final Map<String, List<AclExpr>> ACLS = Map.of(
            "a", List.of(new AclExpr("path", List.of(), List.of("/a"))),
            "b", List.of(new AclExpr("path", List.of(), List.of("/b"))));

    private static boolean holds(boolean unless, String text) {
        List<String> words = text.isBlank() ? List.of() : Arrays.asList(text.trim().split(" +"));
        Cond c = new RuleCompiler(ACLS).condition(ConditionParser.parse(unless, words));
        return c.test(new FakeTxn("GET", "/a"));
    }

    @ParameterizedTest(name = "if {0} => {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "a                               => true",
            "b                               => false",
            "b OR a                          => true",
            "b Or a                          => true",
            "b or b                          => false",
            "b || a                          => true",
            "!a OR b                         => false",
            "!b                              => true",
            "!!b                             => false",
            "! b                             => true",
            "! ! b                           => false",
            "!{ path /b }                    => true",
            "! { path /a }                   => false",
            "{ path /a } !{ src 10.0.0.0/8 } => false",
            "b OR { src 10.0.0.0/8 }         => true",
            "OR a                            => true",
            "a OR                            => true",
            "!OR a                           => true",
            "a !                             => true",
            "b || || a                       => true",
            "``                              => false",
            "!                               => false",
    })
    void evaluatesAsHaproxy(String text, boolean expected) {
        assertThat(holds(false, text)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "unless {0} => {1}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "``        => true",
            "b OR a    => false",
            "!a || !b  => false",
            "b         => true",
    })
    void unlessAsHaproxy(String text, boolean expected) {
        assertThat(holds(true, text)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "if {0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "a AND b      => no such ACL : 'AND'",
            "}            => no such ACL : '}'",
            "{a }         => no such ACL : '{a'",
            "{ nosuch 1 } => unknown fetch method 'nosuch'",
    })
    void errorsAsHaproxy(String text, String message) {
        assertThatThrownBy(() -> holds(false, text)).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
    }
}
