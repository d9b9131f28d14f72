package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.Authority;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;

/**
 * A request's Host fields and target, with HAProxy's rules: several Host fields must agree (duplicates are merged),
 * an authority holds no forbidden character ({@link Authority}), and the target's form fits the method: origin-form,
 * absolute-form (whose authority must match Host), authority-form with a port for CONNECT only, {@code *} for
 * OPTIONS only. Each check returns why the request is refused (400), or null.
 */
final class RequestTarget {
    private RequestTarget() {
    }

    /** Several Host fields must agree (duplicates merged); forbidden characters are rejected. */
    static H1Error checkHost(RequestHead head) {
        HttpFields f = head.fields();
        int i = f.indexOf(HeaderNames.HOST);
        if (i < 0) {
            return null;
        }
        AsciiString host = f.value(i);
        int j = f.indexOf(HeaderNames.HOST, i + 1);
        while (j >= 0) {
            if (!f.value(j).contentEqualsIgnoreCase(host)) {
                return refused("several different Host fields", 0);
            }
            f.remove(j);
            j = f.indexOf(HeaderNames.HOST, j);
        }
        if (!Authority.valid(host)) {
            return refused("forbidden character in Host", 0);
        }
        return null;
    }

    /** Request-target form rules: origin, absolute (authority must match Host), authority, asterisk. */
    static H1Error checkTarget(RequestHead head) {
        AsciiString t = head.target();
        boolean connect = head.isConnect();
        if (connect) {
            int colon = t.lastIndexOf(":");
            if (t.byteAt(0) == '/' || colon < 0 || colon == t.length() - 1 || !Authority.valid(t) || !digits(t, colon + 1)) {
                return refused("CONNECT needs an authority with a port", 0);
            }
            return null;
        }
        byte c0 = t.byteAt(0);
        if (c0 == '/') {
            return null;
        }
        if (c0 == '*' && t.length() == 1) {
            if (!head.method().contentEquals(RequestHead.OPTIONS)) {
                return refused("'*' target on a method other than OPTIONS", 0);
            }
            return null;
        }
        int schemeEnd = t.indexOf("://", 0);
        if (schemeEnd <= 0) {
            return refused("authority-form target on a method other than CONNECT", 0);
        }
        for (int k = 0; k < schemeEnd; k++) {
            byte ch = t.byteAt(k);
            boolean ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (k > 0 && ((ch >= '0' && ch <= '9') || ch == '+' || ch == '-'
                    || ch == '.'));
            if (!ok) {
                return refused("invalid scheme in absolute-form target", k);
            }
        }
        int as = schemeEnd + 3;
        int ae = as;
        while (ae < t.length() && t.byteAt(ae) != '/' && t.byteAt(ae) != '?') {
            ae++;
        }
        AsciiString authority = t.subSequence(as, ae, false);
        if (authority.isEmpty() || !Authority.valid(authority)) {
            return refused("invalid authority in absolute-form target", as);
        }
        AsciiString host = head.fields().get(HeaderNames.HOST);
        if (host != null && !sameAuthority(t.subSequence(0, schemeEnd, false), authority, host)) {
            return refused("absolute-form authority differs from Host", as);
        }
        return null;
    }

    private static H1Error refused(String reason, int offset) {
        return new H1Error(400, reason, offset);
    }

    /** Whether {@code s} holds only digits from {@code from} to its end (an IPv6 literal's ']' is not one). */
    private static boolean digits(AsciiString s, int from) {
        for (int k = from; k < s.length(); k++) {
            byte c = s.byteAt(k);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** Compares two authorities, ignoring case and the scheme's default port. */
    private static boolean sameAuthority(AsciiString scheme, AsciiString a, AsciiString b) {
        return stripDefaultPort(scheme, a).contentEqualsIgnoreCase(stripDefaultPort(scheme, b));
    }

    private static AsciiString stripDefaultPort(AsciiString scheme, AsciiString a) {
        int colon = a.lastIndexOf(":");
        if (colon < 0 || a.indexOf(']', colon) >= 0) {
            return a;
        }
        AsciiString port = a.subSequence(colon + 1, a.length(), false);
        if (port.isEmpty() || (port.contentEquals("80") && scheme.contentEqualsIgnoreCase("http"))
                || (port.contentEquals("443") && scheme.contentEqualsIgnoreCase("https"))) {
            return a.subSequence(0, colon, false);
        }
        return a;
    }
}
