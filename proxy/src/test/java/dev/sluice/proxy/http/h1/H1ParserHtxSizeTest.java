package dev.sluice.proxy.http.h1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HtxSize;
import dev.sluice.proxy.http.MessageHead;
import org.junit.jupiter.api.Test;

/**
 * The HTX size the parser gives each head ({@link MessageHead#htxSize()}), what HAProxy 2.6 counts in %U/%B and
 * bin/bout: each expected number is what HAProxy 2.6.12 logged as %U (requests) or %B (responses, with their body) for
 * the same bytes.
 */
class H1ParserHtxSizeTest {

    private static MessageHead request(String s) {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed(s);
            assertThat(d.sink.error).isNull();
            return d.sink.messages.getFirst().head;
        }
    }

    private static MessageHead response(String s) {
        try (ParserDriver d = ParserDriver.response()) {
            d.feed(s);
            assertThat(d.sink.error).isNull();
            return d.sink.messages.getFirst().head;
        }
    }

    @Test
    void aHeadIsItsStartLinePartsFieldsAndTwentyOneBytes() {
        // curl 7.88.1's GET: 79 bytes on the wire, 82 for HAProxy
        assertThat(request("GET / HTTP/1.1\r\nHost: 127.0.0.1:18080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n").htxSize())
                .isEqualTo(82);
        assertThat(request("GET / HTTP/1.0\r\n\r\n").htxSize()).isEqualTo(33);
        assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nX: y\r\nX: z\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n").htxSize()).isEqualTo(60);
        // values are trimmed
        assertThat(request("GET / HTTP/1.1\r\nHost: 127.0.0.1:18080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nX-A:    spaced   \r\n\r\n")
                .htxSize()).isEqualTo(91);
    }

    @Test
    void hopByHopFieldsCountAsHaproxyKeepsThem() {
        // Connection loses its close and keep-alive tokens (and goes when nothing is left), the others stay
        assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").htxSize()).isEqualTo(38);
        assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Foo\r\nFoo: 1\r\n\r\n").htxSize()).isEqualTo(55);
        assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nProxy-Connection: close\r\nKeep-Alive: 5\r\n\r\n").htxSize()).isEqualTo(70);
    }

    @Test
    void theModelHoldsWhatHaproxysHtxHolds() {
        // the hop-by-hop fields stay in the model as in HAProxy's HTX: the head measured from its fields is the size
        for (String raw : new String[] {"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Foo\r\nFoo: 1\r\nTE: gzip, trailers\r\n\r\n",
            "GET / HTTP/1.1\r\nConnection: X-A , B, close ,C\r\nConnection: keep-alive\r\nKeep-Alive: 5\r\nUpgrade: h2c\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\nx"}) {
            MessageHead h = request(raw);
            assertThat(h.htxSize()).as(raw).isEqualTo(HtxSize.HEAD + 1 + (raw.startsWith("GET") ? 3 : 4) + 8 + HtxSize.fields(h.fields()));
        }
    }

    @Test
    void contentLengthIsKeptOnceAndGoesWithTransferEncoding() {
        MessageHead twice = request("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc");
        assertThat(twice.htxSize() + 3).isEqualTo(56);
        MessageHead both = request("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        // the data and the end-of-trailers block of a chunked message
        assertThat(both.chunkedEnd()).isTrue();
        assertThat(both.htxSize() + 3 + HtxSize.end(both, null)).isEqualTo(66);
        assertThat(request("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n").htxSize()).isEqualTo(53);
    }

    @Test
    void responsesToo() {
        assertThat(response("HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-h: abcdef\r\n\r\nxxxxx").htxSize() + 5).isEqualTo(63);
        assertThat(response("HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\n\r\n").htxSize()).isEqualTo(51);
        MessageHead chunked = response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nxxxxx\r\n0\r\n\r\n");
        assertThat(chunked.htxSize() + 5 + HtxSize.end(chunked, null)).isEqualTo(64);
        assertThat(response("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n").htxSize() + 5).isEqualTo(39);
    }
}
