package dev.sluice.proxy.h2;

import dev.sluice.config.HttpTokens;
import dev.sluice.proxy.http.Authority;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HopByHop;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HtxSize;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import io.netty.handler.codec.Headers;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Map;

/**
 * Translation between HTTP/2 header blocks and the protocol-neutral model, in both directions, and the
 * request validation rules of HAProxy's HTTP/2 layer (checked against HAProxy 2.6 row by row in the regtests' MalformedHttp2Test) that Netty's own
 * header validation does not already apply. Stateless.
 */
public final class H2Messages {
    private H2Messages() {
    }

    private static final AsciiString COOKIE = AsciiString.cached("cookie");
    private static final AsciiString SEMI_SP = AsciiString.cached("; ");
    private static final AsciiString HTTPS = AsciiString.cached("https");

    /** The outcome of translating a request header block. */
    public record Request(RequestHead head, int status, String error) {
        /** A stream error (RST_STREAM PROTOCOL_ERROR) when {@code head} is null and {@code status} is 0. */
        public boolean streamError() {
            return head == null && status == 0;
        }
    }

    private static Request streamError(String why) {
        return new Request(null, 0, why);
    }

    private static Request badRequest(String why) {
        return new Request(null, 400, why);
    }

    /**
     * Validates and translates a request header block received on a client connection. Netty has already
     * rejected invalid names, upper-case names, misplaced or unknown pseudo-headers, connection-specific
     * fields and a TE other than "trailers" (all stream errors).
     */
    public static Request request(Http2Headers h, boolean endStream) {
        return request(h, h.size(), endStream, HttpVersion.HTTP_2, false);
    }

    /**
     * The same for an HTTP/3 field section (RFC 9114 4.2-4.3 has HTTP/2's rules), with {@code strict}: the
     * checks Netty's HTTP/3 codec leaves out are made here (field names lower-case tokens, no
     * connection-specific field, TE only "trailers"); a failure is a stream error (H3_MESSAGE_ERROR).
     */
    public static Request request(Iterable<Map.Entry<CharSequence, CharSequence>> h, int size, boolean endStream, HttpVersion version,
            boolean strict) {
        CharSequence method = null;
        CharSequence scheme = null;
        CharSequence path = null;
        CharSequence authority = null;
        int m = 0;
        int s = 0;
        int p = 0;
        int a = 0;
        HttpFields fields = new HttpFields(Math.max(4, size));
        AsciiString cookie = null;
        AsciiString contentLength = null;
        // HAProxy's HTX measure of the fields (HtxSize): host fields apart, :authority replaces them
        int fieldBytes = 0;
        int hostBytes = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iterator(); it.hasNext();) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            CharSequence value = e.getValue();
            if (strict) {
                String why = strictFieldError(name, value);
                if (why != null) {
                    return streamError(why);
                }
            }
            if (name.length() > 0 && name.charAt(0) == ':') {
                String n = name.toString();
                switch (n) {
                    case ":method" -> {
                        method = value;
                        m++;
                    }
                    case ":scheme" -> {
                        scheme = value;
                        s++;
                    }
                    case ":path" -> {
                        path = value;
                        p++;
                    }
                    case ":authority" -> {
                        authority = value;
                        a++;
                    }
                    case ":protocol" -> {
                        return streamError("extended CONNECT (:protocol) is not enabled");
                    }
                    default -> {
                        return streamError("pseudo-header " + n + " in a request");
                    }
                }
                continue;
            }
            AsciiString an = AsciiString.of(name);
            AsciiString av = AsciiString.of(value);
            if (hasNulCrLf(av)) {
                return streamError("forbidden character in field " + an);
            }
            if (an.contentEquals(COOKIE)) {
                cookie = cookie == null ? av : new AsciiString(cookie.toString() + "; " + av);
                continue;
            }
            if (an.contentEquals(HeaderNames.HOST)) {
                hostBytes += 4 + av.length();
            } else {
                fieldBytes += an.length() + av.length();
            }
            if (an.contentEquals(HeaderNames.CONTENT_LENGTH)) {
                if (contentLength != null && !contentLength.contentEquals(av)) {
                    return streamError("different content-length values");
                }
                if (contentLength != null) {
                    fieldBytes -= an.length() + av.length();
                }
                contentLength = av;
                continue;
            }
            if (an.contentEquals(HeaderNames.HOST)) {
                // :authority wins; a host field is only kept when there is no :authority (checked below)
                if (fields.contains(HeaderNames.HOST)) {
                    if (!fields.get(HeaderNames.HOST).contentEqualsIgnoreCase(av)) {
                        return badRequest("several different host fields");
                    }
                    hostBytes -= 4 + av.length();
                    continue;
                }
            }
            fields.add(an, av);
        }
        if (m > 1 || s > 1 || p > 1 || a > 1) {
            return streamError("duplicate pseudo-header");
        }
        if (m == 0) {
            return streamError("missing :method");
        }
        AsciiString meth = AsciiString.of(method);
        boolean connect = meth.contentEquals(RequestHead.CONNECT);
        if (connect) {
            if (a == 0 || s != 0 || p != 0) {
                return streamError("CONNECT needs :authority and no :scheme or :path");
            }
        } else if (s == 0 || p == 0) {
            return streamError("missing :scheme or :path");
        }
        if (!isToken(meth)) {
            return badRequest("invalid method");
        }
        AsciiString target;
        if (connect) {
            target = AsciiString.of(authority);
        } else {
            AsciiString sch = AsciiString.of(scheme);
            if (!validScheme(sch)) {
                return badRequest("invalid scheme");
            }
            target = AsciiString.of(path);
            if (target.isEmpty()) {
                return streamError("empty :path");
            }
            byte c0 = target.byteAt(0);
            if (c0 != '/' && !(c0 == '*' && target.length() == 1)) {
                return streamError(":path does not start with /");
            }
            if (c0 == '*' && !meth.contentEquals(RequestHead.OPTIONS)) {
                return badRequest("'*' path on a method other than OPTIONS");
            }
            for (int i = 0; i < target.length(); i++) {
                int c = target.byteAt(i) & 0xff;
                if (c <= 0x20 || c == '#' || c == 0x7f) {
                    return streamError("forbidden character in :path");
                }
            }
        }
        if (authority != null) {
            AsciiString auth = AsciiString.of(authority);
            if (!Authority.valid(auth)) {
                return badRequest("forbidden character in :authority");
            }
            // the host field is replaced by :authority (an extra host is dropped), or synthesized from it
            fields.removeAll(HeaderNames.HOST);
            fields.add(HeaderNames.HOST, auth);
        }
        if (cookie != null) {
            fields.add(COOKIE, cookie);
        }
        RequestHead head = new RequestHead(meth, target, version, fields);
        if (!connect && authority != null && version == HttpVersion.HTTP_2) {
            head.absoluteForm(scheme, fields.get(HeaderNames.HOST));
        }
        head.htxSize(HtxSize.HEAD + meth.length() + uriBytes(version, connect, scheme, authority, target) + 8 + fieldBytes
                + (authority != null ? 4 + authority.length() : hostBytes) + (cookie != null ? 6 + cookie.length() : 0));
        if (contentLength != null) {
            long cl = parseLength(contentLength);
            if (cl < 0) {
                return streamError("invalid content-length");
            }
            if (endStream && cl != 0) {
                return streamError("content-length with no DATA");
            }
            fields.add(HeaderNames.CONTENT_LENGTH, contentLength);
            head.bodyLength(cl);
        } else if (endStream) {
            head.bodyNone();
        } else {
            head.bodyStreamed();
        }
        return new Request(head, 200, null);
    }

    /**
     * The length of the URI of HAProxy's start line for an HTTP/2 or HTTP/3 request: HTTP/2 makes an absolute one of
     * :scheme, :authority and :path when it has all three (h2_prepare_htx_reqline), the authority alone for CONNECT;
     * HTTP/3 (2.6's h3_headers_to_htx) keeps :path, or the authority of a CONNECT.
     */
    private static int uriBytes(HttpVersion version, boolean connect, CharSequence scheme, CharSequence authority, AsciiString target) {
        if (connect || version != HttpVersion.HTTP_2 || authority == null) {
            return target.length();
        }
        boolean star = target.length() == 1 && target.byteAt(0) == '*';
        return scheme.length() + 3 + authority.length() + (star ? 0 : target.length());
    }

    /** What Netty's HTTP/2 codec rejects and its HTTP/3 codec lets through, or null when the field is fine. */
    private static String strictFieldError(CharSequence name, CharSequence value) {
        if (name.length() == 0) {
            return "empty field name";
        }
        for (int i = name.charAt(0) == ':' ? 1 : 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= 'A' && c <= 'Z' || !HttpTokens.isTokenChar(c)) {
                return "invalid character in field name " + name;
            }
        }
        if (name.charAt(0) == ':') {
            return null;
        }
        AsciiString n = AsciiString.of(name);
        if (HopByHop.connectionSpecific(n)) {
            return "connection-specific field " + name;
        }
        if (n.contentEquals(HeaderNames.TE) && !AsciiString.of(value).contentEquals(HopByHop.TRAILERS)) {
            return "te other than trailers";
        }
        return null;
    }

    /** Response header block from a server connection: :status and fields. Null when invalid. */
    public static ResponseHead response(Http2Headers h) {
        CharSequence status = h.status();
        if (status == null || status.length() != 3) {
            return null;
        }
        int code;
        try {
            code = Integer.parseInt(status.toString());
        } catch (NumberFormatException e) {
            return null;
        }
        if (code < 100) {
            return null;
        }
        HttpFields fields = new HttpFields(Math.max(4, h.size()));
        AsciiString contentLength = null;
        int fieldBytes = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iterator(); it.hasNext();) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            if (name.length() > 0 && name.charAt(0) == ':') {
                if (!name.toString().equals(":status")) {
                    return null;
                }
                continue;
            }
            AsciiString an = AsciiString.of(name);
            AsciiString av = AsciiString.of(e.getValue());
            if (an.contentEquals(HeaderNames.CONTENT_LENGTH)) {
                if (contentLength != null && !contentLength.contentEquals(av)) {
                    return null;
                }
                if (contentLength == null) {
                    fieldBytes += an.length() + av.length();
                }
                contentLength = av;
                continue;
            }
            fields.add(an, av);
            fieldBytes += an.length() + av.length();
        }
        ResponseHead head = new ResponseHead(HttpVersion.HTTP_2, code, Status.reason(code), fields);
        // HAProxy's start line of an HTTP/2 response: "HTTP/2.0", the status, no reason
        head.htxSize(HtxSize.HEAD + 8 + 3 + fieldBytes);
        if (contentLength != null) {
            long cl = parseLength(contentLength);
            if (cl < 0) {
                return null;
            }
            fields.add(HeaderNames.CONTENT_LENGTH, contentLength);
            head.bodyLength(cl);
        } else {
            head.bodyStreamed();
        }
        return head;
    }

    /**
     * Response head to an HTTP/2 header block, without the connection-specific fields an HTTP/1 server's response
     * carries ({@link #addFields}).
     */
    public static Http2Headers encodeResponse(ResponseHead r) {
        HttpFields f = r.fields();
        DefaultHttp2Headers h = new DefaultHttp2Headers(false, f.size() + 1);
        h.status(statusText(r.status()));
        addFields(h, f, false);
        return h;
    }

    /**
     * Adds the fields that HTTP/2 and HTTP/3 can carry, as HAProxy's mux_h2 and h3 write them: without Connection,
     * Proxy-Connection, Keep-Alive, Upgrade and Transfer-Encoding (the fields Connection lists do go), TE as "trailers"
     * or not at all ({@link HopByHop#teValue}); without Host when {@code skipHost} (:authority has it). HAProxy reduces
     * TE in requests only and relays a response's TE as it came, which an HTTP/2 client resets the stream for
     * (nghttp2: "Invalid HTTP header field"); Sluice reduces it in both.
     */
    public static void addFields(Headers<CharSequence, CharSequence, ?> h, HttpFields f, boolean skipHost) {
        for (int i = 0; i < f.size(); i++) {
            AsciiString n = f.name(i);
            AsciiString v = f.value(i);
            if (HopByHop.connectionSpecific(n) || skipHost && n.contentEquals(HeaderNames.HOST)) {
                continue;
            }
            if (HopByHop.isTe(n)) {
                v = HopByHop.teValue(v);
                if (v == null) {
                    continue;
                }
            }
            h.add(n, v);
        }
    }

    /**
     * Request head to an HTTP/2 header block for a server, as HAProxy 2.6's h2s_bck_make_req_headers: a request in
     * absolute form (an HTTP/1 one written so, or an HTTP/2 client's, which HAProxy's h2 mux makes absolute of its
     * :scheme and :authority) gives its scheme and authority, and Host is left out; one in origin form (an HTTP/1 or HTTP/3 client's) goes with :scheme https, whatever the connections' own
     * schemes ("https is the default (sent by browsers)"), no :authority, and its Host as a field.
     */
    public static Http2Headers encodeRequest(RequestHead r) {
        HttpFields f = r.fields();
        DefaultHttp2Headers h = new DefaultHttp2Headers(false, f.size() + 4);
        h.method(r.method());
        boolean connect = r.isConnect();
        AsciiString host = f.get(HeaderNames.HOST);
        if (connect) {
            h.authority(r.target());
        } else {
            AsciiString t = r.target();
            if (t.byteAt(0) != '/' && t.byteAt(0) != '*') {
                // absolute-form from an HTTP/1 client: split into scheme, authority and path
                int schemeEnd = t.indexOf("://", 0);
                int pathStart = t.indexOf('/', schemeEnd + 3);
                h.scheme(t.subSequence(0, schemeEnd, false));
                h.authority(t.subSequence(schemeEnd + 3, pathStart < 0 ? t.length() : pathStart, false));
                h.path(pathStart < 0 ? AsciiString.cached("/") : t.subSequence(pathStart, t.length(), false));
            } else if (r.absoluteScheme() != null && host != null) {
                // an HTTP/2 client's request, which HAProxy holds in absolute form: its scheme, its authority (the Host field,
                // which HAProxy keeps in step with the URI's authority), no Host
                h.scheme(r.absoluteScheme());
                h.authority(host);
                h.path(t);
            } else {
                h.scheme(HTTPS);
                h.path(t);
                addFields(h, f, false);
                return h;
            }
        }
        addFields(h, f, true);
        return h;
    }

    /** Trailer fields to a header block ({@link #addTrailers}), and back. */
    public static Http2Headers encodeTrailers(HttpFields f) {
        DefaultHttp2Headers h = new DefaultHttp2Headers(false, f.size());
        addTrailers(h, f);
        return h;
    }

    /**
     * Adds trailer fields as HAProxy's h2s_make_trailers does: without the connection-specific ones, TE, Host and
     * Content-Length ({@link HopByHop#notATrailer}).
     */
    public static void addTrailers(Headers<CharSequence, CharSequence, ?> h, HttpFields f) {
        for (int i = 0; i < f.size(); i++) {
            if (!HopByHop.notATrailer(f.name(i))) {
                h.add(f.name(i), f.value(i));
            }
        }
    }

    public static HttpFields trailers(Http2Headers h) {
        HttpFields f = new HttpFields(Math.max(2, h.size()));
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iterator(); it.hasNext();) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            if (e.getKey().length() > 0 && e.getKey().charAt(0) == ':') {
                continue;
            }
            f.add(AsciiString.of(e.getKey()), AsciiString.of(e.getValue()));
        }
        return f;
    }

    private static final AsciiString[] STATUS_TEXT = new AsciiString[1000];

    static {
        for (int i = 100; i < 1000; i++) {
            STATUS_TEXT[i] = AsciiString.cached(Integer.toString(i));
        }
    }

    static AsciiString statusText(int status) {
        return status >= 100 && status < 1000 ? STATUS_TEXT[status] : AsciiString.of(Integer.toString(status));
    }

    static long parseLength(AsciiString v) {
        if (v.isEmpty() || v.length() > 18) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            byte c = v.byteAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    private static boolean hasNulCrLf(AsciiString v) {
        for (int i = 0; i < v.length(); i++) {
            byte c = v.byteAt(i);
            if (c == 0 || c == '\r' || c == '\n') {
                return true;
            }
        }
        return false;
    }

    private static boolean isToken(AsciiString s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!HttpTokens.isTokenChar((char) (s.byteAt(i) & 0xff))) {
                return false;
            }
        }
        return true;
    }

    private static boolean validScheme(AsciiString s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = (char) (s.byteAt(i) & 0xff);
            boolean alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A response to HEAD, a 204 or a 304 has no body whatever the server sends after its head (its DATA is
     * dropped), as HAProxy relays it; a 204 also loses its content-length (a 304 keeps it: it describes the
     * resource). The HTTP/1 parser applies the same rule to HTTP/1 responses.
     */
    static void noBodyFor(RequestHead req, ResponseHead resp) {
        int status = resp.status();
        if (req != null && req.isHead() || status == 204 || status == 304) {
            resp.bodyNone();
            if (status == 204) {
                resp.fields().removeAll(HeaderNames.CONTENT_LENGTH);
            }
        }
    }

    /** Whether the response to this request may carry a body at all. */
    static boolean responseMayHaveBody(RequestHead req, MessageHead resp) {
        return !req.isHead() && resp.hasBody();
    }
}
