package dev.sluice.proxy.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;
import java.io.ByteArrayOutputStream;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** {@code req.hdrs_bin}: HAProxy 2.6's encoding of the header list (the short case is compared with HAProxy in SampleParityTest). */
class HeadersBinTest {

    private static String varint(long v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FetchesInternal.varint(out, v);
        return HexFormat.of().formatHex(out.toByteArray());
    }

    @Test
    void lengthsAreHaproxysVarints() {
        // encode_varint of intops.h: one byte below 240; 240 | low bits, then 7-bit groups
        assertThat(varint(0)).isEqualTo("00");
        assertThat(varint(239)).isEqualTo("ef");
        assertThat(varint(240)).isEqualTo("f000");
        assertThat(varint(255)).isEqualTo("ff00");
        assertThat(varint(256)).isEqualTo("f001");
        assertThat(varint(2287)).isEqualTo("ff7f");
        assertThat(varint(2288)).isEqualTo("f08000");
    }

    @Test
    void eachFieldThenTwoZeroLengths() {
        HttpFields f = new HttpFields();
        f.add("host", "x");
        f.add("x-long", "v".repeat(300));
        RequestHead h = new RequestHead(AsciiString.of("GET"), new AsciiString("/"), HttpVersion.HTTP_1_1, f);
        byte[] b = FetchesInternal.binary(h);
        String hex = HexFormat.of().formatHex(b);
        assertThat(hex).startsWith("04" + HexFormat.of().formatHex("host".getBytes()) + "01" + "78" + "06"
                + HexFormat.of().formatHex("x-long".getBytes()) + varint(300)).endsWith("0000");
        assertThat(b).hasSize(1 + 4 + 1 + 1 + 1 + 6 + 2 + 300 + 2);
        assertThat(FetchesInternal.binary(null)).isNull();
    }
}
