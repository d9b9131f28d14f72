package dev.sluice.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The generated error responses are HAProxy's {@code http_err_msgs}, byte for byte. */
class GeneratedResponseTest {

    /** HAProxy 3.x src/http.c, http_err_msgs (2.6 has the same bytes for the codes it knows). */
    private static final Map<Integer, String> HAPROXY = Map.ofEntries(
        Map.entry(200, "HTTP/1.1 200 OK\r\n"
            + "Content-length: 58\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>200 OK</h1>\nService ready.\n</body></html>\n"),
        Map.entry(400, "HTTP/1.1 400 Bad request\r\n"
            + "Content-length: 90\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Connection: close\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n</body></html>\n"),
        Map.entry(401, "HTTP/1.1 401 Unauthorized\r\n"
            + "Content-length: 112\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>401 Unauthorized</h1>\nYou need a valid user and password to access this content.\n</body></html>\n"),
        Map.entry(403, "HTTP/1.1 403 Forbidden\r\n"
            + "Content-length: 93\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>403 Forbidden</h1>\nRequest forbidden by administrative rules.\n</body></html>\n"),
        Map.entry(404, "HTTP/1.1 404 Not Found\r\n"
            + "Content-length: 83\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>404 Not Found</h1>\nThe resource could not be found.\n</body></html>\n"),
        Map.entry(405, "HTTP/1.1 405 Method Not Allowed\r\n"
            + "Content-length: 146\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>405 Method Not Allowed</h1>\nA request was made of a resource using a request method not supported by that resource\n</body></html>\n"),
        Map.entry(407, "HTTP/1.1 407 Unauthorized\r\n"
            + "Content-length: 112\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>407 Unauthorized</h1>\nYou need a valid user and password to access this content.\n</body></html>\n"),
        Map.entry(408, "HTTP/1.1 408 Request Time-out\r\n"
            + "Content-length: 110\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Connection: close\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>408 Request Time-out</h1>\nYour browser didn't send a complete request in time.\n</body></html>\n"),
        Map.entry(410, "HTTP/1.1 410 Gone\r\n"
            + "Content-length: 114\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>410 Gone</h1>\nThe resource is no longer available and will not be available again.\n</body></html>\n"),
        Map.entry(413, "HTTP/1.1 413 Payload Too Large\r\n"
            + "Content-length: 106\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>413 Payload Too Large</h1>\nThe request entity exceeds the maximum allowed.\n</body></html>\n"),
        Map.entry(414, "HTTP/1.1 414 URI Too Long\r\n"
            + "Content-length: 110\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>414 URI Too Long</h1>\nThe URI provided was too long for the server to process.\n</body></html>\n"),
        Map.entry(421, "HTTP/1.1 421 Misdirected Request\r\n"
            + "Content-length: 104\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>421 Misdirected Request</h1>\nRequest sent to a non-authoritative server.\n</body></html>\n"),
        Map.entry(422, "HTTP/1.1 422 Unprocessable Content\r\n"
            + "Content-length: 116\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>422 Unprocessable Content</h1>\nThe server cannot process the contained instructions.\n</body></html>\n"),
        Map.entry(425, "HTTP/1.1 425 Too Early\r\n"
            + "Content-length: 80\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>425 Too Early</h1>\nYour browser sent early data.\n</body></html>\n"),
        Map.entry(429, "HTTP/1.1 429 Too Many Requests\r\n"
            + "Content-length: 117\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>429 Too Many Requests</h1>\nYou have sent too many requests in a given amount of time.\n</body></html>\n"),
        // the '>' and the '.' opening the next two texts are in HAProxy's own strings
        Map.entry(431, "HTTP/1.1 431 Request Header Fields Too Large\r\n"
            + "Content-length: 106\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>431 Request Header Fields Too Large</h1>\n>Request Header Fields Too Large.\n</body></html>\n"),
        Map.entry(500, "HTTP/1.1 500 Internal Server Error\r\n"
            + "Content-length: 97\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>500 Internal Server Error</h1>\nAn internal server error occurred.\n</body></html>\n"),
        Map.entry(501, "HTTP/1.1 501 Not Implemented\r\n"
            + "Content-length: 136\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>501 Not Implemented</h1>\n.The server does not support the functionality required to fulfill the request.\n</body></html>\n"),
        Map.entry(502, "HTTP/1.1 502 Bad Gateway\r\n"
            + "Content-length: 107\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>502 Bad Gateway</h1>\nThe server returned an invalid or incomplete response.\n</body></html>\n"),
        Map.entry(503, "HTTP/1.1 503 Service Unavailable\r\n"
            + "Content-length: 107\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n"),
        Map.entry(504, "HTTP/1.1 504 Gateway Time-out\r\n"
            + "Content-length: 92\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Content-Type: text/html\r\n"
            + "\r\n"
            + "<html><body><h1>504 Gateway Time-out</h1>\nThe server didn't respond in time.\n</body></html>\n"));

    /** The Content-length of each message in HAProxy 2.6 / 3.x. */
    static Stream<Arguments> lengths() {
        return Stream.of(Arguments.of(200, 58), Arguments.of(400, 90), Arguments.of(401, 112), Arguments.of(403, 93), Arguments.of(404, 83),
            Arguments.of(405, 146), Arguments.of(407, 112), Arguments.of(408, 110), Arguments.of(410, 114), Arguments.of(413, 106),
            Arguments.of(414, 110), Arguments.of(421, 104), Arguments.of(422, 116), Arguments.of(425, 80), Arguments.of(429, 117),
            Arguments.of(431, 106), Arguments.of(500, 97), Arguments.of(501, 136), Arguments.of(502, 107), Arguments.of(503, 107),
            Arguments.of(504, 92));
    }

    private static String raw(int status) {
        return new String(GeneratedResponse.of(status).raw(), StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest
    @MethodSource("lengths")
    void rawBytesAreHaproxys(int status, int contentLength) {
        GeneratedResponse r = GeneratedResponse.of(status);
        assertThat(r.status()).isEqualTo(status);
        assertThat(raw(status)).isEqualTo(HAPROXY.get(status));
        assertThat(raw(status)).contains("\r\nContent-length: " + contentLength + "\r\n");
        assertThat(r.body()).hasSize(contentLength);
        String body = new String(r.body(), StandardCharsets.ISO_8859_1);
        assertThat(raw(status)).endsWith("\r\n\r\n" + body);
        assertThat(body).startsWith("<html><body><h1>" + status + " ").endsWith("\n</body></html>\n");
    }

    @Test
    void everyHaproxyMessageIsCovered() {
        assertThat(lengths().map(a -> (Integer) a.get()[0])).containsExactlyInAnyOrderElementsOf(HAPROXY.keySet());
    }

    @ParameterizedTest
    @MethodSource("lengths")
    void onlyBadRequestAndTimeoutCloseTheConnection(int status, int contentLength) {
        boolean close = status == 400 || status == 408;
        assertThat(raw(status).contains("\r\nConnection: close\r\n")).as("%d", status).isEqualTo(close);
        String expectedFields = "Content-length: " + contentLength + "\r\nCache-Control: no-cache\r\n" + (close ? "Connection: close\r\n" : "")
            + "Content-Type: text/html\r\n\r\n";
        assertThat(raw(status)).contains(expectedFields);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 99, 100, 201, 204, 301, 302, 402, 406, 409, 411, 415, 418, 423, 426, 451, 499, 505, 511, 599, 600, 999, -1,
        Integer.MIN_VALUE, Integer.MAX_VALUE})
    void unknownCodesFallBackTo500(int status) {
        GeneratedResponse r = GeneratedResponse.of(status);
        assertThat(r).isSameAs(GeneratedResponse.of(500));
        assertThat(r.status()).isEqualTo(500);
        assertThat(raw(status)).isEqualTo(HAPROXY.get(500));
    }

    @ParameterizedTest
    @MethodSource("lengths")
    void headHasLowerCaseFieldsInOrder(int status, int contentLength) {
        GeneratedResponse r = GeneratedResponse.of(status);
        ResponseHead h = r.head();
        assertThat(h.status()).isEqualTo(status);
        assertThat(h.version()).isEqualTo(HttpVersion.HTTP_1_1);
        String statusLine = HAPROXY.get(status).substring(0, HAPROXY.get(status).indexOf("\r\n"));
        assertThat(h.reason().toString()).isEqualTo(statusLine.substring(("HTTP/1.1 " + status + " ").length()));
        HttpFields f = h.fields();
        assertThat(f.size()).isEqualTo(3);
        assertThat(f.name(0).toString()).isEqualTo("content-length");
        assertThat(f.value(0).toString()).isEqualTo(Integer.toString(contentLength));
        assertThat(f.name(1).toString()).isEqualTo("cache-control");
        assertThat(f.value(1).toString()).isEqualTo("no-cache");
        assertThat(f.name(2).toString()).isEqualTo("content-type");
        assertThat(f.value(2).toString()).isEqualTo("text/html");
        assertThat(f.contains(HeaderNames.CONNECTION)).isFalse();
        assertThat(h.body()).isEqualTo(MessageHead.Body.LENGTH);
        assertThat(h.contentLength()).isEqualTo(contentLength);
        assertThat(h.hasBody()).isTrue();
    }

    @Test
    void headIsFreshEachTime() {
        GeneratedResponse r = GeneratedResponse.of(503);
        ResponseHead a = r.head();
        a.fields().add("x-extra", "1");
        a.status(502, Status.reason(502));
        ResponseHead b = r.head();
        assertThat(b).isNotSameAs(a);
        assertThat(b.status()).isEqualTo(503);
        assertThat(b.fields().size()).isEqualTo(3);
        assertThat(b.reason().toString()).isEqualTo("Service Unavailable");
    }

    @Test
    void sameInstanceForTheSameStatus() {
        assertThat(GeneratedResponse.of(403)).isSameAs(GeneratedResponse.of(403));
        assertThat(GeneratedResponse.of(403).raw()).isSameAs(GeneratedResponse.of(403).raw());
    }
}
