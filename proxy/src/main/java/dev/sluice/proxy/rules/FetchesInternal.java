package dev.sluice.proxy.rules;

import java.net.InetAddress;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * HAProxy 2.6's internal fetches (sample.c: constants, date, rand, hostname, process and thread numbers), the
 * connection aliases of {@code src}/{@code dst} (tcp_sample.c) and the response variants of the header fetches.
 * Registered by {@link Fetches}.
 */
final class FetchesInternal {
    private FetchesInternal() {
    }

    static void register() {
        Fetches.def("date", 0, 2, Match.INT, false, a -> {
            long offset = a.isEmpty() || a.get(0).isEmpty() ? 0 : Long.parseLong(a.get(0));
            String unit = a.size() > 1 ? a.get(1) : "s";
            return t -> {
                long now = System.currentTimeMillis();
                return switch (unit) {
                    case "ms" -> now + offset;
                    case "us" -> now * 1000 + offset;
                    default -> now / 1000 + offset;
                };
            };
        });
        Fetches.def("date_us", 0, 0, Match.INT, false, a -> t -> System.currentTimeMillis() % 1000 * 1000);
        // uuid([4]): a random (version 4) UUID, as HAProxy's ha_generate_uuid writes it; 4 is the only version 2.6 has
        Fetches.def("uuid", 0, 1, Match.STR, false, a -> {
            if (!a.isEmpty() && !a.get(0).equals("4")) {
                throw new IllegalArgumentException("Unsupported UUID version: '" + a.get(0) + "'");
            }
            // the version and variant bits of RFC 4122 over a thread's fast random numbers (no SecureRandom per request)
            return t -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                return new java.util.UUID((r.nextLong() & ~0xF000L) | 0x4000L, (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L)
                        .toString();
            };
        });
        Fetches.def("rand", 0, 1, Match.INT, false, a -> {
            long range = a.isEmpty() ? 1L << 32 : Long.parseLong(a.get(0));
            return t -> range <= 0 ? 0L : ThreadLocalRandom.current().nextLong(range);
        });
        Fetches.def("hostname", 0, 0, Match.STR, false, a -> t -> hostname());
        Fetches.def("nbproc", 0, 0, Match.INT, false, a -> t -> 1L);
        Fetches.def("proc", 0, 0, Match.INT, false, a -> t -> 1L);
        Fetches.def("thread", 0, 0, Match.INT, false, a -> t -> 0L);
        Fetches.def("ipv4", 1, 1, Match.IP, false, a -> constant(addr(a.get(0), 4)));
        Fetches.def("ipv6", 1, 1, Match.IP, false, a -> constant(addr(a.get(0), 16)));
        Fetches.def("meth", 1, 1, Match.STR, false, a -> constant(a.get(0)));
        Fetches.def("bin", 1, 1, Match.BIN, false, a -> {
            try {
                return constant(HexFormat.of().parseHex(a.get(0)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid hexadecimal string '" + a.get(0) + "'");
            }
        });
        Fetches.def("fc_src", 0, 0, Match.IP, false, a -> t -> t.clientAddress().getAddress());
        Fetches.def("fc_src_port", 0, 0, Match.INT, false, a -> t -> Fetches.port(t.clientAddress()));
        Fetches.def("fc_dst", 0, 0, Match.IP, false, a -> t -> t.frontendAddress().getAddress());
        Fetches.def("fc_dst_port", 0, 0, Match.INT, false, a -> t -> Fetches.port(t.frontendAddress()));
        Fetches.def("baseq", 0, 0, Match.STR, false, a -> t -> {
            CharSequence base = Fetches.base(t.request());
            CharSequence q = Fetches.query(t.request());
            return base == null || q == null ? base : base + "?" + q;
        });
        for (String n : new String[] {"res.hdr_val", "shdr_val"}) {
            Fetches.def(n, 1, 2, Match.INT, true, a -> cast(new Fetches.Header(true, a.get(0), occ(a), true), false));
        }
        for (String n : new String[] {"res.hdr_ip", "shdr_ip"}) {
            Fetches.def(n, 1, 2, Match.IP, true, a -> cast(new Fetches.Header(true, a.get(0), occ(a), true), true));
        }
        Fetches.def("res.fhdr_cnt", 0, 1, Match.INT, true, a -> new Fetches.HeaderCount(true, a.isEmpty() ? null : a.get(0), false));
        Fetches.def("req.hdrs", 0, 0, Match.STR, false, a -> t -> block(t.request()));
        Fetches.def("res.hdrs", 0, 0, Match.STR, true, a -> t -> block(t.response()));
        Fetches.def("req.hdrs_bin", 0, 0, Match.BIN, false, a -> t -> binary(t.request()));
        Fetches.def("res.hdrs_bin", 0, 0, Match.BIN, true, a -> t -> binary(t.response()));
        Fetches.def("res.hdr_names", 0, 1, Match.STR, true, a -> t -> {
            if (t.response() == null) {
                return null;
            }
            dev.sluice.proxy.http.HttpFields f = t.response().fields();
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < f.size(); i++) {
                sb.append(i > 0 ? a.isEmpty() ? "," : a.get(0) : "").append(f.name(i));
            }
            return sb.toString();
        });
        Fetches.def("urlp_val", 1, 2, Match.INT, false, a -> {
            Fetch p = Fetches.get("url_param").build().apply(a);
            return t -> Samples.integer(p.get(t));
        });
        Fetches.def("url_ip", 0, 0, Match.IP, false, a -> t -> urlAddress(t.request().target().toString(), true));
        Fetches.def("url_port", 0, 0, Match.INT, false, a -> t -> urlAddress(t.request().target().toString(), false));
        // base32, url32 (http_fetch.c): HAProxy's 32-bit hashes of the Host field and the path, alone or followed by the client address
        Fetches.def("base32", 0, 0, Match.INT, false, a -> t -> hash32(t.request(), false));
        Fetches.def("url32", 0, 0, Match.INT, false, a -> t -> hash32(t.request(), true));
        Fetches.def("base32+src", 0, 0, Match.BIN, false, a -> t -> withSource(hash32(t.request(), false), t));
        Fetches.def("url32+src", 0, 0, Match.BIN, false, a -> t -> withSource(hash32(t.request(), true), t));
        Fetches.def("resp_ver", 0, 0, Match.STR, true, a -> t -> t.response() == null ? null : Fetches.version(t.response()));
    }

    /**
     * smp_fetch_base32 / smp_fetch_url32: over the Host field (base32: its first comma-separated value; url32: all of it),
     * then the path when it starts with '/' (base32: up to '?'; url32: with the query), each byte a signed char added to
     * {@code hash * 65599}; then HAProxy's full_hash. Unsigned, as a 64-bit integer.
     */
    static Long hash32(dev.sluice.proxy.http.RequestHead r, boolean url) {
        int hash = 0;
        io.netty.util.AsciiString host = r.fields().get(dev.sluice.proxy.http.HeaderNames.HOST);
        if (host != null) {
            CharSequence h = host;
            if (!url) {
                int comma = host.indexOf(',', 0);
                h = comma < 0 ? host : host.subSequence(0, comma, false).trim();
            }
            for (int i = 0; i < h.length(); i++) {
                hash = (byte) h.charAt(i) + (hash << 6) + (hash << 16) - hash;
            }
        }
        io.netty.util.AsciiString target = r.target();
        int start = 0;
        if (target.length() > 0 && target.byteAt(0) != '/') {
            int scheme = target.indexOf("://", 0);
            start = scheme < 0 ? -1 : target.indexOf('/', scheme + 3);
        }
        if (start >= 0) {
            int end = target.length();
            if (!url) {
                int q = target.indexOf('?', start);
                end = q < 0 ? end : q;
            }
            for (int i = start; i < end; i++) {
                hash = target.byteAt(i) + (hash << 6) + (hash << 16) - hash;
            }
        }
        return Hashes.fullAvalanche(hash) & 0xFFFFFFFFL;
    }

    /** base32+src, url32+src: the hash, 4 bytes in network order, then the client's address (4 or 16 bytes). */
    private static byte[] withSource(Long hash, Txn t) {
        if (t.clientAddress() == null || t.clientAddress().getAddress() == null) {
            return null;
        }
        byte[] ip = t.clientAddress().getAddress().getAddress();
        byte[] b = new byte[4 + ip.length];
        int h = hash.intValue();
        b[0] = (byte) (h >>> 24);
        b[1] = (byte) (h >>> 16);
        b[2] = (byte) (h >>> 8);
        b[3] = (byte) h;
        System.arraycopy(ip, 0, b, 4, ip.length);
        return b;
    }

    /** {@code req.hdrs}/{@code res.hdrs}: the header block as HTTP/1 writes it, {@code name: value} CRLF each, then a CRLF. */
    private static String block(dev.sluice.proxy.http.MessageHead h) {
        if (h == null) {
            return null;
        }
        dev.sluice.proxy.http.HttpFields f = h.fields();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < f.size(); i++) {
            sb.append(f.name(i)).append(": ").append(f.value(i)).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    /**
     * {@code req.hdrs_bin}/{@code res.hdrs_bin}: each field as its name's length, the name, its value's length and the
     * value, the lengths in HAProxy's varint; two zero lengths end the list (HAProxy 2.6's smp_fetch_hdrs_bin).
     */
    static byte[] binary(dev.sluice.proxy.http.MessageHead h) {
        if (h == null) {
            return null;
        }
        dev.sluice.proxy.http.HttpFields f = h.fields();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(256);
        for (int i = 0; i < f.size(); i++) {
            byte[] n = f.name(i).toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            byte[] v = f.value(i).toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            varint(out, n.length);
            out.writeBytes(n);
            varint(out, v.length);
            out.writeBytes(v);
        }
        varint(out, 0);
        varint(out, 0);
        return out.toByteArray();
    }

    /** HAProxy's encode_varint: below 240 one byte; else the low bits with 240 set, then 7 bits a byte, 128 set while more follow. */
    static void varint(java.io.ByteArrayOutputStream out, long i) {
        if (i < 240) {
            out.write((int) i);
            return;
        }
        out.write((int) (i | 240) & 0xFF);
        i = (i - 240) >> 4;
        while (i >= 128) {
            out.write((int) (i | 128) & 0xFF);
            i = (i - 128) >> 7;
        }
        out.write((int) i);
    }

    /** url2sa's reading of an absolute {@code http://} URL whose host is an IPv4 literal: its address or port (80 by default). */
    private static Object urlAddress(String url, boolean ip) {
        if (!url.regionMatches(true, 0, "http://", 0, 7)) {
            return null;
        }
        int end = 7;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        String auth = url.substring(7, end);
        int colon = auth.indexOf(':');
        String host = colon < 0 ? auth : auth.substring(0, colon);
        if (!host.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return null;
        }
        InetAddress a = Samples.ip(host);
        if (a == null) {
            return null;
        }
        if (ip) {
            return a;
        }
        Long port = colon < 0 ? Long.valueOf(80) : Samples.parseLong(auth.substring(colon + 1));
        return port;
    }

    private static Fetch constant(Object v) {
        return t -> v;
    }

    private static Fetch cast(Fetch f, boolean ip) {
        return t -> ip ? Samples.ip(f.get(t)) : Samples.integer(f.get(t));
    }

    private static int occ(java.util.List<String> a) {
        return a.size() < 2 ? 0 : Integer.parseInt(a.get(1));
    }

    private static InetAddress addr(String s, int len) {
        InetAddress ip = Samples.ip(s);
        if (ip == null || ip.getAddress().length != len) {
            throw new IllegalArgumentException("'" + s + "' is not a valid " + (len == 4 ? "IPv4" : "IPv6") + " address");
        }
        return ip;
    }

    private static volatile String hostname;

    private static String hostname() {
        String h = hostname;
        if (h == null) {
            try {
                h = InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                h = "localhost";
            }
            hostname = h;
        }
        return h;
    }
}
