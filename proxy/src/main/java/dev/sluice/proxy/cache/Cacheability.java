package dev.sluice.proxy.cache;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;

/**
 * HAProxy 2.6's cacheability rules (http_ana.c's {@code http_check_request_for_cacheability} and
 * {@code http_check_response_for_cacheability}, cache.c's {@code http_calc_maxage}, with 2.6's later fixes: a request's
 * {@code no-cache} does not keep its response out of the cache; dates are the wall clock's) as flags on a transaction:
 * {@link #CACHEABLE} and {@link #COOK} (a response may be stored), {@link #IGNORE} (the request may not be served from
 * the cache). Stateless.
 */
public final class Cacheability {
    private Cacheability() {
    }

    /** The response may be stored. */
    public static final int CACHEABLE = 1;
    /** ... as far as its cookies are concerned ({@code no-cache="set-cookie"} clears it). */
    public static final int COOK = 2;
    /** The request may not be answered from the cache. */
    public static final int IGNORE = 4;

    static final AsciiString PRAGMA = AsciiString.cached("pragma");
    static final AsciiString AUTHORIZATION = AsciiString.cached("authorization");
    static final AsciiString CACHE_CONTROL = AsciiString.cached("cache-control");
    static final AsciiString EXPIRES = AsciiString.cached("expires");
    static final AsciiString ETAG = AsciiString.cached("etag");
    static final AsciiString LAST_MODIFIED = AsciiString.cached("last-modified");
    static final AsciiString DATE = AsciiString.cached("date");
    static final AsciiString AGE = AsciiString.cached("age");

    /** Whether a method is safe (RFC 7231 4.2.1): a successful other one invalidates what is stored for its URL. */
    public static boolean safe(AsciiString method) {
        return method.contentEquals("GET") || method.contentEquals("HEAD") || method.contentEquals("OPTIONS") || method.contentEquals("TRACE");
    }

    /** The flags of a request once {@code cache-use} looked at it. */
    public static int request(RequestHead r) {
        int flags = safe(r.method()) ? CACHEABLE | COOK : 0;
        AsciiString m = r.method();
        if (r.version() == HttpVersion.HTTP_1_0 || !m.contentEquals("GET") && !m.contentEquals("HEAD")) {
            flags |= IGNORE;
        }
        HttpFields f = r.fields();
        String pragma = Fields.first(f, PRAGMA);
        boolean pragmaNoCache = pragma != null && pragma.equalsIgnoreCase("no-cache");
        if (f.contains(AUTHORIZATION)) {
            flags = flags & ~(CACHEABLE | COOK) | IGNORE;
        }
        boolean cc = false;
        for (String v : Fields.elements(f, CACHE_CONTROL)) {
            cc = true;
            if (Fields.startsWithIgnoreCase(v, "max-age") || Fields.startsWithIgnoreCase(v, "no-cache")
                    || Fields.startsWithIgnoreCase(v, "max-stale") || Fields.startsWithIgnoreCase(v, "min-fresh")) {
                flags |= IGNORE;
            } else if (Fields.startsWithIgnoreCase(v, "no-store")) {
                flags &= ~(CACHEABLE | COOK);
            }
        }
        if (!cc && pragmaNoCache) {
            flags |= IGNORE;
        }
        return flags;
    }

    /** The request's flags once the response's fields are read ({@code cache-store}). */
    public static int response(int flags, int status, HttpFields f) {
        if (status < 200) {
            return flags & ~(CACHEABLE | COOK);
        }
        String pragma = Fields.first(f, PRAGMA);
        if (pragma != null && pragma.equalsIgnoreCase("no-cache")) {
            return flags & ~(CACHEABLE | COOK);
        }
        boolean fresh = false;
        for (String v : Fields.elements(f, CACHE_CONTROL)) {
            if (v.equalsIgnoreCase("public")) {
                flags |= CACHEABLE | COOK;
            } else if (v.equalsIgnoreCase("private") || v.equalsIgnoreCase("no-cache") || v.equalsIgnoreCase("no-store")
                    || v.equalsIgnoreCase("max-age=0") || v.equalsIgnoreCase("s-maxage=0")) {
                flags &= ~(CACHEABLE | COOK);
            } else if (Fields.startsWithIgnoreCase(v, "no-cache=\"set-cookie")) {
                flags &= ~COOK;
            } else if (Fields.startsWithIgnoreCase(v, "s-maxage") || Fields.startsWithIgnoreCase(v, "max-age")) {
                fresh = true;
            }
        }
        if (!fresh) {
            fresh = f.contains(EXPIRES);
        }
        boolean validator = !fresh && (f.contains(ETAG) || f.contains(LAST_MODIFIED));
        if (!fresh && !validator) {
            // neither an explicit expiration time nor a validator (RFC 7234 3)
            flags &= ~CACHEABLE;
        }
        return flags;
    }

    /**
     * How long a response may be kept: {@code s-maxage}, else {@code max-age}, else Expires minus now, each bounded by the
     * cache's {@code max-age}, which applies alone without them; {@code explicit[0]} gets the response's own figure (0
     * without one). -1 when a max-age directive has no valid number.
     */
    static long maxAge(HttpFields f, int cacheMaxAge, long now, long[] explicit) {
        long smaxage = -1;
        long maxage = -1;
        for (String v : Fields.elements(f, CACHE_CONTROL)) {
            for (String word : new String[] {"s-maxage", "max-age"}) {
                if (v.length() > word.length() && v.regionMatches(true, 0, word, 0, word.length()) && v.charAt(word.length()) == '=') {
                    long n = strtol(v.substring(word.length() + 1));
                    if (n < 0) {
                        return -1;
                    }
                    if (word.equals("s-maxage")) {
                        smaxage = n;
                    } else {
                        maxage = n;
                    }
                }
            }
        }
        long expires = -1;
        if (maxage == -1 && smaxage == -1) {
            String e = Fields.first(f, EXPIRES);
            if (e != null) {
                Long d = Fields.date(e);
                // an invalid date is a date in the past (RFC 7234 5.3)
                expires = d == null ? 0 : Math.max(0, d - now);
            }
        }
        long own = smaxage > 0 ? smaxage : maxage > 0 ? maxage : expires >= 0 ? expires : -1;
        explicit[0] = Math.max(0, own);
        return own >= 0 && (smaxage > 0 || maxage > 0 || expires >= 0) ? Math.min(own, cacheMaxAge) : cacheMaxAge;
    }

    /** strtol of a directive's value, a leading quote skipped: -1 when no digit starts it or it is negative. */
    private static long strtol(String s) {
        int i = s.startsWith("\"") ? 1 : 0;
        int j = i;
        boolean neg = j < s.length() && s.charAt(j) == '-';
        if (neg || j < s.length() && s.charAt(j) == '+') {
            j++;
        }
        int d = j;
        while (d < s.length() && d - j < 18 && Character.isDigit(s.charAt(d))) {
            d++;
        }
        if (d == j || neg) {
            return -1;
        }
        return Long.parseLong(s.substring(j, d));
    }
}
