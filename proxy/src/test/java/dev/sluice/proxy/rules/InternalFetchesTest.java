package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import org.junit.jupiter.api.Test;

/** The internal fetches, the connection aliases and the response header variants added for HAProxy 2.6's inventory. */
class InternalFetchesTest {
    private static Object get(String expr, FakeTxn t) {
        return RuleCompiler.sample(expr).get(t);
    }

    private static String str(String expr, FakeTxn t) {
        Object v = get(expr, t);
        return v == null ? null : Samples.str(v).toString();
    }

    @Test
    void constantsAndProcess() {
        FakeTxn t = new FakeTxn("GET", "/p?a=1", "host", "h");
        assertThat(str("ipv4(10.1.2.3)", t)).isEqualTo("10.1.2.3");
        assertThat(str("ipv6(::1)", t)).isEqualTo("::1");
        assertThat(str("meth(PUT)", t)).isEqualTo("PUT");
        assertThat(str("bin(414243)", t)).isEqualTo("ABC");
        assertThat(str("str()", t)).isEmpty();
        assertThat(get("nbproc", t)).isEqualTo(1L);
        assertThat(get("proc", t)).isEqualTo(1L);
        assertThat(str("hostname", t)).isNotEmpty();
        long now = System.currentTimeMillis() / 1000;
        assertThat((Long) get("date", t)).isBetween(now - 1, now + 2);
        assertThat((Long) get("date(10)", t)).isBetween(now + 9, now + 12);
        assertThat((Long) get("date(0,ms)", t)).isGreaterThan(now * 1000 - 1000);
        assertThat((Long) get("date_us", t)).isBetween(0L, 999_999L);
        assertThat((Long) get("rand(10)", t)).isBetween(0L, 9L);
        // uuid: version 4, RFC 4122's variant, lower-case, a new one each time
        assertThat(str("uuid", t)).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}").isNotEqualTo(str("uuid(4)", t));
        assertThatThrownBy(() -> get("uuid(1)", t)).hasMessageContaining("Unsupported UUID version: '1'");
        assertThatThrownBy(() -> get("ipv4(::1)", t)).hasMessageContaining("not a valid IPv4 address");
        assertThatThrownBy(() -> get("bin(zz)", t)).hasMessageContaining("invalid hexadecimal string");
    }

    @Test
    void connectionAndRequest() {
        FakeTxn t = new FakeTxn("GET", "/p?a=1", "host", "h");
        assertThat(str("fc_src", t)).isEqualTo("10.1.2.3");
        assertThat(get("fc_src_port", t)).isEqualTo(40000L);
        assertThat(str("fc_dst", t)).isEqualTo("127.0.0.1");
        assertThat(get("fc_dst_port", t)).isEqualTo(8080L);
        assertThat(str("baseq", t)).isEqualTo("h/p?a=1");
        assertThat(get("urlp_val(a)", t)).isEqualTo(1L);
        assertThat(str("req.hdrs", t)).isEqualTo("host: h\r\n\r\n");
        assertThat(get("url_port", t)).isNull();
        FakeTxn abs = new FakeTxn("GET", "http://10.0.0.2:8081/x");
        assertThat(str("url_ip", abs)).isEqualTo("10.0.0.2");
        assertThat(get("url_port", abs)).isEqualTo(8081L);
        assertThat(get("url_port", new FakeTxn("GET", "http://10.0.0.2/x"))).isEqualTo(80L);
        assertThat(get("url_ip", new FakeTxn("GET", "http://example.com/x"))).isNull();
    }

    @Test
    void responseHeaderVariants() {
        FakeTxn t = new FakeTxn("GET", "/");
        HttpFields f = new HttpFields();
        f.add("x-n", "12");
        f.add("x-ip", "10.0.0.1");
        f.add("x-l", "a, b");
        t.response = new ResponseHead(HttpVersion.HTTP_1_1, 200, new io.netty.util.AsciiString("OK"), f);
        assertThat(get("res.hdr_val(x-n)", t)).isEqualTo(12L);
        assertThat(get("shdr_val(x-n)", t)).isEqualTo(12L);
        assertThat(str("res.hdr_ip(x-ip)", t)).isEqualTo("10.0.0.1");
        assertThat(get("res.fhdr_cnt(x-l)", t)).isEqualTo(1L);
        assertThat(get("res.hdr_cnt(x-l)", t)).isEqualTo(2L);
        assertThat(str("resp_ver", t)).isEqualTo("1.1");
        assertThat(str("res.hdr_names", t)).isEqualTo("x-n,x-ip,x-l");
        assertThat(str("res.hdr_names(;)", t)).isEqualTo("x-n;x-ip;x-l");
        assertThat(str("res.hdrs", t)).isEqualTo("x-n: 12\r\nx-ip: 10.0.0.1\r\nx-l: a, b\r\n\r\n");
    }
}
