package dev.sluice.proxy.backend;

import dev.sluice.config.model.Cookie;
import dev.sluice.proxy.http.Cookies;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A backend's persistence cookie at run time ({@code cookie}): reads the request's {@code Cookie} fields to find the
 * server they designate and rewrites them as the mode asks (HAProxy's http_manage_client_side_cookies), then deals
 * with the server's {@code Set-Cookie} fields and inserts the proxy's own (http_manage_server_side_cookies and the
 * insertion in http_process_res_common), byte for byte as HAProxy 2.6 does. Immutable, shared by every stream of the
 * backend; what one request learns lives in its {@link Txn}.
 */
public final class PersistenceCookie {
    static final AsciiString PRAGMA = AsciiString.cached("pragma");
    static final AsciiString EXPIRES = AsciiString.cached("expires");
    static final AsciiString ETAG = AsciiString.cached("etag");
    static final AsciiString LAST_MODIFIED = AsciiString.cached("last-modified");
    private static final AsciiString PRIVATE = AsciiString.cached("private");
    private static final String B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    private final Cookie config;
    private final byte[] name;
    private final boolean insert;
    private final boolean rewrite;
    private final boolean prefix;

    public PersistenceCookie(Cookie config) {
        this.config = config;
        this.name = config.name().getBytes(StandardCharsets.ISO_8859_1);
        this.insert = config.mode() == Cookie.Mode.INSERT;
        this.rewrite = config.mode() == Cookie.Mode.REWRITE;
        this.prefix = config.mode() == Cookie.Mode.PREFIX;
    }

    public Cookie config() {
        return config;
    }

    /**
     * What one request learned of the cookie: the log's two flags ({@code %tsc}: what the client sent, N I D V E O U,
     * and what became of the server's cookie, N P D I R U), the dates the cookie carried (seconds, 0: none), and the
     * server it designates. On the stream's loop.
     */
    public static final class Txn {
        char client = 'N';
        char server = 'N';
        long lastDate;
        long firstDate;
        /** The request's cookies were looked at (once, as HAProxy). */
        public boolean requestDone;
        public Server designated;

        /** The log's third and fourth {@code %tsc} characters. */
        public char clientFlag() {
            return client;
        }

        public char serverFlag() {
            return server;
        }
    }

    // ------------------------------------------------------------------ request

    /**
     * Reads and rewrites the request's {@code Cookie} fields: returns the first running server (in declaration order)
     * whose cookie the request carries, or null. {@code now} is the epoch second; {@code downToo}: a server that is down
     * may be designated ({@code option persist}, {@code force-persist}); {@code ignore}: the cookie designates nothing
     * ({@code ignore-persist}; the client's flag is then U), but it is rewritten as the mode says.
     */
    public Server request(HttpFields f, Txn t, List<Server> servers, long now, boolean downToo, boolean ignore) {
        t.requestDone = true;
        // as HAProxy: a cookie ignored is handled as one that comes after the server was chosen
        boolean assigned = ignore;
        Server chosen = null;
        Cookies.Cursor k = new Cookies.Cursor();
        for (int i = 0; i < f.size(); i++) {
            if (!f.name(i).contentEquals(Cookies.COOKIE)) {
                continue;
            }
            byte[] b = f.value(i).toByteArray();
            int orig = b.length;
            int hdrBeg = 0;
            int hdrEnd = b.length;
            int delFrom = -1;
            boolean preserveHdr = false;
            boolean first = true;
            for (int prev = hdrBeg; prev < hdrEnd; prev = k.next) {
                k.read(b, prev, hdrEnd, first, true);
                first = false;
                if (k.isAttribute(b, hdrEnd)) {
                    // an RFC 2109 attribute: goes with its cookie
                    continue;
                }
                if (!k.hasEqual()) {
                    // no '=': not ours, kept, but a cookie marked for removal before it goes now
                    preserveHdr = true;
                    if (delFrom >= 0) {
                        int[] r = deleteValue(b, hdrBeg, hdrEnd, delFrom, prev);
                        k.next += r[0];
                        hdrEnd += r[0];
                        delFrom = -1;
                    }
                    continue;
                }
                // spaces around the '=' go
                hdrEnd = k.strip(b, hdrEnd);
                if (k.named(b, name)) {
                    int valBeg = k.valBeg;
                    int valEnd = k.valEnd;
                    int delim;
                    if (prefix) {
                        delim = valBeg;
                        while (delim < valEnd && b[delim] != '~') {
                            delim++;
                        }
                    } else {
                        delim = valEnd;
                        int bar = indexOf(b, valBeg, valEnd, (byte) '|');
                        if (bar >= 0) {
                            // NAME=SRV|<last seen>[|<first seen>], dates in 4-second units, 5 base64 characters each
                            delim = bar++;
                            if (valEnd - bar >= 5) {
                                int v = b64tos30(b, bar);
                                if (v > 0) {
                                    t.lastDate = (v & 0xFFFFFFFFL) << 2 & 0xFFFFFFFFL;
                                }
                            }
                            bar = indexOf(b, bar, valEnd, (byte) '|');
                            if (bar >= 0 && valEnd - bar > 5) {
                                int v = b64tos30(b, bar + 1);
                                if (v > 0) {
                                    t.firstDate = (v & 0xFFFFFFFFL) << 2 & 0xFFFFFFFFL;
                                }
                            }
                        }
                    }
                    // HAProxy compares as 32-bit signed differences; a date more than a day ahead is ignored too
                    if (t.firstDate != 0 && config.maxLife() != 0
                            && ((int) (now - t.firstDate) > config.maxLife() || (int) (t.firstDate - now) > 86400)) {
                        t.client = 'O';
                        delim = valBeg;
                        t.firstDate = 0;
                        t.lastDate = 0;
                    } else if (t.lastDate != 0 && config.maxIdle() != 0
                            && ((int) (now - t.lastDate) > config.maxIdle() || (int) (t.lastDate - now) > 86400)) {
                        t.client = 'E';
                        delim = valBeg;
                        t.firstDate = 0;
                        t.lastDate = 0;
                    }
                    Server srv = null;
                    if (delim != valBeg && !assigned) {
                        int len = delim - valBeg;
                        for (Server s : servers) {
                            String ck = s.cookie();
                            if (ck != null && ck.length() == len && regionEquals(b, valBeg, ck)) {
                                if (s.running() || downToo) {
                                    t.client = s.running() ? 'V' : 'D';
                                    assigned = true;
                                    chosen = s;
                                    srv = s;
                                    break;
                                }
                                // that server is down: another one may share the value
                                t.client = 'D';
                            }
                        }
                    }
                    if (srv == null && t.client == 'N') {
                        t.client = assigned ? 'U' : 'I';
                    }
                    if (prefix && delim != valEnd) {
                        // the server's part goes, the application's cookie stays
                        System.arraycopy(b, delim + 1, b, valBeg, hdrEnd - (delim + 1));
                        int delta = valBeg - (delim + 1);
                        k.next += delta;
                        hdrEnd += delta;
                        delFrom = -1;
                        preserveHdr = true;
                    } else if (delFrom < 0 && insert && config.indirect()) {
                        delFrom = prev;
                    }
                } else {
                    preserveHdr = true;
                    if (delFrom >= 0) {
                        int[] r = deleteValue(b, hdrBeg, hdrEnd, delFrom, prev);
                        k.next += r[0];
                        hdrEnd += r[0];
                        delFrom = -1;
                    }
                }
            }
            if (delFrom >= 0) {
                hdrEnd = preserveHdr ? delFrom : hdrBeg;
            }
            if (hdrEnd - hdrBeg != orig) {
                if (hdrEnd != hdrBeg) {
                    f.setValue(i, new AsciiString(b, 0, hdrEnd, false));
                } else {
                    f.remove(i);
                    i--;
                }
            }
        }
        t.designated = chosen;
        return chosen;
    }

    // ------------------------------------------------------------------ response

    /**
     * The response's {@code Set-Cookie} fields (removed, rewritten or left as the mode says), then the proxy's own
     * cookie and, with {@code nocache}, {@code Cache-control: private} when the response is cacheable.
     * {@code srv} served the request, {@code direct}: it was sent there by persistence (not the balancing);
     * {@code ignore}: an {@code ignore-persist} rule applied, nothing is done.
     */
    public void response(ResponseHead head, Txn t, Server srv, boolean direct, RequestHead request, long now, boolean ignore) {
        if (ignore) {
            // ignore-persist: neither the server's cookie nor the proxy's own is dealt with
            return;
        }
        HttpFields f = head.fields();
        serverCookies(f, t, srv, direct, Cookies.SET_COOKIE, false);
        serverCookies(f, t, srv, direct, Cookies.SET_COOKIE2, true);
        boolean post = request.method().contentEquals(RequestHead.POST);
        boolean cacheable = config.nocache() && cacheable(head, post);
        String srvCookie = srv == null ? null : srv.cookie();
        if (srv != null && insert && !(t.server == 'P' && config.preserve())
                && (!direct
                        || (config.maxIdle() != 0 || t.lastDate != 0) && (t.lastDate == 0 || t.lastDate - now < 0)
                        || config.maxLife() != 0 && t.firstDate == 0
                        || config.maxLife() == 0 && t.firstDate != 0)
                && (!config.postonly() || post)) {
            StringBuilder sb = new StringBuilder(64).append(config.name()).append('=');
            if (srvCookie == null) {
                // a server without a cookie (a backup, say) makes the client forget the one it has
                sb.append("; Expires=Thu, 01-Jan-1970 00:00:01 GMT; path=/");
            } else {
                sb.append(srvCookie);
                if (config.maxIdle() != 0 || config.maxLife() != 0) {
                    sb.append('|');
                    s30tob64((int) ((now + 3) >> 2), sb);
                    if (config.maxLife() != 0) {
                        sb.append('|');
                        s30tob64((int) (t.firstDate != 0 ? t.firstDate >> 2 : (now + 3) >> 2), sb);
                    }
                }
                sb.append("; path=/");
            }
            if (config.domain() != null) {
                sb.append("; domain=").append(config.domain());
            }
            if (config.httponly()) {
                sb.append("; HttpOnly");
            }
            if (config.secure()) {
                sb.append("; Secure");
            }
            if (config.attrs() != null) {
                sb.append("; ").append(config.attrs());
            }
            f.add(Cookies.SET_COOKIE, new AsciiString(sb));
            t.server = srvCookie != null && direct ? 'U' : 'I';
            if (cacheable) {
                // HTTP/1.0 caches store cookies too: keep this response out of them
                f.add(HeaderNames.CACHE_CONTROL, PRIVATE);
            }
        }
    }

    private void serverCookies(HttpFields f, Txn t, Server srv, boolean direct, AsciiString field, boolean cookie2) {
        String srvCookie = srv == null ? null : srv.cookie();
        Cookies.Cursor k = new Cookies.Cursor();
        for (int i = 0; i < f.size(); i++) {
            if (!f.name(i).contentEquals(field)) {
                continue;
            }
            byte[] b = f.value(i).toByteArray();
            int hdrBeg = 0;
            int hdrEnd = b.length;
            boolean changed = false;
            boolean removed = false;
            boolean first = true;
            for (int prev = hdrBeg; prev < hdrEnd; prev = k.next) {
                k.read(b, prev, hdrEnd, first, cookie2);
                first = false;
                if (k.next < hdrEnd) {
                    // Set-Cookie carries one cookie (its Expires may hold a comma), Set-Cookie2 a comma-separated list
                    k.next = cookie2 ? Cookies.elementEnd(b, k.next, hdrEnd) : hdrEnd;
                }
                if (!k.hasEqual()) {
                    continue;
                }
                int end = k.strip(b, hdrEnd);
                changed |= end != hdrEnd;
                hdrEnd = end;
                if (!k.named(b, name)) {
                    continue;
                }
                t.server = 'P';
                if (config.preserve()) {
                    continue;
                }
                if (srv != null && insert || direct && config.indirect()) {
                    // inserted again later, or the client already has a valid one
                    if (prev == hdrBeg && k.next == hdrEnd) {
                        f.remove(i);
                        i--;
                        removed = true;
                        t.server = 'D';
                        break;
                    }
                    int[] r = deleteValue(b, hdrBeg, hdrEnd, prev, k.next);
                    k.next = r[1];
                    hdrEnd += r[0];
                    changed = true;
                    t.server = 'D';
                } else if (srvCookie != null && (rewrite || prefix)) {
                    byte[] v = (rewrite ? srvCookie : srvCookie + "~").getBytes(StandardCharsets.ISO_8859_1);
                    int valBeg = k.valBeg;
                    int cut = rewrite ? k.valEnd : valBeg;
                    byte[] n = new byte[hdrEnd - (cut - valBeg) + v.length];
                    System.arraycopy(b, 0, n, 0, valBeg);
                    System.arraycopy(v, 0, n, valBeg, v.length);
                    System.arraycopy(b, cut, n, valBeg + v.length, hdrEnd - cut);
                    int delta = v.length - (cut - valBeg);
                    k.next += delta;
                    hdrEnd += delta;
                    b = n;
                    changed = true;
                    t.server = 'R';
                }
            }
            if (!removed && changed) {
                f.setValue(i, new AsciiString(b, 0, hdrEnd, false));
            }
        }
    }

    /**
     * Whether a cookie inserted with {@code nocache} needs {@code Cache-control: private}: HAProxy 2.6 deems a response
     * cacheable by its status (the RFC 7231 cacheable ones) for a method other than POST, then reads Pragma and
     * Cache-Control (public makes it cacheable, private, no-cache, no-store, max-age=0 and s-maxage=0 do not) and keeps
     * it cacheable only with freshness (max-age, s-maxage, Expires) or a validator (ETag, Last-Modified).
     */
    static boolean cacheable(ResponseHead head, boolean post) {
        int st = head.status();
        boolean cacheable = !post && switch (st) {
            case 200, 203, 204, 206, 300, 301, 404, 405, 410, 414, 501 -> true;
            default -> false;
        };
        if (st < 200) {
            return false;
        }
        HttpFields f = head.fields();
        AsciiString pragma = f.get(PRAGMA);
        if (pragma != null && pragma.trim().contentEqualsIgnoreCase("no-cache")) {
            return false;
        }
        boolean fresh = false;
        for (int i = f.indexOf(HeaderNames.CACHE_CONTROL, 0); i >= 0; i = f.indexOf(HeaderNames.CACHE_CONTROL, i + 1)) {
            AsciiString v = f.value(i);
            int from = 0;
            while (from <= v.length()) {
                int comma = v.indexOf(',', from);
                int end = comma < 0 ? v.length() : comma;
                String el = v.subSequence(from, end).toString().strip().toLowerCase(Locale.ROOT);
                from = end + 1;
                if (el.isEmpty()) {
                    if (comma < 0) {
                        break;
                    }
                    continue;
                }
                switch (el) {
                    case "public" -> cacheable = true;
                    case "private", "no-cache", "no-store", "max-age=0", "s-maxage=0" -> cacheable = false;
                    default -> {
                        if (!el.startsWith("no-cache=\"set-cookie") && (el.startsWith("s-maxage") || el.startsWith("max-age"))) {
                            fresh = true;
                        }
                    }
                }
                if (comma < 0) {
                    break;
                }
            }
        }
        if (!fresh) {
            fresh = f.contains(EXPIRES);
        }
        if (!fresh && !f.contains(ETAG) && !f.contains(LAST_MODIFIED)) {
            cacheable = false;
        }
        return cacheable;
    }

    // ------------------------------------------------------------------ helpers

    private static boolean regionEquals(byte[] b, int at, String what) {
        for (int k = 0; k < what.length(); k++) {
            if ((b[at + k] & 0xFF) != what.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] b, int from, int to, byte c) {
        for (int k = from; k < to; k++) {
            if (b[k] == c) {
                return k;
            }
        }
        return -1;
    }

    /**
     * Removes the cookie from {@code from} up to {@code next} (its delimiter) in {@code b[start..end)}, with its
     * delimiter and spaces as HAProxy's http_del_hdr_value does; returns the length change and where the removal began.
     */
    static int[] deleteValue(byte[] b, int start, int end, int from, int next) {
        int prev = from;
        if (prev == start) {
            // the first value: its delimiter goes with it
            if (next < end) {
                next++;
            }
            while (next < end && Cookies.spht(b[next])) {
                next++;
            }
        } else {
            // the spaces before the delimiter go too, never past the start (a value may begin with spaces)
            while (prev > start && Cookies.spht(b[prev - 1])) {
                prev--;
            }
            from = prev;
            if (next < end) {
                // keep a delimiter, and a space when there was room for it
                b[prev++] = b[next++];
                if (prev + 1 < next) {
                    b[prev++] = ' ';
                }
                while (next < end && Cookies.spht(b[next])) {
                    next++;
                }
            }
        }
        System.arraycopy(b, next, b, prev, end - next);
        return new int[] {prev - next, from};
    }

    /** HAProxy's b64tos30: five characters of its base64 alphabet ('=' counts 64), most significant first; -1 when invalid. */
    static int b64tos30(byte[] b, int at) {
        int out = 0;
        for (int k = 0; k < 5; k++) {
            int c = b[at + k] & 0xFF;
            int v;
            if (c >= 'A' && c <= 'Z') {
                v = c - 'A';
            } else if (c >= 'a' && c <= 'z') {
                v = c - 'a' + 26;
            } else if (c >= '0' && c <= '9') {
                v = c - '0' + 52;
            } else if (c == '+') {
                v = 62;
            } else if (c == '/') {
                v = 63;
            } else if (c == '=') {
                v = 64;
            } else {
                return -1;
            }
            out = (out << 6) + v;
        }
        return out;
    }

    /** HAProxy's s30tob64: the low 30 bits of {@code in} as five base64 characters, most significant first. */
    static void s30tob64(int in, StringBuilder out) {
        for (int k = 0; k < 5; k++) {
            out.append(B64.charAt(in >> 24 & 0x3F));
            in <<= 6;
        }
    }
}
