package dev.sluice.proxy.rules;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.function.Predicate;

/**
 * The layer-6 fetches: what a TCP stream holds of the client's ({@code req.*}) or the server's ({@code res.*}) bytes
 * during content inspection ({@link Txn#requestPayload()}, {@link Txn#responsePayload()}), read as HAProxy 2.6's
 * payload.c reads them, and {@code wait_end}. Samples are views of the held bytes ({@link ByteBufChars}).
 * <p>
 * Each reports {@link Txn#mayChange()} where HAProxy sets SMP_F_MAY_CHANGE: {@code req.len} always; a payload, a
 * length-value or a TLS hello not all there yet; {@code wait_end} until the content is final. A payload that could never
 * fit in {@code tune.bufsize}, or bytes that are not a TLS hello, are no sample at once. Without held bytes (HTTP
 * proxies) there is no sample.
 */
final class Payload {
    private Payload() {
    }

    /** Declares the fetches. */
    static void register() {
        for (String n : new String[] {"req.len", "req_len"}) {
            Fetches.defContent(n, 0, 0, Match.INT, false, true, a -> new Len(false));
        }
        Fetches.defContent("res.len", 0, 0, Match.INT, true, true, a -> new Len(true));
        Fetches.defContent("req.payload", 2, 2, null, false, true, a -> fixed(false, a));
        Fetches.defContent("res.payload", 2, 2, null, true, true, a -> fixed(true, a));
        Fetches.defContent("req.payload_lv", 2, 3, null, false, true, a -> lengthValue(false, a, "req.payload_lv"));
        Fetches.defContent("res.payload_lv", 2, 3, null, true, true, a -> lengthValue(true, a, "res.payload_lv"));
        // direction-neutral: the request's bytes, or the response's in response rules (HAProxy's SMP_OPT_DIR)
        Fetches.defContent("payload", 2, 2, null, false, true, a -> {
            Fetch req = fixed(false, a, "payload");
            Fetch res = fixed(true, a, "payload");
            return t -> (responsePhase(t) ? res : req).get(t);
        });
        Fetches.defContent("payload_lv", 2, 3, null, false, true, a -> {
            Fetch req = lengthValue(false, a, "payload_lv");
            Fetch res = lengthValue(true, a, "payload_lv");
            return t -> (responsePhase(t) ? res : req).get(t);
        });
        Fetches.defContent("distcc_param", 1, 2, Match.INT, false, true, a -> new Distcc(distccToken(a), distccOccurrence(a), false));
        Fetches.defContent("distcc_body", 1, 2, Match.BIN, false, true, a -> new Distcc(distccToken(a), distccOccurrence(a), true));
        Fetches.defContent("wait_end", 0, 0, Match.BOOL, false, false, a -> WAIT_END);
        for (String n : new String[] {"req.proto_http", "req_proto_http"}) {
            // a whole HTTP/1 request head at the start of the held bytes (a layer-4 stream's target parses it and says
            // "may change" while it is incomplete); in HTTP proxies there is always one
            Fetches.defContent(n, 0, 0, Match.BOOL, false, false, a -> t -> t.request() != null ? Boolean.TRUE : null);
        }
        for (String n : new String[] {"req.ssl_hello_type", "req_ssl_hello_type"}) {
            Fetches.defContent(n, 0, 0, Match.INT, false, true, a -> new HelloType(false));
        }
        for (String n : new String[] {"res.ssl_hello_type", "rep_ssl_hello_type"}) {
            Fetches.defContent(n, 0, 0, Match.INT, true, true, a -> new HelloType(true));
        }
        for (String n : new String[] {"req.ssl_ver", "req_ssl_ver"}) {
            Fetches.defContent(n, 0, 0, Match.VER, false, true, a -> VERSION);
        }
        for (String n : new String[] {"req.ssl_sni", "req_ssl_sni"}) {
            Fetches.defContent(n, 0, 0, Match.STR, false, true, a -> SNI);
        }
        for (String n : new String[] {"req.rdp_cookie", "rdp_cookie", "req_rdp_cookie"}) {
            Fetches.defContent(n, 0, 1, Match.STR, false, true, a -> new Rdp(cookieName(a), false));
        }
        for (String n : new String[] {"req.rdp_cookie_cnt", "rdp_cookie_cnt", "req_rdp_cookie_cnt"}) {
            Fetches.defContent(n, 0, 1, Match.INT, false, true, a -> new Rdp(cookieName(a), true));
        }
        Fetches.defContent("req.ssl_alpn", 0, 0, Match.STR, false, true, a -> new Alpn());
        Fetches.defContent("req.ssl_ec_ext", 0, 0, Match.BOOL, false, true, a -> EC_EXTENSION);
        Fetches.defContent("req.ssl_st_ext", 0, 0, Match.INT, false, true, a -> ST_EXTENSION);
    }

    private static ByteBuf held(Txn t, boolean response) {
        return response ? t.responsePayload() : t.requestPayload();
    }

    /** {@code wait_end}: no sample (and "may change") until the content is final, then true. */
    private static final Fetch WAIT_END = t -> {
        if (!t.contentFinal()) {
            t.mayChange();
            return null;
        }
        return Boolean.TRUE;
    };

    /** {@code req.len}/{@code res.len}: how many bytes are held; always subject to change. */
    private record Len(boolean response) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, response);
            if (b == null) {
                return null;
            }
            t.mayChange();
            return (long) b.readableBytes();
        }
    }

    private static long integer(String fetch, List<String> a, int i) {
        try {
            return Long.parseLong(a.get(i).strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fetch method '" + fetch + "' : failed to parse '" + a.get(i) + "' as type 'integer' at position "
                    + (i + 1));
        }
    }

    private static Fetch fixed(boolean response, List<String> a) {
        return fixed(response, a, response ? "res.payload" : "req.payload");
    }

    private static Fetch fixed(boolean response, List<String> a, String name) {
        return new Fixed(response, integer(name, a, 0), integer(name, a, 1));
    }

    /** Whether a direction-neutral fetch reads the response: in response rules. */
    private static boolean responsePhase(Txn t) {
        return t instanceof RuleTarget r && r.responsePhase();
    }

    /** val_distcc: the token, exactly 4 characters, as a big-endian 32-bit value. */
    private static long distccToken(List<String> a) {
        String tok = a.get(0);
        if (tok.length() != 4) {
            throw new IllegalArgumentException("token name must be exactly 4 characters");
        }
        long v = 0;
        for (int i = 0; i < 4; i++) {
            v = v << 8 | (tok.charAt(i) & 0xff);
        }
        return v;
    }

    private static long distccOccurrence(List<String> a) {
        return a.size() < 2 || a.get(1).isBlank() ? 0 : integer("distcc", a, 1) & 0xffffffffL;
    }

    /**
     * {@code distcc_param(<token>[,<occ>])} and {@code distcc_body(<token>[,<occ>])}, payload.c's walk of a distcc
     * stream: 4-byte tokens each followed by 8 hexadecimal digits, the parameter, which is also the length of the body
     * that follows except for ARGC, DIST, NFIL, STAT and DONE. The parameter (or the body) of the token's {@code occ}th
     * occurrence (0: the first); "may change" while the held bytes end before a token that could still fit in a buffer; a
     * body cut at the buffer's end when it cannot fit.
     */
    private record Distcc(long token, long occurrence, boolean body) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, responsePhase(t));
            if (b == null) {
                return null;
            }
            int r = b.readerIndex();
            long n = b.readableBytes();
            long limit = t.tune().bufsize();
            long ofs = 0;
            long occ = 0;
            while (true) {
                if (ofs + 12 > n) {
                    if (ofs + 12 <= limit) {
                        t.mayChange();
                    }
                    return null;
                }
                long tok = b.getUnsignedInt(r + (int) ofs);
                ofs += 4;
                long param = 0;
                for (int i = 0; i < 8; i++) {
                    int c = Character.digit(b.getByte(r + (int) ofs + i), 16);
                    if (c < 0) {
                        return null;
                    }
                    param = (param << 4 | c) & 0xffffffffL;
                }
                ofs += 8;
                boolean noBody = tok == 0x41524743L || tok == 0x44495354L || tok == 0x4E46494CL || tok == 0x53544154L || tok == 0x444F4E45L;
                long len = noBody ? 0 : param;
                if (tok == token) {
                    occ++;
                    if (occurrence == 0 || occurrence == occ) {
                        if (!body) {
                            return param;
                        }
                        if (ofs + len > n && ofs + len > limit) {
                            // HAProxy truncates to what fits in a buffer and says it may change
                            t.mayChange();
                            len = limit - ofs;
                        }
                        // as HAProxy: the body as far as it goes (a part that has not arrived is not waited for)
                        long avail = Math.min(len, n - ofs);
                        return ByteBufChars.of(b, (int) ofs, (int) Math.max(0, avail));
                    }
                }
                ofs += len;
            }
        }
    }

    /**
     * {@code req.payload(<offset>,<length>)}: {@code length} bytes from {@code offset}, or all from there when
     * {@code length} is 0 (then subject to change). Negative numbers are huge ones for HAProxy: never a sample.
     */
    private record Fixed(boolean response, long offset, long length) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, response);
            if (b == null) {
                return null;
            }
            long max = t.tune().bufsize();
            if (offset < 0 || length < 0 || length > max || offset + length > max) {
                return null;
            }
            int n = b.readableBytes();
            if (offset + length > n) {
                t.mayChange();
                return null;
            }
            if (length == 0) {
                t.mayChange();
                return ByteBufChars.of(b, (int) offset, n - (int) offset);
            }
            return ByteBufChars.of(b, (int) offset, (int) length);
        }
    }

    private static Fetch lengthValue(boolean response, List<String> a, String name) {
        long offset = integer(name, a, 0);
        long size = integer(name, a, 1);
        String bad = "invalid args in fetch method '" + name + "' : ";
        if (offset < 0) {
            throw new IllegalArgumentException(bad + "payload offset1 must be positive");
        }
        if (size == 0) {
            throw new IllegalArgumentException(bad + "payload length must be > 0");
        }
        Long offset2 = null;
        boolean relative = false;
        if (a.size() > 2 && !a.get(2).isEmpty()) {
            String s = a.get(2);
            relative = s.charAt(0) == '+' || s.charAt(0) == '-';
            try {
                offset2 = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(bad + "payload offset2 is not a number");
            }
            if (offset + size + offset2 < 0) {
                throw new IllegalArgumentException(bad + "payload offset2 too negative");
            }
        }
        return new LengthValue(response, offset, size, offset2, relative);
    }

    /**
     * {@code req.payload_lv(<offset1>,<length>[,<offset2>])}: the bytes whose count is the big-endian number of
     * {@code length} bytes at {@code offset1}, found right after that number, at {@code offset2}, or {@code offset2}
     * bytes after it when signed. A count of 0, or bytes that could never fit in {@code tune.bufsize}, are no sample.
     */
    private record LengthValue(boolean response, long offset, long size, Long offset2, boolean relative) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, response);
            if (b == null) {
                return null;
            }
            int n = b.readableBytes();
            if (size < 0 || offset + size > n) {
                // a negative size is a huge one for HAProxy: it never arrives
                t.mayChange();
                return null;
            }
            long count = 0;
            int at = b.readerIndex() + (int) offset;
            for (int i = 0; i < size; i++) {
                count = (count << 8 | b.getUnsignedByte(at + i)) & 0xffffffffL;
            }
            long start = offset + size;
            if (offset2 != null) {
                start = relative ? start + offset2 : offset2;
            }
            long max = t.tune().bufsize();
            if (count == 0 || count > max || start < 0 || start + count > max) {
                return null;
            }
            if (start + count > n) {
                t.mayChange();
                return null;
            }
            return ByteBufChars.of(b, (int) start, (int) count);
        }
    }

    private static byte[] cookieName(List<String> a) {
        return a.isEmpty() ? new byte[0] : a.get(0).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /**
     * {@code req.rdp_cookie([<name>])}: the value of the RDP cookie (any when no name); {@code req.rdp_cookie_cnt}: 1 when
     * there is one, 0 when there is not, no sample while more bytes could tell.
     */
    private record Rdp(byte[] name, boolean count) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = t.requestPayload();
            if (b == null) {
                return null;
            }
            long v = RdpCookie.find(b, name);
            if (v == RdpCookie.TOO_SHORT) {
                t.mayChange();
                return null;
            }
            if (count) {
                return v >= 0 ? 1L : 0L;
            }
            return v < 0 ? null : ByteBufChars.of(b, TlsHello.offset(v), TlsHello.length(v));
        }
    }

    /** {@code req.ssl_hello_type}/{@code res.ssl_hello_type}: the handshake type of the first record. */
    private record HelloType(boolean response) implements Fetch {
        @Override
        public Object get(Txn t) {
            ByteBuf b = held(t, response);
            return b == null ? null : result(t, TlsHello.helloType(b));
        }
    }

    /** A parser's answer as a sample: none (reporting "may change" when it was too short), or the integer. */
    private static Object result(Txn t, int code) {
        if (code >= 0) {
            return (long) code;
        }
        if (code == TlsHello.TOO_SHORT) {
            t.mayChange();
        }
        return null;
    }

    /** {@code req.ssl_ver}: the ClientHello's version, {@code major << 16 | minor}. */
    private static final Fetch VERSION = t -> {
        ByteBuf b = t.requestPayload();
        return b == null ? null : result(t, TlsHello.version(b, t.tune().maxHeadBytes()));
    };

    /** {@code req.ssl_ec_ext}: true when the hello has the elliptic curves extension. */
    private static final Fetch EC_EXTENSION = t -> {
        ByteBuf b = t.requestPayload();
        return b == null || result(t, TlsHello.ecExtension(b)) == null ? null : Boolean.TRUE;
    };

    /** {@code req.ssl_st_ext}: 0, 1 or 2 (no session ticket extension, an empty one, one with a ticket). */
    private static final Fetch ST_EXTENSION = t -> {
        ByteBuf b = t.requestPayload();
        return b == null ? null : result(t, TlsHello.sessionTicketExtension(b));
    };

    /** {@code req.ssl_sni}: the first host name of the server_name extension. */
    private static final Fetch SNI = t -> {
        ByteBuf b = t.requestPayload();
        if (b == null) {
            return null;
        }
        long name = TlsHello.sni(b);
        if (name < 0) {
            return result(t, (int) name);
        }
        return ByteBufChars.of(b, TlsHello.offset(name), TlsHello.length(name));
    };

    /**
     * {@code req.ssl_alpn}: the protocol names of the ALPN extension; an ACL tries each in turn (until one is
     * malformed), the sample is the first.
     */
    private static final class Alpn implements Fetch {
        @Override
        public Object get(Txn t) {
            Object[] first = new Object[1];
            any(t, v -> {
                first[0] = v;
                return true;
            });
            return first[0];
        }

        @Override
        public boolean any(Txn t, Predicate<Object> p) {
            ByteBuf b = t.requestPayload();
            if (b == null) {
                return false;
            }
            long names = TlsHello.alpn(b);
            if (names < 0) {
                result(t, (int) names);
                return false;
            }
            int end = TlsHello.length(names);
            for (int at = TlsHello.offset(names);;) {
                long name = TlsHello.alpnName(b, at, end);
                if (name < 0) {
                    result(t, (int) name);
                    return false;
                }
                if (p.test(ByteBufChars.of(b, TlsHello.offset(name), TlsHello.length(name)))) {
                    return true;
                }
                at = TlsHello.offset(name) + TlsHello.length(name);
                if (at >= end) {
                    return false;
                }
            }
        }
    }
}
