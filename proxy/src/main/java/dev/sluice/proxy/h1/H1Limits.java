package dev.sluice.proxy.h1;

/**
 * Size limits of the HTTP/1 parser, HAProxy's defaults: a head must fit in {@code tune.bufsize} minus
 * {@code tune.maxrewrite} (16384 - 1024) and carry at most {@code tune.http.maxhdr} (101) fields.
 */
public record H1Limits(int maxHeadBytes, int maxFields) {
    public static final H1Limits DEFAULT = new H1Limits(16384 - 1024, 101);
}
