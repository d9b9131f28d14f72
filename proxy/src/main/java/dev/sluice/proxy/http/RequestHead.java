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

    private AsciiString method;
    private AsciiString target;

    public RequestHead(AsciiString method, AsciiString target, HttpVersion version, HttpFields fields) {
        super(version, fields);
        this.method = method;
        this.target = target;
    }

    public AsciiString method() {
        return method;
    }

    public void method(AsciiString m) {
        this.method = m;
    }

    public AsciiString target() {
        return target;
    }

    public void target(AsciiString t) {
        this.target = t;
    }

    public boolean isHead() {
        return method.contentEquals(HEAD);
    }

    @Override
    public String toString() {
        return method + " " + target + " " + version().text();
    }
}
