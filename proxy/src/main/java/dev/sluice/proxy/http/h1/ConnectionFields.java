package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HtxSize;
import io.netty.util.AsciiString;

/**
 * The hop-by-hop fields of a message: Connection (its close, keep-alive and upgrade tokens, and the fields it
 * lists), Keep-Alive, Proxy-Connection, Upgrade, and a TE other than "trailers". {@link #read} removes them from
 * the model and keeps what they meant until the next message's {@link #reset}. One per {@link H1Parser}.
 */
final class ConnectionFields {
    private static final AsciiString CLOSE = AsciiString.cached("close");
    private static final AsciiString KEEP_ALIVE_TOKEN = AsciiString.cached("keep-alive");
    private static final AsciiString UPGRADE_TOKEN = AsciiString.cached("upgrade");
    private static final AsciiString TRAILERS = AsciiString.cached("trailers");
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
     * Reads and removes the hop-by-hop fields: Connection (and what it lists), Keep-Alive, Proxy-Connection, Upgrade
     * (remembered), TE unless it announces "trailers" (then kept as "trailers"). Returns what HAProxy's cleaning of the
     * Connection fields changes in the head's HTX size ({@link HtxSize#cleanedConnection}); the other fields stay in
     * HAProxy's HTX as they came.
     */
    int read(HttpFields f) {
        int i;
        int htx = 0;
        while ((i = f.indexOf(HeaderNames.CONNECTION)) >= 0) {
            // removed before its tokens are read: removing what it lists shifts the fields before it
            AsciiString v = f.value(i);
            int kept = HtxSize.cleanedConnection(v);
            htx += (kept > 0 ? kept : -HeaderNames.CONNECTION.length()) - v.length();
            f.remove(i);
            forEachToken(v, (s, e) -> {
                if (CLOSE.contentEqualsIgnoreCase(v.subSequence(s, e, false))) {
                    closeWanted = true;
                } else if (KEEP_ALIVE_TOKEN.contentEqualsIgnoreCase(v.subSequence(s, e, false))) {
                    keepAliveWanted = true;
                } else if (UPGRADE_TOKEN.contentEqualsIgnoreCase(v.subSequence(s, e, false))) {
                    upgradeWanted = true;
                } else {
                    AsciiString listed = v.subSequence(s, e, true).toLowerCase();
                    if (!isEssential(listed)) {
                        f.removeAll(listed);
                    }
                }
            });
        }
        f.removeAll(HeaderNames.KEEP_ALIVE);
        f.removeAll(HeaderNames.PROXY_CONNECTION);
        int u = f.indexOf(HeaderNames.UPGRADE);
        if (u >= 0) {
            upgradeProtocol = f.value(u);
            f.removeAll(HeaderNames.UPGRADE);
        }
        int te = f.indexOf(HeaderNames.TE);
        while (te >= 0) {
            if (announcesTrailers(f.value(te))) {
                f.setValue(te, TRAILERS);
                te = f.indexOf(HeaderNames.TE, te + 1);
            } else {
                f.remove(te);
                te = f.indexOf(HeaderNames.TE, te);
            }
        }
        return htx;
    }

    /**
     * HAProxy's rule for a TE field, each field on its own: the first occurrence of "trailers" (case-sensitive,
     * anywhere in the value) ends the value or is followed by a comma; the field is then kept as "trailers"
     * alone, else dropped. So "deflate, trailers" and "trailers, deflate" become "trailers", while "Trailers",
     * "trailers;q=0.5" and "trailers ,x" are dropped.
     */
    static boolean announcesTrailers(AsciiString v) {
        int i = v.indexOf(TRAILERS, 0);
        if (i < 0) {
            return false;
        }
        int after = i + TRAILERS.length();
        return after == v.length() || v.byteAt(after) == ',';
    }

    private static boolean isEssential(AsciiString name) {
        return name.contentEquals(HeaderNames.HOST) || name.contentEquals(HeaderNames.CONTENT_LENGTH)
                || name.contentEquals(HeaderNames.TRANSFER_ENCODING) || name.contentEquals(HeaderNames.UPGRADE)
                || name.contentEquals(HeaderNames.CONNECTION);
    }

    @FunctionalInterface
    private interface TokenVisitor {
        void token(int start, int end);
    }

    /** Calls {@code v} for each non-empty comma-separated element of {@code s}, trimmed ({@link HttpFields#nextElement}). */
    private static void forEachToken(AsciiString s, TokenVisitor v) {
        for (long e = HttpFields.nextElement(s, 0); e >= 0; e = HttpFields.nextElement(s, (int) e)) {
            v.token((int) (e >>> 32), (int) e);
        }
    }
}
