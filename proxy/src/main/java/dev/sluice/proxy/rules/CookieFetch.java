package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.Cookies;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Predicate;

/**
 * The cookie fetches, as HAProxy 2.6's smp_fetch_cookie, smp_fetch_cookie_cnt and smp_fetch_cookie_val read them with
 * {@link Cookies}: {@code req.cook(name)} (and {@code cook}) in the request's {@code Cookie} fields, {@code res.cook}
 * (and {@code scook}) in the response's {@code Set-Cookie} fields, {@code cookie} in the message of the current
 * phase. Every field is read element by element (its comma-separated values); a request's element is a list of
 * cookies, a response's element names one cookie in its first part.
 * <p>
 * The sample is the value of the last cookie with that name, of the first cookie of all without a name; an ACL tries
 * every one. {@code _cnt} counts them, {@code _val} is the integer HAProxy's strl2ic reads from the value (0 when it
 * holds no digit). Values are views of the fields, nothing else is allocated: {@link #get}, {@link #any} and
 * {@link #count} repeat one walk on purpose (a cursor object shared by the three is not reliably scalar-replaced, a
 * visitor would allocate its lambda and its result holder on every request).
 */
final class CookieFetch implements Fetch {
    /** Which message: the request, the response, or (null) the one of the current phase ({@code cookie}). */
    private final Boolean response;
    /** The name wanted, ISO-8859-1; empty for any cookie. */
    private final byte[] name;
    /** {@code _val}: the sample is the value's integer. */
    private final boolean integer;

    private CookieFetch(Boolean response, List<String> args, boolean integer) {
        this.response = response;
        this.name = args.isEmpty() ? new byte[0] : args.get(0).getBytes(StandardCharsets.ISO_8859_1);
        this.integer = integer;
    }

    /** Declares the cookie fetches (the request's, the response's, then the phase's). */
    static void register() {
        for (String n : new String[] {"cook", "req.cook"}) {
            Fetches.def(n, 0, 1, Match.STR, false, a -> new CookieFetch(false, a, false));
        }
        for (String n : new String[] {"cook_cnt", "req.cook_cnt"}) {
            Fetches.def(n, 0, 1, Match.INT, false, a -> new CookieFetch(false, a, false).counter());
        }
        for (String n : new String[] {"cook_val", "req.cook_val"}) {
            Fetches.def(n, 0, 1, Match.INT, false, a -> new CookieFetch(false, a, true));
        }
        for (String n : new String[] {"res.cook", "scook"}) {
            Fetches.def(n, 0, 1, Match.STR, true, a -> new CookieFetch(true, a, false));
        }
        for (String n : new String[] {"res.cook_cnt", "scook_cnt"}) {
            Fetches.def(n, 0, 1, Match.INT, true, a -> new CookieFetch(true, a, false).counter());
        }
        for (String n : new String[] {"res.cook_val", "scook_val"}) {
            Fetches.def(n, 0, 1, Match.INT, true, a -> new CookieFetch(true, a, true));
        }
        Fetches.def("cookie", 0, 1, Match.STR, false, a -> new CookieFetch(null, a, false));
    }

    /** Whether the fetch reads the response's Set-Cookie fields in {@code t}. */
    private boolean inResponse(Txn t) {
        return response != null ? response : t.response() != null;
    }

    @Override
    public Object get(Txn t) {
        boolean res = inResponse(t);
        MessageHead h = res ? t.response() : t.request();
        if (h == null) {
            return null;
        }
        HttpFields f = h.fields();
        AsciiString field = res ? Cookies.SET_COOKIE : Cookies.COOKIE;
        AsciiString in = null;
        long at = -1;
        for (int i = 0; i < f.size(); i++) {
            if (!f.name(i).contentEquals(field)) {
                continue;
            }
            AsciiString v = f.value(i);
            byte[] b = v.array();
            int end = v.arrayOffset() + v.length();
            for (int p = v.arrayOffset(); p <= end;) {
                long el = Cookies.element(b, p, end);
                int s = Cookies.from(el);
                int e = Cookies.to(el);
                p = Cookies.nextElement(b, e, end);
                if (e - s < name.length + 1) {
                    continue;
                }
                for (long r = Cookies.find(b, s, e, name, !res); r >= 0; r = after(b, r, e, res)) {
                    in = v;
                    at = r;
                    if (name.length == 0) {
                        // without a name, the first cookie
                        return sample(in, at);
                    }
                }
            }
        }
        return in == null ? null : sample(in, at);
    }

    @Override
    public boolean any(Txn t, Predicate<Object> p) {
        boolean res = inResponse(t);
        MessageHead h = res ? t.response() : t.request();
        if (h == null) {
            return false;
        }
        HttpFields f = h.fields();
        AsciiString field = res ? Cookies.SET_COOKIE : Cookies.COOKIE;
        for (int i = 0; i < f.size(); i++) {
            if (!f.name(i).contentEquals(field)) {
                continue;
            }
            AsciiString v = f.value(i);
            byte[] b = v.array();
            int end = v.arrayOffset() + v.length();
            for (int q = v.arrayOffset(); q <= end;) {
                long el = Cookies.element(b, q, end);
                int s = Cookies.from(el);
                int e = Cookies.to(el);
                q = Cookies.nextElement(b, e, end);
                if (e - s < name.length + 1) {
                    continue;
                }
                for (long r = Cookies.find(b, s, e, name, !res); r >= 0; r = after(b, r, e, res)) {
                    if (p.test(sample(v, r))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** How many cookies have the name (all of them without one): {@code _cnt}. */
    long count(Txn t) {
        boolean res = inResponse(t);
        MessageHead h = res ? t.response() : t.request();
        if (h == null) {
            return 0;
        }
        HttpFields f = h.fields();
        AsciiString field = res ? Cookies.SET_COOKIE : Cookies.COOKIE;
        long n = 0;
        for (int i = 0; i < f.size(); i++) {
            if (!f.name(i).contentEquals(field)) {
                continue;
            }
            AsciiString v = f.value(i);
            byte[] b = v.array();
            int end = v.arrayOffset() + v.length();
            for (int q = v.arrayOffset(); q <= end;) {
                long el = Cookies.element(b, q, end);
                int s = Cookies.from(el);
                int e = Cookies.to(el);
                q = Cookies.nextElement(b, e, end);
                if (e - s < name.length + 1) {
                    continue;
                }
                for (long r = Cookies.find(b, s, e, name, !res); r >= 0; r = after(b, r, e, res)) {
                    n++;
                }
            }
        }
        return n;
    }

    /** The cookie after the one found at {@code r} in the element ending at {@code e}, or -1. */
    private long after(byte[] b, long r, int e, boolean res) {
        return Cookies.find(b, Cookies.afterValue(b, Cookies.to(r), e), e, name, !res);
    }

    /** The {@code _cnt} fetch of this one: a count, 0 when the message has no cookie (or is not there yet). */
    private Fetch counter() {
        return t -> count(t);
    }

    /** The sample of the value at {@code at} (array positions, see {@link Cookies#pack}) in {@code v}. */
    private Object sample(AsciiString v, long at) {
        int off = v.arrayOffset();
        int from = Cookies.from(at) - off;
        int to = Cookies.to(at) - off;
        CharSequence value = from == 0 && to == v.length() ? v : v.subSequence(from, to, false);
        return integer ? (Object) strl2ic(value) : value;
    }

    /**
     * HAProxy's strl2ic, quirks included: an optional '-', then digits accumulated in a 32-bit int until a byte above
     * '9'; a byte below '0' is not a stop but adds its (negative) difference to '0' ({@code "1.5"} is 85).
     */
    static long strl2ic(CharSequence s) {
        int i = 0;
        int len = s.length();
        if (len > 0) {
            boolean negative = s.charAt(0) == '-';
            for (int k = negative ? 1 : 0; k < len; k++) {
                int j = (byte) s.charAt(k) - '0';
                if (j > 9) {
                    break;
                }
                i = negative ? i * 10 - j : i * 10 + j;
            }
        }
        return i;
    }
}
