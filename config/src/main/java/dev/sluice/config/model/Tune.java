package dev.sluice.config.model;

/**
 * Buffer tuning from {@code global}: {@code tune.bufsize} (a message head must fit in it minus
 * {@code tune.maxrewrite}, room kept for rules that add fields) and {@code tune.http.maxhdr} (fields per
 * head). HAProxy's defaults: 16384, 1024, 101.
 */
public record Tune(int bufsize, int maxrewrite, int maxhdr) {
    public static final Tune DEFAULT = new Tune(16384, 1024, 101);

    /** The largest head the HTTP/1 parser accepts. */
    public int maxHeadBytes() {
        return bufsize - maxrewrite;
    }
}
