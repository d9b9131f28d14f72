package dev.sluice.proxy.http;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * The responses Sluice generates itself when something fails, with HAProxy's status lines and HTML
 * bodies (its {@code http_err_msgs}), byte for byte, so that clients and scripts see what they would
 * see from HAProxy. Connection-level errors (a request that cannot be parsed, a request timeout) are sent
 * {@link #raw() raw}, as HAProxy's HTTP/1 layer does; errors decided while processing a request are sent
 * as a {@link #head() head} plus {@link #body() body}, which the client's protocol encodes (lower-case
 * names, no {@code Connection: close}). Immutable.
 */
public final class GeneratedResponse {
    private static final GeneratedResponse[] BY_STATUS = new GeneratedResponse[600];

    static {
        def(200, "OK", "Service ready.", false);
        def(400, "Bad request", "Your browser sent an invalid request.", true);
        def(401, "Unauthorized", "You need a valid user and password to access this content.", false);
        def(403, "Forbidden", "Request forbidden by administrative rules.", false);
        def(404, "Not Found", "The resource could not be found.", false);
        def(405, "Method Not Allowed", "A request was made of a resource using a request method not supported by that resource", false);
        def(407, "Unauthorized", "You need a valid user and password to access this content.", false);
        def(408, "Request Time-out", "Your browser didn't send a complete request in time.", true);
        def(410, "Gone", "The resource is no longer available and will not be available again.", false);
        def(413, "Payload Too Large", "The request entity exceeds the maximum allowed.", false);
        def(414, "URI Too Long", "The URI provided was too long for the server to process.", false);
        def(421, "Misdirected Request", "Request sent to a non-authoritative server.", false);
        def(422, "Unprocessable Content", "The server cannot process the contained instructions.", false);
        def(425, "Too Early", "Your browser sent early data.", false);
        def(429, "Too Many Requests", "You have sent too many requests in a given amount of time.", false);
        def(431, "Request Header Fields Too Large", ">Request Header Fields Too Large.", false);
        def(500, "Internal Server Error", "An internal server error occurred.", false);
        def(501, "Not Implemented", ".The server does not support the functionality required to fulfill the request.", false);
        def(502, "Bad Gateway", "The server returned an invalid or incomplete response.", false);
        def(503, "Service Unavailable", "No server is available to handle this request.", false);
        def(504, "Gateway Time-out", "The server didn't respond in time.", false);
    }

    private static final AsciiString NO_CACHE = AsciiString.cached("no-cache");
    private static final AsciiString TEXT_HTML = AsciiString.cached("text/html");

    private final int status;
    private final AsciiString reason;
    private final byte[] body;
    private final byte[] raw;
    private final boolean close;

    private GeneratedResponse(int status, String reason, String text, boolean close) {
        this.status = status;
        this.close = close;
        this.reason = AsciiString.cached(reason);
        String html = "<html><body><h1>" + status + " " + reason + "</h1>\n" + text + "\n</body></html>\n";
        this.body = html.getBytes(StandardCharsets.US_ASCII);
        String head = "HTTP/1.1 " + status + " " + reason + "\r\n"
                + "Content-length: " + body.length + "\r\n"
                + "Cache-Control: no-cache\r\n"
                + (close ? "Connection: close\r\n" : "")
                + "Content-Type: text/html\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        this.raw = new byte[h.length + body.length];
        System.arraycopy(h, 0, raw, 0, h.length);
        System.arraycopy(body, 0, raw, h.length, body.length);
    }

    private static void def(int status, String reason, String text, boolean close) {
        BY_STATUS[status] = new GeneratedResponse(status, reason, text, close);
    }

    /** The response for a status; HAProxy falls back to its 500 page for codes it has no page for. */
    public static GeneratedResponse of(int status) {
        GeneratedResponse r = status >= 0 && status < BY_STATUS.length ? BY_STATUS[status] : null;
        return r != null ? r : BY_STATUS[500];
    }

    public int status() {
        return status;
    }

    /** The whole HTTP/1.1 response as HAProxy's HTTP/1 layer sends it. Callers must not modify it. */
    public byte[] raw() {
        return raw;
    }

    /** The HTML body. Callers must not modify it. */
    public byte[] body() {
        return body;
    }

    /**
     * What HAProxy's HTX of this page has beyond {@link #head()}: its {@code Connection: close} field (HAProxy's error
     * messages keep it), for the {@link HtxSize} of the page.
     */
    public int htxBeyondHead() {
        return close ? HeaderNames.CONNECTION.length() + "close".length() : 0;
    }

    /** A fresh head for this response: {@code content-length}, {@code cache-control}, {@code content-type}. */
    public ResponseHead head() {
        HttpFields f = new HttpFields(4);
        f.add(HeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(body.length)));
        f.add(HeaderNames.CACHE_CONTROL, NO_CACHE);
        f.add(HeaderNames.CONTENT_TYPE, TEXT_HTML);
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, status, reason, f);
        h.bodyLength(body.length);
        return h;
    }
}
