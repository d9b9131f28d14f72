package dev.sluice.proxy.rules;

import static dev.sluice.proxy.rules.Cond.FAIL;
import static dev.sluice.proxy.rules.Cond.MISS;
import static dev.sluice.proxy.rules.Cond.PASS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConditionParser;
import dev.sluice.config.model.AclExpr;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Three-valued conditions as HAProxy 2.6 evaluates them (acl-t.h's truth tables, acl.c's acl_exec_cond): FAIL = 0,
 * MISS = 1, PASS = 3; {@code !x = 3 >> x}; the ACLs of a name and the alternatives ORed, stopping at the first PASS;
 * the terms of an alternative ANDed, stopping at the first term that is not PASS (so {@code M F} is M where the table's
 * {@code M & F} is F: acl_exec_cond never evaluates the F).
 */
class CondTriStateTest {
    private static final int[] ALL = {FAIL, MISS, PASS};

    /** ACLs with a fixed answer; each counts its evaluations. */
    private final int[] evaluations = new int[8];

    private Acl fixed(int result, int counter) {
        Fetch f = t -> {
            evaluations[counter]++;
            if (result == MISS) {
                t.mayChange();
                return null;
            }
            return result == PASS;
        };
        return new Acl(f, v -> (Boolean) v, "fixed" + counter, null, true, false);
    }

    private static Cond.Term term(boolean negated, Acl... acls) {
        return new Cond.Term(acls, negated);
    }

    private static Cond cond(boolean unless, Cond.Term[]... alternatives) {
        return new Cond(alternatives, unless);
    }

    private static String name(int r) {
        return r == PASS ? "P" : r == MISS ? "M" : "F";
    }

    @Test
    void negationSwapsPassAndFailAndKeepsMiss() {
        HeldTxn t = new HeldTxn();
        Map<Integer, Integer> expected = Map.of(FAIL, PASS, MISS, MISS, PASS, FAIL);
        for (int x : ALL) {
            assertThat(cond(false, new Cond.Term[] {term(true, fixed(x, 0))}).eval(t)).as("!" + name(x)).isEqualTo(expected.get(x));
            assertThat(cond(true, new Cond.Term[] {term(false, fixed(x, 0))}).eval(t)).as("unless " + name(x)).isEqualTo(expected.get(x));
            assertThat(cond(true, new Cond.Term[] {term(true, fixed(x, 0))}).eval(t)).as("unless !" + name(x)).isEqualTo(x);
        }
    }

    @Test
    void termsAreAndedUpToTheFirstThatIsNotPass() {
        HeldTxn t = new HeldTxn();
        // rows x, columns y: acl-t.h's x&y, except M F, which acl_exec_cond leaves at M
        int[][] and = {
            {FAIL, FAIL, FAIL},
            {MISS, MISS, MISS},
            {FAIL, MISS, PASS}};
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                Arrays.fill(evaluations, 0);
                int x = ALL[i];
                int y = ALL[j];
                Cond c = cond(false, new Cond.Term[] {term(false, fixed(x, 0)), term(false, fixed(y, 1))});
                assertThat(c.eval(t)).as(name(x) + " " + name(y)).isEqualTo(and[i][j]);
                if (x == PASS || x == MISS && y == PASS) {
                    assertThat(x & y).as("the table's " + name(x) + "&" + name(y)).isEqualTo(and[i][j]);
                }
                assertThat(evaluations[1]).as(name(y) + " evaluated after " + name(x)).isEqualTo(x == PASS ? 1 : 0);
            }
        }
    }

    @Test
    void alternativesAndTheAclsOfANameAreOredUpToTheFirstPass() {
        HeldTxn t = new HeldTxn();
        for (int x : ALL) {
            for (int y : ALL) {
                Arrays.fill(evaluations, 0);
                Cond alternatives = cond(false, new Cond.Term[] {term(false, fixed(x, 0))}, new Cond.Term[] {term(false, fixed(y, 1))});
                assertThat(alternatives.eval(t)).as(name(x) + " || " + name(y)).isEqualTo(x | y);
                assertThat(evaluations[1]).isEqualTo(x == PASS ? 0 : 1);
                Arrays.fill(evaluations, 0);
                Cond oneName = cond(false, new Cond.Term[] {term(false, fixed(x, 0), fixed(y, 1))});
                assertThat(oneName.eval(t)).as("acl a " + name(x) + " / acl a " + name(y)).isEqualTo(x | y);
                assertThat(evaluations[1]).isEqualTo(x == PASS ? 0 : 1);
                // a negated name negates the OR of its ACLs
                assertThat(cond(false, new Cond.Term[] {term(true, fixed(x, 0), fixed(y, 1))}).eval(t)).isEqualTo(3 >> (x | y));
            }
        }
    }

    @Test
    void testIsEvalEqualsPass() {
        HeldTxn t = new HeldTxn();
        for (int x : ALL) {
            Cond c = cond(false, new Cond.Term[] {term(false, fixed(x, 0))});
            assertThat(c.test(t)).isEqualTo(x == PASS);
            assertThat(Cond.holds(c, t)).isEqualTo(x == PASS);
            assertThat(fixed(x, 0).test(t)).isEqualTo(x == PASS);
        }
        assertThat(Cond.eval(null, t)).isEqualTo(PASS);
        assertThat(Cond.holds(null, t)).isTrue();
    }

    @Test
    void finalContentTurnsAMissIntoAFail() {
        HeldTxn t = new HeldTxn();
        t.contentFinal = true;
        assertThat(fixed(MISS, 0).eval(t)).isEqualTo(FAIL);
        assertThat(cond(false, new Cond.Term[] {term(true, fixed(MISS, 0))}).eval(t)).isEqualTo(PASS);
        assertThat(cond(true, new Cond.Term[] {term(false, fixed(MISS, 0))}).eval(t)).isEqualTo(PASS);
    }

    @Test
    void aMayChangeReportedBeforeTheAclDoesNotMakeItMiss() {
        HeldTxn t = new HeldTxn();
        t.mayChange();
        assertThat(fixed(FAIL, 0).eval(t)).isEqualTo(FAIL);
        // and one left by a sample read outside an ACL is cleared first
        t.mayChange();
        assertThat(RuleCompiler.acl(new AclExpr("always_false", List.of(), List.of())).eval(t)).isEqualTo(FAIL);
    }

    @Test
    void aclsOnOtherFetchesNeverAskAboutChanges() {
        HeldTxn t = new HeldTxn();
        Cond c = compile("{ src 10.0.0.0/8 } { always_false } || ! { dst_port 80 }");
        assertThat(c.eval(t)).isEqualTo(PASS);
        assertThat(t.asks).isZero();
        // an HTTP transaction takes every content ACL as final
        FakeTxn http = new FakeTxn("GET", "/");
        assertThat(compile("WAIT_END").eval(http)).isEqualTo(PASS);
        assertThat(compile("{ req.len ge 0 }").eval(http)).isEqualTo(FAIL);
        assertThat(compile("! { req.ssl_hello_type 1 }").eval(http)).isEqualTo(PASS);
    }

    @Test
    void contentConditionsMissUntilTheyCanDecide() {
        HeldTxn t = new HeldTxn();
        // req.len is always subject to change: gt 0 misses on nothing, eq 0 passes at once
        assertThat(compile("{ req.len gt 0 }").eval(t)).isEqualTo(MISS);
        assertThat(compile("{ req.len eq 0 }").eval(t)).isEqualTo(PASS);
        assertThat(compile("! { req.len gt 0 }").eval(t)).isEqualTo(MISS);
        assertThat(compile("WAIT_END").eval(t)).isEqualTo(MISS);
        assertThat(compile("{ req.payload(0,3) -m str GET } || WAIT_END").eval(t)).isEqualTo(MISS);
        // a decided FAIL first ends the alternative; a miss first keeps it open
        assertThat(compile("{ always_false } WAIT_END").eval(t)).isEqualTo(FAIL);
        assertThat(compile("WAIT_END { always_false }").eval(t)).isEqualTo(MISS);
        t.request.writeBytes("GE".getBytes(StandardCharsets.US_ASCII));
        assertThat(compile("{ req.len gt 0 }").eval(t)).isEqualTo(PASS);
        assertThat(compile("{ req.payload(0,3) -m str GET }").eval(t)).isEqualTo(MISS);
        t.request.writeBytes("T /".getBytes(StandardCharsets.US_ASCII));
        assertThat(compile("{ req.payload(0,3) -m str GET }").eval(t)).isEqualTo(PASS);
        assertThat(compile("{ req.payload(0,3) -m bin 505554 }").eval(t)).isEqualTo(FAIL);
        assertThat(compile("{ req.payload(0,3) -m bin 474554 }").eval(t)).isEqualTo(PASS);
        // final: what missed fails, wait_end holds
        HeldTxn empty = new HeldTxn();
        empty.contentFinal = true;
        assertThat(compile("{ req.len gt 0 }").eval(empty)).isEqualTo(FAIL);
        assertThat(compile("WAIT_END").eval(empty)).isEqualTo(PASS);
        assertThat(compile("{ wait_end }").eval(empty)).isEqualTo(PASS);
        assertThat(compile("! { req.payload(0,3) -m str GET }").eval(empty)).isEqualTo(PASS);
    }

    @Test
    void reqContentIsReqLenInTcpProxies() {
        HeldTxn t = new HeldTxn();
        RuleCompiler tcp = new RuleCompiler(Map.of(), true);
        List<String> warnings = new ArrayList<>();
        Cond c = tcp.condition(ConditionParser.parse(false, List.of("REQ_CONTENT")), RuleCompiler.Phase.REQUEST, "tcp-request content",
                "frontend tcp-request content rule", warnings);
        assertThat(c.eval(t)).isEqualTo(MISS);
        t.request.writeByte('x');
        assertThat(c.eval(t)).isEqualTo(PASS);
        assertThat(warnings).isEmpty();
        // HTTP proxies keep "the request has a body"
        assertThat(compile("REQ_CONTENT").eval(new FakeTxn("GET", "/"))).isEqualTo(FAIL);
    }

    @Test
    void layerSixFetchesNeverMatchInConnectionRules() {
        RuleCompiler tcp = new RuleCompiler(Map.of("sni", List.of(new AclExpr("req.ssl_sni", List.of(), List.of("a")))), true);
        List<String> warnings = new ArrayList<>();
        Cond c = tcp.condition(ConditionParser.parse(false, List.of("{", "req.len", "gt", "0", "}", "||", "sni", "||", "WAIT_END")),
                RuleCompiler.Phase.CONNECTION, "tcp-request connection", "frontend tcp-request connection rule", warnings);
        assertThat(warnings).containsExactly(
                "anonymous acl will never match in 'tcp-request connection' because it uses keyword 'req.len' which is incompatible with "
                        + "'frontend tcp-request connection rule'",
                "acl 'sni' will never match in 'tcp-request connection' because it only involves keywords that are incompatible with "
                        + "'frontend tcp-request connection rule'");
        assertThat(c.usesL6()).isTrue();
        HeldTxn t = new HeldTxn("x".getBytes(StandardCharsets.US_ASCII));
        // wait_end is usable anywhere; connection rules are evaluated final
        t.contentFinal = true;
        assertThat(c.eval(t)).isEqualTo(PASS);
        Cond never = tcp.condition(ConditionParser.parse(false, List.of("{", "req.len", "gt", "0", "}")), RuleCompiler.Phase.CONNECTION,
                "tcp-request connection", "frontend tcp-request connection rule", new ArrayList<>());
        assertThat(never.eval(t)).isEqualTo(FAIL);
        assertThat(compile("{ src 10.0.0.0/8 } WAIT_END").usesL6()).isFalse();
    }

    private static Cond compile(String condition) {
        return new RuleCompiler(Map.of()).condition(ConditionParser.parse(false, List.of(condition.split(" "))));
    }
}
