package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.Cookies;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;

/**
 * The Connection fields of a message as HAProxy 2.6's HTTP/1 parser leaves them (h1_parse_connection_header with
 * H1_MF_CLEAN_CONN_HDR): their close and keep-alive tokens are taken out ({@link #cleaned}), a field left empty goes,
 * and every other field stays in the model, Keep-Alive, Proxy-Connection, Upgrade, TE and the fields Connection lists
 * included (the writers drop or reduce them for their protocol: {@link H1Encoder}, {@code HopByHop}). {@link #read}
 * keeps what the tokens meant (close, keep-alive, upgrade with the Upgrade field's protocol) until the next message's
 * {@link #reset}. One per {@link H1Parser}.
 */
final class ConnectionFields {
    /** The tokens of a Connection value ({@link #tokens}). */
    static final int CLOSE_TOKEN = 1;
    static final int KEEP_ALIVE_TOKEN = 2;
    static final int UPGRADE_TOKEN = 4;

    private static final AsciiString WEBSOCKET = AsciiString.cached("websocket");
    private static final AsciiString SEC_WEBSOCKET_KEY = AsciiString.cached("sec-websocket-key");
    private static final AsciiString SEC_WEBSOCKET_ACCEPT = AsciiString.cached("sec-websocket-accept");

    private boolean closeWanted;
    private boolean keepAliveWanted;
    private boolean upgradeWanted;
    private AsciiString upgradeProtocol;

    /** {@code Connection: close}. */
    boolean closeWanted() {
        return closeWanted;
    }

    /** {@code Connection: keep-alive}. */
    boolean keepAliveWanted() {
        return keepAliveWanted;
    }

    /** {@code Connection: upgrade} with an {@code Upgrade} field: the protocol asked for, else null. */
    AsciiString upgradeProtocol() {
        return upgradeWanted ? upgradeProtocol : null;
    }

    /**
     * HAProxy 2.6's websocket rule (h1_search_websocket_key): a message with {@code Connection: upgrade} and a
     * {@code websocket} token in {@code Upgrade} needs a {@code Sec-WebSocket-Key} of 24 characters (a base64 of 16
     * bytes) in a request, a {@code Sec-WebSocket-Accept} in a response; true when it has none (a request is
     * refused, 400; a response is invalid, 502). Call after {@link #read}.
     */
    boolean webSocketKeyMissing(HttpFields f, boolean response) {
        if (!upgradeWanted || upgradeProtocol == null) {
            return false;
        }
        boolean websocket = false;
        for (long e = HttpFields.nextElement(upgradeProtocol, 0); e >= 0 && !websocket; e = HttpFields.nextElement(upgradeProtocol, (int) e)) {
            websocket = WEBSOCKET.contentEqualsIgnoreCase(upgradeProtocol.subSequence((int) (e >>> 32), (int) e, false));
        }
        if (!websocket) {
            return false;
        }
        for (int i = 0; i < f.size(); i++) {
            if (response ? f.name(i).contentEquals(SEC_WEBSOCKET_ACCEPT)
                    : f.name(i).contentEquals(SEC_WEBSOCKET_KEY) && f.value(i).length() == 24) {
                return false;
            }
        }
        return true;
    }

    /** Forgets the previous message's fields. */
    void reset() {
        closeWanted = false;
        keepAliveWanted = false;
        upgradeWanted = false;
        upgradeProtocol = null;
    }

    /**
     * Cleans the Connection fields ({@link #cleaned}; one left empty is removed) and reads their tokens and the first
     * Upgrade field (remembered); nothing else is touched. Returns what this changes in the head's HTX size, which
     * measured the fields as they came.
     */
    int read(HttpFields f) {
        int htx = 0;
        int i = f.indexOf(HeaderNames.CONNECTION);
        while (i >= 0) {
            AsciiString v = f.value(i);
            int t = tokens(v);
            closeWanted |= (t & CLOSE_TOKEN) != 0;
            keepAliveWanted |= (t & KEEP_ALIVE_TOKEN) != 0;
            upgradeWanted |= (t & UPGRADE_TOKEN) != 0;
            AsciiString kept = cleaned(v);
            if (kept.isEmpty()) {
                htx -= HeaderNames.CONNECTION.length() + v.length();
                f.remove(i);
                i = f.indexOf(HeaderNames.CONNECTION, i);
            } else {
                htx += kept.length() - v.length();
                f.setValue(i, kept);
                i = f.indexOf(HeaderNames.CONNECTION, i + 1);
            }
        }
        int u = f.indexOf(HeaderNames.UPGRADE);
        if (u >= 0) {
            upgradeProtocol = f.value(u);
        }
        return htx;
    }

    /**
     * A request with a body and {@code Connection: upgrade} upgrades nothing: HAProxy (h1_postparse_req_hdrs) drops
     * its Upgrade fields and forgets the upgrade, so the websocket key is not looked for either. Returns what this
     * changes in the head's HTX size. Call after {@link #read}, once the framing is known.
     */
    int bodyCancelsUpgrade(HttpFields f) {
        if (!upgradeWanted) {
            return 0;
        }
        upgradeWanted = false;
        upgradeProtocol = null;
        int htx = 0;
        int u;
        while ((u = f.indexOf(HeaderNames.UPGRADE)) >= 0) {
            htx -= HeaderNames.UPGRADE.length() + f.value(u).length();
            f.remove(u);
        }
        return htx;
    }

    /** The close, keep-alive and upgrade tokens (case-insensitive) of a Connection value, or-ed. */
    static int tokens(AsciiString v) {
        int t = 0;
        int e = v.length();
        for (int w = 0; w < e; w++) {
            if (isLws(v.byteAt(w))) {
                continue;
            }
            int n = valueEnd(v, w, e);
            int we = n;
            while (we > w && isLws(v.byteAt(we - 1))) {
                we--;
            }
            t |= token(v, w, we);
            w = n;
        }
        return t;
    }

    /**
     * HAProxy's cleaning of a Connection value (h1_parse_connection_header): the "close" and "keep-alive" tokens
     * (case-insensitive) go. Until one does, the value stays as it came, up to the end of the last token kept (its
     * spaces before the next comma included); after one, each kept token is appended trimmed, after a comma when the
     * value is not empty: "X-Foo , TE, keep-alive ,X-Bar" becomes "X-Foo , TE,X-Bar", "keep-alive, X-Foo, TE" becomes
     * "X-Foo,TE". Commas inside a quoted string do not separate. Returns {@code v} itself when nothing changes, an empty
     * string when nothing is left (the field is then dropped).
     */
    static AsciiString cleaned(AsciiString v) {
        int e = v.length();
        // the part of v kept as it came; once a token was dropped, what is appended after it (made on the first one)
        int prefix = 0;
        boolean rewriting = false;
        StringBuilder appended = null;
        for (int w = 0; w < e; w++) {
            if (isLws(v.byteAt(w))) {
                continue;
            }
            int n = valueEnd(v, w, e);
            int we = n;
            while (we > w && isLws(v.byteAt(we - 1))) {
                we--;
            }
            if ((token(v, w, we) & (CLOSE_TOKEN | KEEP_ALIVE_TOKEN)) != 0) {
                rewriting = true;
            } else if (!rewriting) {
                prefix = n;
            } else {
                if (appended == null) {
                    appended = new StringBuilder(e);
                    appended.append(v.subSequence(0, prefix, false));
                }
                if (!appended.isEmpty()) {
                    appended.append(',');
                }
                appended.append(v.subSequence(w, we, false));
            }
            w = n;
        }
        if (appended != null) {
            return new AsciiString(appended);
        }
        // nothing appended: the kept prefix, the value itself when whole ("keep-alive" alone allocates nothing)
        return prefix == e ? v : prefix == 0 ? AsciiString.EMPTY_STRING : v.subSequence(0, prefix, false);
    }

    private static boolean isLws(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    /** http_find_hdr_value_end: the next comma outside a quoted string (with its backslash pairs), else {@code e}. */
    private static int valueEnd(AsciiString v, int s, int e) {
        return Cookies.elementEnd(v, s, e);
    }

    private static int token(AsciiString v, int s, int e) {
        int len = e - s;
        if (len == 5 && regionIgnoreCase(v, s, "close")) {
            return CLOSE_TOKEN;
        }
        if (len == 10 && regionIgnoreCase(v, s, "keep-alive")) {
            return KEEP_ALIVE_TOKEN;
        }
        if (len == 7 && regionIgnoreCase(v, s, "upgrade")) {
            return UPGRADE_TOKEN;
        }
        return 0;
    }

    private static boolean regionIgnoreCase(AsciiString v, int s, String lower) {
        for (int i = 0; i < lower.length(); i++) {
            int c = v.byteAt(s + i);
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
