package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Tune;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code req.len}, {@code req.payload}, {@code req.payload_lv}, their {@code res.} forms and {@code wait_end}, with
 * HAProxy 2.6's "may change" reports (payload.c) and argument checks (the messages of {@code haproxy -c}).
 */
class PayloadFetchesTest {
    private static HeldTxn held(String ascii) {
        HeldTxn t = new HeldTxn();
        t.request.writeCharSequence(ascii, StandardCharsets.ISO_8859_1);
        return t;
    }

    /** The sample as text ("null" for none) and whether the fetch said it may change. */
    private static String read(String expr, HeldTxn t) {
        t.mayChange = false;
        Object v = RuleCompiler.sample(expr).get(t);
        return (v == null ? "null" : Samples.str(v).toString()) + (t.mayChange ? " (may change)" : "");
    }

    @Test
    void lengthIsAlwaysSubjectToChange() {
        HeldTxn t = held("hello");
        assertThat(read("req.len", t)).isEqualTo("5 (may change)");
        assertThat(read("req_len", t)).isEqualTo("5 (may change)");
        assertThat(read("res.len", t)).isEqualTo("null");
        t.response = Unpooled.wrappedBuffer(new byte[] {1, 2});
        assertThat(read("res.len", t)).isEqualTo("2 (may change)");
        // an HTTP transaction holds no payload: no sample, nothing to wait for
        FakeTxn http = new FakeTxn("GET", "/");
        assertThat(RuleCompiler.sample("req.len").get(http)).isNull();
        assertThat(RuleCompiler.sample("req.payload(0,1)").get(http)).isNull();
    }

    @Test
    void payloadWaitsForItsBytesUnlessTheyCouldNeverFit() {
        HeldTxn t = held("GET /index.html HTTP/1.1\r\n");
        assertThat(read("req.payload(0,3)", t)).isEqualTo("GET");
        assertThat(read("req.payload(4,11)", t)).isEqualTo("/index.html");
        assertThat(read("req.payload(4,100)", t)).isEqualTo("null (may change)");
        // length 0: all from the offset, more may come
        assertThat(read("req.payload(16,0)", t)).isEqualTo("HTTP/1.1\r\n (may change)");
        assertThat(read("req.payload(26,0)", t)).isEqualTo(" (may change)");
        assertThat(read("req.payload(27,0)", t)).isEqualTo("null (may change)");
        // past tune.bufsize: never, at once
        assertThat(read("req.payload(0,16385)", t)).isEqualTo("null");
        assertThat(read("req.payload(16380,5)", t)).isEqualTo("null");
        assertThat(read("req.payload(16379,5)", t)).isEqualTo("null (may change)");
        assertThat(read("req.payload(-1,2)", t)).isEqualTo("null");
        t.tune = new Tune(1024, 256, 101);
        assertThat(read("req.payload(1000,100)", t)).isEqualTo("null");
        assertThat(read("res.payload(0,1)", t)).isEqualTo("null");
        t.response = Unpooled.wrappedBuffer("220 smtp".getBytes(StandardCharsets.US_ASCII));
        assertThat(read("res.payload(0,3)", t)).isEqualTo("220");
    }

    @Test
    void lengthValueReadsABigEndianCountThenTheBytes() {
        // a 2-byte length 5 then "hello", then a 1-byte length 3 and "abc"
        HeldTxn t = held("\u0000\u0005hello\u0003abc");
        assertThat(read("req.payload_lv(0,2)", t)).isEqualTo("hello");
        assertThat(read("req.payload_lv(7,1)", t)).isEqualTo("abc");
        // offset2: absolute, or relative to the end of the length when signed
        assertThat(read("req.payload_lv(0,2,3)", t)).isEqualTo("ello\u0003");
        assertThat(read("req.payload_lv(0,2,+1)", t)).isEqualTo("ello\u0003");
        assertThat(read("req.payload_lv(7,1,-2)", t)).isEqualTo("o\u0003a");
        assertThat(read("req.payload_lv(0,2,)", t)).isEqualTo("hello");
        // not all there yet: the length, or the bytes it counts
        assertThat(read("req.payload_lv(11,2)", t)).isEqualTo("null (may change)");
        assertThat(read("req.payload_lv(7,1,+1)", t)).isEqualTo("null (may change)");
        // a count of 0, or one past tune.bufsize, never matches
        HeldTxn zero = held("\u0000\u0000xyz");
        assertThat(read("req.payload_lv(0,2)", zero)).isEqualTo("null");
        HeldTxn huge = held("\u00ff\u00ffxyz");
        assertThat(read("req.payload_lv(0,2)", huge)).isEqualTo("null");
        assertThat(read("req.payload_lv(0,1)", huge)).isEqualTo("null (may change)");
    }

    @Test
    void argumentsAreCheckedAsHaproxyDoes() {
        assertThatThrownBy(() -> acl("req.payload(a,1)", "-m", "found"))
                .hasMessage("fetch method 'req.payload' : failed to parse 'a' as type 'integer' at position 1 in ACL expression 'req.payload(a,1)'");
        assertThatThrownBy(() -> acl("req.payload_lv(-1,2)", "-m", "found"))
                .hasMessage("invalid args in fetch method 'req.payload_lv' : payload offset1 must be positive in ACL expression 'req.payload_lv(-1,2)'");
        assertThatThrownBy(() -> acl("req.payload_lv(0,0)", "-m", "found")).hasMessageContaining(": payload length must be > 0 in ACL");
        assertThatThrownBy(() -> acl("req.payload_lv(0,2,x)", "-m", "found")).hasMessageContaining(": payload offset2 is not a number in ACL");
        assertThatThrownBy(() -> acl("req.payload_lv(0,1,-5)", "-m", "found")).hasMessageContaining(": payload offset2 too negative in ACL");
        assertThatThrownBy(() -> acl("req.payload(0,2)", "-m", "bin", "4g")).hasMessage("an hex digit is expected (found 'g')");
        assertThatThrownBy(() -> acl("req.payload(0,2)", "-m", "bin", "414")).hasMessage("an even number of hex digit is expected");
        assertThatThrownBy(() -> acl("req.payload(0,2)", "4142")).hasMessage(
                "matching method must be specified first (using '-m') when using a sample fetch of this type ('req.payload')");
        assertThatThrownBy(() -> acl("req_ssl_ver", "3.x")).hasMessage("'3.x' is not a dotted number");
        assertThatThrownBy(() -> acl("req_ssl_ver", "3.3:3.1")).hasMessage("'3.3:3.1' is not a valid dotted number range");
        assertThatThrownBy(() -> RuleCompiler.sample("payload(a,1)")).hasMessageContaining("fetch method 'payload' : failed to parse 'a'");
    }

    @Test
    void binaryPatternsCompareBytes() {
        HeldTxn t = held("\u0016\u0003\u0001");
        assertThat(acl("req.payload(0,3)", "-m", "bin", "160301").eval(t)).isEqualTo(Cond.PASS);
        assertThat(acl("req.payload(0,3)", "-m", "bin", "1603").eval(t)).isEqualTo(Cond.FAIL);
        assertThat(acl("req.payload(0,2)", "-m", "bin", "aa", "1603").eval(t)).isEqualTo(Cond.PASS);
        assertThat(acl("req.payload(0,2)", "-m", "bin", "1603").test(new FakeTxn("GET", "/"))).isFalse();
        // other samples compare their characters as bytes
        assertThat(acl("str(GET)", "-m", "bin", "474554").test(new FakeTxn("GET", "/"))).isTrue();
    }

    @Test
    void waitEndWaitsForTheEnd() {
        HeldTxn t = held("x");
        assertThat(read("wait_end", t)).isEqualTo("null (may change)");
        t.contentFinal = true;
        assertThat(read("wait_end", t)).isEqualTo("1");
        assertThat(RuleCompiler.sample("wait_end").get(new FakeTxn("GET", "/"))).isEqualTo(Boolean.TRUE);
    }

    @Test
    void theDeclarationsSayWhatIsLayerSix() {
        for (String n : List.of("req.len", "req_len", "res.len", "req.payload", "res.payload", "req.payload_lv", "res.payload_lv",
                "req.ssl_sni", "req_ssl_sni", "req.ssl_alpn", "req.ssl_ver", "req_ssl_ver", "req.ssl_hello_type", "req_ssl_hello_type",
                "res.ssl_hello_type", "rep_ssl_hello_type", "req.ssl_ec_ext", "req.ssl_st_ext")) {
            assertThat(Fetches.get(n).l6()).as(n).isTrue();
            assertThat(Fetches.get(n).content()).as(n).isTrue();
            assertThat(Fetches.MISSING).doesNotContainKey(n);
        }
        assertThat(Fetches.get("wait_end").l6()).isFalse();
        assertThat(Fetches.get("wait_end").content()).isTrue();
        assertThat(Fetches.get("path").content()).isFalse();
        assertThat(Fetches.get("res.len").response()).isTrue();
    }

    private static Acl acl(String sample, String... flagsAndValues) {
        List<String> all = List.of(flagsAndValues);
        int split = 0;
        while (split < all.size() && all.get(split).startsWith("-")) {
            split += all.get(split).equals("-i") ? 1 : 2;
        }
        return RuleCompiler.acl(new AclExpr(sample, all.subList(0, split), all.subList(split, all.size())));
    }

    /** {@code payload} and {@code payload_lv}: the request's bytes outside response rules, as the req. forms. */
    @Test
    void directionNeutralPayloadReadsTheRequestOutsideResponseRules() {
        HeldTxn t = held("GET /index.html HTTP/1.1\r\n");
        assertThat(read("payload(4,11)", t)).isEqualTo(read("req.payload(4,11)", t)).isEqualTo("/index.html");
        assertThat(read("payload(4,100)", t)).isEqualTo("null (may change)");
        HeldTxn lv = new HeldTxn(new byte[] {3, 'a', 'b', 'c', 9});
        assertThat(read("payload_lv(0,1)", lv)).isEqualTo(read("req.payload_lv(0,1)", lv)).isEqualTo("abc");
    }

    /** distcc: tokens of 4 bytes and 8 hex digits, a body after those that have one (not ARGC, DIST, NFIL, STAT, DONE). */
    @Test
    void distccTokensAsPayloadCReadsThem() {
        HeldTxn t = held("DIST00000001ARGC00000002ARGV00000003gccARGV00000002-cDOTI00000005hello");
        assertThat(read("distcc_param(DIST)", t)).isEqualTo("1");
        assertThat(read("distcc_param(ARGC)", t)).isEqualTo("2");
        assertThat(read("distcc_body(ARGV)", t)).isEqualTo("gcc");
        assertThat(read("distcc_body(ARGV,2)", t)).isEqualTo("-c");
        assertThat(read("distcc_param(ARGV,2)", t)).isEqualTo("2");
        assertThat(read("distcc_body(DOTI)", t)).isEqualTo("hello");
        // a token not there (yet): the next one could still come
        assertThat(read("distcc_param(DONE)", t)).isEqualTo("null (may change)");
        assertThat(read("distcc_param(ARGV,3)", t)).isEqualTo("null (may change)");
        // a parameter that is not hexadecimal: never
        assertThat(read("distcc_param(DONE)", held("DIST0000000xDONE00000000"))).isEqualTo("null");
        assertThatThrownBy(() -> RuleCompiler.sample("distcc_param(TOOLONG)")).hasMessageContaining("token name must be exactly 4 characters");
    }
}
