package dev.sluice.proxy.metrics;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What one scrape asks for, from the query string of its URI as HAProxy 2.6's exporter reads it: {@code scope=<name>}
 * (repeatable, read in order: {@code global}, {@code frontend}, {@code listener}, {@code backend}, {@code server},
 * {@code sticktable}, or a value starting with {@code *} for all of them; an empty value clears those read so far;
 * without any {@code scope} everything is exported) and {@code no-maint} (servers in maintenance are left out).
 * Names and values are URL-decoded ({@code +} is a space); other parameters are ignored; the string ends at a
 * {@code #}. A {@code scope} without a value, an unknown scope, a value holding {@code =} or a bad {@code %}
 * escape make the whole query invalid (HAProxy answers 400). Immutable.
 */
public record ScrapeQuery(Set<Scope> scopes, boolean noMaint) {
    /** Everything: a scrape URI without a query string. */
    public static final ScrapeQuery ALL = new ScrapeQuery(EnumSet.allOf(Scope.class), false);

    public ScrapeQuery {
        scopes = Collections.unmodifiableSet(scopes.isEmpty() ? EnumSet.noneOf(Scope.class) : EnumSet.copyOf(scopes));
    }

    public boolean wants(Scope s) {
        return scopes.contains(s);
    }

    /**
     * The query of a request target ({@code /metrics?scope=server&no-maint}); throws {@link IllegalArgumentException}
     * when it is one HAProxy rejects.
     */
    public static ScrapeQuery parse(CharSequence target) {
        String t = target.toString();
        int q = t.indexOf('?');
        if (q < 0) {
            return ALL;
        }
        String s = t.substring(q + 1);
        EnumSet<Scope> scopes = EnumSet.noneOf(Scope.class);
        boolean scoped = false;
        boolean noMaint = false;
        int p = 0;
        int end = s.length();
        while (p < end && s.charAt(p) != '#') {
            int k = p;
            while (p < end && "=&#".indexOf(s.charAt(p)) < 0) {
                p++;
            }
            String key = urlDecode(s.substring(k, p));
            String value = null;
            if (p < end && s.charAt(p) == '=') {
                int v = ++p;
                while (p < end && "=&#".indexOf(s.charAt(p)) < 0) {
                    p++;
                }
                if (p < end && s.charAt(p) == '=') {
                    throw new IllegalArgumentException("'=' in the value of " + key);
                }
                value = urlDecode(s.substring(v, p));
            }
            if (p < end && s.charAt(p) == '&') {
                p++;
            }
            if (key.equals("scope")) {
                scoped = true;
                if (value == null) {
                    throw new IllegalArgumentException("scope without a value");
                } else if (value.isEmpty()) {
                    scopes.clear();
                } else if (value.charAt(0) == '*') {
                    scopes.addAll(EnumSet.allOf(Scope.class));
                } else {
                    scopes.add(scope(value));
                }
            } else if (key.equals("no-maint")) {
                noMaint = true;
            }
        }
        return new ScrapeQuery(scoped ? scopes : EnumSet.allOf(Scope.class), noMaint);
    }

    private static Scope scope(String value) {
        for (Scope sc : Scope.values()) {
            if (sc.keyword().equals(value)) {
                return sc;
            }
        }
        throw new IllegalArgumentException("unknown scope " + value);
    }

    /**
     * HAProxy's {@code url_decode} for a query string or form: {@code +} is a space, {@code %XX} a byte (the bytes read
     * as ISO-8859-1); a NUL ends the string; a bad escape throws {@link IllegalArgumentException}.
     */
    public static String urlDecode(String in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length());
        for (int i = 0; i < in.length(); i++) {
            char c = in.charAt(i);
            if (c == '+') {
                out.write(' ');
            } else if (c == '%') {
                int hi = i + 1 < in.length() ? hex(in.charAt(i + 1)) : -1;
                int lo = i + 2 < in.length() ? hex(in.charAt(i + 2)) : -1;
                if (hi < 0 || lo < 0) {
                    throw new IllegalArgumentException("bad escape in " + in);
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else {
                out.write(c);
            }
        }
        String s = out.toString(StandardCharsets.ISO_8859_1);
        int nul = s.indexOf('\0');
        return nul < 0 ? s : s.substring(0, nul);
    }

    private static int hex(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }
}
