package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Each converter on a constant sample, against the output HAProxy 2.6 gives for the same expression (collected from
 * {@code http-request return lf-string "%[expr]"} on haproxy 2.6.12; SampleParityTest compares the two live).
 */
class ConvertersTest {
    private static String eval(String expr) {
        Object v = RuleCompiler.sample(expr).get(new FakeTxn("GET", "/"));
        return v == null ? null : Samples.str(v).toString();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
            "str(abc),sha1,hex => A9993E364706816ABA3E25717850C26C9CD0D89D",
            "str(abc),sha2,hex => BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
            "str(abc),sha2(512),hex => DDAF35A193617ABACC417349AE20413112E6FA4E89A97EA20A9EEEE64B55D39A2192992A274FC1A836BA3C23A3FEEBBD454D4423643CE80E2A9AC94FA54CA49F",
            "str(abc),digest(md5),hex => 900150983CD24FB0D6963F7D28E17F72",
            // digests the JDK lacks, from Bouncy Castle (values from openssl dgst)
            "str(abc),digest(blake2b512),hex => BA80A53F981C4D0D6A2797B69F12F6E94C212F14685AC4B74B12BB6FDBFFA2D17D87C5392AAB792DC252D5DE4533CC9518D38AA8DBF1925AB92386EDD4009923",
            "str(abc),digest(blake2s256),hex => 508C5E8C327C14E2E1A72BA34EEB452F37458B209ED63A294D999B4C86675982",
            "str(abc),digest(ripemd160),hex => 8EB208F7E05D987A9B044A8E98C6B087F15A0BFC",
            "str(abc),digest(sha256),base64 => ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=",
            "str(abc),hmac(sha256,a2V5),hex => 9C196E32DC0175F86F4B1CB89289D6619DE6BEE699E4C378E68309ED97A1A6AB",
            "str(hello),crc32c => 2591144780",
            "str(hello),crc32c(1) => 2290590055",
            "str(hello),xxh32 => 4211111929",
            "str(hello),xxh32(5) => 3191799670",
            "str(hello),xxh64 => 2794345569481354659",
            "str(0123456789abcdef0123456789abcdefXYZ),xxh64(3) => -7667033615186240413",
            "str(0123456789abcdefXYZ),xxh32 => 2237583922",
            "str(hello),length => 5",
            "str(),length => 0",
            "bool(1),iif(yes,no) => yes",
            "bool(0),iif(yes,no) => no",
            "int(6),even => 1",
            "int(7),odd => 1",
            "int(5),cpl => -6",
            "int(12),and(10) => 8",
            "int(12),or(3) => 15",
            "int(12),xor(5) => 9",
            "int(258),htonl,hex => 00000102",
            "str(abcdef),be2hex => 616263646566",
            "str(abcdef),be2hex(:,2) => 6162:6364:6566",
            "str(abcde),be2hex(:,2,1) => 6162:6364",
            "str(abcdef),be2dec(-,2) => 24930-25444-25958",
            "str(abcde),be2dec(.,2,1) => 24930.25444",
            "str(xxabcxx),ltrim(x) => abcxx",
            "str(xxabcxx),rtrim(x) => xxabc",
            "str(a),add_item(:,,suf) => a:suf",
            "str(),add_item(:,,suf) => suf",
            "str(a b/c?d=e&f~),url_enc => a%20b%2Fc%3Fd%3De%26f~",
            "str(hello world!!),ub64enc => aGVsbG8gd29ybGQhIQ",
            "str(aGVsbG8gd29ybGQhIQ),ub64dec => hello world!!",
            "int(1500000000),http_date => Fri, 14 Jul 2017 02:40:00 GMT",
            "int(1500000000123),http_date(0,ms) => Fri, 14 Jul 2017 02:40:00.123 GMT",
            "int(1500000000),http_date(3600) => Fri, 14 Jul 2017 03:40:00 GMT",
            "int(1500000000),utime(%Y-%m-%d %H:%M:%S %a %b %j %e) => 2017-07-14 02:40:00 Fri Jul 195 14",
            "str(fr-FR;q=0.8),language(de;fr;en,zz) => fr",
            "str(de),language(fr;en,zz) => zz",
            "str(abc\\r\\ndef),cut_crlf => abc",
            "str(abc),debug => abc",
            // a binary sample read as a string ends at its first NUL byte (HAProxy's c_bin2str)
            "bin(61620063),length => 2",
            "bin(006162),length => 0",
            // protobuf: a varint, zigzag, a nested field, a string; ungrpc through two gRPC messages
            "bin(089601),protobuf(1,int32) => 150",
            "bin(089601),protobuf(1),hex => 9601",
            "bin(2805),protobuf(5,sint32) => -3",
            "bin(1a02082b),protobuf(3.1,int32) => 43",
            "bin(120774657374696e67),protobuf(2) => testing",
            "bin(00000000020801000000000512036162630a),ungrpc(2) => abc"
    })
    void asHaproxy(String expr, String expected) {
        assertThat(eval(expr.replace("\\r\\n", "\r\n"))).isEqualTo(expected == null ? "" : expected);
    }

    @Test
    void argumentErrorsAsHaproxy() {
        assertThatThrownBy(() -> eval("str(a),be2dec(:,9)")).hasMessageContaining("chunk_size out of [1..8] range (9)");
        assertThatThrownBy(() -> eval("str(a),sha2(100)")).hasMessageContaining("Unsupported number of bits: '100'.");
        assertThatThrownBy(() -> eval("str(a),digest(nope)")).hasMessageContaining("couldn't get message digest 'nope'");
        assertThatThrownBy(() -> eval("str(a),url_enc(path)")).hasMessageContaining("Allowed value is 'query'");
        assertThatThrownBy(() -> eval("str(a),51d.single(IsMobile)")).hasMessageContaining("not supported by Sluice yet");
    }

    @Test
    void variablesAsOperands() {
        FakeTxn t = new FakeTxn("GET", "/");
        t.vars.put("txn.k", "a2V5");
        t.vars.put("txn.n", 10L);
        t.vars.put("txn.s", "abc");
        assertThat(Samples.str(RuleCompiler.sample("int(12),and(txn.n)").get(t)).toString()).isEqualTo("8");
        assertThat(RuleCompiler.sample("str(abc),secure_memcmp(txn.s)").get(t)).isEqualTo(true);
        assertThat(RuleCompiler.sample("str(abd),secure_memcmp(txn.s)").get(t)).isEqualTo(false);
        assertThat(Samples.str(RuleCompiler.sample("str(abc),hmac(sha256,txn.k),hex").get(t)).toString())
                .isEqualTo("9C196E32DC0175F86F4B1CB89289D6619DE6BEE699E4C378E68309ED97A1A6AB");
        assertThat(Samples.str(RuleCompiler.sample("str(a),add_item(:,txn.s,z)").get(t)).toString()).isEqualTo("a:abcz");
        // a variable that is not base64 (HAProxy's strict base64dec: whole quads) gives no sample
        t.vars.put("txn.bad", "a2V");
        assertThat(RuleCompiler.sample("str(abc),hmac(sha256,txn.bad)").get(t)).isNull();
        assertThat(RuleCompiler.sample("str(a2V),b64dec").get(t)).isNull();
        assertThat(Samples.str(RuleCompiler.sample("str(a2V5),b64dec").get(t)).toString()).isEqualTo("key");
        RuleCompiler.sample("str(x),unset-var(txn.s)").get(t);
        assertThat(t.vars).doesNotContainKey("txn.s");
    }
}
