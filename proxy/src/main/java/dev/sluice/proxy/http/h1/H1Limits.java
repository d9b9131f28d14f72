package dev.sluice.proxy.http.h1;

/**
 * Limits and strictness of the HTTP/1 parser. Sizes are HAProxy's defaults: a head must fit in
 * {@code tune.bufsize} minus {@code tune.maxrewrite} (16384 - 1024) and carry at most
 * {@code tune.http.maxhdr} (101) fields. {@code acceptInvalid} is
 * {@code option accept-unsafe-violations-in-http-request}: field names may hold any visible character
 * but ':', and the request target 8-bit characters and '#' (control characters, space and DEL stay
 * forbidden, as in HAProxy).
 */
public record H1Limits(int maxHeadBytes, int maxFields, boolean acceptInvalid) {
    public static final H1Limits DEFAULT = new H1Limits(16384 - 1024, 101, false);

    public H1Limits(int maxHeadBytes, int maxFields) {
        this(maxHeadBytes, maxFields, false);
    }

    public H1Limits withAcceptInvalid(boolean accept) {
        return new H1Limits(maxHeadBytes, maxFields, accept);
    }
}
