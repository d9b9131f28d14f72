package dev.sluice.proxy.http.h1;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTTP/1 request validity rules (the same rows run through HAProxy 2.6 in the regtests' MalformedHttp1Test): each invalid request
 * gives its status, and the accepted variants next to them parse.
 */
class H1ParserValidityTest {

    private static String req(String line, String... fields) {
        StringBuilder sb = new StringBuilder(line).append("\r\n");
        for (String f : fields) {
            sb.append(f).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    private static Arguments row(String name, int status, String raw) {
        return Arguments.of(name, status, raw);
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
            // CTL, DEL or a byte >= 0x80 in the target; a space inside the path
            row("CTL in target", 400, req("GET /a\u0001b HTTP/1.1")),
            row("NUL in target", 400, req("GET /a\u0000b HTTP/1.1")),
            row("DEL in target", 400, req("GET /a\u007fb HTTP/1.1")),
            row("byte >= 0x80 in target", 400, req("GET /caf\u00e9 HTTP/1.1")),
            row("0xff in target", 400, req("GET /\u00ff HTTP/1.1")),
            row("space inside the path", 400, req("GET /a b HTTP/1.1")),
            row("tab inside the path", 400, req("GET /a\tb HTTP/1.1")),
            row("bare CR in target", 400, req("GET /a\rb HTTP/1.1")),
            // '#'
            row("fragment in target", 400, req("GET /a#frag HTTP/1.1")),
            row("lone '#' target", 400, req("GET # HTTP/1.1")),
            // method not a token, bad version, HTTP/0.9
            row("method with '('", 400, req("GE(T / HTTP/1.1")),
            row("method with '/'", 400, req("GE/T / HTTP/1.1")),
            row("empty method", 400, req(" / HTTP/1.1")),
            row("version HTTP/1", 400, req("GET / HTTP/1")),
            row("version lower case", 400, req("GET / http/1.1")),
            row("version with two digit major", 400, req("GET / HTTP/10.1")),
            row("version with letters", 400, req("GET / HTTP/1.a")),
            row("HTTP/0.9", 400, "GET /\r\n\r\n"),
            // field names
            row("non-token char in name", 400, req("GET / HTTP/1.1", "X(A): 1")),
            row("quote in name", 400, req("GET / HTTP/1.1", "X\"A: 1")),
            row("space in name", 400, req("GET / HTTP/1.1", "X A: 1")),
            row("space before colon", 400, req("GET / HTTP/1.1", "Host : a")),
            row("tab before colon", 400, req("GET / HTTP/1.1", "Host\t: a")),
            row("empty name", 400, req("GET / HTTP/1.1", ": a")),
            row("no colon", 400, req("GET / HTTP/1.1", "Host")),
            row("byte >= 0x80 in name", 400, req("GET / HTTP/1.1", "X-\u00e9: 1")),
            // values
            row("NUL in value", 400, req("GET / HTTP/1.1", "X-A: a\u0000b")),
            row("bare CR in value", 400, req("GET / HTTP/1.1", "X-A: a\rb")),
            row("bare CR at end of value", 400, "GET / HTTP/1.1\r\nX-A: a\r\r\n\r\n"),
            row("NUL in folded line", 400, req("GET / HTTP/1.1", "X-A: a", " b\u0000")),
            // Content-Length
            row("two different C-L", 400, req("POST / HTTP/1.1", "Content-Length: 2", "Content-Length: 3")),
            row("C-L list 2, 3", 400, req("POST / HTTP/1.1", "Content-Length: 2, 3")),
            row("C-L list in two fields", 400, req("POST / HTTP/1.1", "Content-Length: 2, 2", "Content-Length: 3")),
            row("C-L non-digit", 400, req("POST / HTTP/1.1", "Content-Length: abc")),
            row("C-L hex", 400, req("POST / HTTP/1.1", "Content-Length: 0x10")),
            row("C-L negative", 400, req("POST / HTTP/1.1", "Content-Length: -1")),
            row("C-L plus sign", 400, req("POST / HTTP/1.1", "Content-Length: +1")),
            row("C-L digits then junk", 400, req("POST / HTTP/1.1", "Content-Length: 12a")),
            row("C-L two numbers", 400, req("POST / HTTP/1.1", "Content-Length: 1 2")),
            row("C-L empty", 400, req("POST / HTTP/1.1", "Content-Length:")),
            row("C-L blank", 400, req("POST / HTTP/1.1", "Content-Length:   ")),
            row("C-L trailing comma", 400, req("POST / HTTP/1.1", "Content-Length: 2,")),
            row("C-L leading comma", 400, req("POST / HTTP/1.1", "Content-Length: ,2")),
            row("C-L empty element", 400, req("POST / HTTP/1.1", "Content-Length: 2,,2")),
            row("C-L overflow", 400, req("POST / HTTP/1.1", "Content-Length: 99999999999999999999")),
            row("C-L overflow Long.MAX+1", 400, req("POST / HTTP/1.1", "Content-Length: 9223372036854775808")),
            // Transfer-Encoding
            row("T-E chunked not last", 400, req("POST / HTTP/1.1", "Transfer-Encoding: chunked, gzip")),
            row("T-E chunked not last over two fields", 400, req("POST / HTTP/1.1", "Transfer-Encoding: chunked", "Transfer-Encoding: gzip")),
            row("T-E chunked twice", 400, req("POST / HTTP/1.1", "Transfer-Encoding: chunked, chunked")),
            row("T-E chunked twice over two fields", 400, req("POST / HTTP/1.1", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked")),
            row("T-E empty", 400, req("POST / HTTP/1.1", "Transfer-Encoding:")),
            row("T-E only commas", 400, req("POST / HTTP/1.1", "Transfer-Encoding: , ,")),
            row("T-E without chunked", 400, req("POST / HTTP/1.1", "Transfer-Encoding: gzip")),
            row("T-E identity", 400, req("POST / HTTP/1.1", "Transfer-Encoding: identity")),
            row("T-E gzip, chunked", 422, req("POST / HTTP/1.1", "Transfer-Encoding: gzip, chunked")),
            row("T-E gzip then chunked in two fields", 422, req("POST / HTTP/1.1", "Transfer-Encoding: gzip", "Transfer-Encoding: chunked")),
            row("T-E deflate, gzip, chunked", 422, req("POST / HTTP/1.1", "Transfer-Encoding: deflate, gzip, chunked")),
            row("T-E gzip, chunked on HTTP/1.0", 422, req("POST / HTTP/1.0", "Transfer-Encoding: gzip, chunked")),
            // HTTP/1.0 GET/HEAD/DELETE with a body
            row("HTTP/1.0 GET with C-L", 413, req("GET / HTTP/1.0", "Content-Length: 1")),
            row("HTTP/1.0 HEAD with C-L", 413, req("HEAD / HTTP/1.0", "Content-Length: 10")),
            row("HTTP/1.0 DELETE with C-L", 413, req("DELETE /x HTTP/1.0", "Content-Length: 3")),
            row("HTTP/1.0 GET chunked", 413, req("GET / HTTP/1.0", "Transfer-Encoding: chunked")),
            // Host
            row("two different Host", 400, req("GET / HTTP/1.1", "Host: a.com", "Host: b.com")),
            row("different Host after identical", 400, req("GET / HTTP/1.1", "Host: a.com", "Host: a.com", "Host: b.com")),
            row("space in Host", 400, req("GET / HTTP/1.1", "Host: a b")),
            row("slash in Host", 400, req("GET / HTTP/1.1", "Host: a/b")),
            row("question mark in Host", 400, req("GET / HTTP/1.1", "Host: a?b")),
            row("hash in Host", 400, req("GET / HTTP/1.1", "Host: a#b")),
            row("backslash in Host", 400, req("GET / HTTP/1.1", "Host: a\\b")),
            row("CTL in Host", 400, req("GET / HTTP/1.1", "Host: a\u0001b")),
            row("byte >= 0x80 in Host", 400, req("GET / HTTP/1.1", "Host: caf\u00e9.com")),
            // absolute-form vs Host
            row("absolute authority differs from Host", 400, req("GET http://a.com/ HTTP/1.1", "Host: b.com")),
            row("absolute port differs from Host", 400, req("GET http://a.com:8080/ HTTP/1.1", "Host: a.com")),
            row("absolute non-default port vs bare Host", 400, req("GET http://a.com:443/ HTTP/1.1", "Host: a.com")),
            row("https default port is not 80", 400, req("GET https://a.com:80/ HTTP/1.1", "Host: a.com")),
            row("Host port differs from absolute", 400, req("GET http://a.com/ HTTP/1.1", "Host: a.com:81")),
            row("absolute-form with empty authority", 400, req("GET http:/// HTTP/1.1")),
            row("absolute-form with bad scheme", 400, req("GET 1http://a.com/ HTTP/1.1")),
            row("absolute-form with bad scheme char", 400, req("GET ht_tp://a.com/ HTTP/1.1")),
            row("absolute-form with bad authority char", 400, req("GET http://a\\b/ HTTP/1.1")),
            // target forms
            row("authority-form on GET", 400, req("GET example.com:80 HTTP/1.1")),
            row("authority-form on POST", 400, req("POST example.com:443 HTTP/1.1", "Content-Length: 0")),
            row("relative target", 400, req("GET index.html HTTP/1.1")),
            row("CONNECT without port", 400, req("CONNECT example.com HTTP/1.1")),
            row("CONNECT with empty port", 400, req("CONNECT example.com: HTTP/1.1")),
            row("CONNECT with a path", 400, req("CONNECT /path HTTP/1.1")),
            row("CONNECT with origin-form host:port path", 400, req("CONNECT /example.com:443 HTTP/1.1")),
            row("CONNECT IPv6 without port", 400, req("CONNECT [::1] HTTP/1.1")),
            row("CONNECT with non-numeric port", 400, req("CONNECT example.com:https HTTP/1.1")),
            row("CONNECT with slash in authority", 400, req("CONNECT a.com/x:443 HTTP/1.1")),
            row("'*' on GET", 400, req("GET * HTTP/1.1")),
            row("'*' on POST", 400, req("POST * HTTP/1.1")),
            row("'*' followed by more", 400, req("OPTIONS *x HTTP/1.1")));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("rejected")
    void rejectedWithStatus(String name, int status, String raw) {
        ParserDriver d = ParserDriver.parseRequest(raw);
        assertThat(d.sink.error).as(name).isNotNull();
        assertThat(d.sink.error.status()).as(name + ": " + d.sink.error.reason()).isEqualTo(status);
        assertThat(d.sink.messages).as("no head is delivered for a rejected request").isEmpty();
        assertThat(d.parser.failed()).isTrue();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("rejected")
    void rejectedWithStatusWhenFedByteByByte(String name, int status, String raw) {
        try (ParserDriver d = ParserDriver.request()) {
            byte[] b = ParserDriver.bytes(raw);
            for (int i = 0; i < b.length && d.sink.error == null; i++) {
                d.feed(b, i, 1);
            }
            assertThat(d.sink.error).as(name).isNotNull();
            assertThat(d.sink.error.status()).as(name).isEqualTo(status);
        }
    }

    static Stream<Arguments> accepted() {
        return Stream.of(
            Arguments.of("obs-fold", req("GET / HTTP/1.1", "X-A: a", " b")),
            Arguments.of("bare LF", "GET / HTTP/1.1\nHost: a\n\n"),
            Arguments.of("identical C-L duplicates", req("POST / HTTP/1.1", "Content-Length: 0", "Content-Length: 0")),
            Arguments.of("C-L list of identical values", req("POST / HTTP/1.1", "Content-Length: 0, 0")),
            Arguments.of("C-L with T-E", req("POST / HTTP/1.1", "Content-Length: 5", "Transfer-Encoding: chunked") + "0\r\n\r\n"),
            Arguments.of("T-E on HTTP/1.0", req("POST / HTTP/1.0", "Transfer-Encoding: chunked") + "0\r\n\r\n"),
            Arguments.of("HTTP/1.0 GET without body", req("GET / HTTP/1.0", "Content-Length: 0")),
            Arguments.of("HTTP/1.0 DELETE without body", req("DELETE / HTTP/1.0")),
            Arguments.of("identical Host", req("GET / HTTP/1.1", "Host: a", "Host: a")),
            Arguments.of("Host with port", req("GET / HTTP/1.1", "Host: a.com:8080")),
            Arguments.of("Host IPv6", req("GET / HTTP/1.1", "Host: [::1]:8080")),
            Arguments.of("Host with unreserved chars", req("GET / HTTP/1.1", "Host: a-b_c.d~e")),
            Arguments.of("empty Host", req("GET / HTTP/1.1", "Host:")),
            Arguments.of("absolute-form matching Host", req("GET http://a.com/ HTTP/1.1", "Host: a.com")),
            Arguments.of("absolute-form default port", req("GET http://a.com:80/ HTTP/1.1", "Host: a.com")),
            Arguments.of("CONNECT with port", req("CONNECT a.com:443 HTTP/1.1", "Host: a.com:443")),
            Arguments.of("OPTIONS *", req("OPTIONS * HTTP/1.1", "Host: a")),
            Arguments.of("missing Host in HTTP/1.1", req("GET / HTTP/1.1")),
            Arguments.of("CTL other than NUL/CR/LF in a value", req("GET / HTTP/1.1", "X-A: a\u0001b\u007f")),
            Arguments.of("byte >= 0x80 in a value", req("GET / HTTP/1.1", "X-A: caf\u00e9")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void accepted(String name, String raw) {
        ParserDriver d = ParserDriver.parseRequest(raw);
        assertThat(d.sink.error).as(name).isNull();
        assertThat(d.sink.only().ended).as(name).isTrue();
    }
}
