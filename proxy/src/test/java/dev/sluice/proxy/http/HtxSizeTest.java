package dev.sluice.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

/** {@link HtxSize}'s pure parts: the end of a message, a made head. */
class HtxSizeTest {

    @Test
    void anEndCountsTrailersAndTheirBlock() {
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), new HttpFields());
        assertThat(HtxSize.end(h, null)).isZero();
        HttpFields t = new HttpFields();
        t.add(AsciiString.of("x-trailer"), AsciiString.of("abc"));
        assertThat(HtxSize.end(h, t)).isEqualTo(13);
        h.chunkedEnd(true);
        assertThat(HtxSize.end(h, null)).isEqualTo(1);
        assertThat(HtxSize.end(h, new HttpFields())).isEqualTo(1);
    }

    @Test
    void aHeadTheProxyMadeIsMeasuredFromItsFields() {
        // HAProxy's 403 page: "HTTP/1.1 403 Forbidden", content-length, cache-control, content-type
        ResponseHead h = GeneratedResponse.of(403).head();
        assertThat(h.htxSize()).isEqualTo(20 + 8 + 3 + 9 + (14 + 2) + (13 + 8) + (12 + 9) + 1);
        assertThat(HtxSize.digits(0)).isEqualTo(1);
        assertThat(HtxSize.digits(1000)).isEqualTo(4);
    }
}
