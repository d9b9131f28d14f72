package dev.sluice.proxy.fcgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The CGI head of a FastCGI response, as HAProxy 2.6 turns it into an HTTP one. */
class CgiHeadTest {
    private static ResponseHead parse(String text, int restExpected) {
        ByteBuf b = Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
        try {
            ResponseHead h = CgiHead.parse(b, true);
            if (h != null) {
                assertThat(b.readableBytes()).isEqualTo(restExpected);
            }
            return h;
        } finally {
            b.release();
        }
    }

    @Test
    void statusHeaderGivesTheStatusAndGoes() {
        ResponseHead h = parse("Status: 404 Not Here\r\nContent-Type: text/plain\r\nDate: x\r\n\r\nbody", 4);
        assertThat(h.status()).isEqualTo(404);
        assertThat(h.reason().toString()).isEqualTo("Not Here");
        assertThat(h.fields().toString()).doesNotContain("status").contains("content-type");
    }

    @Test
    void noStatusIs200AndADateIsAdded() {
        ResponseHead h = parse("Content-Type: text/html\n\n", 0);
        assertThat(h.status()).isEqualTo(200);
        assertThat(h.reason().toString()).isEqualTo("OK");
        assertThat(h.fields().get(io.netty.util.AsciiString.cached("date")).toString())
                .matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
    }

    @Test
    void aLocationMakesA302UnlessAStatusComesAfterIt() {
        assertThat(parse("Location: /x\r\n\r\n", 0).status()).isEqualTo(302);
        assertThat(parse("Location: /x\r\n\r\n", 0).reason().toString()).isEqualTo("Moved Temporarily");
        assertThat(parse("Status: 301\r\nLocation: /x\r\n\r\n", 0).status()).isEqualTo(302);
        ResponseHead h = parse("Location: /x\r\nStatus: 301\r\n\r\n", 0);
        assertThat(h.status()).isEqualTo(301);
        assertThat(h.reason().toString()).isEqualTo("Moved Permanently");
    }

    @Test
    void anIncompleteHeadWaits() {
        assertThat(parse("Content-Type: text/html\r\n", 0)).isNull();
    }

    @Test
    void malformedHeadsAreRefused() {
        assertThatThrownBy(() -> parse("no colon here\r\n\r\n", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> parse("Status: abc\r\n\r\n", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> parse("Transfer-Encoding: gzip\r\n\r\n", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> parse("X: " + "a".repeat(CgiHead.MAX_HEAD), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
