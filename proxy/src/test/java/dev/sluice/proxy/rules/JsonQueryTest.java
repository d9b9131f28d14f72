package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** HAProxy 2.6's mjson path walk and value forms (JsonQueryParityTest compares the converters with HAProxy itself). */
class JsonQueryTest {
    private static Object q(String json, String path, boolean integer) {
        return JsonQuery.query(json.getBytes(StandardCharsets.ISO_8859_1), path, integer);
    }

    @Test
    void valuesAsMjsonGivesThem() {
        String doc = "{\"a\":{\"b\":[1,{\"c\":\"d\\\"e\"}]},\"n\":123456789,\"x\":0.1,\"k\\\\.y\":1}";
        assertThat(q(doc, "$.a.b[1].c", false)).isEqualTo("d\"e");
        assertThat(q(doc, "$.a.b[0]", false)).isEqualTo("1");
        assertThat(q(doc, "$.n", false)).isEqualTo("1.23457e+08");
        assertThat(q(doc, "$.n", true)).isEqualTo(123456789L);
        assertThat(q(doc, "$.x", false)).isEqualTo("0.1");
        assertThat(q(doc, "$.a", false)).isNull();
        assertThat(q(doc, "a.b", false)).isNull();
        assertThat(q("{\"a\":tru}", "$.a", false)).isNull();
    }

    @Test
    void printfG() {
        assertThat(JsonQuery.percentG(100000)).isEqualTo("100000");
        assertThat(JsonQuery.percentG(1000000)).isEqualTo("1e+06");
        assertThat(JsonQuery.percentG(999999.5)).isEqualTo("1e+06");
        assertThat(JsonQuery.percentG(0.0001)).isEqualTo("0.0001");
        assertThat(JsonQuery.percentG(0.00001234567)).isEqualTo("1.23457e-05");
        assertThat(JsonQuery.percentG(-2.5)).isEqualTo("-2.5");
        assertThat(JsonQuery.percentG(1e100)).isEqualTo("1e+100");
    }

    @Test
    void strtollBaseZero() {
        byte[] b = "0x1f 010 -42 99999999999999999999".getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonQuery.strtoll(b, 0, 4)).isEqualTo(31);
        assertThat(JsonQuery.strtoll(b, 5, 8)).isEqualTo(8);
        assertThat(JsonQuery.strtoll(b, 9, 12)).isEqualTo(-42);
        assertThat(JsonQuery.strtoll(b, 13, b.length)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void jwtParts() {
        byte[] t = "eyJhIjoxfQ.eyJiIjoyfQ.sig".getBytes(StandardCharsets.US_ASCII);
        assertThat(new String(JsonQuery.jwtMember(t, 0), StandardCharsets.US_ASCII)).isEqualTo("{\"a\":1}");
        assertThat(new String(JsonQuery.jwtMember(t, 1), StandardCharsets.US_ASCII)).isEqualTo("{\"b\":2}");
        assertThat(JsonQuery.jwtMember("nodot".getBytes(StandardCharsets.US_ASCII), 1)).isNull();
    }
}
