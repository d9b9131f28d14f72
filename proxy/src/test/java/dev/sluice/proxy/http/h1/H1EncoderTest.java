package dev.sluice.proxy.http.h1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Byte-exact output of the HTTP/1.1 encoder: heads, chunk framing and the last chunk with trailers. */
class H1EncoderTest {

    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    /** Encodes with {@code f}, returns the bytes as text and releases the buffer. */
    private static String encode(Function<ByteBufAllocator, ByteBuf> f) {
        ByteBuf b = f.apply(ALLOC);
        try {
            return b.toString(StandardCharsets.ISO_8859_1);
        } finally {
            b.release();
            assertThat(b.refCnt()).isZero();
        }
    }

    private static HttpFields fields(String... nameValue) {
        HttpFields f = new HttpFields(2);
        for (int i = 0; i < nameValue.length; i += 2) {
            f.add(nameValue[i], nameValue[i + 1]);
        }
        return f;
    }

    // ------------------------------------------------------------------ heads

    @Test
    void requestHead() {
        RequestHead h = new RequestHead(RequestHead.GET, AsciiString.of("/index.html?q=1"), HttpVersion.HTTP_1_1,
            fields("host", "example.com", "accept", "*/*"));
        assertThat(encode(a -> H1Encoder.request(a, h, null, null)))
            .isEqualTo("GET /index.html?q=1 HTTP/1.1\r\nhost: example.com\r\naccept: */*\r\n\r\n");
    }

    @Test
    void requestHeadWithExtraLines() {
        RequestHead h = new RequestHead(AsciiString.of("POST"), AsciiString.of("/upload"), HttpVersion.HTTP_1_1, fields("host", "a"));
        assertThat(encode(a -> H1Encoder.request(a, h, H1Encoder.TE_CHUNKED, H1Encoder.CONNECTION_CLOSE)))
            .isEqualTo("POST /upload HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n");
        assertThat(encode(a -> H1Encoder.request(a, h, null, H1Encoder.CONNECTION_KEEP_ALIVE)))
            .isEqualTo("POST /upload HTTP/1.1\r\nhost: a\r\nconnection: keep-alive\r\n\r\n");
        assertThat(encode(a -> H1Encoder.request(a, h, H1Encoder.TE_CHUNKED, null)))
            .isEqualTo("POST /upload HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n");
    }

    @Test
    void requestHeadIsAlwaysSentAsHttp11() {
        RequestHead h = new RequestHead(RequestHead.GET, AsciiString.of("/"), HttpVersion.HTTP_1_0, new HttpFields());
        assertThat(encode(a -> H1Encoder.request(a, h, null, null))).isEqualTo("GET / HTTP/1.1\r\n\r\n");
    }

    @Test
    void requestHeadWithEmptyValueAndManyFields() {
        HttpFields f = new HttpFields(1);
        StringBuilder expected = new StringBuilder("OPTIONS * HTTP/1.1\r\n");
        for (int i = 0; i < 50; i++) {
            f.add("x-field-" + i, "value " + "v".repeat(i));
            expected.append("x-field-").append(i).append(": value ").append("v".repeat(i)).append("\r\n");
        }
        f.add("x-empty", "");
        expected.append("x-empty: \r\n\r\n");
        RequestHead h = new RequestHead(RequestHead.OPTIONS, AsciiString.of("*"), HttpVersion.HTTP_1_1, f);
        assertThat(encode(a -> H1Encoder.request(a, h, null, null))).isEqualTo(expected.toString());
    }

    @Test
    void responseHead() {
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), fields("content-length", "5", "content-type",
            "text/plain"));
        assertThat(encode(a -> H1Encoder.response(a, h, null, null, 0)))
            .isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-type: text/plain\r\n\r\n");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"100|Continue", "101|Switching Protocols", "204|No Content", "304|Not Modified",
        "404|Not Found", "503|Service Unavailable", "599|x", "999|Nine"})
    void responseStatusDigits(int status, String reason) {
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, status, AsciiString.of(reason), new HttpFields());
        assertThat(encode(a -> H1Encoder.response(a, h, null, null, 0))).isEqualTo("HTTP/1.1 " + status + " " + reason + "\r\n\r\n");
    }

    @Test
    void responseHeadWithEmptyReasonKeepsTheSpace() {
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.EMPTY_STRING, new HttpFields());
        assertThat(encode(a -> H1Encoder.response(a, h, null, null, 0))).isEqualTo("HTTP/1.1 200 \r\n\r\n");
        // an HTTP/1.0 server's response keeps its version (HAProxy's h1_format_htx_stline); an HTTP/2 one is HTTP/1.1
        ResponseHead h10 = new ResponseHead(HttpVersion.HTTP_1_0, 200, AsciiString.EMPTY_STRING, new HttpFields());
        assertThat(encode(a -> H1Encoder.response(a, h10, null, null, 0))).isEqualTo("HTTP/1.0 200 \r\n\r\n");
        ResponseHead h2 = new ResponseHead(HttpVersion.HTTP_2, 200, AsciiString.EMPTY_STRING, new HttpFields());
        assertThat(encode(a -> H1Encoder.response(a, h2, null, null, 0))).isEqualTo("HTTP/1.1 200 \r\n\r\n");
    }

    @Test
    void responseHeadWithExtraLinesAndBody() {
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, 403, AsciiString.of("Forbidden"), fields("content-length", "2"));
        assertThat(encode(a -> {
            ByteBuf out = H1Encoder.response(a, h, H1Encoder.TE_CHUNKED, H1Encoder.CONNECTION_CLOSE, 2);
            H1Encoder.appendBody(out, "no".getBytes(StandardCharsets.US_ASCII));
            H1Encoder.appendBody(out, null);
            return out;
        })).isEqualTo("HTTP/1.1 403 Forbidden\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\nno");
    }

    @Test
    void viewsOverLargerArraysAreWrittenByTheirRange() {
        // what the parser produces: names and values are views inside the received head
        byte[] backing = "XXmethodXX/pathXXnameXXvalueXXreasonXX".getBytes(StandardCharsets.US_ASCII);
        HttpFields f = new HttpFields();
        f.add(new AsciiString(backing, 17, 4, false), new AsciiString(backing, 23, 5, false));
        RequestHead rq = new RequestHead(new AsciiString(backing, 2, 6, false), new AsciiString(backing, 10, 5, false), HttpVersion.HTTP_1_1, f);
        assertThat(encode(a -> H1Encoder.request(a, rq, null, null))).isEqualTo("method /path HTTP/1.1\r\nname: value\r\n\r\n");
        ResponseHead rs = new ResponseHead(HttpVersion.HTTP_1_1, 299, new AsciiString(backing, 30, 6, false), f);
        assertThat(encode(a -> H1Encoder.response(a, rs, null, null, 0))).isEqualTo("HTTP/1.1 299 reason\r\nname: value\r\n\r\n");
    }

    @Test
    void parsedHeadsAreReEncodedNormalised() {
        ParserDriver d = ParserDriver.parseRequest("get   /a?b   HTTP/1.0\r\nHOST: Example.com\r\nConnection: keep-alive, X-Hop\r\n"
            + "X-Hop: 1\r\nX-Folded: a\r\n b\r\nContent-Length: 2, 2\r\nTE: trailers\r\n\r\nhi");
        RequestHead h = d.sink.only().request();
        assertThat(encode(a -> H1Encoder.request(a, h, null, null)))
            .isEqualTo("get /a?b HTTP/1.1\r\nhost: Example.com\r\nconnection: X-Hop\r\nx-hop: 1\r\nx-folded: a   b\r\n"
                + "content-length: 2\r\nte: trailers\r\n\r\n");
        ParserDriver r = ParserDriver.parseResponse("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nConnection: close\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        ResponseHead rh = r.sink.only().response();
        assertThat(encode(a -> H1Encoder.response(a, rh, H1Encoder.TE_CHUNKED, null, 0)))
            .isEqualTo("HTTP/1.1 404 Not Found\r\ncontent-type: text/html\r\ntransfer-encoding: chunked\r\n\r\n");
    }

    @Test
    void hopByHopFieldsAsHaproxyWritesThem() {
        // haproxy -db to an HTTP/1.1 server: each TE field as "trailers" or not at all, Connection without close and
        // keep-alive (not at all when nothing is left), the others as they are
        RequestHead h = new RequestHead(RequestHead.GET, AsciiString.of("/"), HttpVersion.HTTP_1_1, fields("host", "t",
            "connection", "X-Foo,TE", "x-foo", "1", "te", "gzip, trailers", "keep-alive", "300", "proxy-connection", "keep-alive",
            "upgrade", "h2c", "te", "deflate, trailers;q=1", "te", "Trailers", "te", "x,trailers ,y", "te", "trailers,x",
            "connection", "close, X-A", "connection", "keep-alive", "connection", ","));
        assertThat(encode(a -> H1Encoder.request(a, h, null, H1Encoder.CONNECTION_CLOSE)))
            .isEqualTo("GET / HTTP/1.1\r\nhost: t\r\nconnection: X-Foo,TE\r\nx-foo: 1\r\nte: trailers\r\nkeep-alive: 300\r\n"
                + "proxy-connection: keep-alive\r\nupgrade: h2c\r\nte: trailers\r\nconnection: X-A\r\nconnection: close\r\n\r\n");
        ResponseHead r = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), fields("te", "gzip, trailers",
            "connection", "Upgrade", "upgrade", "h2,h2c"));
        assertThat(encode(a -> H1Encoder.response(a, r, null, null, 0)))
            .isEqualTo("HTTP/1.1 200 OK\r\nte: trailers\r\nconnection: Upgrade\r\nupgrade: h2,h2c\r\n\r\n");
        // trailers go as they are
        assertThat(encode(a -> H1Encoder.lastChunk(a, false, fields("te", "gzip", "connection", "close"))))
            .isEqualTo("0\r\nte: gzip\r\nconnection: close\r\n\r\n");
    }

    @Test
    void connectionTokensOfAHead() {
        assertThat(H1Encoder.connectionTokens(fields("x", "close", "connection", "X-A"))).isZero();
        assertThat(H1Encoder.connectionTokens(fields("connection", "X-A, Upgrade", "connection", "close")))
            .isEqualTo(H1Encoder.UPGRADE_TOKEN | H1Encoder.CLOSE_TOKEN);
        assertThat(H1Encoder.connectionTokens(fields("connection", "keep-alive"))).isEqualTo(H1Encoder.KEEP_ALIVE_TOKEN);
    }

    // ------------------------------------------------------------------ chunks

    @ParameterizedTest
    @CsvSource({"1,1", "9,9", "10,a", "15,f", "16,10", "255,ff", "256,100", "4096,1000", "16384,4000", "65535,ffff", "65536,10000",
        "1048576,100000", "268435455,fffffff", "268435456,10000000", "305419896,12345678", "2147483647,7fffffff"})
    void chunkHeaderInLowerCaseHex(int size, String hex) {
        assertThat(encode(a -> H1Encoder.chunkHeader(a, size, false))).isEqualTo(hex + "\r\n");
        assertThat(encode(a -> H1Encoder.chunkHeader(a, size, true))).isEqualTo("\r\n" + hex + "\r\n");
    }

    @Test
    void chunkHeaderOfZero() {
        assertThat(encode(a -> H1Encoder.chunkHeader(a, 0, false))).isEqualTo("0\r\n");
    }

    @Test
    void lastChunk() {
        assertThat(encode(a -> H1Encoder.lastChunk(a, false, null))).isEqualTo("0\r\n\r\n");
        assertThat(encode(a -> H1Encoder.lastChunk(a, true, null))).isEqualTo("\r\n0\r\n\r\n");
        assertThat(encode(a -> H1Encoder.lastChunk(a, true, new HttpFields()))).isEqualTo("\r\n0\r\n\r\n");
    }

    @Test
    void lastChunkWithTrailers() {
        HttpFields t = fields("x-checksum", "abc123", "x-other", "two words");
        assertThat(encode(a -> H1Encoder.lastChunk(a, true, t))).isEqualTo("\r\n0\r\nx-checksum: abc123\r\nx-other: two words\r\n\r\n");
        assertThat(encode(a -> H1Encoder.lastChunk(a, false, t))).isEqualTo("0\r\nx-checksum: abc123\r\nx-other: two words\r\n\r\n");
    }

    @Test
    void encodedChunksParseBack() {
        byte[][] pieces = {"hello".getBytes(StandardCharsets.US_ASCII), new byte[300], "x".getBytes(StandardCharsets.US_ASCII),
            new byte[17]};
        new java.util.Random(5).nextBytes(pieces[1]);
        try (ParserDriver d = ParserDriver.pooled(true)) {
            RequestHead h = new RequestHead(AsciiString.of("POST"), AsciiString.of("/"), HttpVersion.HTTP_1_1, fields("host", "a"));
            feed(d, H1Encoder.request(UnpooledByteBufAllocator.DEFAULT, h, H1Encoder.TE_CHUNKED, null));
            java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
            boolean after = false;
            for (byte[] p : pieces) {
                feed(d, H1Encoder.chunkHeader(ALLOC, p.length, after));
                d.feed(p);
                expected.writeBytes(p);
                after = true;
            }
            feed(d, H1Encoder.lastChunk(ALLOC, after, fields("x-t", "1")));
            RecordingSink.Message m = d.sink.only();
            assertThat(m.bodyBytes()).isEqualTo(expected.toByteArray());
            assertThat(RecordingSink.fields(m.trailers)).containsExactly("x-t: 1");
            assertThat(RecordingSink.fields(m.head.fields())).containsExactly("host: a");
        }
    }

    private static void feed(ParserDriver d, ByteBuf b) {
        try {
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            d.feed(bytes);
        } finally {
            b.release();
        }
    }
}
