package dev.sluice.proxy.http.h1;

import static dev.sluice.proxy.http.h1.ParserDriver.parseRequest;
import static dev.sluice.proxy.http.h1.RecordingSink.fields;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Request heads: request line forms, field syntax, hop-by-hop fields, framing flags, limits, pipelining. */
class H1ParserRequestTest {

    /** Joins lines with CRLF and ends the head with an empty line. */
    static String head(String... lines) {
        return String.join("\r\n", lines) + "\r\n\r\n";
    }

    private static RequestHead parsedHead(String raw) {
        ParserDriver d = parseRequest(raw);
        RecordingSink.Message m = d.sink.only();
        assertThat(m.ended).as("a request without body ends with its head").isTrue();
        return m.request();
    }

    private static H1Error error(String raw) {
        ParserDriver d = parseRequest(raw);
        assertThat(d.sink.error).as("error for %s", raw).isNotNull();
        assertThat(d.parser.failed()).isTrue();
        return d.sink.error;
    }

    // ------------------------------------------------------------------ request line

    @Test
    void simpleGet() {
        ParserDriver d = parseRequest(head("GET /index.html HTTP/1.1", "Host: example.com"));
        RecordingSink.Message m = d.sink.only();
        RequestHead h = m.request();
        assertThat((Object) h.method()).isSameAs(RequestHead.GET);
        assertThat(h.target().toString()).isEqualTo("/index.html");
        assertThat(h.version()).isEqualTo(HttpVersion.HTTP_1_1);
        assertThat(d.parser.version()).isEqualTo(HttpVersion.HTTP_1_1);
        assertThat(fields(h.fields())).containsExactly("host: example.com");
        assertThat(h.body()).isEqualTo(MessageHead.Body.NONE);
        assertThat(h.hasBody()).isFalse();
        assertThat(m.ended).isTrue();
        assertThat(m.trailers).isNull();
        assertThat(d.sink.events).containsExactly("head", "end");
        assertThat(d.parser.paused()).isTrue();
        assertThat(d.parser.idle()).isTrue();
        assertThat(d.parser.inBody()).isFalse();
        assertThat(d.parser.closeWanted()).isFalse();
        assertThat(d.parser.closeAfter()).isFalse();
        assertThat(d.leftover).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "PROPFIND", "M-SEARCH", "get",
        "X!#$%&'*+-.^_`|~9"})
    void methodsAreTokens(String method) {
        RequestHead h = parsedHead(head(method + " / HTTP/1.1"));
        assertThat(h.method().toString()).isEqualTo(method);
    }

    @Test
    void commonMethodsAreSharedConstants() {
        assertThat((Object) parsedHead(head("GET / HTTP/1.1")).method()).isSameAs(RequestHead.GET);
        assertThat((Object) parsedHead(head("HEAD / HTTP/1.1")).method()).isSameAs(RequestHead.HEAD);
        assertThat(parsedHead(head("HEAD / HTTP/1.1")).isHead()).isTrue();
        assertThat(parsedHead(head("POST / HTTP/1.1")).method().toString()).isEqualTo("POST");
        assertThat(parsedHead(head("PUT / HTTP/1.1")).method().toString()).isEqualTo("PUT");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/a/b/c", "/a?b=c&d=e", "/%20%2F", "/~user/x.html;p", "/a?q=http://x/y", "//double",
        "http://example.com/x", "http://example.com", "https://example.com:8443/x?y", "HTTP://EXAMPLE.COM/"})
    void originAndAbsoluteFormTargets(String target) {
        RequestHead h = parsedHead(head("GET " + target + " HTTP/1.1"));
        assertThat(h.target().toString()).isEqualTo(target);
    }

    @Test
    void asteriskFormWithOptions() {
        RequestHead h = parsedHead(head("OPTIONS * HTTP/1.1", "Host: a"));
        assertThat((Object) h.method()).isEqualTo(RequestHead.OPTIONS);
        assertThat(h.target().toString()).isEqualTo("*");
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.com:443", "example.com:80", "10.0.0.1:8080", "[::1]:443", "[2001:db8::1]:8443"})
    void authorityFormWithConnect(String target) {
        RequestHead h = parsedHead(head("CONNECT " + target + " HTTP/1.1", "Host: " + target));
        assertThat((Object) h.method()).isEqualTo(RequestHead.CONNECT);
        assertThat(h.target().toString()).isEqualTo(target);
    }

    @Test
    void versions() {
        assertThat(parsedHead(head("GET / HTTP/1.0")).version()).isEqualTo(HttpVersion.HTTP_1_0);
        assertThat(parsedHead(head("GET / HTTP/1.1")).version()).isEqualTo(HttpVersion.HTTP_1_1);
        // a later 1.x minor is handled as 1.1
        assertThat(parsedHead(head("GET / HTTP/1.2")).version()).isEqualTo(HttpVersion.HTTP_1_1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET  /  HTTP/1.1", "GET\t/\tHTTP/1.1", "GET \t / \t HTTP/1.1", "GET     /x     HTTP/1.1"})
    void severalSpacesBetweenRequestLineParts(String line) {
        RequestHead h = parsedHead(head(line));
        assertThat((Object) h.method()).isSameAs(RequestHead.GET);
        assertThat(h.target().toString()).startsWith("/");
        assertThat(h.version()).isEqualTo(HttpVersion.HTTP_1_1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET /\r\n\r\n", "GET /\n\n", "GET /index.html\r\nHost: a\r\n\r\n", "GET / \r\n\r\n"})
    void http09IsRejected(String raw) {
        assertThat(error(raw).status()).isEqualTo(400);
    }

    @ParameterizedTest
    @ValueSource(strings = {"HTTP/1", "HTTP/1.", "HTTP/1.1.1", "http/1.1", "HTTP/11.1", "HTTP/1.x", "HTTX/1.1", "HTTP 1.1",
        "HTTP/1,1", "HTTP/1.1x", "HTTP/1.1 ", "HTTP/a.1", "HTTP/0.9", "HTTP/"})
    void invalidVersionsAreRejected(String version) {
        assertThat(error("GET / " + version + "\r\nHost: a\r\n\r\n").status()).isEqualTo(400);
    }

    @ParameterizedTest
    @ValueSource(strings = {"G(ET / HTTP/1.1", "GE\"T / HTTP/1.1", "GET: / HTTP/1.1", " GET / HTTP/1.1", "G@T / HTTP/1.1",
        "GET", "GET\u0001 / HTTP/1.1", "G\u00e9T / HTTP/1.1", "/ HTTP/1.1"})
    void invalidMethodsOrMissingPartsAreRejected(String line) {
        assertThat(error(line + "\r\nHost: a\r\n\r\n").status()).isEqualTo(400);
    }

    // ------------------------------------------------------------------ line endings and leading lines

    @Test
    void bareLfLineEndings() {
        RequestHead h = parsedHead("GET / HTTP/1.1\nHost: a\nX-A: 1\n\n");
        assertThat(fields(h.fields())).containsExactly("host: a", "x-a: 1");
    }

    @Test
    void mixedLineEndings() {
        RequestHead h = parsedHead("GET / HTTP/1.1\r\nHost: a\nX-A: 1\r\n\n");
        assertThat(fields(h.fields())).containsExactly("host: a", "x-a: 1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\r\n", "\r\n\r\n", "\n", "\n\n\n", "\r\n\n"})
    void leadingEmptyLinesAreIgnored(String prefix) {
        ParserDriver d = parseRequest(prefix + head("GET /x HTTP/1.1", "Host: a"));
        assertThat(d.sink.only().request().target().toString()).isEqualTo("/x");
    }

    @Test
    void leadingEmptyLinesAloneKeepTheParserIdle() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed("\r\n\r\n");
            assertThat(d.sink.events).isEmpty();
            assertThat(d.parser.idle()).isTrue();
            assertThat(d.remaining()).isEmpty();
            d.feed("GET / HTTP/1.1\r\n\r\n");
            assertThat(d.sink.events).containsExactly("head", "end");
        }
    }

    // ------------------------------------------------------------------ fields

    @Test
    void fieldNamesAreLowerCasedValuesKept() {
        RequestHead h = parsedHead(head("GET / HTTP/1.1", "HoSt: Example.COM", "X-Custom-HEADER: Some Value", "ACCEPT: */*"));
        assertThat(fields(h.fields())).containsExactly("host: Example.COM", "x-custom-header: Some Value", "accept: */*");
    }

    @Test
    void valuesAreTrimmedAndMayBeEmpty() {
        RequestHead h = parsedHead(head("GET / HTTP/1.1", "X-A:   padded \t ", "X-B:", "X-C:nospace", "X-D: \t"));
        assertThat(fields(h.fields())).containsExactly("x-a: padded", "x-b: ", "x-c: nospace", "x-d: ");
    }

    @Test
    void valuesKeepInnerWhitespaceAndHighBytes() {
        RequestHead h = parsedHead(head("GET / HTTP/1.1", "X-A: a  b\tc", "X-B: caf\u00e9"));
        assertThat(h.fields().get(io.netty.util.AsciiString.of("x-a")).toString()).isEqualTo("a  b\tc");
        assertThat(h.fields().value(1).length()).isEqualTo(4);
        assertThat(h.fields().value(1).byteAt(3) & 0xff).isEqualTo(0xe9);
    }

    @Test
    void duplicateOrdinaryFieldsAreKeptInOrder() {
        RequestHead h = parsedHead(head("GET / HTTP/1.1", "Cookie: a=1", "X-A: 1", "Cookie: b=2"));
        assertThat(fields(h.fields())).containsExactly("cookie: a=1", "x-a: 1", "cookie: b=2");
    }

    @Test
    void obsFoldIsFoldedIntoSpaces() {
        RequestHead h = parsedHead(head("GET / HTTP/1.1", "X-A: a", " b", "X-B: c"));
        // CR and LF become spaces, the continuation's own whitespace stays
        assertThat(fields(h.fields())).containsExactly("x-a: a   b", "x-b: c");
    }

    @Test
    void obsFoldOverSeveralLinesAndTabs() {
        RequestHead h = parsedHead(head("GET / HTTP/1.1", "X-A: a", "\tb", "   c  ", "Host: h"));
        String v = h.fields().value(0).toString();
        assertThat(v).doesNotContain("\r").doesNotContain("\n").startsWith("a").endsWith("c");
        assertThat(v.replaceAll("[ \t]+", " ")).isEqualTo("a b c");
        assertThat(fields(h.fields())).hasSize(2).last().isEqualTo("host: h");
    }

    @Test
    void obsFoldAfterAnEmptyFirstLineStartsTheValue() {
        // HAProxy's value starts at the continuation's first byte that is not a space (a Cookie field starting with
        // spaces and a delimiter once made the persistence cookie read out of bounds)
        RequestHead h = parsedHead(head("GET / HTTP/1.1", "Cookie:", "  ;SRV=a1; x=1", "X-A: ", "\tb", " c", "Host: h"));
        assertThat(fields(h.fields())).containsExactly("cookie: ;SRV=a1; x=1", "x-a: b   c", "host: h");
    }

    @Test
    void obsFoldWithBareLf() {
        RequestHead h = parsedHead("GET / HTTP/1.1\nX-A: a\n b\n\n");
        assertThat(fields(h.fields())).containsExactly("x-a: a  b");
    }

    @Test
    void continuationLineWithoutFieldIsRejected() {
        assertThat(error("GET / HTTP/1.1\r\n folded\r\n\r\n").status()).isEqualTo(400);
    }

    // ------------------------------------------------------------------ hop-by-hop fields

    @Test
    void hopByHopFieldsStayConnectionLosesItsCloseAndKeepAliveTokens() {
        // what haproxy -db forwarded to an HTTP/1.1 server, and what its rules saw (req.fhdr): its HTX
        ParserDriver d = parseRequest(head("GET / HTTP/1.1", "Host: t", "Connection: keep-alive, X-Foo, TE", "X-Foo: 1",
            "TE: gzip, trailers", "Keep-Alive: 300", "Proxy-Connection: keep-alive", "Upgrade: h2c",
            "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA"));
        assertThat(fields(d.sink.only().head.fields())).containsExactly("host: t", "connection: X-Foo,TE", "x-foo: 1",
            "te: gzip, trailers", "keep-alive: 300", "proxy-connection: keep-alive", "upgrade: h2c",
            "http2-settings: AAMAAABkAAQAoAAAAAIAAAAA");
        assertThat(d.parser.keepAliveWanted()).isTrue();
        assertThat(d.parser.closeWanted()).isFalse();
        // no upgrade token: Upgrade means nothing
        assertThat((Object) d.parser.upgradeProtocol()).isNull();
    }

    @Test
    void aConnectionFieldLeftEmptyGoesEachFieldOnItsOwn() {
        ParserDriver d = parseRequest(head("GET / HTTP/1.1", "Host: a", "Connection: close, X-Hop", "X-Hop: 1", "X-End: 2"));
        assertThat(fields(d.sink.only().head.fields())).containsExactly("host: a", "connection: X-Hop", "x-hop: 1", "x-end: 2");
        assertThat(d.parser.closeWanted()).isTrue();
        assertThat(d.parser.keepAliveWanted()).isFalse();
        d = parseRequest(head("GET / HTTP/1.1", "Connection: X-A", "Connection: close, X-B", "Connection: keep-alive", "X-A: 1"));
        assertThat(fields(d.sink.only().head.fields())).containsExactly("connection: X-A", "connection: X-B", "x-a: 1");
        assertThat(d.parser.closeWanted()).isTrue();
        assertThat(d.parser.keepAliveWanted()).isTrue();
    }

    @Test
    void fieldsListedInConnectionStayEssentialOrNot() {
        ParserDriver d = parseRequest(head("POST / HTTP/1.1", "Host: a", "Content-Length: 0", "Connection: host, content-length, x-a",
            "X-A: 1"));
        assertThat(fields(d.sink.only().head.fields())).containsExactly("host: a", "content-length: 0",
            "connection: host, content-length, x-a", "x-a: 1");
    }

    @Test
    void keepAliveAndProxyConnectionStay() {
        ParserDriver d = parseRequest(head("GET / HTTP/1.0", "Keep-Alive: timeout=5", "Proxy-Connection: keep-alive",
            "Connection: Keep-Alive", "X-A: 1"));
        assertThat(fields(d.sink.only().head.fields())).containsExactly("keep-alive: timeout=5", "proxy-connection: keep-alive", "x-a: 1");
        assertThat(d.parser.keepAliveWanted()).isTrue();
        assertThat(d.parser.closeWanted()).isFalse();
        assertThat(d.parser.version()).isEqualTo(HttpVersion.HTTP_1_0);
    }

    @Test
    void connectionTokensAreCaseInsensitiveAndListsMayBeSparse() {
        ParserDriver d = parseRequest(head("GET / HTTP/1.1", "Connection: ,, CLOSE ,\t"));
        assertThat(d.parser.closeWanted()).isTrue();
        // HAProxy keeps "," in its HTX (and does not write it: H1EncoderTest)
        assertThat(fields(d.sink.only().head.fields())).containsExactly("connection: ,");
    }

    @Test
    void upgradeIsRememberedAndKept() {
        ParserDriver d = parseRequest(head("GET /ws HTTP/1.1", "Host: a", "Connection: keep-alive, Upgrade", "Upgrade: websocket",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="));
        assertThat(d.parser.upgradeProtocol().toString()).isEqualTo("websocket");
        assertThat(d.sink.only().head.upgrade().toString()).isEqualTo("websocket");
        assertThat(fields(d.sink.only().head.fields())).containsExactly("host: a", "connection: Upgrade", "upgrade: websocket",
            "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==");
    }

    @Test
    void aRequestWithABodyUpgradesNothing() {
        // h1_postparse_req_hdrs: its Upgrade fields go, and no websocket key is needed (haproxy -db forwarded it: 200)
        try (ParserDriver d = ParserDriver.request()) {
            d.feed(head("POST /ws HTTP/1.1", "Host: a", "Content-Length: 3", "Connection: keep-alive, Upgrade, X-Foo",
                "Upgrade: websocket", "X-Foo: 1") + "abc");
            assertThat(d.sink.error).isNull();
            assertThat((Object) d.parser.upgradeProtocol()).isNull();
            RequestHead h = d.sink.messages.getFirst().request();
            assertThat((Object) h.upgrade()).isNull();
            assertThat(fields(h.fields())).containsExactly("host: a", "content-length: 3", "connection: Upgrade,X-Foo", "x-foo: 1");
            // its HTX size lost the Upgrade field too
            assertThat(h.htxSize()).isEqualTo(21 + 4 + 3 + 8 + (4 + 1) + (14 + 1) + (10 + 13) + (5 + 1));
        }
        // a body of 0 bytes is no body: the upgrade stays
        ParserDriver d = parseRequest(head("POST /ws HTTP/1.1", "Host: a", "Content-Length: 0", "Connection: Upgrade",
            "Upgrade: websocket", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="));
        assertThat(d.parser.upgradeProtocol().toString()).isEqualTo("websocket");
    }

    @Test
    void aWebSocketUpgradeNeedsAKeyOf24Characters() {
        // HAProxy 2.6's h1_search_websocket_key: 400 without one (a key of another length does not count)
        for (String key : new String[] {null, "Sec-WebSocket-Key: k"}) {
            ParserDriver d = key == null ? parseRequest(head("GET /ws HTTP/1.1", "Host: a", "Connection: upgrade", "Upgrade: h2c, WebSocket"))
                    : parseRequest(head("GET /ws HTTP/1.1", "Host: a", "Connection: upgrade", "Upgrade: WebSocket", key));
            assertThat(d.sink.error).as("error with %s", key).isNotNull();
            assertThat(d.sink.error.status()).isEqualTo(400);
        }
        // not a websocket upgrade, or no Connection: upgrade: no key needed
        assertThat(parseRequest(head("GET / HTTP/1.1", "Host: a", "Connection: upgrade", "Upgrade: foo")).sink.error).isNull();
        assertThat(parseRequest(head("GET / HTTP/1.1", "Host: a", "Upgrade: websocket")).sink.error).isNull();
    }

    @Test
    void upgradeWithoutConnectionUpgradeIsIgnored() {
        ParserDriver d = parseRequest(head("GET / HTTP/1.1", "Upgrade: h2c"));
        assertThat((Object) d.parser.upgradeProtocol()).isNull();
        assertThat(fields(d.sink.only().head.fields())).containsExactly("upgrade: h2c");
    }

    @Test
    void teStaysAsItCame() {
        // HAProxy's HTX keeps TE whole (req.fhdr(te) sees "gzip, trailers"); the writers reduce it (H1EncoderTest)
        assertThat(fields(parsedHead(head("GET / HTTP/1.1", "TE: gzip, trailers", "TE: deflate")).fields()))
            .containsExactly("te: gzip, trailers", "te: deflate");
    }

    @Test
    void transferEncodingIsRemoved() {
        ParserDriver d = parseRequest(head("POST / HTTP/1.1", "Transfer-Encoding: chunked", "X: 1") + "0\r\n\r\n");
        assertThat(fields(d.sink.only().head.fields())).containsExactly("x: 1");
        assertThat(d.sink.only().head.body()).isEqualTo(MessageHead.Body.STREAMED);
    }

    @Test
    void flagsAreResetForEachMessage() {
        try (ParserDriver d = ParserDriver.request()) {
            d.autoResume = true;
            d.feed(head("GET /1 HTTP/1.1", "Connection: close, upgrade", "Upgrade: x"));
            assertThat(d.parser.closeWanted()).isTrue();
            assertThat((Object) d.parser.upgradeProtocol()).isNotNull();
            d.feed(head("GET /2 HTTP/1.0"));
            assertThat(d.parser.closeWanted()).isFalse();
            assertThat((Object) d.parser.upgradeProtocol()).isNull();
            assertThat(d.parser.keepAliveWanted()).isFalse();
            assertThat(d.parser.version()).isEqualTo(HttpVersion.HTTP_1_0);
            d.feed(head("POST /3 HTTP/1.1", "Content-Length: 1", "Transfer-Encoding: chunked") + "0\r\n\r\n");
            assertThat(d.parser.closeAfter()).isTrue();
            d.feed(head("GET /4 HTTP/1.1"));
            assertThat(d.parser.closeAfter()).isFalse();
            assertThat(d.sink.messages).hasSize(4);
        }
    }

    // ------------------------------------------------------------------ content-length

    @Test
    void contentLengthIsNormalised() {
        ParserDriver d = parseRequest(head("POST / HTTP/1.1", "Content-Length:  3 ", "X: 1") + "abc");
        RecordingSink.Message m = d.sink.only();
        assertThat(fields(m.head.fields())).containsExactly("content-length: 3", "x: 1");
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.LENGTH);
        assertThat(m.head.contentLength()).isEqualTo(3);
        assertThat(m.body()).isEqualTo("abc");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Content-Length: 3\r\nContent-Length: 3", "Content-Length: 3, 3", "Content-Length: 3,3,3",
        "Content-Length: 3\r\nContent-Length: 3, 3"})
    void identicalContentLengthsAreMerged(String cl) {
        ParserDriver d = parseRequest("POST / HTTP/1.1\r\n" + cl + "\r\n\r\nabc");
        RecordingSink.Message m = d.sink.only();
        assertThat(fields(m.head.fields())).containsExactly("content-length: 3");
        assertThat(m.body()).isEqualTo("abc");
    }

    @Test
    void contentLengthStaysWhereItCameWithItsLastNumberAsItCame() {
        // as haproxy -db forwarded them: "2, 2" became "2", "003" stayed, the first field's place is kept
        ParserDriver d = parseRequest(head("POST / HTTP/1.1", "Host: t", "Content-Length: 2, 2", "X: 1", "Content-Length: 2") + "hi");
        assertThat(fields(d.sink.only().head.fields())).containsExactly("host: t", "content-length: 2", "x: 1");
        d = parseRequest(head("POST / HTTP/1.1", "Content-Length: 003", "Host: t") + "abc");
        assertThat(fields(d.sink.only().head.fields())).containsExactly("content-length: 003", "host: t");
        assertThat(d.sink.only().head.contentLength()).isEqualTo(3);
    }

    @Test
    void zeroContentLengthMeansAnEmptyBody() {
        ParserDriver d = parseRequest(head("POST / HTTP/1.1", "Content-Length: 0"));
        RecordingSink.Message m = d.sink.only();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.LENGTH);
        assertThat(m.head.contentLength()).isZero();
        assertThat(m.head.hasBody()).isFalse();
        assertThat(m.ended).isTrue();
        assertThat(d.sink.events).containsExactly("head", "end");
    }

    @Test
    void contentLengthWithTransferEncodingIsRemovedAndClosesAfter() {
        ParserDriver d = parseRequest(head("POST / HTTP/1.1", "Content-Length: 10", "Transfer-Encoding: chunked")
            + "3\r\nabc\r\n0\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(fields(m.head.fields())).isEmpty();
        assertThat(m.head.body()).isEqualTo(MessageHead.Body.STREAMED);
        assertThat(m.body()).isEqualTo("abc");
        assertThat(d.parser.closeAfter()).isTrue();
        // the order of the two fields does not matter
        d = parseRequest(head("POST / HTTP/1.1", "Transfer-Encoding: chunked", "Content-Length: 10") + "0\r\n\r\n");
        assertThat(fields(d.sink.only().head.fields())).isEmpty();
        assertThat(d.parser.closeAfter()).isTrue();
    }

    @Test
    void transferEncodingOnHttp10IsAcceptedAndClosesAfter() {
        ParserDriver d = parseRequest(head("POST / HTTP/1.0", "Transfer-Encoding: chunked") + "2\r\nab\r\n0\r\n\r\n");
        RecordingSink.Message m = d.sink.only();
        assertThat(m.body()).isEqualTo("ab");
        assertThat(d.parser.closeAfter()).isTrue();
        assertThat(d.parser.version()).isEqualTo(HttpVersion.HTTP_1_0);
    }

    @Test
    void transferEncodingListsAndCase() {
        assertThat(parseRequest(head("POST / HTTP/1.1", "Transfer-Encoding: CHUNKED") + "0\r\n\r\n").sink.only().ended).isTrue();
        assertThat(parseRequest(head("POST / HTTP/1.1", "Transfer-Encoding: chunked,") + "0\r\n\r\n").sink.only().ended).isTrue();
        assertThat(parseRequest(head("POST / HTTP/1.1", "Transfer-Encoding: , chunked") + "0\r\n\r\n").sink.only().ended).isTrue();
    }

    @Test
    void http10BodiesOnOtherMethodsAreAccepted() {
        assertThat(parseRequest(head("POST / HTTP/1.0", "Content-Length: 1") + "x").sink.only().body()).isEqualTo("x");
        assertThat(parseRequest(head("GET / HTTP/1.0", "Content-Length: 0")).sink.only().ended).isTrue();
        assertThat(parseRequest(head("GET / HTTP/1.1", "Content-Length: 1") + "x").sink.only().body()).isEqualTo("x");
    }

    // ------------------------------------------------------------------ Host and targets

    @Test
    void identicalHostFieldsAreDeduplicated() {
        assertThat(fields(parsedHead(head("GET / HTTP/1.1", "Host: a.com", "X: 1", "Host: a.com")).fields()))
            .containsExactly("host: a.com", "x: 1");
        assertThat(fields(parsedHead(head("GET / HTTP/1.1", "Host: a.com", "Host: A.COM", "Host: a.com")).fields()))
            .containsExactly("host: a.com");
    }

    @Test
    void missingHostIsTolerated() {
        assertThat(fields(parsedHead(head("GET / HTTP/1.1")).fields())).isEmpty();
        assertThat(parsedHead(head("GET http://a.com/ HTTP/1.1")).target().toString()).isEqualTo("http://a.com/");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://example.com/|example.com", "http://example.com:80/|example.com", "http://example.com/|example.com:80",
        "http://example.com:80/|example.com:80", "https://example.com:443/x|example.com", "https://example.com/|example.com:443",
        "HTTP://Example.COM/|example.com", "http://example.com:8080/|example.com:8080", "http://example.com|example.com",
        "http://example.com?q|example.com", "http://[::1]:80/|[::1]", "http://[::1]/|[::1]:80", "http://example.com:/|example.com",
        "ws://example.com:80/|example.com:80"})
    void absoluteFormMatchingHostModuloDefaultPort(String pair) {
        String[] p = pair.split("\\|");
        RequestHead h = parsedHead(head("GET " + p[0] + " HTTP/1.1", "Host: " + p[1]));
        assertThat(h.target().toString()).isEqualTo(p[0]);
    }

    @Test
    void connectMethodIsMarked() {
        ParserDriver d = parseRequest(head("CONNECT example.com:443 HTTP/1.1", "Host: example.com:443"));
        assertThat((Object) d.sink.only().request().method()).isEqualTo(RequestHead.CONNECT);
        assertThat(d.sink.only().head.body()).isEqualTo(MessageHead.Body.NONE);
    }

    // ------------------------------------------------------------------ limits

    private static String fieldsOfTotalHeadSize(String line, int total) {
        StringBuilder sb = new StringBuilder(line).append("\r\n");
        String prefix = "X-Pad: ";
        int room = total - sb.length() - 2 - prefix.length() - 2;
        sb.append(prefix).append("p".repeat(room)).append("\r\n\r\n");
        assertThat(sb.length()).isEqualTo(total);
        return sb.toString();
    }

    @Test
    void headOfExactlyTheLimitIsAccepted() {
        int max = H1Limits.DEFAULT.maxHeadBytes();
        ParserDriver d = parseRequest(fieldsOfTotalHeadSize("GET / HTTP/1.1", max));
        assertThat(d.sink.only().ended).isTrue();
    }

    @Test
    void headOneByteOverTheLimitGives431() {
        int max = H1Limits.DEFAULT.maxHeadBytes();
        assertThat(error(fieldsOfTotalHeadSize("GET / HTTP/1.1", max + 1)).status()).isEqualTo(431);
    }

    @Test
    void headTooLargeIsDetectedBeforeItEnds() {
        try (ParserDriver d = new ParserDriver(true, new H1Limits(100, 10), UnpooledByteBufAllocator.DEFAULT)) {
            d.feed("GET / HTTP/1.1\r\nX-A: " + "a".repeat(50));
            assertThat(d.sink.events).isEmpty();
            d.feed("a".repeat(50));
            assertThat(d.sink.events).containsExactly("error 431");
            assertThat(d.sink.error.reason()).contains("too large");
        }
    }

    @Test
    void requestLineTooLongGives414() {
        try (ParserDriver d = new ParserDriver(true, new H1Limits(100, 10), UnpooledByteBufAllocator.DEFAULT)) {
            d.feed("GET /" + "a".repeat(60));
            assertThat(d.sink.events).isEmpty();
            d.feed("a".repeat(60));
            assertThat(d.sink.events).containsExactly("error 414");
        }
        // complete but longer than the buffer
        ParserDriver d = new ParserDriver(true, new H1Limits(100, 10), UnpooledByteBufAllocator.DEFAULT);
        try (d) {
            d.feed("GET /" + "a".repeat(200) + " HTTP/1.1\r\n\r\n");
        }
        assertThat(d.sink.error.status()).isEqualTo(414);
        // with the default buffer
        assertThat(error("GET /" + "a".repeat(H1Limits.DEFAULT.maxHeadBytes()) + " HTTP/1.1\r\n\r\n").status()).isEqualTo(414);
    }

    @Test
    void upTo101FieldsAreAccepted() {
        StringBuilder sb = new StringBuilder("GET / HTTP/1.1\r\n");
        for (int i = 0; i < 101; i++) {
            sb.append("X-F").append(i).append(": v\r\n");
        }
        ParserDriver d = parseRequest(sb.append("\r\n").toString());
        assertThat(d.sink.only().head.fields().size()).isEqualTo(101);
    }

    @Test
    void moreThan101FieldsGive400() {
        StringBuilder sb = new StringBuilder("GET / HTTP/1.1\r\n");
        for (int i = 0; i < 102; i++) {
            sb.append("X-F").append(i).append(": v\r\n");
        }
        H1Error e = error(sb.append("\r\n").toString());
        assertThat(e.status()).isEqualTo(400);
        assertThat(e.reason()).contains("too many");
    }

    @Test
    void fieldLimitCountsFieldsNotFoldedLines() {
        ParserDriver d = new ParserDriver(true, new H1Limits(1000, 2), UnpooledByteBufAllocator.DEFAULT);
        try (d) {
            d.feed(head("GET / HTTP/1.1", "X-A: 1", " 2", " 3", "X-B: 4"));
        }
        assertThat(d.sink.only().head.fields().size()).isEqualTo(2);
    }

    // ------------------------------------------------------------------ pipelining and incremental heads

    @Test
    void pipelinedRequestsWaitForResume() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed(head("GET /1 HTTP/1.1", "Host: a") + head("POST /2 HTTP/1.1", "Content-Length: 2") + "xy" + head("GET /3 HTTP/1.1"));
            assertThat(d.sink.messages).hasSize(1);
            assertThat(d.parser.paused()).isTrue();
            assertThat(d.remaining()).startsWith("POST /2");
            // parsing again while paused does nothing
            d.parser.parse(d.in);
            assertThat(d.sink.messages).hasSize(1);

            d.parser.resume();
            assertThat(d.parser.paused()).isFalse();
            d.parser.parse(d.in);
            assertThat(d.sink.messages).hasSize(2);
            assertThat(d.sink.last().body()).isEqualTo("xy");
            assertThat(d.parser.paused()).isTrue();
            assertThat(d.remaining()).startsWith("GET /3");

            d.parser.resume();
            d.parser.parse(d.in);
            assertThat(d.sink.messages).extracting(m -> m.request().target().toString()).containsExactly("/1", "/2", "/3");
            assertThat(d.sink.events).containsExactly("head", "end", "head", "body", "end", "head", "end");
            assertThat(d.remaining()).isEmpty();
        }
    }

    @Test
    void resumeOnlyActsWhenPaused() {
        try (ParserDriver d = ParserDriver.request()) {
            d.parser.resume();
            assertThat(d.parser.paused()).isFalse();
            d.feed("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nab");
            assertThat(d.parser.inBody()).isTrue();
            d.parser.resume();
            assertThat(d.parser.inBody()).isTrue();
            d.feed("cd");
            assertThat(d.sink.only().body()).isEqualTo("abcd");
            assertThat(d.parser.paused()).isTrue();
        }
    }

    @Test
    void emptyLinesBetweenPipelinedRequestsAreIgnored() {
        try (ParserDriver d = ParserDriver.request()) {
            d.autoResume = true;
            d.feed(head("POST /1 HTTP/1.1", "Content-Length: 1") + "a\r\n" + head("GET /2 HTTP/1.1"));
            assertThat(d.sink.error).isNull();
            assertThat(d.sink.messages).extracting(m -> m.request().target().toString()).containsExactly("/1", "/2");
        }
    }

    @Test
    void headArrivingByteByByte() {
        String raw = head("GET /x HTTP/1.1", "Host: a", "X-A: folded", " more", "Connection: close");
        try (ParserDriver d = ParserDriver.request()) {
            byte[] b = ParserDriver.bytes(raw);
            for (int i = 0; i < b.length; i++) {
                assertThat(d.sink.events).isEmpty();
                assertThat(d.parser.idle()).isEqualTo(i == 0);
                d.feed(b, i, 1);
            }
            RecordingSink.Message m = d.sink.only();
            assertThat(fields(m.head.fields())).containsExactly("host: a", "x-a: folded   more");
            assertThat(d.parser.closeWanted()).isTrue();
        }
    }

    @Test
    void headArrivingInTwoPiecesAtEveryBoundary() {
        String raw = head("GET /x HTTP/1.1", "Host: a", "X-A: 1") + head("GET /y HTTP/1.0", "Connection: keep-alive");
        byte[] b = ParserDriver.bytes(raw);
        for (int split = 0; split <= b.length; split++) {
            try (ParserDriver d = ParserDriver.request()) {
                d.autoResume = true;
                d.feed(b, 0, split);
                d.feed(b, split, b.length - split);
                assertThat(d.sink.error).as("split at %d", split).isNull();
                assertThat(d.sink.messages).as("split at %d", split).hasSize(2);
                assertThat(fields(d.sink.messages.get(0).head.fields())).containsExactly("host: a", "x-a: 1");
                assertThat(d.sink.messages.get(1).head.version()).isEqualTo(HttpVersion.HTTP_1_0);
                assertThat(d.parser.keepAliveWanted()).isTrue();
            }
        }
    }

    @Test
    void errorsStopTheParser() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed("GET / HTTP/1.1\r\nBad Name: x\r\n\r\nGET / HTTP/1.1\r\n\r\n");
            assertThat(d.sink.events).containsExactly("error 400");
            assertThat(d.parser.failed()).isTrue();
            d.parser.resume();
            d.feed("GET / HTTP/1.1\r\n\r\n");
            assertThat(d.sink.events).containsExactly("error 400");
            assertThat(d.parser.inputClosed()).isFalse();
            assertThat(d.sink.events).containsExactly("error 400");
        }
    }

    @Test
    void inputClosedMidHeadIsATruncatedRequest() {
        try (ParserDriver d = ParserDriver.request()) {
            d.feed("GET / HTTP/1.1\r\nHost: a\r\n");
            assertThat(d.parser.idle()).isFalse();
            assertThat(d.parser.inputClosed()).isFalse();
            assertThat(d.sink.events).containsExactly("error 400");
        }
    }

    @Test
    void inputClosedBetweenRequestsIsClean() {
        try (ParserDriver d = ParserDriver.request()) {
            assertThat(d.parser.inputClosed()).isFalse();
            d.feed(head("GET / HTTP/1.1"));
            assertThat(d.parser.inputClosed()).isFalse();
            d.parser.resume();
            assertThat(d.parser.inputClosed()).isFalse();
            assertThat(d.sink.events).containsExactly("head", "end");
        }
    }
}
