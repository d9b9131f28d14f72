package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** base32, url32 and their +src forms, against the values HAProxy 2.6 gives for the same requests. */
class UrlHashFetchesTest {
    private static Object get(String expr, FakeTxn t) {
        return RuleCompiler.sample(expr).get(t);
    }

    private static String hex(String expr, FakeTxn t) {
        return HexFormat.of().withUpperCase().formatHex((byte[]) get(expr, t));
    }

    @Test
    void hashesAsHaproxy() {
        FakeTxn t = new FakeTxn("GET", "/p?a=1", "host", "h");
        assertThat(get("base32", t)).isEqualTo(256689826L);
        assertThat(get("url32", t)).isEqualTo(1622995683L);
        assertThat(hex("base32+src", t)).isEqualTo("0F4CC6A2" + "0A010203");
        assertThat(hex("url32+src", t)).isEqualTo("60BCF2E3" + "0A010203");
        // an absolute URI hashes its path only
        FakeTxn abs = new FakeTxn("GET", "http://h/p?a=1", "host", "h");
        assertThat(get("base32", abs)).isEqualTo(256689826L);
        assertThat(get("url32", abs)).isEqualTo(1622995683L);
        // base32 takes the first value of Host, url32 all of it
        FakeTxn odd = new FakeTxn("GET", "/x/%C3%A9?q", "host", "a.b, c");
        assertThat(get("base32", odd)).isEqualTo(3783766930L);
        assertThat(get("url32", odd)).isEqualTo(733287839L);
    }
}
