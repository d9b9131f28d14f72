package dev.sluice.proxy.backend;

import dev.sluice.config.model.Balance;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.rules.RdpCookie;
import dev.sluice.proxy.rules.SampleExpr;
import dev.sluice.proxy.rules.TlsHello;
import dev.sluice.proxy.rules.Txn;
import io.netty.util.AsciiString;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What the hash algorithms hash in a request, as HAProxy's get_server_uh, _sh, _ph, _hh, _rch and _expr
 * read it. The bytes are hashed where they are (the request head's buffer), without a copy.
 */
interface RequestKey {
    /** What {@link #hash} returns when the request has no key (the algorithm then goes round robin). */
    long NONE = -1;

    /** The 32-bit hash of the request's key (as an unsigned value), or {@link #NONE}. */
    long hash(Txn t, HashFunction f);

    static RequestKey of(Balance b, SampleExpr expr) {
        return switch (b.algorithm()) {
            case SOURCE -> new Source();
            case URI -> new Uri(b.uriLen(), b.uriDepth(), b.uriWhole(), b.uriPathOnly());
            case URL_PARAM -> new UrlParam(b.argument());
            case HDR -> new Header(b.argument(), b.domainOnly());
            case HASH -> new Expr(expr);
            case RDP_COOKIE -> new Rdp(b.argument());
            default -> throw new IllegalArgumentException(b.algorithm() + " does not hash");
        };
    }

    private static long unsigned(int h) {
        return h & 0xffff_ffffL;
    }

    /**
     * {@code balance source}: the client address, IPv4 as its 32-bit number and IPv6 as the XOR of its
     * four 32-bit words; no hash function, only the avalanche mix when {@code hash-type} asks for it.
     */
    final class Source implements RequestKey {
        @Override
        public long hash(Txn t, HashFunction f) {
            InetSocketAddress a = t.clientAddress();
            InetAddress ip = a == null ? null : a.getAddress();
            if (ip == null) {
                return NONE;
            }
            int h;
            if (ip instanceof Inet4Address) {
                // the address as a number, without a copy of its bytes
                h = ip.hashCode();
            } else {
                byte[] b = ip.getAddress();
                h = 0;
                for (int i = 0; i + 4 <= b.length; i += 4) {
                    h ^= (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | b[i + 3] & 0xff;
                }
            }
            return unsigned(f.mix(h));
        }
    }

    /**
     * {@code balance uri}: the request target up to the '?' (all of it with {@code whole}), at most
     * {@code len} characters and up to the {@code depth + 1}th slash; {@code path-only} starts at the
     * path of an absolute URI.
     */
    final class Uri implements RequestKey {
        private final int len;
        private final int depth;
        private final boolean whole;
        private final boolean pathOnly;

        Uri(int len, int depth, boolean whole, boolean pathOnly) {
            this.len = len;
            this.depth = depth;
            this.whole = whole;
            this.pathOnly = pathOnly;
        }

        @Override
        public long hash(Txn t, HashFunction f) {
            AsciiString u = t.request().target();
            byte[] b = u.array();
            int base = u.arrayOffset();
            int start = pathOnly ? pathStart(u) : 0;
            int left = u.length() - start;
            if (len > 0 && left > len) {
                left = len;
            }
            int slashLimit = depth > 0 ? depth + 1 : 0;
            int slashes = 0;
            int end = start;
            while (left-- > 0) {
                byte c = b[base + end];
                if (c == '/') {
                    if (++slashes == slashLimit) {
                        break;
                    }
                } else if (c == '?' && !whole) {
                    break;
                }
                end++;
            }
            return unsigned(f.hash(b, base + start, end - start));
        }

        /** Where the path starts: at 0 in origin form, after the authority in absolute form; the end when there is none. */
        static int pathStart(AsciiString u) {
            int n = u.length();
            if (n == 0 || u.byteAt(0) == '/') {
                return 0;
            }
            int scheme = u.indexOf("://", 0);
            if (u.byteAt(0) == '*' || scheme <= 0) {
                return n;
            }
            int slash = u.indexOf('/', scheme + 3);
            return slash < 0 ? n : slash;
        }
    }

    /** {@code balance url_param <name>}: the value of the first {@code name=} parameter of the query string. */
    final class UrlParam implements RequestKey {
        private final byte[] name;

        UrlParam(String name) {
            this.name = name.getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public long hash(Txn t, HashFunction f) {
            AsciiString u = t.request().target();
            byte[] b = u.array();
            int base = u.arrayOffset();
            int end = base + u.length();
            int q = u.indexOf('?', 0);
            if (q < 0) {
                return NONE;
            }
            int plen = name.length;
            int params = base + q + 1;
            while (end - params > plen) {
                if (b[params + plen] == '=' && Arrays.equals(b, params, params + plen, name, 0, plen)) {
                    int v = params + plen + 1;
                    int e = v;
                    while (e < end && b[e] != '&') {
                        e++;
                    }
                    return unsigned(f.hash(b, v, e - v));
                }
                int amp = params;
                while (amp < end && b[amp] != '&') {
                    amp++;
                }
                if (amp == end) {
                    return NONE;
                }
                params = amp + 1;
            }
            return NONE;
        }
    }

    /**
     * {@code balance hdr(<name>)}: the first value (up to a comma, spaces trimmed) of the first field of
     * that name; with {@code use_domain_only}, the label before the last dot ("1wt" in "haproxy.1wt.eu").
     */
    final class Header implements RequestKey {
        private final AsciiString name;
        private final boolean domainOnly;

        Header(String name, boolean domainOnly) {
            this.name = AsciiString.cached(name);
            this.domainOnly = domainOnly;
        }

        @Override
        public long hash(Txn t, HashFunction f) {
            HttpFields fields = t.request().fields();
            int i = fields.indexOf(name);
            if (i < 0) {
                return NONE;
            }
            AsciiString v = fields.value(i);
            byte[] b = v.array();
            int base = v.arrayOffset();
            int a = base;
            int e = base + v.length();
            for (int k = a; k < e; k++) {
                if (b[k] == ',') {
                    e = k;
                    break;
                }
            }
            while (a < e && (b[a] == ' ' || b[a] == '\t')) {
                a++;
            }
            while (e > a && (b[e - 1] == ' ' || b[e - 1] == '\t')) {
                e--;
            }
            if (a == e) {
                return NONE;
            }
            if (!domainOnly) {
                return unsigned(f.hash(b, a, e - a));
            }
            // back from the end: the domain ends at the last dot and starts after the dot before it
            int end = e;
            int p = e - a;
            boolean inDomain = false;
            while (p > 0) {
                if (inDomain) {
                    if (b[a + p - 1] == '.') {
                        break;
                    }
                } else if (a + p < e && b[a + p] == '.') {
                    end = a + p;
                    inDomain = true;
                }
                p--;
            }
            return unsigned(f.hash(b, a + p, end - (a + p)));
        }
    }

    /**
     * {@code balance hash <expr>}: the sample's binary form (a string's bytes, an address's 4 or 16 bytes,
     * an integer's 8 big-endian bytes); no sample means no key.
     */
    final class Expr implements RequestKey {
        private final SampleExpr expr;

        Expr(SampleExpr expr) {
            this.expr = expr;
        }

        @Override
        public long hash(Txn t, HashFunction f) {
            Object v = expr.get(t);
            if (v == null) {
                return NONE;
            }
            if (v instanceof AsciiString s) {
                return unsigned(f.hash(s.array(), s.arrayOffset(), s.length()));
            }
            byte[] b = binary(v);
            return unsigned(f.hash(b, 0, b.length));
        }

        static byte[] binary(Object v) {
            if (v instanceof byte[] b) {
                return b;
            }
            if (v instanceof InetAddress a) {
                return a.getAddress();
            }
            if (v instanceof Long || v instanceof Integer || v instanceof Boolean) {
                long n = v instanceof Boolean x ? (x ? 1 : 0) : ((Number) v).longValue();
                byte[] b = new byte[8];
                for (int i = 0; i < 8; i++) {
                    b[i] = (byte) (n >>> (56 - 8 * i));
                }
                return b;
            }
            return v.toString().getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * {@code balance rdp-cookie(<name>)}: the value of the RDP cookie in the bytes a TCP stream holds; none when there is
     * no cookie, it is empty, or more bytes could still change it (HTTP proxies hold no bytes: never a key).
     */
    final class Rdp implements RequestKey {
        private final byte[] name;

        Rdp(String name) {
            this.name = name.getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public long hash(Txn t, HashFunction f) {
            io.netty.buffer.ByteBuf b = t.requestPayload();
            if (b == null) {
                return NONE;
            }
            long v = RdpCookie.find(b, name);
            if (v < 0 || TlsHello.length(v) == 0) {
                return NONE;
            }
            int len = TlsHello.length(v);
            byte[] value = new byte[len];
            b.getBytes(b.readerIndex() + TlsHello.offset(v), value);
            return unsigned(f.hash(value, 0, len));
        }
    }
}
