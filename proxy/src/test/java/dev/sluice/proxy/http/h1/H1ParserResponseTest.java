package dev.sluice.proxy.http.h1;

import static dev.sluice.proxy.http.h1.ParserDriver.parseResponse;
import static dev.sluice.proxy.http.h1.ParserDriver.parseResponseTo;
import static dev.sluice.proxy.http.h1.RecordingSink.fields;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.ResponseHead;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Response parsing: status lines, interim and final responses, bodiless statuses, framing, errors (always 502). */
class H1ParserResponseTest {

    private static ResponseHead onlyHead(ParserDriver d) {
        return d.sink.only().response();
    }

    // ------------------------------------------------------------------ status line

    @Test
    void simpleResponseWithContentLength() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello");
        RecordingSink.Message m = d.sink.only();
        ResponseHead h = m.response();
        assertThat(h.status()).isEqualTo(200);
        assertThat(h.reason().toString()).isEqualTo("OK");
        assertThat(h.version()).isEqualTo(HttpVersion.HTTP_1_1);
        assertThat(h.isInterim()).isFalse();
        assertThat(fields(h.fields())).containsExactly("content-type: text/plain", "content-length: 5");
        assertThat(h.body()).isEqualTo(MessageHead.Body.LENGTH);
        assertThat(h.contentLength()).isEqualTo(5);
        assertThat(m.body()).isEqualTo("hello");
        assertThat(m.ended).isTrue();
        assertThat(d.sink.events).containsExactly("head", "body", "end");
        // responses do not pause: the next one may follow
        assertThat(d.parser.paused()).isFalse();
        assertThat(d.parser.idle()).isTrue();
    }

    @Test
    void statusLineForms() {
        assertThat(onlyHead(parseResponse("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n")).reason().toString()).isEmpty();
        assertThat(onlyHead(parseResponse("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n")).reason().toString()).isEmpty();
        assertThat(onlyHead(parseResponse("HTTP/1.1 404 Not  Found \r\nContent-Length: 0\r\n\r\n")).reason().toString())
            .isEqualTo("Not  Found ");
        assertThat(onlyHead(parseResponse("HTTP/1.1  301  Moved\r\nContent-Length: 0\r\n\r\n")).status()).isEqualTo(301);
        assertThat(onlyHead(parseResponse("HTTP/1.1 200 OK\nContent-Length: 0\n\n")).reason().toString()).isEqualTo("OK");
        assertThat(onlyHead(parseResponse("HTTP/1.1 200\nContent-Length: 0\n\n")).status()).isEqualTo(200);
        assertThat(onlyHead(parseResponse("HTTP/1.1 599 Whatever it is\r\nContent-Length: 0\r\n\r\n")).status()).isEqualTo(599);
        assertThat(onlyHead(parseResponse("HTTP/1.1 200 caf\u00e9\r\nContent-Length: 0\r\n\r\n")).reason().length()).isEqualTo(4);
        ResponseHead h10 = onlyHead(parseResponse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
        assertThat(h10.version()).isEqualTo(HttpVersion.HTTP_1_0);
    }

    @Test
    void leadingEmptyLinesAreIgnored() {
        assertThat(onlyHead(parseResponse("\r\n\nHTTP/1.1 204 No Content\r\n\r\n")).status()).isEqualTo(204);
    }

    @ParameterizedTest
    @ValueSource(strings = {"HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 abc OK", "HTTP/1.1 099 Low", "HTTP/1.1 000 Zero",
        "HTTP/1.1200 OK", "HTTP/2.0 200 OK", "HTTP/1 200 OK", "http/1.1 200 OK", "ICY 200 OK", "HTTP/1.1", "HTTP/1.1 ", "HTTP/1.1 OK 200",
        "HTTP/1.1 200 O\u0000K", "HTTP/1.1 20x OK", " HTTP/1.1 200 OK"})
    void invalidStatusLinesGive502(String line) {
        ParserDriver d = parseResponse(line + "\r\nContent-Length: 0\r\n\r\n");
        assertThat(d.sink.error).as(line).isNotNull();
        assertThat(d.sink.error.status()).isEqualTo(502);
        assertThat(d.sink.messages).isEmpty();
        assertThat(d.parser.failed()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bad Name: x", ": x", "X-A: a\u0000b", "X-A: a\rb", " folded", "Content-Length: 1, 2",
        "Content-Length: 1\r\nContent-Length: 2", "Content-Length: x", "Content-Length: -1", "Transfer-Encoding:",
        "Transfer-Encoding: chunked, chunked", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked"})
    void invalidResponseFieldsGive502(String field) {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\n" + field + "\r\n\r\n");
        assertThat(d.sink.error).as(field).isNotNull();
        assertThat(d.sink.error.status()).isEqualTo(502);
        assertThat(d.sink.messages).isEmpty();
    }

    @Test
    void responseHeadTooLargeGives502() {
        try (ParserDriver d = new ParserDriver(false, new H1Limits(100, 10), io.netty.buffer.UnpooledByteBufAllocator.DEFAULT)) {
            d.feed("HTTP/1.1 200 OK\r\nX-A: " + "a".repeat(200));
            assertThat(d.sink.events).containsExactly("error 502");
        }
        try (ParserDriver d = new ParserDriver(false, new H1Limits(100, 10), io.netty.buffer.UnpooledByteBufAllocator.DEFAULT)) {
            d.feed("HTTP/1.1 200 " + "a".repeat(200));
            assertThat(d.sink.events).containsExactly("error 502");
        }
        try (ParserDriver d = new ParserDriver(false, new H1Limits(1000, 2), io.netty.buffer.UnpooledByteBufAllocator.DEFAULT)) {
            d.feed("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n");
            assertThat(d.sink.events).containsExactly("error 502");
        }
    }

    // ------------------------------------------------------------------ 1xx, 101, CONNECT

    @Test
    void interimThenFinal() {
        ParserDriver d = parseResponse("HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\nContent-Length: 10\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        assertThat(d.sink.error).isNull();
        assertThat(d.sink.events).containsExactly("head", "head", "head", "body", "end");
        assertThat(d.sink.messages).extracting(m -> m.response().status()).containsExactly(100, 103, 200);
        RecordingSink.Message early = d.sink.messages.get(1);
        assertThat(early.response().isInterim()).isTrue();
        assertThat(early.head.body()).isEqualTo(MessageHead.Body.NONE);
        assertThat(fields(early.head.fields())).containsExactly("link: </a.css>; rel=preload");
        assertThat(d.sink.messages.get(0).ended).isFalse();
        assertThat(d.sink.messages.get(2).body()).isEqualTo("ok");
        assertThat(d.sink.messages.get(2).ended).isTrue();
    }

    @Test
    void interimThenFinalByteByByte() {
        String raw = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
        try (ParserDriver d = ParserDriver.response()) {
            byte[] b = ParserDriver.bytes(raw);
            for (int i = 0; i < b.length; i++) {
                d.feed(b, i, 1);
            }
            assertThat(d.sink.events).containsExactly("head", "head", "body", "end");
            assertThat(d.sink.last().body()).isEqualTo("ok");
        }
    }

    @Test
    void switchingProtocolsStopsParsing() {
        ParserDriver d = parseResponse("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nContent-Length: 5\r\n\r\n\u0081\u0005hello");
        RecordingSink.Message m = d.sink.messages.getFirst();
        assertThat(d.sink.error).isNull();
        assertThat(d.sink.events).containsExactly("head");
        assertThat(m.response().status()).isEqualTo(101);
        assertThat(m.response().isInterim()).isFalse();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.NONE);
        assertThat(d.parser.paused()).isTrue();
        assertThat(d.parser.upgradeProtocol().toString()).isEqualTo("websocket");
        assertThat(fields(m.head.fields())).containsExactly("connection: Upgrade", "upgrade: websocket",
            "sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "content-length: 5");
        // the tunnel's bytes are left for whoever takes the connection over
        assertThat(d.leftover).isEqualTo("\u0081\u0005hello");
    }

    @Test
    void aWebSocketUpgradeResponseNeedsAnAccept() {
        // HAProxy 2.6's h1_search_websocket_key on a response: Connection: upgrade and Upgrade: websocket without a
        // Sec-WebSocket-Accept (of any value) is an invalid response, 502
        for (String status : new String[] {"101 Switching Protocols", "200 OK"}) {
            ParserDriver d = parseResponse("HTTP/1.1 " + status + "\r\nConnection: Upgrade\r\nUpgrade: WebSocket\r\n\r\n");
            assertThat(d.sink.error).as(status).isNotNull();
            assertThat(d.sink.error.status()).isEqualTo(502);
            assertThat(d.sink.messages).isEmpty();
        }
        // another protocol, or no Connection: upgrade: no accept needed
        for (String fields : new String[] {"Connection: Upgrade\r\nUpgrade: h2c\r\n", "Upgrade: websocket\r\n"}) {
            ParserDriver d = parseResponse("HTTP/1.1 101 Switching Protocols\r\n" + fields + "\r\n");
            assertThat(d.sink.error).as(fields).isNull();
            assertThat(d.sink.messages).hasSize(1);
        }
        ParserDriver d = parseResponse("HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n"
            + "sec-websocket-accept: x\r\n\r\n");
        assertThat(d.sink.error).isNull();
    }

    @Test
    void connectSuccessStopsParsing() {
        ParserDriver d = parseResponseTo(false, true, "HTTP/1.1 200 Connection established\r\n\r\nTUNNEL");
        assertThat(d.sink.events).containsExactly("head");
        assertThat(d.parser.paused()).isTrue();
        assertThat(d.leftover).isEqualTo("TUNNEL");
    }

    @Test
    void connectFailureHasABody() {
        ParserDriver d = parseResponseTo(false, true, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 4\r\n\r\ndeny");
        assertThat(d.sink.only().body()).isEqualTo("deny");
        assertThat(d.sink.only().ended).isTrue();
        assertThat(d.parser.paused()).isFalse();
    }

    // ------------------------------------------------------------------ bodiless responses

    @Test
    void noContentHasNoBodyAndLosesContentLength() {
        ParserDriver d = parseResponse("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\nX: 1\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.NONE);
        assertThat(fields(m.head.fields())).containsExactly("x: 1");
        assertThat(m.ended).isTrue();
        assertThat(d.sink.events).containsExactly("head", "end");
    }

    @Test
    void notModifiedHasNoBodyButKeepsContentLength() {
        ParserDriver d = parseResponse("HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\nETag: \"x\"\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.NONE);
        assertThat(fields(m.head.fields())).containsExactly("content-length: 1234", "etag: \"x\"");
        assertThat(m.ended).isTrue();
    }

    @Test
    void notModifiedWithTransferEncodingHasNoBody() {
        ParserDriver d = parseResponse("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n");
        assertThat(d.sink.only().ended).isTrue();
        assertThat(d.sink.only().head.body()).isEqualTo(MessageHead.Body.NONE);
    }

    @Test
    void responseToHeadHasNoBody() {
        ParserDriver d = parseResponseTo(true, false, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.NONE);
        assertThat(fields(m.head.fields())).containsExactly("content-length: 100");
        assertThat(m.ended).isTrue();
        d = parseResponseTo(true, false, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        assertThat(d.sink.only().ended).isTrue();
        assertThat(d.sink.only().head.body()).isEqualTo(MessageHead.Body.NONE);
        d = parseResponseTo(true, false, "HTTP/1.1 200 OK\r\n\r\n");
        assertThat(d.sink.only().ended).isTrue();
    }

    @Test
    void zeroContentLength() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.LENGTH);
        assertThat(m.head.hasBody()).isFalse();
        assertThat(m.ended).isTrue();
    }

    // ------------------------------------------------------------------ framing

    @Test
    void chunkedResponse() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\nX-T: 1\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.STREAMED);
        assertThat(fields(m.head.fields())).isEmpty();
        assertThat(m.body()).isEqualTo("Wikipedia");
        assertThat(fields(m.trailers)).containsExactly("x-t: 1");
        assertThat(d.parser.closeAfter()).isFalse();
    }

    @Test
    void chunkedWithContentLengthClosesAfter() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n");
        assertThat(d.sink.only().body()).isEqualTo("ok");
        assertThat(fields(d.sink.only().head.fields())).isEmpty();
        assertThat(d.parser.closeAfter()).isTrue();
    }

    @Test
    void otherCodingThenChunkedIsDechunkedAndClosesAfter() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\n\u001f\u008b\u0008\r\n0\r\n\r\n");
        assertThat(d.sink.only().body()).isEqualTo("\u001f\u008b\u0008");
        assertThat(d.sink.only().head.body()).isEqualTo(MessageHead.Body.STREAMED);
        assertThat(d.parser.closeAfter()).isTrue();
    }

    @Test
    void transferEncodingWithoutChunkedIsReadUntilClose() {
        try (ParserDriver d = ParserDriver.response()) {
            d.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabcdef");
            RecordingSink.Message m = d.sink.messages.getFirst();
            assertThat(m.head.body()).isEqualTo(MessageHead.Body.UNTIL_CLOSE);
            assertThat(fields(m.head.fields())).isEmpty();
            assertThat(m.ended).isFalse();
            assertThat(d.parser.inputClosed()).isTrue();
            assertThat(m.body()).isEqualTo("abcdef");
            assertThat(m.ended).isTrue();
        }
    }

    @Test
    void bodyUntilCloseEndsWithInputClosed() {
        try (ParserDriver d = ParserDriver.pooled(false)) {
            d.feed("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\npart one, ");
            RecordingSink.Message m = d.sink.messages.getFirst();
            assertThat(m.head.body()).isEqualTo(MessageHead.Body.UNTIL_CLOSE);
            assertThat(d.parser.inBody()).isTrue();
            d.feed("part two, ");
            d.feed("HTTP/1.1 200 OK\r\n\r\n");
            assertThat(m.ended).isFalse();
            assertThat(d.parser.inputClosed()).isTrue();
            assertThat(m.ended).isTrue();
            assertThat(m.body()).isEqualTo("part one, part two, HTTP/1.1 200 OK\r\n\r\n");
            assertThat(d.sink.events).containsExactly("head", "body", "end");
            assertThat(d.parser.inputClosed()).isFalse();
            assertThat(d.sink.error).isNull();
        }
    }

    @Test
    void emptyBodyUntilClose() {
        try (ParserDriver d = ParserDriver.response()) {
            d.feed("HTTP/1.1 200 OK\r\n\r\n");
            assertThat(d.parser.inputClosed()).isTrue();
            assertThat(d.sink.only().body()).isEmpty();
            assertThat(d.sink.events).containsExactly("head", "end");
        }
    }

    @Test
    void connectionFlags() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        assertThat(d.parser.closeWanted()).isTrue();
        assertThat(fields(d.sink.only().head.fields())).containsExactly("content-length: 0");
        d = parseResponse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 0\r\n\r\n");
        assertThat(d.parser.keepAliveWanted()).isTrue();
        assertThat(d.parser.closeWanted()).isFalse();
        assertThat(fields(d.sink.only().head.fields())).containsExactly("keep-alive: timeout=5", "content-length: 0");
    }

    @Test
    void hopByHopFieldsStayConnectionLosesItsCloseAndKeepAliveTokens() {
        // what haproxy -db relayed to an HTTP/1.1 client
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive, X-Resp\r\nX-Resp: 1\r\n"
            + "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTE: gzip\r\n\r\nok");
        assertThat(fields(d.sink.only().head.fields())).containsExactly("content-length: 2", "connection: X-Resp", "x-resp: 1",
            "keep-alive: timeout=5", "proxy-connection: keep-alive", "te: gzip");
        assertThat(d.parser.keepAliveWanted()).isTrue();
    }

    @Test
    void invalidContentLengthIsToleratedWithTransferEncoding() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nContent-Length: nope\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assertThat(d.sink.only().ended).isTrue();
        assertThat(d.parser.closeAfter()).isTrue();
    }

    @Test
    void chunkedResponseErrorsGive502() {
        ParserDriver d = parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        assertThat(d.sink.error.status()).isEqualTo(502);
        d = parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX");
        assertThat(d.sink.error.status()).isEqualTo(502);
        d = parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: 1\r\n\r\n");
        assertThat(d.sink.error.status()).isEqualTo(502);
    }

    // ------------------------------------------------------------------ truncation

    @Test
    void truncatedResponsesGive502() {
        String[] truncated = {"HTTP/1.1 200", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 20"};
        for (String raw : truncated) {
            try (ParserDriver d = ParserDriver.response()) {
                d.feed(raw);
                assertThat(d.sink.error).as(raw).isNull();
                assertThat(d.parser.inputClosed()).isFalse();
                assertThat(d.sink.error).as(raw).isNotNull();
                assertThat(d.sink.error.status()).isEqualTo(502);
                assertThat(d.sink.error.reason()).contains("truncated");
            }
        }
    }

    @Test
    void inputClosedWithNothingPendingIsClean() {
        try (ParserDriver d = ParserDriver.response()) {
            assertThat(d.parser.inputClosed()).isFalse();
            d.feed("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx");
            assertThat(d.parser.inputClosed()).isFalse();
            assertThat(d.sink.error).isNull();
        }
    }

    // ------------------------------------------------------------------ one response per call

    @Test
    void parsingStopsAfterEachCompleteResponse() {
        String[] first = {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"};
        String next = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
        for (String f : first) {
            try (ParserDriver d = ParserDriver.response()) {
                d.feed(f + next);
                // bytes after a complete response are not taken as a response to a request not sent yet
                assertThat(d.sink.messages).as(f).hasSize(1);
                assertThat(d.sink.only().ended).isTrue();
                assertThat(d.remaining()).isEqualTo(next);
                assertThat(d.parser.idle()).isTrue();
                // the next call parses the next response (a kept-alive connection's next exchange)
                d.parser.parse(d.in);
                assertThat(d.sink.messages).hasSize(2);
                assertThat(d.sink.last().ended).isTrue();
            }
        }
    }

    @Test
    void headExpectationAppliesUntilChanged() {
        try (ParserDriver d = ParserDriver.response()) {
            d.parser.expectResponseTo(true, false);
            d.feed("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n");
            assertThat(d.sink.last().ended).isTrue();
            d.parser.expectResponseTo(false, false);
            d.feed("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc");
            assertThat(d.sink.last().body()).isEqualTo("abc");
            assertThat(d.sink.last().ended).isTrue();
        }
    }

    @Test
    void randomSplitsOfAResponseSequence() {
        String raw = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x\r\nabc\r\n10\r\n0123456789abcdef\r\n"
            + "0\r\nX-T: 1\r\n\r\n";
        byte[] b = ParserDriver.bytes(raw);
        Random rnd = new Random(3);
        for (int round = 0; round < 300; round++) {
            int[] cuts = rnd.ints(rnd.nextInt(12), 0, b.length + 1).sorted().toArray();
            ParserDriver d = ParserDriver.response();
            try (d) {
                int prev = 0;
                for (int c : cuts) {
                    d.feed(b, prev, c - prev);
                    prev = c;
                }
                d.feed(b, prev, b.length - prev);
            }
            assertThat(d.sink.events).as(Arrays.toString(cuts)).containsExactly("head", "head", "body", "end");
            assertThat(d.sink.last().body()).isEqualTo("abc0123456789abcdef");
            assertThat(fields(d.sink.last().trailers)).containsExactly("x-t: 1");
        }
    }
}
