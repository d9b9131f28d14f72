package dev.sluice.proxy.log;

import dev.sluice.config.model.Captures;
import dev.sluice.proxy.http.Cookies;
import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * What one exchange keeps for its log line: the frontend's capture slots ({@code %hr}, {@code %hs},
 * {@code capture.req.hdr(n)}), the captured cookies ({@code %CC}, {@code %CS}), the unique id and the
 * log level set by rules. Made by the stream only when its frontend captures something or a rule asks;
 * used on the stream's event loop.
 */
public final class LogCaptures {
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

    /** Fills the header slots of one direction from a message head that just arrived. */
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
    }

    /**
     * {@code capture cookie}, where HAProxy reads the client's cookies (once the request rules are done, or when one
     * denies) and the server's (after the response rules): the first cookie of the {@code Cookie} fields, or of the
     * {@code Set-Cookie} then {@code Set-Cookie2} fields, whose {@code name=value} starts with the configured name,
     * truncated. As HAProxy, the walk also removes the spaces around the {@code =} of every cookie it reads from the
     * fields, which then go on so. Called once per direction; nothing without {@code capture cookie}.
     */
    public void cookie(boolean isResponse, HttpFields fields) {
        Captures.Cookie c = config.cookie();
        if (c == null) {
            return;
        }
        byte[] name = c.name().getBytes(StandardCharsets.ISO_8859_1);
        Cookies.Cursor k = new Cookies.Cursor();
        String found = null;
        for (AsciiString field : isResponse ? new AsciiString[] {Cookies.SET_COOKIE, Cookies.SET_COOKIE2} : new AsciiString[] {Cookies.COOKIE}) {
            boolean list = field != Cookies.SET_COOKIE;
            for (int i = fields.indexOf(field, 0); i >= 0; i = fields.indexOf(field, i + 1)) {
                byte[] b = fields.value(i).toByteArray();
                int end = b.length;
                boolean first = true;
                for (int prev = 0; prev < end; prev = k.next) {
                    k.read(b, prev, end, first, list);
                    first = false;
                    if (isResponse && k.next < end) {
                        // the attributes of a Set-Cookie are not cookies; Set-Cookie2 goes on after the next comma
                        k.next = list ? Cookies.elementEnd(b, k.next, end) : end;
                    }
                    if (!isResponse && k.isAttribute(b, end) || !k.hasEqual()) {
                        continue;
                    }
                    end = k.strip(b, end);
                    if (found == null && k.valEnd - k.attBeg >= name.length && startsWith(b, k.attBeg, name)) {
                        found = new String(b, k.attBeg, Math.min(k.valEnd - k.attBeg, c.len()), StandardCharsets.ISO_8859_1);
                    }
                }
                if (end != b.length) {
                    fields.setValue(i, new AsciiString(b, 0, end, false));
                }
            }
        }
        if (isResponse) {
            responseCookie = found;
        } else {
            requestCookie = found;
        }
    }

    private static boolean startsWith(byte[] b, int at, byte[] prefix) {
        for (int k = 0; k < prefix.length; k++) {
            if (b[at + k] != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    /** {@code http-request|response capture <sample> id <slot>}: a slot out of range is ignored. */
    public boolean set(boolean isResponse, int slot, CharSequence value) {
        String[] values = isResponse ? response : request;
        List<Captures.Slot> slots = isResponse ? config.response() : config.request();
        if (values == null || slot < 0 || slot >= values.length) {
            return false;
        }
        values[slot] = value == null ? null : truncate(value.toString(), slots.get(slot).len());
        return true;
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
