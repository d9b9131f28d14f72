package dev.sluice.proxy.log;

import dev.sluice.config.model.Captures;
import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;
import java.util.List;
import java.util.Locale;

/**
 * What one exchange keeps for its log line: the frontend's capture slots ({@code %hr}, {@code %hs},
 * {@code capture.req.hdr(n)}), the captured cookies ({@code %CC}, {@code %CS}), the unique id and the
 * log level set by rules. Made by the stream only when its frontend captures something or a rule asks;
 * used on the stream's event loop.
 */
public final class LogCaptures {
    private static final AsciiString COOKIE = AsciiString.cached("cookie");
    private static final AsciiString SET_COOKIE = AsciiString.cached("set-cookie");

    private final Captures config;
    private final AsciiString[] requestNames;
    private final AsciiString[] responseNames;
    private final String[] request;
    private final String[] response;
    private String requestCookie;
    private String responseCookie;
    /** Syslog level for this exchange, -1 when the frontend's is used, {@link #SILENT} for none. */
    private int level = -1;
    private String uniqueId;

    public static final int SILENT = Integer.MAX_VALUE;

    /** Lower-case field names of the header slots (null for the slots rules fill), made once per frontend. */
    public static AsciiString[] names(List<Captures.Slot> slots) {
        AsciiString[] out = new AsciiString[slots.size()];
        for (int i = 0; i < out.length; i++) {
            String h = slots.get(i).header();
            out[i] = h == null ? null : AsciiString.cached(h.toLowerCase(Locale.ROOT));
        }
        return out;
    }

    public LogCaptures(Captures config, AsciiString[] requestNames, AsciiString[] responseNames) {
        this.config = config;
        this.requestNames = requestNames;
        this.responseNames = responseNames;
        this.request = config.request().isEmpty() ? null : new String[config.request().size()];
        this.response = config.response().isEmpty() ? null : new String[config.response().size()];
    }

    /** Fills the header slots of one direction and the cookie from a message head that just arrived. */
    public void capture(boolean isResponse, HttpFields fields) {
        List<Captures.Slot> slots = isResponse ? config.response() : config.request();
        AsciiString[] names = isResponse ? responseNames : requestNames;
        String[] values = isResponse ? response : request;
        for (int s = 0; s < slots.size(); s++) {
            AsciiString name = names[s];
            if (name == null) {
                continue;
            }
            // the last occurrence wins, as in HAProxy
            for (int i = fields.indexOf(name, 0); i >= 0; i = fields.indexOf(name, i + 1)) {
                values[s] = truncate(fields.value(i).toString(), slots.get(s).len());
            }
        }
        Captures.Cookie c = config.cookie();
        if (c != null) {
            if (isResponse) {
                if (responseCookie == null) {
                    responseCookie = cookie(fields, SET_COOKIE, c, true);
                }
            } else if (requestCookie == null) {
                requestCookie = cookie(fields, COOKIE, c, false);
            }
        }
    }

    /** The first cookie whose name starts with the configured prefix, as {@code name=value}, truncated. */
    private static String cookie(HttpFields fields, AsciiString header, Captures.Cookie c, boolean setCookie) {
        for (int i = fields.indexOf(header, 0); i >= 0; i = fields.indexOf(header, i + 1)) {
            String v = fields.value(i).toString();
            // a Set-Cookie carries one cookie and its attributes; a Cookie field several, separated by ';'
            String[] parts = setCookie ? new String[] {v} : v.split(";");
            for (String p : parts) {
                String cookie = p.strip();
                if (cookie.startsWith(c.name())) {
                    if (setCookie) {
                        int semi = cookie.indexOf(';');
                        cookie = semi < 0 ? cookie : cookie.substring(0, semi);
                    }
                    return truncate(cookie, c.len());
                }
            }
        }
        return null;
    }

    /** {@code http-request|response capture <sample> id <slot>}: a slot out of range is ignored. */
    public void set(boolean isResponse, int slot, CharSequence value) {
        String[] values = isResponse ? response : request;
        List<Captures.Slot> slots = isResponse ? config.response() : config.request();
        if (values != null && slot >= 0 && slot < values.length) {
            values[slot] = value == null ? null : truncate(value.toString(), slots.get(slot).len());
        }
    }

    /** A slot's value, or null when it holds nothing or does not exist. */
    public String get(boolean isResponse, int slot) {
        String[] values = isResponse ? response : request;
        return values == null || slot < 0 || slot >= values.length ? null : values[slot];
    }

    /** All slots of a direction (null entries for empty ones); null when the frontend has none. */
    public String[] slots(boolean isResponse) {
        return isResponse ? response : request;
    }

    public String requestCookie() {
        return requestCookie;
    }

    public String responseCookie() {
        return responseCookie;
    }

    public int level() {
        return level;
    }

    public void level(int level) {
        this.level = level;
    }

    public String uniqueId() {
        return uniqueId;
    }

    public void uniqueId(String id) {
        this.uniqueId = id;
    }

    private static String truncate(String v, int len) {
        return v.length() <= len ? v : v.substring(0, len);
    }
}
