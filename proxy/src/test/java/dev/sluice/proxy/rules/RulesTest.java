package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Samples, converters, matchers and conditions, compiled once and evaluated on a request. */
class RulesTest {

    static final FakeTxn T = new FakeTxn("GET", "/img/x/logo.PNG?a=7&b=x&a=9", "host", "www.Example.com:8080", "x-m", "1, 2",
            "x-m", "3", "cookie", "a=1; sid=xyz", "x-in", "HeLLo", "x-f", "a:b:c", "x-j", "a\"b\\");

    static boolean acl(String sample, String... flagsAndValues) {
        List<String> all = List.of(flagsAndValues);
        int split = 0;
        while (split < all.size() && all.get(split).startsWith("-")) {
            split += all.get(split).equals("-i") ? 1 : 2;
        }
        return RuleCompiler.acl(new AclExpr(sample, all.subList(0, split), all.subList(split, all.size()))).test(T);
    }

    static String sample(String expr) {
        Object v = RuleCompiler.sample(expr).get(T);
        return v == null ? null : Samples.str(v).toString();
    }

    @Test
    void hashesAreHaproxys() {
        // figures printed by HAProxy 2.6 for %[req.hdr(x-in),<hash>] with x-in: HeLLo
        assertThat(sample("req.hdr(x-in),sdbm")).isEqualTo("2607005970");
        assertThat(sample("req.hdr(x-in),djb2")).isEqualTo("223253561");
        assertThat(sample("req.hdr(x-in),crc32")).isEqualTo("1511582656");
        assertThat(sample("req.hdr(x-in),wt6")).isEqualTo("4267637302");
    }

    @Test
    void stringMatchers() {
        assertThat(acl("path", "/img/x/logo.PNG")).isTrue();
        assertThat(acl("path_beg", "/api", "/img")).isTrue();
        assertThat(acl("path_end", ".png")).isFalse();
        assertThat(acl("path_end", "-i", ".png")).isTrue();
        assertThat(acl("path_sub", "x/lo")).isTrue();
        assertThat(acl("path_reg", "^/img/.*\\.PNG$")).isTrue();
        assertThat(acl("path_dir", "x")).isTrue();
        assertThat(acl("path_dir", "lo")).isFalse();
        assertThat(acl("hdr_dom(host)", "-i", "example.com")).isTrue();
        assertThat(acl("hdr_dom(host)", "ample.com")).isFalse();
        assertThat(acl("path", "-m", "len", "15")).isTrue();
        assertThat(acl("path_len", "gt", "20")).isFalse();
        assertThat(acl("url_param(a)", "-m", "int", "9")).isTrue();
        assertThat(acl("url_param(b)", "-m", "found")).isTrue();
        assertThat(acl("url_param(c)", "-m", "found")).isFalse();
        assertThat(acl("hdr_cnt(x-m)", "3")).isTrue();
        assertThat(acl("req.hdr(x-m)", "2")).isTrue();
        assertThat(acl("req.fhdr(x-m)", "1, 2")).isTrue();
        assertThat(acl("req.cook(sid)", "xyz")).isTrue();
        assertThat(acl("method", "GET")).isTrue();
    }

    @Test
    void integerAndAddressMatchers() {
        assertThat(acl("url_param(a),add(1)", "-m", "int", "8:12")).isTrue();
        assertThat(acl("src", "10.0.0.0/8")).isTrue();
        assertThat(acl("src", "10.1.2.4", "192.168.0.0/16")).isFalse();
        assertThat(acl("src", "::ffff:10.1.2.3")).isTrue();
        assertThat(acl("src_port", "ge", "1024")).isTrue();
    }

    @Test
    void patternsFromAFile(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("paths.lst");
        Files.writeString(f, "# comment\n/api\n\n/img\n", StandardCharsets.UTF_8);
        assertThat(acl("path_beg", "-f", f.toString())).isTrue();
    }

    @Test
    void converters(@TempDir Path dir) throws Exception {
        assertThat(sample("req.hdr(x-in),lower")).isEqualTo("hello");
        assertThat(sample("req.hdr(x-in),upper")).isEqualTo("HELLO");
        assertThat(sample("req.hdr(x-in),len")).isEqualTo("5");
        assertThat(sample("req.hdr(x-in),base64")).isEqualTo("SGVMTG8=");
        assertThat(sample("req.hdr(x-in),hex")).isEqualTo("48654C4C6F");
        assertThat(sample("req.hdr(x-in),bytes(1,3)")).isEqualTo("eLL");
        assertThat(sample("req.hdr(x-f),field(2,:)")).isEqualTo("b");
        assertThat(sample("req.hdr(x-f),word(3,:)")).isEqualTo("c");
        assertThat(sample("req.hdr(x-f),regsub(:,/,g)")).isEqualTo("a/b/c");
        assertThat(sample("req.hdr(x-j),json")).isEqualTo("a\\\"b\\\\");
        assertThat(sample("src,ipmask(16)")).isEqualTo("10.1.0.0");
        assertThat(sample("query")).isEqualTo("a=7&b=x&a=9");
        assertThat(sample("url_param(a)")).isEqualTo("7");
        assertThat(sample("base")).isEqualTo("www.Example.com:8080/img/x/logo.PNG");
        Path map = dir.resolve("m.map");
        Files.writeString(map, "hello backend_a\nother backend_b\n", StandardCharsets.UTF_8);
        assertThat(sample("req.hdr(x-in),lower,map(" + map + ")")).isEqualTo("backend_a");
        assertThat(sample("req.hdr(x-f),map(" + map + ",dflt)")).isEqualTo("dflt");
    }

    @Test
    void httpFirstReqIsTrueOnlyForTheFirstRequestOfTheConnection() {
        FakeTxn first = new FakeTxn("GET", "/");
        FakeTxn later = new FakeTxn("GET", "/");
        later.first = false;
        Acl acl = RuleCompiler.acl(new AclExpr("http_first_req", List.of(), List.of()));
        assertThat(acl.test(first)).isTrue();
        assertThat(acl.test(later)).isFalse();
        SampleExpr s = RuleCompiler.sample("http_first_req");
        assertThat(Samples.str(s.get(first))).hasToString("1");
        assertThat(Samples.str(s.get(later))).hasToString("0");
        // no request (tcp-request connection rules): no sample
        assertThat(s.get(new RequestTxn(null, first.client, first.client, "fe", null))).isNull();
    }

    @Test
    void conditionsCombineAndOrNot() {
        RuleCompiler rc = new RuleCompiler(Map.of("img", List.of(new AclExpr("path_beg", List.of(), List.of("/img"))),
                "nope", List.of(new AclExpr("path_beg", List.of(), List.of("/nope")))));
        assertThat(rc.condition(cond(false, List.of(List.of(named("img"), named("nope"))))).test(T)).isFalse();
        assertThat(rc.condition(cond(false, List.of(List.of(named("img"), not("nope"))))).test(T)).isTrue();
        assertThat(rc.condition(cond(false, List.of(List.of(named("nope")), List.of(named("img"))))).test(T)).isTrue();
        assertThat(rc.condition(cond(true, List.of(List.of(named("img"))))).test(T)).isFalse();
        assertThat(rc.condition(cond(false, List.of(List.of(named("METH_GET"), named("TRUE"), not("FALSE"))))).test(T)).isTrue();
    }

    @Test
    void badExpressionsAreNamed() {
        assertThatThrownBy(() -> RuleCompiler.sample("pth")).hasMessage("unknown fetch method 'pth'; did you mean 'path' maybe ?");
        assertThatThrownBy(() -> RuleCompiler.sample("path,lowr")).hasMessage("unknown converter 'lowr'; did you mean 'lower' maybe ?");
        assertThatThrownBy(() -> RuleCompiler.sample("url_param")).hasMessageContaining("expects at least 1 argument");
        assertThatThrownBy(() -> RuleCompiler.acl(new AclExpr("path", List.of("-m", "bogus"), List.of("x"))))
                .hasMessage("unknown pattern matching method 'bogus'");
        assertThatThrownBy(() -> new RuleCompiler(Map.of()).condition(cond(false, List.of(List.of(named("undefined"))))))
                .hasMessage("no such ACL : 'undefined'");
    }

    @Test
    void phases() {
        RuleCompiler.checkPhase("hdr(host)", RuleCompiler.Phase.RESPONSE);
        RuleCompiler.checkPhase("src", RuleCompiler.Phase.RESPONSE);
        RuleCompiler.checkPhase("status", RuleCompiler.Phase.RESPONSE);
        assertThatThrownBy(() -> RuleCompiler.checkPhase("status", RuleCompiler.Phase.REQUEST)).hasMessageContaining("needs 'HTTP response'");
        assertThatThrownBy(() -> RuleCompiler.checkPhase("cook(a)", RuleCompiler.Phase.RESPONSE)).hasMessageContaining("needs 'HTTP request headers'");
    }

    static Condition cond(boolean unless, List<List<Condition.Term>> alternatives) {
        return new Condition(unless, alternatives);
    }

    static Condition.Term named(String name) {
        return new Condition.Term(false, name, null);
    }

    static Condition.Term not(String name) {
        return new Condition.Term(true, name, null);
    }
}
