package dev.sluice.proxy.rules;

import dev.sluice.proxy.auth.Userlists;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The sample fetches Sluice implements, by HAProxy name: each with its argument count, the match method
 * an ACL uses by default with it, whether it needs the response, and how to build it. Read-only.
 */
public final class Fetches {
    private Fetches() {
    }

    /**
     * How a fetch is declared. {@code content}: its sample may change with more content (it reports
     * {@link Txn#mayChange()}), so an ACL on it can miss; {@code l6}: it reads the layer-6 content of a TCP stream (HAProxy's
     * SMP_USE_L6REQ/L6RES: ignored on HTTP proxies, never available to {@code tcp-request connection} rules).
     */
    public record Def(String name, int minArgs, int maxArgs, Match dflt, boolean response, boolean content, boolean l6,
            Function<List<String>, Fetch> build) {
    }

    private static final Map<String, Def> DEFS = new HashMap<>();

    /**
     * Fetch keywords HAProxy has that Sluice does not, with the feature they need (FetchesTest checks that none
     * of them is implemented).
     */
    static final Map<String, String> MISSING = merged(FetchesMissing.MORE,
            Map.entry("acl", "the acl() fetch (HAProxy 3.x)"), Map.entry("lua", "Lua scripting"));

    static {
        def("src", 0, 0, Match.IP, false, a -> t -> t.clientAddress().getAddress());
        def("src_port", 0, 0, Match.INT, false, a -> t -> port(t.clientAddress()));
        def("dst", 0, 0, Match.IP, false, a -> t -> t.frontendAddress().getAddress());
        def("dst_port", 0, 0, Match.INT, false, a -> t -> port(t.frontendAddress()));
        def("method", 0, 0, Match.STR, false, a -> t -> t.request().method());
        def("path", 0, 0, Match.STR, false, a -> t -> path(t.request(), false));
        def("pathq", 0, 0, Match.STR, false, a -> t -> path(t.request(), true));
        def("url", 0, 0, Match.STR, false, a -> t -> t.request().target());
        def("query", 0, 0, Match.STR, false, a -> t -> query(t.request()));
        def("url_param", 1, 2, Match.STR, false, a -> urlParam(a.get(0), a.size() > 1 && !a.get(1).isEmpty() ? a.get(1).charAt(0) : '&'));
        def("urlp", 1, 2, Match.STR, false, a -> urlParam(a.get(0), a.size() > 1 && !a.get(1).isEmpty() ? a.get(1).charAt(0) : '&'));
        def("base", 0, 0, Match.STR, false, a -> t -> base(t.request()));
        def("req.ver", 0, 0, Match.STR, false, a -> t -> version(t.request()));
        def("req_ver", 0, 0, Match.STR, false, a -> t -> version(t.request()));
        def("capture.req.uri", 0, 0, Match.STR, false, a -> t -> t.request().target());
        def("capture.req.method", 0, 0, Match.STR, false, a -> t -> t.request().method());
        def("capture.req.ver", 0, 0, Match.STR, false, a -> t -> "HTTP/" + version(t.request()));
        def("capture.req.hdr", 1, 1, Match.STR, false, a -> {
            int slot = Integer.parseInt(a.get(0));
            return t -> t.captured(false, slot);
        });
        def("capture.res.hdr", 1, 1, Match.STR, true, a -> {
            int slot = Integer.parseInt(a.get(0));
            return t -> t.captured(true, slot);
        });
        def("capture.res.ver", 0, 0, Match.STR, true, a -> t -> t.response() == null ? null : "HTTP/" + version(t.response()));
        def("unique-id", 0, 0, Match.STR, false, a -> Txn::uniqueId);
        def("hdr", 0, 2, Match.STR, false, a -> new Header(null, a.isEmpty() ? null : a.get(0), occurrence(a), true));
        def("req.hdr", 0, 2, Match.STR, false, a -> new Header(false, a.isEmpty() ? null : a.get(0), occurrence(a), true));
        def("req.fhdr", 1, 2, Match.STR, false, a -> new Header(false, a.get(0), occurrence(a), false));
        def("hdr_cnt", 0, 1, Match.INT, false, a -> new HeaderCount(null, a.isEmpty() ? null : a.get(0), true));
        def("req.hdr_cnt", 0, 1, Match.INT, false, a -> new HeaderCount(false, a.isEmpty() ? null : a.get(0), true));
        def("req.fhdr_cnt", 0, 1, Match.INT, false, a -> new HeaderCount(false, a.isEmpty() ? null : a.get(0), false));
        def("hdr_val", 1, 2, Match.INT, false, a -> intOf(new Header(null, a.get(0), occurrence(a), true)));
        def("req.hdr_val", 1, 2, Match.INT, false, a -> intOf(new Header(false, a.get(0), occurrence(a), true)));
        def("hdr_ip", 1, 2, Match.IP, false, a -> ipOf(new Header(null, a.get(0), occurrence(a), true)));
        def("req.hdr_ip", 1, 2, Match.IP, false, a -> ipOf(new Header(false, a.get(0), occurrence(a), true)));
        def("ssl_fc", 0, 0, Match.BOOL, false, a -> t -> t.tls());
        def("ssl_fc_sni", 0, 0, Match.STR, false, a -> t -> t.sni());
        def("ssl_fc_has_sni", 0, 0, Match.BOOL, false, a -> t -> t.sni() != null);
        def("ssl_fc_alpn", 0, 0, Match.STR, false, a -> t -> t.tlsSession() == null ? null : t.tlsSession().alpn());
        def("ssl_fc_protocol", 0, 0, Match.STR, false, a -> t -> t.tlsSession() == null ? null : t.tlsSession().protocol());
        def("ssl_fc_cipher", 0, 0, Match.STR, false, a -> t -> t.tlsSession() == null ? null : t.tlsSession().cipher());
        def("ssl_fc_is_resumed", 0, 0, Match.BOOL, false, a -> t -> t.tlsSession() != null && t.tlsSession().resumed());
        def("fc_rcvd_proxy", 0, 0, Match.BOOL, false, a -> t -> t.proxyHeader() != null);
        def("fc_pp_authority", 0, 0, Match.STR, false, a -> t -> t.proxyHeader() == null ? null : t.proxyHeader().authority());
        def("fc_pp_unique_id", 0, 0, Match.STR, false, a -> t -> t.proxyHeader() == null || t.proxyHeader().uniqueId() == null ? null
                : new String(t.proxyHeader().uniqueId(), StandardCharsets.ISO_8859_1));
        def("status", 0, 0, Match.INT, true, a -> t -> t.response() == null ? null : (long) t.response().status());
        for (String n : new String[] {"res.hdr", "shdr"}) {
            def(n, 0, 2, Match.STR, true, a -> new Header(true, a.isEmpty() ? null : a.get(0), occurrence(a), true));
        }
        def("res.fhdr", 1, 2, Match.STR, true, a -> new Header(true, a.get(0), occurrence(a), false));
        for (String n : new String[] {"res.hdr_cnt", "shdr_cnt"}) {
            def(n, 0, 1, Match.INT, true, a -> new HeaderCount(true, a.isEmpty() ? null : a.get(0), true));
        }
        def("res.cache_hit", 0, 0, Match.BOOL, true, a -> t -> t.cacheName() != null);
        def("res.cache_name", 0, 0, Match.STR, true, a -> t -> t.cacheName());
        // flt_http_comp.c: true once the response is compressed here (false in the response rules, which come first)
        def("res.comp", 0, 0, Match.BOOL, true, a -> t -> t.compressionAlgo() != null);
        def("res.comp_algo", 0, 0, Match.STR, true, a -> t -> t.compressionAlgo());
        def("res.ver", 0, 0, Match.STR, true, a -> t -> t.response() == null ? null : version(t.response()));
        def("var", 1, 2, null, false, a -> {
            String name = a.get(0);
            String dflt = a.size() > 1 ? a.get(1) : null;
            return t -> {
                Object v = t.vars().get(name);
                return v != null ? v : dflt;
            };
        });
        def("str", 0, 1, Match.STR, false, a -> {
            // str() is the empty string, as in HAProxy
            String v = a.isEmpty() ? "" : a.get(0);
            return t -> v;
        });
        def("int", 1, 1, Match.INT, false, a -> {
            long v = Long.parseLong(a.get(0));
            return t -> v;
        });
        def("bool", 1, 1, Match.BOOL, false, a -> {
            boolean v = !a.get(0).equals("0") && !a.get(0).equalsIgnoreCase("false");
            return t -> v;
        });
        def("always_true", 0, 0, Match.BOOL, false, a -> t -> Boolean.TRUE);
        def("always_false", 0, 0, Match.BOOL, false, a -> t -> Boolean.FALSE);
        def("env", 1, 1, Match.STR, false, a -> {
            String name = a.get(0);
            return t -> t.env(name);
        });
        def("fe_name", 0, 0, Match.STR, false, a -> Txn::frontendName);
        def("be_name", 0, 0, Match.STR, false, a -> Txn::backendName);
        // the backend's FastCGI application: its document root and index (no sample without an application or an index)
        def("fcgi.docroot", 0, 0, Match.STR, false, a -> t -> t.fcgiApp() == null ? null : t.fcgiApp().docroot());
        def("fcgi.index", 0, 0, Match.STR, false, a -> t -> t.fcgiApp() == null ? null : t.fcgiApp().index());
        def("http_first_req", 0, 0, Match.BOOL, false, a -> t -> t.request() == null ? null : t.firstRequest());
        def("http_auth", 1, 1, Match.BOOL, false, a -> new HttpAuth(a.get(0), false));
        def("http_auth_group", 1, 1, Match.STR, false, a -> new HttpAuth(a.get(0), true));
        def("req.body", 0, 0, null, false, a -> Txn::requestBody);
        def("req.body_len", 0, 0, Match.INT, false, a -> t -> {
            byte[] b = t.requestBody();
            return b == null ? null : (long) b.length;
        });
        def("req.body_size", 0, 0, Match.INT, false, a -> t -> {
            byte[] b = t.requestBody();
            if (b == null) {
                return null;
            }
            long cl = t.request().contentLength();
            return cl >= 0 ? cl : (long) b.length;
        });
        def("res.body", 0, 0, null, true, a -> Txn::responseBody);
        def("res.body_len", 0, 0, Match.INT, true, a -> t -> {
            byte[] b = t.responseBody();
            return b == null ? null : (long) b.length;
        });
        def("res.body_size", 0, 0, Match.INT, true, a -> t -> {
            byte[] b = t.responseBody();
            if (b == null) {
                return null;
            }
            long cl = t.response().contentLength();
            return cl >= 0 ? cl : (long) b.length;
        });
        def("req.body_param", 0, 2, null, false, a -> new BodyParam(a.isEmpty() || a.get(0).isEmpty() ? null : a.get(0),
                a.size() > 1 && a.get(1).equals("i")));
        def("req.hdr_names", 0, 1, Match.STR, false, a -> t -> headerNames(t.request().fields(), a.isEmpty() ? "," : a.get(0)));
        CookieFetch.register();
        StickFetches.register();
        Payload.register();
        FetchesInternal.register();
        AuthFetches.register();
        FetchesState.register();
        FetchesConnection.register();
        TlsFetches.register();
    }

    @SafeVarargs
    private static Map<String, String> merged(Map<String, String> more, Map.Entry<String, String>... first) {
        Map<String, String> m = new HashMap<>(more);
        for (Map.Entry<String, String> e : first) {
            m.put(e.getKey(), e.getValue());
        }
        return Map.copyOf(m);
    }

    /** The port of a connection's address; none for a client on a UNIX socket (its placeholder has no address). */
    static Long port(java.net.InetSocketAddress a) {
        return a == null || a.getAddress() == null ? null : (long) a.getPort();
    }

    static void def(String name, int min, int max, Match dflt, boolean response, Function<List<String>, Fetch> build) {
        DEFS.put(name, new Def(name, min, max, dflt, response, false, false, build));
    }

    /** Declares a fetch whose sample may change with more content; {@code l6} when it reads the stream's payload. */
    static void defContent(String name, int min, int max, Match dflt, boolean response, boolean l6, Function<List<String>, Fetch> build) {
        DEFS.put(name, new Def(name, min, max, dflt, response, true, l6, build));
    }

    public static Def get(String name) {
        return DEFS.get(name);
    }

    public static Set<String> names() {
        return DEFS.keySet();
    }

    private static int occurrence(List<String> a) {
        if (a.size() < 2) {
            return 0;
        }
        try {
            return Integer.parseInt(a.get(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("occurrence '" + a.get(1) + "' is not an integer");
        }
    }

    // ------------------------------------------------------------------ request parts

    static CharSequence path(RequestHead r, boolean withQuery) {
        AsciiString t = r.target();
        int start = 0;
        if (t.length() > 0 && t.byteAt(0) != '/') {
            int scheme = t.indexOf("://", 0);
            if (scheme < 0) {
                return null;
            }
            int slash = t.indexOf('/', scheme + 3);
            if (slash < 0) {
                return withQuery ? AsciiString.cached("/") : AsciiString.cached("/");
            }
            start = slash;
        }
        if (withQuery) {
            return start == 0 ? t : t.subSequence(start, t.length(), false);
        }
        int q = t.indexOf('?', start);
        return q < 0 ? (start == 0 ? t : t.subSequence(start, t.length(), false)) : t.subSequence(start, q, false);
    }

    static CharSequence query(RequestHead r) {
        AsciiString t = r.target();
        int q = t.indexOf('?', 0);
        return q < 0 ? null : t.subSequence(q + 1, t.length(), false);
    }

    private static Fetch urlParam(String name, char delim) {
        return new UrlParam(name, delim);
    }

    /** {@code url_param(name[,delim])}: the first value as a sample; ACLs try every occurrence, as HAProxy does. */
    record UrlParam(String name, char delim) implements Fetch {
        @Override
        public Object get(Txn t) {
            AsciiString target = t.request().target();
            int q = target.indexOf('?', 0);
            if (q < 0) {
                return null;
            }
            for (int start = q + 1; start <= target.length();) {
                int end = end(target, start);
                int vs = valueStart(target, start, end);
                if (vs >= 0) {
                    return target.subSequence(vs, end, false);
                }
                start = end + 1;
            }
            return null;
        }

        @Override
        public boolean any(Txn t, Predicate<Object> p) {
            AsciiString target = t.request().target();
            int q = target.indexOf('?', 0);
            if (q < 0) {
                return false;
            }
            for (int start = q + 1; start <= target.length();) {
                int end = end(target, start);
                int vs = valueStart(target, start, end);
                if (vs >= 0 && p.test(target.subSequence(vs, end, false))) {
                    return true;
                }
                start = end + 1;
            }
            return false;
        }

        /** The end of the parameter starting at {@code start}: the next delimiter or the end of the target. */
        private int end(AsciiString s, int start) {
            int end = start;
            while (end < s.length() && s.byteAt(end) != delim) {
                end++;
            }
            return end;
        }

        /** Where the value of the parameter {@code s[start, end)} starts when it is the one named, else -1. */
        private int valueStart(AsciiString s, int start, int end) {
            int klen = name.length();
            if (end - start < klen || start + klen != end && s.byteAt(start + klen) != '=') {
                return -1;
            }
            for (int i = 0; i < klen; i++) {
                if ((char) (s.byteAt(start + i) & 0xff) != name.charAt(i)) {
                    return -1;
                }
            }
            return Math.min(start + klen + 1, end);
        }
    }

    /**
     * {@code http_auth(<userlist>)}: whether the request's {@code Authorization} carries the basic
     * credentials of a user of the list. {@code http_auth_group(<userlist>)}: the authenticated user's
     * groups (every one is offered to the ACL's patterns; the sample itself is the user name).
     */
    record HttpAuth(String list, boolean groups) implements Fetch {
        /**
         * The user the field authenticates, read as the other http_auth_* fetches read it (HAProxy's get_http_auth);
         * NONE when it carries no Basic credentials (no sample then, as HAProxy), null when they are not a user's.
         */
        private Object user(Txn t) {
            Userlists.Users ul = t.userlists().get(list);
            AuthFetches.Credentials c = ul == null ? null : AuthFetches.credentials(t);
            return c == null || !c.basic() ? NONE : ul.authenticate(c.userName(), c.passwordBytes());
        }

        @Override
        public Object get(Txn t) {
            Object u = user(t);
            return u == NONE ? null : groups ? u == null ? null : ((Userlists.User) u).name() : u != null;
        }

        @Override
        public boolean any(Txn t, Predicate<Object> p) {
            Object u = user(t);
            if (u == NONE || u == null) {
                return !groups && u == null && p.test(false);
            }
            if (!groups) {
                return p.test(true);
            }
            for (String g : ((Userlists.User) u).groups()) {
                if (p.test(g)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** {@link HttpAuth}'s answer for a request without Basic credentials. */
    private static final Object NONE = new Object();

    /**
     * {@code req.body_param([<name>[,i]])}: the values of a parameter of an
     * {@code application/x-www-form-urlencoded} body held by {@code wait-for-body} (the first
     * parameter when no name is given; {@code i} ignores case in the name).
     */
    record BodyParam(String name, boolean ignoreCase) implements Fetch {
        @Override
        public Object get(Txn t) {
            Object[] first = new Object[1];
            scan(t, v -> {
                first[0] = v;
                return true;
            });
            return first[0];
        }

        @Override
        public boolean any(Txn t, Predicate<Object> p) {
            return scan(t, p);
        }

        private boolean scan(Txn t, Predicate<Object> p) {
            byte[] b = t.requestBody();
            if (b == null) {
                return false;
            }
            String body = new String(b, StandardCharsets.ISO_8859_1);
            int start = 0;
            while (start < body.length()) {
                int end = body.indexOf('&', start);
                if (end < 0) {
                    end = body.length();
                }
                int eq = body.indexOf('=', start);
                int kEnd = eq < 0 || eq > end ? end : eq;
                String k = body.substring(start, kEnd);
                if (name == null || (ignoreCase ? k.equalsIgnoreCase(name) : k.equals(name))) {
                    if (p.test(body.substring(Math.min(kEnd + 1, end), end))) {
                        return true;
                    }
                }
                start = end + 1;
            }
            return false;
        }
    }

    static CharSequence base(RequestHead r) {
        AsciiString host = r.fields().get(HeaderNames.HOST);
        CharSequence p = path(r, false);
        if (host == null || p == null) {
            return p;
        }
        return new Concat(host, p);
    }

    /**
     * Two character sequences read as one, without copying them ({@code base}: host then path); a string is made
     * only when someone asks for one.
     */
    static final class Concat implements CharSequence {
        private final CharSequence a;
        private final CharSequence b;

        Concat(CharSequence a, CharSequence b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public int length() {
            return a.length() + b.length();
        }

        @Override
        public char charAt(int index) {
            int n = a.length();
            return index < n ? a.charAt(index) : b.charAt(index - n);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().substring(start, end);
        }

        @Override
        public String toString() {
            return new StringBuilder(length()).append(a).append(b).toString();
        }
    }

    static String version(MessageHead h) {
        return switch (h.version()) {
            case HTTP_1_0 -> "1.0";
            case HTTP_1_1 -> "1.1";
            case HTTP_2 -> "2.0";
            case HTTP_3 -> "3.0";
        };
    }

    private static String headerNames(HttpFields f, String delim) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < f.size(); i++) {
            if (i > 0) {
                sb.append(delim);
            }
            sb.append(f.name(i));
        }
        return sb.toString();
    }

    private static Fetch intOf(Fetch f) {
        return castOf(f, Samples::integer);
    }

    private static Fetch ipOf(Fetch f) {
        return castOf(f, Samples::ip);
    }

    /** {@code f} with each value cast by {@code cast}; values that do not cast are no sample. */
    private static Fetch castOf(Fetch f, Function<Object, Object> cast) {
        return new Fetch() {
            @Override
            public Object get(Txn t) {
                return cast.apply(f.get(t));
            }

            @Override
            public boolean any(Txn t, Predicate<Object> p) {
                return f.any(t, v -> {
                    Object c = cast.apply(v);
                    return c != null && p.test(c);
                });
            }
        };
    }

    /**
     * {@code hdr(name[,occ])}: values of a field, each comma-separated element counting as one value
     * ({@code fhdr} takes whole lines). Occurrence 0 or absent: last in sample context, any in ACLs;
     * positive: from the first; negative: from the last.
     */
    /**
     * The message a header fetch reads: the response when {@code response} is true, the request when
     * false, and when null the message of the current phase ({@code hdr} in http-response rules).
     */
    static MessageHead head(Txn t, Boolean response) {
        if (response == null) {
            return t.response() != null ? t.response() : t.request();
        }
        return response ? t.response() : t.request();
    }

    static final class Header implements Fetch {
        private final Boolean response;
        private final AsciiString name;
        private final int occ;
        private final boolean split;

        Header(Boolean response, String name, int occ, boolean split) {
            this.response = response;
            this.name = name == null ? null : AsciiString.cached(name.toLowerCase(Locale.ROOT));
            this.occ = occ;
            this.split = split;
        }

        private HttpFields fields(Txn t) {
            MessageHead h = head(t, response);
            return h == null ? null : h.fields();
        }

        /** How many values there are (elements, or whole lines without splitting). */
        int count(HttpFields f) {
            int n = 0;
            for (int i = 0; i < f.size(); i++) {
                if (name != null && !f.name(i).contentEquals(name)) {
                    continue;
                }
                if (!split) {
                    n++;
                    continue;
                }
                AsciiString v = f.value(i);
                for (int k = valueEnd(v, 0); ; k = valueEnd(v, k + 1)) {
                    n++;
                    if (k == v.length()) {
                        break;
                    }
                }
            }
            return n;
        }

        /**
         * Where the comma-separated value starting at {@code from} ends: the next comma outside a quoted string, else the
         * end (HAProxy's http_find_hdr_value_end: a comma inside double quotes, or escaped by a backslash there, does not
         * split).
         */
        static int valueEnd(AsciiString v, int from) {
            return dev.sluice.proxy.http.Cookies.elementEnd(v, from, v.length());
        }

        /** The value at position {@code wanted} (from 0), or null; views are made for that one only. */
        private CharSequence nth(HttpFields f, int wanted) {
            int n = 0;
            for (int i = 0; i < f.size(); i++) {
                if (name != null && !f.name(i).contentEquals(name)) {
                    continue;
                }
                AsciiString v = f.value(i);
                if (!split) {
                    if (n++ == wanted) {
                        return v;
                    }
                    continue;
                }
                for (int s = 0, k = valueEnd(v, 0); ; s = k + 1, k = valueEnd(v, s)) {
                    if (n++ == wanted) {
                        return trimmed(v, s, k);
                    }
                    if (k == v.length()) {
                        break;
                    }
                }
            }
            return null;
        }

        /** {@code v[a, b)} without spaces and tabs around it: {@code v} itself when nothing is cut. */
        private static CharSequence trimmed(AsciiString v, int a, int b) {
            while (a < b && (v.byteAt(a) == ' ' || v.byteAt(a) == '\t')) {
                a++;
            }
            while (b > a && (v.byteAt(b - 1) == ' ' || v.byteAt(b - 1) == '\t')) {
                b--;
            }
            return a == 0 && b == v.length() ? v : v.subSequence(a, b, false);
        }

        /** Offers each value to {@code p} in order until it accepts one; returns whether one was accepted. */
        private boolean each(HttpFields f, Predicate<? super CharSequence> p) {
            for (int i = 0; i < f.size(); i++) {
                if (name != null && !f.name(i).contentEquals(name)) {
                    continue;
                }
                AsciiString v = f.value(i);
                if (!split) {
                    if (p.test(v)) {
                        return true;
                    }
                    continue;
                }
                for (int s = 0, k = valueEnd(v, 0); ; s = k + 1, k = valueEnd(v, s)) {
                    if (p.test(trimmed(v, s, k))) {
                        return true;
                    }
                    if (k == v.length()) {
                        break;
                    }
                }
            }
            return false;
        }

        @Override
        public Object get(Txn t) {
            HttpFields f = fields(t);
            if (f == null) {
                return null;
            }
            // a positive occurrence needs no count
            int n = occ > 0 ? Integer.MAX_VALUE : count(f);
            int idx = occ == 0 ? n - 1 : occ > 0 ? occ - 1 : n + occ;
            return idx >= 0 && idx < n ? nth(f, idx) : null;
        }

        @Override
        public boolean any(Txn t, Predicate<Object> p) {
            if (occ != 0) {
                Object v = get(t);
                return v != null && p.test(v);
            }
            HttpFields f = fields(t);
            return f != null && each(f, p);
        }
    }

    static final class HeaderCount implements Fetch {
        private final Boolean response;
        private final Header values;

        HeaderCount(Boolean response, String name, boolean split) {
            this.response = response;
            this.values = new Header(response, name, 0, split);
        }

        @Override
        public Object get(Txn t) {
            MessageHead h = head(t, response);
            return h == null ? null : (Object) (long) values.count(h.fields());
        }
    }
}
