package dev.sluice.proxy.http;

import io.netty.util.AsciiString;

/** Lower-case header names the engine looks up; constants so lookups allocate nothing. */
public final class HeaderNames {
    private HeaderNames() {
    }

    public static final AsciiString HOST = AsciiString.cached("host");
    public static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    public static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
    public static final AsciiString TRANSFER_ENCODING = AsciiString.cached("transfer-encoding");
    public static final AsciiString CONNECTION = AsciiString.cached("connection");
    public static final AsciiString KEEP_ALIVE = AsciiString.cached("keep-alive");
    public static final AsciiString PROXY_CONNECTION = AsciiString.cached("proxy-connection");
    public static final AsciiString UPGRADE = AsciiString.cached("upgrade");
    public static final AsciiString TE = AsciiString.cached("te");
    public static final AsciiString TRAILER = AsciiString.cached("trailer");
    public static final AsciiString CACHE_CONTROL = AsciiString.cached("cache-control");
    public static final AsciiString EXPECT = AsciiString.cached("expect");
    public static final AsciiString ALT_SVC = AsciiString.cached("alt-svc");
    public static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
}
