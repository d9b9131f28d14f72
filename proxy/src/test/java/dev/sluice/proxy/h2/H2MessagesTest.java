package dev.sluice.proxy.h2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.handler.codec.Headers;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link H2Messages#request}: how an HTTP/2 (or, strict, HTTP/3) request header block becomes a request head, and
 * which invalid ones are a stream error (RST_STREAM PROTOCOL_ERROR) and which a 400, as today.
 */
class H2MessagesTest {

    /** A block with the pseudo-headers of a GET (no validation: tests put invalid fields in it). */
    private static Http2Headers get(String path) {
        return new DefaultHttp2Headers(false).method("GET").scheme("https").authority("example.com").path(path);
    }

    private static String error(Http2Headers h, boolean endStream) {
        H2Messages.Request r = H2Messages.request(h, endStream);
        assertThat(r.head()).isNull();
        return (r.streamError() ? "RST " : r.status() + " ") + r.error();
    }

    @Test
    void aGetBecomesAnHttp2HeadWithAuthorityAsHostAndCookiesJoined() {
        Http2Headers h = get("/a?b=c");
        h.add("cookie", "x=1");
        h.add("accept", "*/*");
        h.add("cookie", "y=2");
        h.add("host", "other.example");
        H2Messages.Request r = H2Messages.request(h, true);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.head().method().toString()).isEqualTo("GET");
        assertThat(r.head().target().toString()).isEqualTo("/a?b=c");
        assertThat(r.head().version()).isEqualTo(HttpVersion.HTTP_2);
        // the host field gives way to :authority, which goes after the other fields; the cookies go last, joined
        dev.sluice.proxy.http.HttpFields f = r.head().fields();
        assertThat(f.size()).isEqualTo(3);
        assertThat(f.name(0) + ": " + f.value(0) + "|" + f.name(1) + ": " + f.value(1) + "|" + f.name(2) + ": " + f.value(2))
                .isEqualTo("accept: */*|host: example.com|cookie: x=1; y=2");
        assertThat(r.head().body()).isEqualTo(MessageHead.Body.NONE);
    }

    /**
     * The URI HAProxy 2.6 logs for an HTTP/2 request (h2_prepare_htx_reqline): absolute from :scheme, :authority and
     * :path, the path of {@code OPTIONS *} left out, the path alone without :authority; as it came, whatever rules do.
     */
    @Test
    void theLoggedUriIsAbsolute() {
        H2Messages.Request r = H2Messages.request(get("/a?b=c"), true);
        assertThat(r.head().loggedUri()).isEqualTo("https://example.com/a?b=c");
        r.head().target(new io.netty.util.AsciiString("/rewritten"));
        r.head().method(new io.netty.util.AsciiString("POST"));
        assertThat(r.head().loggedUri()).isEqualTo("https://example.com/a?b=c");
        assertThat(r.head().receivedMethod().toString()).isEqualTo("GET");
        Http2Headers star = new DefaultHttp2Headers(false).method("OPTIONS").scheme("http").authority("h:81").path("*");
        assertThat(H2Messages.request(star, true).head().loggedUri()).isEqualTo("http://h:81");
        Http2Headers noAuthority = new DefaultHttp2Headers(false).method("GET").scheme("http").path("/p");
        noAuthority.add("host", "h");
        assertThat(H2Messages.request(noAuthority, true).head().loggedUri()).isEqualTo("/p");
        Http2Headers connect = new DefaultHttp2Headers(false).method("CONNECT").authority("h:443");
        assertThat(H2Messages.request(connect, false).head().loggedUri()).isEqualTo("h:443");
    }

    /**
     * The HTX size of a request head (%U, bin): HAProxy 2.6 makes an absolute URI of :scheme, :authority and :path, a
     * host field of :authority, joins the cookies; the numbers are what HAProxy 2.6.12 logged as %U for curl and nghttp.
     */
    @Test
    void aRequestIsMeasuredAsHaproxysHtx() {
        Http2Headers curl = new DefaultHttp2Headers(false).method("GET").scheme("http").authority("127.0.0.1:18082").path("/");
        curl.add("user-agent", "curl/7.88.1");
        curl.add("accept", "*/*");
        assertThat(H2Messages.request(curl, true).head().htxSize()).isEqualTo(104);
        Http2Headers other = new DefaultHttp2Headers(false).method("GET").scheme("http").authority("other").path("/");
        other.add("user-agent", "curl/7.88.1");
        other.add("accept", "*/*");
        assertThat(H2Messages.request(other, true).head().htxSize()).isEqualTo(84);
        Http2Headers post = new DefaultHttp2Headers(false).method("POST").scheme("http").authority("127.0.0.1:18082").path("/p");
        post.add("accept", "*/*");
        post.add("accept-encoding", "gzip, deflate");
        post.add("user-agent", "nghttp2/1.52.0");
        post.add("content-length", "483");
        post.add("content-length", "483");
        // with its 483 bytes of data: 637
        assertThat(H2Messages.request(post, false).head().htxSize() + 483).isEqualTo(637);
        Http2Headers cookies = new DefaultHttp2Headers(false).method("GET").scheme("http").authority("127.0.0.1:18082").path("/trailers");
        cookies.add("user-agent", "curl/7.88.1");
        cookies.add("accept", "*/*");
        cookies.add("cookie", "a=1");
        cookies.add("cookie", "b=22");
        assertThat(H2Messages.request(cookies, true).head().htxSize()).isEqualTo(127);
    }

    @Test
    void aServersResponseHasNoReasonInHaproxysHtx() {
        Http2Headers h = new DefaultHttp2Headers(false).status("200");
        h.add("content-length", "5");
        h.add("x-h", "abcdef");
        assertThat(H2Messages.response(h).htxSize()).isEqualTo(20 + 8 + 3 + 15 + 9 + 1);
    }

    @Test
    void theBodyIsFramedByContentLengthOrStreamed() {
        Http2Headers h = get("/").method("POST");
        h.add("content-length", "5");
        H2Messages.Request r = H2Messages.request(h, false);
        assertThat(r.head().body()).isEqualTo(MessageHead.Body.LENGTH);
        assertThat(r.head().contentLength()).isEqualTo(5);
        assertThat(H2Messages.request(get("/").method("POST"), false).head().body()).isEqualTo(MessageHead.Body.STREAMED);
    }

    @Test
    void aConnectNeedsOnlyAnAuthority() {
        Http2Headers h = new DefaultHttp2Headers(false).method("CONNECT").authority("example.com:443");
        H2Messages.Request r = H2Messages.request(h, false);
        assertThat(r.head().target().toString()).isEqualTo("example.com:443");
        assertThat(error(new DefaultHttp2Headers(false).method("CONNECT").authority("a:1").path("/"), false))
                .isEqualTo("RST CONNECT needs :authority and no :scheme or :path");
    }

    @Test
    void malformedPseudoHeadersAreStreamErrors() {
        assertThat(error(new DefaultHttp2Headers(false).scheme("http").path("/"), true)).isEqualTo("RST missing :method");
        assertThat(error(new DefaultHttp2Headers(false).method("GET").path("/"), true)).isEqualTo("RST missing :scheme or :path");
        Http2Headers dup = get("/");
        dup.add(":path", "/again");
        assertThat(error(dup, true)).isEqualTo("RST duplicate pseudo-header");
        Http2Headers status = get("/");
        status.add(":status", "200");
        assertThat(error(status, true)).isEqualTo("RST pseudo-header :status in a request");
        Http2Headers protocol = get("/");
        protocol.add(":protocol", "websocket");
        assertThat(error(protocol, true)).isEqualTo("RST extended CONNECT (:protocol) is not enabled");
        assertThat(error(get(""), true)).isEqualTo("RST empty :path");
        assertThat(error(get("x"), true)).isEqualTo("RST :path does not start with /");
        assertThat(error(get("/a b"), true)).isEqualTo("RST forbidden character in :path");
        assertThat(error(get("/a#b"), true)).isEqualTo("RST forbidden character in :path");
        // a bad :authority is answered 400 as HAProxy 2.6 does (MalformedHttp2Test runs it through HAProxy)
        assertThat(error(get("/").authority("a b"), true)).isEqualTo("400 forbidden character in :authority");
    }

    @Test
    void badFieldValuesAndLengthsAreStreamErrors() {
        Http2Headers crlf = get("/");
        crlf.add("x-a", "1\r\nx-b: 2");
        assertThat(error(crlf, true)).isEqualTo("RST forbidden character in field x-a");
        Http2Headers two = get("/").method("POST");
        two.add("content-length", "1");
        two.add("content-length", "2");
        assertThat(error(two, false)).isEqualTo("RST different content-length values");
        Http2Headers bad = get("/").method("POST");
        bad.add("content-length", "x");
        assertThat(error(bad, false)).isEqualTo("RST invalid content-length");
        Http2Headers noData = get("/").method("POST");
        noData.add("content-length", "3");
        assertThat(error(noData, true)).isEqualTo("RST content-length with no DATA");
    }

    @Test
    void anInvalidMethodSchemeOrAsteriskPathIsA400() {
        assertThat(error(get("/").method("G(T"), true)).isEqualTo("400 invalid method");
        assertThat(error(get("/").scheme("ftp:"), true)).isEqualTo("400 invalid scheme");
        assertThat(error(get("*"), true)).isEqualTo("400 '*' path on a method other than OPTIONS");
        assertThat(H2Messages.request(get("*").method("OPTIONS"), true).status()).isEqualTo(200);
        Http2Headers hosts = new DefaultHttp2Headers(false).method("GET").scheme("http").path("/");
        hosts.add("host", "a");
        hosts.add("host", "b");
        assertThat(error(hosts, true)).isEqualTo("400 several different host fields");
    }

    @Test
    void strictModeRejectsWhatNettysHttp3CodecLetsThrough() {
        for (String[] c : new String[][] {{"X-Upper", "1", "invalid character in field name X-Upper"},
                {"connection", "keep-alive", "connection-specific field connection"}, {"te", "gzip", "te other than trailers"}}) {
            Http2Headers h = get("/");
            h.add(c[0], c[1]);
            H2Messages.Request r = H2Messages.request(h, h.size(), true, HttpVersion.HTTP_3, true);
            assertThat(r.streamError()).as(c[0]).isTrue();
            assertThat(r.error()).isEqualTo(c[2]);
            // not strict (HTTP/2: Netty's codec has rejected these before)
            assertThat(H2Messages.request(h, true).status()).as(c[0]).isEqualTo(200);
        }
        Http2Headers te = get("/");
        te.add("te", "trailers");
        assertThat(H2Messages.request(te, te.size(), true, HttpVersion.HTTP_3, true).status()).isEqualTo(200);
    }

    private static HttpFields hopByHop() {
        HttpFields f = new HttpFields();
        for (String[] nv : new String[][] {{"host", "t"}, {"connection", "X-Foo,TE"}, {"x-foo", "1"}, {"te", "gzip, trailers"},
                {"keep-alive", "300"}, {"proxy-connection", "keep-alive"}, {"upgrade", "h2c"}, {"transfer-encoding", "chunked"},
                {"te", "gzip"}, {"http2-settings", "AAMAAABkAAQAoAAAAAIAAAAA"}}) {
            f.add(nv[0], nv[1]);
        }
        return f;
    }

    private static List<String> fields(Headers<CharSequence, CharSequence, ?> h) {
        List<String> out = new ArrayList<>();
        h.forEach(e -> out.add(e.getKey() + ": " + e.getValue()));
        return out;
    }

    @Test
    void anHttp1RequestGoesToAnHttp2ServerWithoutItsConnectionSpecificFields() {
        // what haproxy -db sent to an HTTP/2 server for the same HTTP/1.1 request: the fields Connection lists do go; an
        // origin-form request goes with :scheme https, no :authority and its Host as a field (h2s_bck_make_req_headers)
        RequestHead r = new RequestHead(RequestHead.GET, AsciiString.of("/x"), HttpVersion.HTTP_1_1, hopByHop());
        assertThat(fields(H2Messages.encodeRequest(r))).containsExactly(":method: GET", ":scheme: https", ":path: /x",
            "host: t", "x-foo: 1", "te: trailers", "http2-settings: AAMAAABkAAQAoAAAAAIAAAAA");
        // an HTTP/2 client's request (absolute in HAProxy): its :scheme, the Host field as :authority, no Host
        RequestHead h2 = new RequestHead(RequestHead.GET, AsciiString.of("/z"), HttpVersion.HTTP_2, hopByHop());
        h2.absoluteForm("http", AsciiString.of("t"));
        assertThat(fields(H2Messages.encodeRequest(h2))).containsExactly(":method: GET", ":scheme: http", ":authority: t", ":path: /z",
            "x-foo: 1", "te: trailers", "http2-settings: AAMAAABkAAQAoAAAAAIAAAAA");
        // one in absolute form gives its scheme and authority, and Host stays behind
        RequestHead abs = new RequestHead(RequestHead.GET, AsciiString.of("http://a.example:8080/y?q"), HttpVersion.HTTP_1_1, hopByHop());
        assertThat(fields(H2Messages.encodeRequest(abs))).containsExactly(":method: GET", ":scheme: http", ":authority: a.example:8080",
            ":path: /y?q", "x-foo: 1", "te: trailers", "http2-settings: AAMAAABkAAQAoAAAAAIAAAAA");
    }

    @Test
    void anHttp1ResponseGoesToAnHttp2ClientWithoutThemTeIncluded() {
        // HAProxy relays a response's TE as it came, which nghttp2 resets the stream for: Sluice reduces it
        ResponseHead r = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), hopByHop());
        assertThat(fields(H2Messages.encodeResponse(r))).containsExactly(":status: 200", "host: t", "x-foo: 1", "te: trailers",
            "http2-settings: AAMAAABkAAQAoAAAAAIAAAAA");
        // trailers: no TE, Host nor Content-Length either (h2s_make_trailers)
        HttpFields t = hopByHop();
        t.add("content-length", "3");
        t.add("x-checksum", "abc");
        assertThat(fields(H2Messages.encodeTrailers(t))).containsExactly("x-foo: 1", "http2-settings: AAMAAABkAAQAoAAAAAIAAAAA",
            "x-checksum: abc");
    }
}
