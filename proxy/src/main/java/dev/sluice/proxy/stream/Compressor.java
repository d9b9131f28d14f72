package dev.sluice.proxy.stream;

import dev.sluice.config.model.Compression;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.stats.Counters;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.AsciiString;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * HTTP response compression ({@code compression algo|type|offload}), HAProxy 2.6's rules: the algorithm is chosen on
 * the request (the Accept-Encoding token with the best q-value among the configured ones, {@code *} taking the first;
 * {@code identity} when configured and nothing else matched), and used on the response when it qualifies (see
 * {@link #start}). Bodies go through the JDK's zlib at level 1 (HAProxy's {@code tune.comp.maxlevel} default), flushed
 * with each piece received so that a streamed response keeps streaming. One per compressed response, on its stream's
 * loop; {@link #release} frees the native zlib state and must be called once, on every path.
 */
public final class Compressor {
    private static final AsciiString ACCEPT_ENCODING = AsciiString.cached("accept-encoding");
    private static final AsciiString CONTENT_ENCODING = AsciiString.cached("content-encoding");
    private static final AsciiString ETAG = AsciiString.cached("etag");
    private static final AsciiString VARY = AsciiString.cached("vary");
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
    private static final AsciiString VARY_VALUE = AsciiString.cached("Accept-Encoding");
    private static final String NO_TRANSFORM = "no-transform";
    /** gzip's member header as zlib writes it: no name, no time, the level's extra flags (set below), Unix. */
    private static final byte[] GZIP_HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    /** Where the extra flags go: 4 "fastest" at level 1, 2 "best" at level 9, else 0, as zlib sets them. */
    private static final int GZIP_XFL = 8;

    private final String algo;
    private final int level;
    private final Deflater deflater;
    private final CRC32 crc;
    private boolean headerSent;
    private ByteBufAllocator alloc;
    private long in;
    private long out;

    private Compressor(String algo, int level) {
        this.algo = algo;
        this.level = level;
        this.deflater = algo.equals("identity") ? null : new Deflater(level, !algo.equals("deflate"));
        this.crc = algo.equals("gzip") ? new CRC32() : null;
    }

    /** The algorithms a stream may use: the backend's when it has some, else the frontend's (null: none), as HAProxy. */
    private static List<String> algos(Compression backend, Compression frontend) {
        if (backend != null && !backend.algos().isEmpty()) {
            return backend.algos();
        }
        return frontend != null ? frontend.algos() : null;
    }

    /** The content types compressed: the backend's when it lists some, else the frontend's (empty: every type). */
    private static List<String> types(Compression backend, Compression frontend) {
        if (backend != null && !backend.types().isEmpty()) {
            return backend.types();
        }
        return frontend != null ? frontend.types() : List.of();
    }

    /**
     * The algorithm to use for this request under the backend's and the frontend's settings (either null), or null: the
     * Accept-Encoding token of the highest q-value that names an algorithm of theirs ({@code *}: the last configured, as
     * HAProxy lists them), else {@code identity} when it is configured. Old "Mozilla/4" user agents (not MSIE 6 SP2 or
     * later) get none, as in HAProxy. With {@code offload} (on either), an algorithm found removes every Accept-Encoding
     * field from the request. Reads the fields in place: nothing is copied.
     */
    public static String select(Compression backend, Compression frontend, RequestHead request) {
        List<String> algos = algos(backend, frontend);
        if (algos == null || algos.isEmpty()) {
            return null;
        }
        HttpFields f = request.fields();
        AsciiString ua = f.get(USER_AGENT);
        if (ua != null && oldMozilla(ua)) {
            return null;
        }
        String chosen = null;
        int best = 0;
        for (int i = f.indexOf(ACCEPT_ENCODING, 0); i >= 0; i = f.indexOf(ACCEPT_ENCODING, i + 1)) {
            AsciiString v = f.value(i);
            for (long e = HttpFields.nextElement(v, 0); e >= 0; e = HttpFields.nextElement(v, (int) e)) {
                int from = (int) (e >>> 32);
                int to = (int) e;
                int semi = v.indexOf(';', from);
                int tokenEnd = semi < 0 || semi >= to ? to : semi;
                while (tokenEnd > from && (v.byteAt(tokenEnd - 1) == ' ' || v.byteAt(tokenEnd - 1) == '\t')) {
                    tokenEnd--;
                }
                int q = tokenEnd == to ? 1000 : qvalue(v, tokenEnd, to);
                if (q <= best) {
                    continue;
                }
                boolean star = tokenEnd - from == 1 && v.byteAt(from) == '*';
                // HAProxy keeps its algorithms last configured first: "*" takes the last one, as does a name two share
                for (int k = algos.size() - 1; k >= 0; k--) {
                    String a = algos.get(k);
                    String name = uaName(a);
                    if (star || tokenEnd - from == name.length() && v.regionMatches(true, from, name, 0, name.length())) {
                        chosen = a;
                        best = q;
                        break;
                    }
                }
            }
        }
        if (chosen != null) {
            if (backend != null && backend.offload() || frontend != null && frontend.offload()) {
                f.removeAll(ACCEPT_ENCODING);
            }
            return chosen;
        }
        return algos.contains("identity") ? "identity" : null;
    }

    /** The name a client uses for an algorithm in Accept-Encoding (raw-deflate is offered as "deflate"). */
    private static String uaName(String algo) {
        return algo.equals("raw-deflate") ? "deflate" : algo;
    }

    /** The q-value of an element's parameters, in thousandths (1000 when absent, 0 when invalid). */
    static int qvalue(CharSequence params) {
        return qvalue(params, 0, params.length());
    }

    /**
     * The q-value of the parameters in {@code s} between {@code from} and {@code to} ({@code ;}-separated), in thousandths:
     * 1000 when there is none, 0 when it is not a decimal number between 0 and 1.
     */
    static int qvalue(CharSequence s, int from, int to) {
        int i = from;
        while (i < to) {
            while (i < to && (s.charAt(i) == ';' || s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
                i++;
            }
            int end = i;
            while (end < to && s.charAt(end) != ';') {
                end++;
            }
            if (end - i >= 2 && (s.charAt(i) == 'q' || s.charAt(i) == 'Q') && s.charAt(i + 1) == '=') {
                return thousandths(s, i + 2, end);
            }
            i = end;
        }
        return 1000;
    }

    /** A decimal number between 0 and 1 ({@code d[.ddd...]}, spaces around) in thousandths, rounded; 0 when it is not one. */
    private static int thousandths(CharSequence s, int from, int to) {
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        if (from == to || !Character.isDigit(s.charAt(from))) {
            return 0;
        }
        long whole = 0;
        int i = from;
        while (i < to && Character.isDigit(s.charAt(i)) && whole <= 1) {
            whole = whole * 10 + (s.charAt(i++) - '0');
        }
        long frac = 0;
        int digits = 0;
        boolean roundUp = false;
        if (i < to && s.charAt(i) == '.') {
            i++;
            for (; i < to && Character.isDigit(s.charAt(i)); i++) {
                if (digits < 3) {
                    frac = frac * 10 + (s.charAt(i) - '0');
                    digits++;
                } else if (digits == 3) {
                    roundUp = s.charAt(i) >= '5';
                    digits++;
                }
            }
        }
        if (i != to) {
            return 0;
        }
        for (; digits < 3; digits++) {
            frac *= 10;
        }
        long q = whole * 1000 + frac + (roundUp ? 1 : 0);
        return q > 1000 ? 0 : (int) q;
    }

    /** HAProxy's test: "Mozilla/4" agents compress only when they are MSIE 6 with SV1 (XP SP2) or MSIE 7 and later. */
    static boolean oldMozilla(CharSequence ua) {
        if (!at(ua, 0, "Mozilla/4")) {
            return false;
        }
        if (ua.length() < 31 || !at(ua, 25, "MSIE ")) {
            return true;
        }
        char v = ua.charAt(30);
        return v < '6' || v == '6' && (ua.length() < 54 || !at(ua, 51, "SV1"));
    }

    /** Whether {@code s} holds {@code literal} at {@code i}. */
    private static boolean at(CharSequence s, int i, String literal) {
        if (s.length() < i + literal.length()) {
            return false;
        }
        for (int k = 0; k < literal.length(); k++) {
            if (s.charAt(i + k) != literal.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code response} is to be compressed with {@code algo} (chosen on the request; null: none), as HAProxy 2.6's
     * compression filter decides on the response as the server sent it, before the response rules: status 200 to 203, a
     * request of HTTP/1.1 or later that is not HEAD, a body that is not empty, no Content-Encoding, no Cache-Control
     * no-transform, a Content-Type that is not multipart and, when types are configured, starts with one of them (none
     * when there is no Content-Type then), at most one ETag and a valid one. Changes nothing: see {@link #start}.
     */
    public static boolean eligible(String algo, Compression backend, Compression frontend, RequestHead request, ResponseHead response) {
        if (algo == null || request.version() == HttpVersion.HTTP_1_0 || response.version() == HttpVersion.HTTP_1_0 || request.isHead()) {
            return false;
        }
        int status = response.status();
        if (status < 200 || status > 203 || !response.hasBody()) {
            return false;
        }
        HttpFields f = response.fields();
        if (f.contains(CONTENT_ENCODING)) {
            return false;
        }
        for (int i = f.indexOf(HeaderNames.CACHE_CONTROL, 0); i >= 0; i = f.indexOf(HeaderNames.CACHE_CONTROL, i + 1)) {
            AsciiString v = f.value(i);
            for (long e = HttpFields.nextElement(v, 0); e >= 0; e = HttpFields.nextElement(v, (int) e)) {
                int from = (int) (e >>> 32);
                if ((int) e - from == NO_TRANSFORM.length() && v.regionMatches(true, from, NO_TRANSFORM, 0, NO_TRANSFORM.length())) {
                    return false;
                }
            }
        }
        List<String> types = types(backend, frontend);
        AsciiString type = f.get(HeaderNames.CONTENT_TYPE);
        if (type != null) {
            if (type.length() >= 9 && type.regionMatches(true, 0, "multipart", 0, 9)) {
                return false;
            }
            if (!types.isEmpty() && !listed(type, types)) {
                return false;
            }
        } else if (!types.isEmpty()) {
            return false;
        }
        int etag = f.indexOf(ETAG, 0);
        if (etag >= 0) {
            if (f.indexOf(ETAG, etag + 1) >= 0) {
                return false;
            }
            AsciiString v = f.value(etag);
            boolean weak = v.length() >= 2 && v.charAt(0) == 'W' && v.charAt(1) == '/';
            AsciiString tag = weak ? v.subSequence(2, v.length(), false) : v;
            if (tag.length() < 2 || tag.charAt(0) != '"' || tag.charAt(tag.length() - 1) != '"') {
                return false;
            }
        }
        return true;
    }

    /**
     * Starts compressing {@code response} (after {@link #eligible} said so and the response rules ran, as HAProxy sets its
     * headers then): the head loses its Content-Length (the body is streamed), a strong ETag becomes weak, and it gains
     * {@code Vary: Accept-Encoding} and {@code Content-Encoding} (not for identity).
     */
    public static Compressor start(String algo, Compression backend, Compression frontend, ResponseHead response) {
        HttpFields f = response.fields();
        int etag = f.indexOf(ETAG, 0);
        if (etag >= 0 && f.value(etag).length() > 0 && f.value(etag).charAt(0) == '"') {
            f.setValue(etag, AsciiString.of("W/" + f.value(etag)));
        }
        f.removeAll(HeaderNames.CONTENT_LENGTH);
        response.bodyStreamed();
        f.add(VARY, VARY_VALUE);
        if (!algo.equals("identity")) {
            f.add(CONTENT_ENCODING, AsciiString.of(uaName(algo)));
        }
        // tune.comp.maxlevel: the same in both, as it is global
        return new Compressor(algo, frontend != null ? frontend.level() : backend.level());
    }

    /** Whether {@code type} starts with one of {@code types}, in any case. */
    private static boolean listed(AsciiString type, List<String> types) {
        for (String t : types) {
            if (type.length() >= t.length() && type.regionMatches(true, 0, t, 0, t.length())) {
                return true;
            }
        }
        return false;
    }

    /** Whether the data really is compressed (identity only passes it on). */
    public boolean compressing() {
        return deflater != null;
    }

    /** Adds what went through to {@code c}: comp_in and comp_out when compressing, comp_byp for identity. */
    void count(Counters c) {
        if (compressing()) {
            c.add(Counter.COMP_IN, in);
            c.add(Counter.COMP_OUT, out);
        } else {
            c.add(Counter.COMP_BYP, in);
        }
    }

    /** Body bytes received so far. */
    public long bytesIn() {
        return in;
    }

    /** Body bytes sent so far. */
    public long bytesOut() {
        return out;
    }

    /** Compresses a piece of body and flushes it; takes ownership of {@code data}. The result may be empty. */
    public ByteBuf compress(ByteBufAllocator alloc, ByteBuf data) {
        int n = data.readableBytes();
        in += n;
        if (deflater == null) {
            out += n;
            return data;
        }
        this.alloc = alloc;
        try {
            ByteBuffer src = data.nioBuffer();
            if (crc != null) {
                crc.update(src.duplicate());
            }
            deflater.setInput(src);
            ByteBuf b = alloc.buffer(n / 2 + 64);
            header(b);
            drain(b, Deflater.SYNC_FLUSH);
            out += b.readableBytes();
            return b;
        } finally {
            data.release();
        }
    }

    /** The end of the compressed body (with gzip's trailer); null for identity. {@code fallback}: when no body came. */
    public ByteBuf finish(ByteBufAllocator fallback) {
        if (deflater == null) {
            return null;
        }
        ByteBuf b = (alloc != null ? alloc : fallback).buffer(64);
        header(b);
        deflater.finish();
        drain(b, Deflater.NO_FLUSH);
        if (crc != null) {
            b.writeIntLE((int) crc.getValue());
            b.writeIntLE((int) in);
        }
        out += b.readableBytes();
        return b;
    }

    private void header(ByteBuf b) {
        if (!headerSent) {
            headerSent = true;
            if (crc != null) {
                int at = b.writerIndex();
                b.writeBytes(GZIP_HEADER);
                b.setByte(at + GZIP_XFL, level == 9 ? 2 : level < 2 ? 4 : 0);
            }
        }
    }

    /** Runs the deflater until it has nothing more to give for the input it has (finished, or flushed). */
    private void drain(ByteBuf b, int flush) {
        while (true) {
            b.ensureWritable(256);
            ByteBuffer dst = b.nioBuffer(b.writerIndex(), b.writableBytes());
            int room = dst.remaining();
            int w = deflater.deflate(dst, flush);
            b.writerIndex(b.writerIndex() + w);
            if (deflater.finished() || (w < room && deflater.needsInput())) {
                return;
            }
        }
    }

    /** Frees zlib's native state; once, whatever happened to the response. */
    public void release() {
        if (deflater != null) {
            deflater.end();
        }
    }

    @Override
    public String toString() {
        return algo;
    }
}
