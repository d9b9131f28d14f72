package dev.sluice.proxy.rules;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * {@code http_auth_type}, {@code http_auth_user}, {@code http_auth_pass} and {@code http_auth_bearer}: the request's
 * {@code Authorization} (or {@code Proxy-Authorization}) field read as HAProxy 2.6's {@code get_http_auth} reads it. Its
 * first comma-separated value; the scheme is the text before its first space (none, or a space first: nothing), matched
 * as HAProxy matches it (case aside, a scheme that begins "Basic" matches, so "B" and "bas" are Basic, then one that begins
 * "Bearer"); the rest after the spaces is the scheme's data. Basic data is base64 (HAProxy's strict decoder: a length
 * that is a multiple of four, padding only at the end) of {@code user:password}, both C strings in HAProxy (cut at a NUL
 * byte; a NUL before the colon is no colon).
 */
public final class AuthFetches {
    private AuthFetches() {
    }

    private static final AsciiString AUTHORIZATION = AsciiString.cached("authorization");
    private static final AsciiString PROXY_AUTHORIZATION = AsciiString.cached("proxy-authorization");

    /**
     * A parsed field: {@code type} "Basic" or "Bearer"; {@code user}/{@code password} for Basic (their bytes as latin-1
     * characters); {@code data} after the scheme.
     */
    public record Credentials(String type, String user, String password, String data) {
        public boolean basic() {
            return type.equals("Basic");
        }

        /** The user's bytes read as UTF-8, as configured names are read. */
        public String userName() {
            return new String(user.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        }

        /** The password's bytes as they came. */
        public byte[] passwordBytes() {
            return password.getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    /** An {@code Authorization} field's value (null: none) read as {@code get_http_auth} reads it; null when it gives nothing. */
    public static Credentials read(CharSequence field) {
        return parse(firstValue(field));
    }

    static void register() {
        Fetches.def("http_auth_type", 0, 0, Match.STR, false, a -> t -> {
            Credentials c = credentials(t);
            return c == null ? null : c.type();
        });
        Fetches.def("http_auth_user", 0, 0, Match.STR, false, a -> t -> {
            Credentials c = credentials(t);
            return c == null ? null : c.user();
        });
        Fetches.def("http_auth_pass", 0, 0, Match.STR, false, a -> t -> {
            Credentials c = credentials(t);
            return c == null ? null : c.password();
        });
        Fetches.def("http_auth_bearer", 0, 1, Match.STR, false, a -> {
            if (a.isEmpty()) {
                return t -> {
                    Credentials c = credentials(t);
                    return c == null || !c.type().equals("Bearer") ? null : c.data();
                };
            }
            // a field named: its first value's token when its scheme is exactly Bearer, else an empty sample (HAProxy
            // answers one whenever the field exists or not)
            AsciiString name = AsciiString.cached(a.get(0).toLowerCase(java.util.Locale.ROOT));
            return t -> bearer(firstValue(t.request().fields().get(name)));
        });
    }

    static Credentials credentials(Txn t) {
        return parse(firstValue(t.request().fields().get(t.proxyAuthentication() ? PROXY_AUTHORIZATION : AUTHORIZATION)));
    }

    /** HAProxy's http_find_header value: up to the first comma, without the blanks around it; null without the field. */
    static String firstValue(CharSequence field) {
        if (field == null) {
            return null;
        }
        String v = field.toString();
        int comma = v.indexOf(',');
        return (comma < 0 ? v : v.substring(0, comma)).strip();
    }

    /** {@code get_http_auth} on a field's first value; null when it gives nothing. */
    static Credentials parse(String value) {
        if (value == null) {
            return null;
        }
        int sp = value.indexOf(' ');
        if (sp <= 0) {
            return null;
        }
        String scheme = value.substring(0, sp);
        int p = sp;
        while (p < value.length() && value.charAt(p) == ' ') {
            p++;
        }
        String data = value.substring(p);
        if (prefixOf(scheme, "Basic")) {
            byte[] decoded = Samples.base64(data);
            if (decoded == null) {
                return null;
            }
            int end = 0;
            while (end < decoded.length && decoded[end] != 0) {
                end++;
            }
            int colon = -1;
            for (int i = 0; i < end; i++) {
                if (decoded[i] == ':') {
                    colon = i;
                    break;
                }
            }
            if (colon < 0) {
                return null;
            }
            return new Credentials("Basic", new String(decoded, 0, colon, StandardCharsets.ISO_8859_1),
                    new String(decoded, colon + 1, end - colon - 1, StandardCharsets.ISO_8859_1), data);
        }
        return prefixOf(scheme, "Bearer") ? new Credentials("Bearer", null, null, data) : null;
    }

    /** strncasecmp(word, scheme, len(scheme)) == 0: the scheme is a prefix of {@code word}, case aside. */
    private static boolean prefixOf(String scheme, String word) {
        return scheme.length() <= word.length() && word.regionMatches(true, 0, scheme, 0, scheme.length());
    }

    /** The named field's case: its first value split at the first space, the token when the scheme is Bearer (any case). */
    private static String bearer(String value) {
        if (value == null) {
            return "";
        }
        int sp = value.indexOf(' ');
        String type = sp < 0 ? value : value.substring(0, sp);
        String rest = sp < 0 ? "" : value.substring(sp + 1).stripLeading();
        return type.equalsIgnoreCase("Bearer") && !rest.isEmpty() ? rest : "";
    }
}
