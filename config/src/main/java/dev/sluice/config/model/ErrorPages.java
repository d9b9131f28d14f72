package dev.sluice.config.model;

import java.util.List;
import java.util.Map;

/**
 * The error pages of a proxy ({@code errorfile}, {@code errorfiles}): for a status, the raw HTTP response
 * read from the file at parse time. An empty page means "close the connection without a reply". {@code replies}: the
 * {@code http-error} replies built when the error happens, by status (the arguments of an http-request return); a
 * status is in one map at most.
 */
public record ErrorPages(Map<Integer, byte[]> pages, Map<Integer, List<String>> replies) {
    public static final ErrorPages NONE = new ErrorPages(Map.of());

    /** Pages only, without {@code http-error} replies. */
    public ErrorPages(Map<Integer, byte[]> pages) {
        this(pages, Map.of());
    }

    /**
     * In the arguments of a {@code deny}, {@code tarpit} or {@code return} rule: the next argument is a whole raw
     * error page (the ISO-8859-1 text of its bytes), read from its {@code errorfile} or {@code errorfiles} when the
     * configuration was parsed.
     */
    public static final String RULE_PAGE = "errorpage-raw";

    public ErrorPages {
        pages = Map.copyOf(pages);
        replies = Map.copyOf(replies);
    }

    public byte[] page(int status) {
        return pages.get(status);
    }
}
