package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.model.AclExpr;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cookie fetches on odd Cookie and Set-Cookie fields, with what HAProxy 2.6.12 returned for the same fields
 * ({@code |} separates fields): the value of cookie {@code a} (null: none), the first value of all, how many {@code a}
 * and how many of all, the integer of {@code a} (null: none). The regtest CookieFetchParityTest compares live.
 */
class CookieFetchTest {

    private static Arguments row(String fields, String a, String first, long countA, long countAll, Integer valA) {
        return Arguments.of(fields, a, first, countA, countAll, valA);
    }

    static Stream<Arguments> requests() {
        return Stream.of(
            row("a=1; b=2", "1", "1", 1, 2, 1),
            row("a=1|a=2", "2", "1", 2, 2, 2),
            row("a=1; a=2; a=3", "3", "1", 3, 3, 3),
            row("a=", null, "", 0, 1, null),
            row("a=; b=1", "", "", 1, 2, 0),
            row("a=1; a=", "", "1", 2, 2, 0),
            row("b=1|a=", null, "1", 0, 2, null),
            row("a=\"x y\"", "\"x y\"", "\"x y\"", 1, 1, -14),
            row("a=\"x;y\"; b=1", "\"x;y\"", "\"x;y\"", 1, 2, -14),
            row("a=\"x,y\"", "\"x,y\"", "\"x,y\"", 1, 1, -14),
            row("a=\"open; b=1", "\"open; b=1", "\"open; b=1", 1, 1, -14),
            row("a = 1", "1", "1", 1, 1, 1),
            row("a= 1", "1", "1", 1, 1, 1),
            row("a =1 ; b = 2 ", "1", "1", 1, 2, 1),
            row("a=1 ;b=2", "1", "1", 1, 2, 1),
            row("a", null, null, 0, 0, null),
            row("a; b=1", null, "1", 0, 1, null),
            row("b; a=1", "1", "1", 1, 1, 1),
            row("a;a=2", "2", "2", 1, 1, 2),
            row("a=1, a=2", "2", "1", 2, 2, 2),
            row("a=1,b=2", "1", "1", 1, 2, 1),
            row("a=1 , b=2", "1", "1", 1, 2, 1),
            row(";a=1", "1", "1", 1, 1, 1),
            row(";;a=1;;", "1", "1", 1, 1, 1),
            row("a=1;", "1", "1", 1, 1, 1),
            row("|a=1", "1", "1", 1, 1, 1),
            row("a=1||b=2", "1", "1", 1, 2, 1),
            row("$Version=1; a=1; $Path=/", "1", "1", 1, 1, 1),
            row("$a=1", null, null, 0, 0, null),
            row("a=1.5", "1.5", "1.5", 1, 1, 85),
            row("a=-3", "-3", "-3", 1, 1, -3),
            row("a=12abc", "12abc", "12abc", 1, 1, 12),
            row("a=x", "x", "x", 1, 1, 0),
            row("a=99999999999", "99999999999", "99999999999", 1, 1, 1215752191),
            row("a=+5", "+5", "+5", 1, 1, -45),
            row("a=1 2", "1 2", "1 2", 1, 1, -58),
            row("a=1=2", "1=2", "1=2", 1, 1, 1),
            row("=1; a=2", "2", "1", 1, 2, 2),
            row("ab=1; a=2", "2", "1", 1, 2, 2),
            row("aa=1", null, "1", 0, 1, null),
            row("A=1", null, "1", 0, 1, null),
            row("a=1\tb=2", "1\tb=2", "1\tb=2", 1, 1, -29),
            row("a=x y z", "x y z", "x y z", 1, 1, 0),
            row("x", null, null, 0, 0, null),
            row("a=,", null, "", 0, 1, null),
            // a folded field whose first line is empty starts with spaces here
            row("  ;a=2; b=3", "2", "2", 1, 2, 2));
    }

    static Stream<Arguments> responses() {
        return Stream.of(
            row("a=1", "1", "1", 1, 1, 1),
            row("a=1; Path=/", "1", "1", 1, 2, 1),
            row("a=1|a=2", "2", "1", 2, 2, 2),
            row("b=1; a=2", null, "1", 0, 2, null),
            row("a= 1 ; Path=/", "1", "1", 1, 2, 1),
            row("a=1, a=2", "2", "1", 2, 2, 2),
            row("a=1; Expires=Thu, 01-Jan-2030 00:00:00 GMT", "1", "1", 1, 2, 1),
            row("foo; a=1", "1", "1", 1, 1, 1),
            row("$x=1; a=2", "2", "2", 1, 1, 2),
            row("a=", null, "", 0, 1, null),
            row("a=\"q;w\"; b=2", "\"q;w\"", "\"q;w\"", 1, 2, -14),
            row("a = 3", "3", "3", 1, 1, 3),
            row("a=1; a=2", "2", "1", 2, 2, 2),
            row("b=1|a=2; Path=/", "2", "1", 1, 3, 2),
            row("a=x; Max-Age=3, a=4", "4", "x", 2, 3, 4),
            row(";a=1", "1", "1", 1, 1, 1),
            row("a=7abc", "7abc", "7abc", 1, 1, 7),
            row("a", null, null, 0, 0, null),
            row("a=1;b", "1", "1", 1, 1, 1),
            row("Path=/; a=1", null, "/", 0, 2, null));
    }

    private static String sample(FakeTxn t, String expr) {
        Object v = RuleCompiler.sample(expr).get(t);
        return v == null ? null : Samples.str(v).toString();
    }

    private static boolean acl(FakeTxn t, String fetch, List<String> flags, String... patterns) {
        return RuleCompiler.acl(new AclExpr(fetch, flags, List.of(patterns))).test(t);
    }

    /** Every value an ACL on {@code expr} tries, in order. */
    private static List<String> tried(FakeTxn t, String expr) {
        List<String> out = new ArrayList<>();
        RuleCompiler.sample(expr).any(t, v -> {
            out.add(Samples.str(v).toString());
            return false;
        });
        return out;
    }

    /**
     * A transaction whose request carries {@code cookies} and whose response carries {@code setCookies} (both split at
     * '|'), each field value a view in the middle of a larger array, as the parser makes them.
     */
    private static FakeTxn txn(String cookies, String setCookies) {
        FakeTxn t = new FakeTxn("GET", "/");
        for (String v : cookies == null ? new String[0] : cookies.split("\\|", -1)) {
            t.request.fields().add(AsciiString.cached("cookie"), view(v));
        }
        if (setCookies != null) {
            t.response = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), new HttpFields());
            for (String v : setCookies.split("\\|", -1)) {
                t.response.fields().add(AsciiString.cached("set-cookie"), view(v));
            }
        }
        return t;
    }

    private static AsciiString view(String v) {
        byte[] b = ("x: " + v + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        return new AsciiString(b, 3, b.length - 5, false);
    }

    @ParameterizedTest(name = "[{0}]")
    @MethodSource("requests")
    void requestCookiesAsHaproxy(String fields, String a, String first, long countA, long countAll, Integer valA) {
        FakeTxn t = txn(fields, null);
        for (String f : new String[] {"req.cook", "cook", "cookie"}) {
            assertThat(sample(t, f + "(a)")).as(f + "(a)").isEqualTo(a);
            assertThat(sample(t, f)).as(f).isEqualTo(first);
            assertThat(acl(t, f + "(a)", List.of("-m", "found"))).as(f + "(a) -m found").isEqualTo(a != null);
        }
        assertThat(sample(t, "req.cook_cnt(a)")).isEqualTo(Long.toString(countA));
        assertThat(sample(t, "cook_cnt")).isEqualTo(Long.toString(countAll));
        assertThat(sample(t, "req.cook_val(a)")).isEqualTo(valA == null ? null : valA.toString());
        assertThat(sample(t, "cook_val(a)")).isEqualTo(valA == null ? null : valA.toString());
        // an ACL tries every value: as many as counted, the sample being the last (the first without a name)
        List<String> all = tried(t, "req.cook(a)");
        assertThat(all).hasSize((int) countA);
        if (a != null) {
            assertThat(all.getLast()).isEqualTo(a);
        }
        List<String> any = tried(t, "req.cook");
        assertThat(any).hasSize((int) countAll);
        if (first != null) {
            assertThat(any.getFirst()).isEqualTo(first);
        }
        // the response's fetches see no Set-Cookie in a request
        assertThat(sample(t, "res.cook(a)")).isNull();
    }

    @ParameterizedTest(name = "[{0}]")
    @MethodSource("responses")
    void setCookiesAsHaproxy(String fields, String a, String first, long countA, long countAll, Integer valA) {
        FakeTxn t = txn("a=request", fields);
        for (String f : new String[] {"res.cook", "scook", "cookie"}) {
            assertThat(sample(t, f + "(a)")).as(f + "(a)").isEqualTo(a);
            assertThat(sample(t, f)).as(f).isEqualTo(first);
            assertThat(acl(t, f + "(a)", List.of("-m", "found"))).as(f + "(a) -m found").isEqualTo(a != null);
        }
        for (String f : new String[] {"res.cook_cnt", "scook_cnt"}) {
            assertThat(sample(t, f + "(a)")).isEqualTo(Long.toString(countA));
            assertThat(sample(t, f)).isEqualTo(Long.toString(countAll));
        }
        for (String f : new String[] {"res.cook_val", "scook_val"}) {
            assertThat(sample(t, f + "(a)")).isEqualTo(valA == null ? null : valA.toString());
        }
        assertThat(tried(t, "res.cook(a)")).hasSize((int) countA);
        assertThat(tried(t, "res.cook")).hasSize((int) countAll);
        // the request's cookies are still there for req.cook
        assertThat(sample(t, "req.cook(a)")).isEqualTo("request");
    }

    @Test
    void aclsTryEveryValue() {
        FakeTxn t = txn("a=1; b=x|a= 2 , a=\"3\"", null);
        assertThat(tried(t, "req.cook(a)")).containsExactly("1", "2", "\"3\"");
        assertThat(tried(t, "cook")).containsExactly("1", "x", "2", "\"3\"");
        assertThat(tried(t, "cook_val(a)")).containsExactly("1", "2", "-1384");
        assertThat(acl(t, "cook(a)", List.of(), "2")).isTrue();
        assertThat(acl(t, "cook_beg(b)", List.of(), "x")).isTrue();
        assertThat(acl(t, "cook_val(a)", List.of(), "-1384")).isTrue();
        assertThat(acl(t, "cook_cnt(a)", List.of(), "3")).isTrue();
        assertThat(acl(t, "cook(c)", List.of("-m", "found"))).isFalse();
    }

    @Test
    void noMessageNoSample() {
        FakeTxn t = txn(null, null);
        assertThat(sample(t, "req.cook(a)")).isNull();
        assertThat(sample(t, "req.cook_cnt(a)")).isEqualTo("0");
        assertThat(sample(t, "res.cook(a)")).isNull();
        assertThat(sample(t, "res.cook_cnt")).isEqualTo("0");
        assertThat(sample(t, "cookie(a)")).isNull();
    }

    @Test
    void strl2icAsHaproxy() {
        assertThat(CookieFetch.strl2ic("")).isZero();
        assertThat(CookieFetch.strl2ic("-")).isZero();
        assertThat(CookieFetch.strl2ic("42")).isEqualTo(42);
        assertThat(CookieFetch.strl2ic("-42x")).isEqualTo(-42);
        assertThat(CookieFetch.strl2ic("x")).isZero();
        assertThat(CookieFetch.strl2ic("1.5")).isEqualTo(85);
        assertThat(CookieFetch.strl2ic("+5")).isEqualTo(-45);
        assertThat(CookieFetch.strl2ic("99999999999")).isEqualTo(1215752191);
        assertThat(CookieFetch.strl2ic("-99999999999")).isEqualTo(-1215752191);
        // a byte above 0x7f counts as negative, as a signed char in C
        assertThat(CookieFetch.strl2ic("\u00e91")).isEqualTo(-709);
    }

    @Test
    void theFetchesAreThoseOfHaproxy26() {
        for (String f : new String[] {"cook", "cook_cnt", "cook_val", "cookie", "req.cook", "req.cook_cnt", "req.cook_val", "res.cook",
            "res.cook_cnt", "res.cook_val", "scook", "scook_cnt", "scook_val"}) {
            assertThat(Fetches.get(f)).as(f).isNotNull();
        }
        assertThat(Fetches.get("set-cookie")).isNull();
        assertThat(Fetches.get("req.cook_names")).isNull();
        // cookie reads the message of the phase: allowed in response rules, as hdr
        RuleCompiler.checkPhase("cookie(a)", RuleCompiler.Phase.RESPONSE);
        RuleCompiler.checkPhase("scook(a)", RuleCompiler.Phase.RESPONSE);
    }
}
