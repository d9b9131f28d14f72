package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.Status;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.config.model.ErrorPages;
import java.util.HashMap;
import java.util.Map;

/**
 * A proxy's {@code errorfile} pages, parsed once. {@link #head} gives a fresh head to send (null when the
 * proxy has no page for the status, so the built-in one applies); {@link #closes} says the page is
 * empty, meaning "close without reply". Immutable after construction.
 */
public final class ErrorResponses {
    public static final ErrorResponses NONE = new ErrorResponses(ErrorPages.NONE);

    private final Map<Integer, ErrorPageParser.Page> pages = new HashMap<>();
    private final Map<Integer, Boolean> empty = new HashMap<>();

    public ErrorResponses(ErrorPages config) {
        for (Map.Entry<Integer, byte[]> e : config.pages().entrySet()) {
            if (e.getValue().length == 0) {
                empty.put(e.getKey(), true);
            } else {
                pages.put(e.getKey(), ErrorPageParser.parse(e.getValue()));
            }
        }
    }

    public boolean closes(int status) {
        return empty.containsKey(status);
    }

    /** A copy of the page's head for {@code status}, or null. */
    public ResponseHead head(int status) {
        ErrorPageParser.Page p = pages.get(status);
        if (p == null) {
            return null;
        }
        ResponseHead t = p.head();
        HttpFields f = new HttpFields(t.fields().size() + 2);
        for (int i = 0; i < t.fields().size(); i++) {
            f.add(t.fields().name(i), t.fields().value(i));
        }
        ResponseHead h = new ResponseHead(HttpVersion.HTTP_1_1, t.status(), t.reason().isEmpty() ? Status.reason(t.status()) : t.reason(), f);
        h.bodyLength(p.body().length);
        return h;
    }

    public byte[] body(int status) {
        ErrorPageParser.Page p = pages.get(status);
        return p == null ? null : p.body();
    }

}
