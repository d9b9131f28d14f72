package dev.sluice.proxy.http;

import io.netty.util.AsciiString;

/**
 * A request head: method, request target (origin-form, absolute-form, authority-form or {@code *}) and
 * fields. Rules may rewrite it before it is encoded towards a server.
 */
public final class RequestHead extends MessageHead {
    public static final AsciiString GET = AsciiString.cached("GET");
    public static final AsciiString HEAD = AsciiString.cached("HEAD");
    public static final AsciiString CONNECT = AsciiString.cached("CONNECT");
    public static final AsciiString OPTIONS = AsciiString.cached("OPTIONS");
    public static final AsciiString DELETE = AsciiString.cached("DELETE");
    public static final AsciiString POST = AsciiString.cached("POST");
    public static final AsciiString PUT = AsciiString.cached("PUT");
    public static final AsciiString PATCH = AsciiString.cached("PATCH");

    private AsciiString method;
    private AsciiString target;
    /** The method and target as received: HAProxy's log shows the request line before the rules rewrote it. */
    private final AsciiString receivedMethod;
    private final AsciiString receivedTarget;
    /** An HTTP/2 request's :scheme and :authority (both present), of which HAProxy's h2 mux makes an absolute URI; else null. */
    private CharSequence scheme;
    private AsciiString authority;

    public RequestHead(AsciiString method, AsciiString target, HttpVersion version, HttpFields fields) {
        super(version, fields);
        this.method = canonical(method);
        this.target = target;
        this.receivedMethod = this.method;
        this.receivedTarget = target;
    }

    /** The method as received (see {@link #receivedTarget}). */
    public AsciiString receivedMethod() {
        return receivedMethod;
    }

    /** The target as received, before any rule rewrote it. */
    public AsciiString receivedTarget() {
        return receivedTarget;
    }

    /** An HTTP/2 request's :scheme when it came with an :authority too (HAProxy's absolute form), else null. */
    public CharSequence absoluteScheme() {
        return scheme;
    }

    /** Sets the :scheme and :authority of an HTTP/2 request that has both. */
    public void absoluteForm(CharSequence scheme, AsciiString authority) {
        this.scheme = scheme;
        this.authority = authority;
    }

    /**
     * The URI HAProxy logs ({@code %HU}, {@code %r}): the target as received, or, for an HTTP/2 request with a
     * :scheme and an :authority, the absolute URI its h2 mux makes of them (h2_prepare_htx_reqline: the path of
     * {@code OPTIONS *} left out). Made when the log line is.
     */
    public String loggedUri() {
        if (scheme == null) {
            return receivedTarget.toString();
        }
        boolean star = receivedTarget.length() == 1 && receivedTarget.byteAt(0) == '*';
        StringBuilder sb = new StringBuilder(scheme.length() + 3 + authority.length() + receivedTarget.length());
        sb.append(scheme).append("://").append(authority);
        return (star ? sb : sb.append(receivedTarget)).toString();
    }

    public AsciiString method() {
        return method;
    }

    public void method(AsciiString m) {
        this.method = canonical(m);
    }

    /**
     * The shared constant for a common method, so that the checks made several times per request
     * ({@link #isHead}, CONNECT) compare references; other methods as given.
     */
    static AsciiString canonical(AsciiString m) {
        AsciiString c = switch (m.length()) {
            case 3 -> m.contentEquals(GET) ? GET : m.contentEquals(PUT) ? PUT : null;
            case 4 -> m.contentEquals(HEAD) ? HEAD : m.contentEquals(POST) ? POST : null;
            case 5 -> m.contentEquals(PATCH) ? PATCH : null;
            case 6 -> m.contentEquals(DELETE) ? DELETE : null;
            case 7 -> m.contentEquals(CONNECT) ? CONNECT : m.contentEquals(OPTIONS) ? OPTIONS : null;
            default -> null;
        };
        return c != null ? c : m;
    }

    public boolean isConnect() {
        return method == CONNECT;
    }

    public AsciiString target() {
        return target;
    }

    public void target(AsciiString t) {
        this.target = t;
    }

    public boolean isHead() {
        return method == HEAD;
    }

    @Override
    public String toString() {
        return method + " " + target + " " + version().text();
    }
}
