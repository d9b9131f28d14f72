package dev.sluice.proxy.cache;

import dev.sluice.proxy.http.HttpFields;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * HAProxy 2.6's secondary keys (cache.c's Vary support): a response's Vary may name {@code accept-encoding} and
 * {@code referer} only; the key of a request is 8 bytes, the bitmap of the encodings it accepts (little-endian) then the
 * CRC32 of its first Referer, each part zero when the Vary signature leaves it out. A stored response's key has the
 * bitmap of its own Content-Encoding instead, and serves a request whose bitmap has every bit of it. Stateless.
 */
public final class SecondaryKey {
    private SecondaryKey() {
    }

    public static final int VARY_ACCEPT_ENCODING = 1;
    public static final int VARY_REFERER = 2;
    /** Every part: the key a request gets before the response tells which parts count. */
    public static final int ALL = VARY_ACCEPT_ENCODING | VARY_REFERER;
    static final int LENGTH = 8;

    static final int GZIP = 1;
    static final int DEFLATE = 1 << 1;
    static final int BR = 1 << 2;
    static final int COMPRESS = 1 << 3;
    static final int AES128GCM = 1 << 4;
    static final int EXI = 1 << 5;
    static final int PACK200_GZIP = 1 << 6;
    static final int ZSTD = 1 << 7;
    static final int IDENTITY = 1 << 8;
    static final int STAR = 1 << 9;
    static final int OTHER = 1 << 10;

    private static final AsciiString VARY = AsciiString.cached("vary");
    private static final AsciiString ACCEPT_ENCODING = AsciiString.cached("accept-encoding");
    private static final AsciiString REFERER = AsciiString.cached("referer");
    private static final AsciiString CONTENT_ENCODING = AsciiString.cached("content-encoding");
    private static final int MAX_ENCODINGS = 16;

    /** The Vary signature of a response, or -1 when it names a field the cache does not process. */
    static int signature(HttpFields response) {
        int sig = 0;
        for (String v : Fields.elements(response, VARY)) {
            if (v.equalsIgnoreCase("accept-encoding")) {
                sig |= VARY_ACCEPT_ENCODING;
            } else if (v.equalsIgnoreCase("referer")) {
                sig |= VARY_REFERER;
            } else {
                return -1;
            }
        }
        return sig;
    }

    /** Whether the response has a Vary field at all. */
    static boolean varies(HttpFields response) {
        return response.contains(VARY);
    }

    /** The key of a request for the parts in {@code signature}, or null when it cannot have one (too many encodings). */
    public static byte[] of(HttpFields request, int signature) {
        byte[] key = new byte[LENGTH];
        if ((signature & VARY_ACCEPT_ENCODING) != 0) {
            long bitmap = acceptedEncodings(request.contains(ACCEPT_ENCODING) ? Fields.elements(request, ACCEPT_ENCODING) : null);
            if (bitmap < 0) {
                return null;
            }
            putInt(key, 0, (int) bitmap);
        }
        if ((signature & VARY_REFERER) != 0) {
            String ref = request.contains(REFERER) ? request.value(request.indexOf(REFERER)).toString() : null;
            if (ref != null) {
                CRC32 crc = new CRC32();
                crc.update(ref.getBytes(StandardCharsets.ISO_8859_1));
                putInt(key, 4, (int) crc.getValue());
            }
        }
        return key;
    }

    /** The key of a request reduced to the parts a response's signature keeps. */
    static byte[] reduce(byte[] full, int signature) {
        byte[] k = full.clone();
        if ((signature & VARY_ACCEPT_ENCODING) == 0) {
            putInt(k, 0, 0);
        }
        if ((signature & VARY_REFERER) == 0) {
            putInt(k, 4, 0);
        }
        return k;
    }

    /** The stored key: the request's, its encoding part replaced by the response's encodings; null for an unknown encoding. */
    static byte[] stored(byte[] requestKey, HttpFields response) {
        int bitmap = 0;
        for (String v : Fields.elements(response, CONTENT_ENCODING)) {
            int[] e = encoding(v.toLowerCase(Locale.ROOT));
            if (e == null) {
                return null;
            }
            bitmap |= e[0];
        }
        if (bitmap == 0) {
            bitmap = IDENTITY;
        }
        byte[] k = requestKey.clone();
        putInt(k, 0, bitmap);
        return k;
    }

    /** Whether a stored key serves a request's key: every stored encoding accepted, the same Referer. */
    static boolean matches(byte[] stored, byte[] request) {
        int ref = getInt(stored, 0);
        int req = getInt(request, 0);
        if ((ref & OTHER) != 0 || (ref & req) != ref) {
            return false;
        }
        return getInt(stored, 4) == getInt(request, 4);
    }

    /** The bitmap of the encodings a request accepts (32 bits); -1 when it lists too many to be trusted. */
    static long acceptedEncodings(List<String> values) {
        if (values == null) {
            // no Accept-Encoding: anything goes
            return 0xffffffffL;
        }
        int bitmap = IDENTITY;
        int refused = ~0;
        int count = 0;
        for (String v : values) {
            if (count >= MAX_ENCODINGS) {
                break;
            }
            count++;
            if (v.isEmpty()) {
                continue;
            }
            int[] e = encoding(v.toLowerCase(Locale.ROOT));
            if (e == null) {
                bitmap |= OTHER;
            } else if (e[1] == 1) {
                refused &= ~e[0];
            } else {
                bitmap |= e[0];
            }
        }
        if ((bitmap & STAR) != 0) {
            bitmap = ~0;
        }
        bitmap &= refused;
        if (count == MAX_ENCODINGS) {
            return -1;
        }
        return bitmap & 0xffffffffL;
    }

    private static final String[][] NAMES = {
        {"aes128gcm"}, {"br"}, {"compress"}, {"deflate"}, {"exi"}, {"gzip"}, {"identity"}, {"pack200-gzip"}, {"x-gzip", "x-compress"}, {"zstd"}};
    private static final int[][] BITS = {
        {AES128GCM}, {BR}, {COMPRESS}, {DEFLATE}, {EXI}, {GZIP}, {IDENTITY}, {PACK200_GZIP}, {GZIP, COMPRESS}, {ZSTD}};

    /**
     * HAProxy's parse_encoding_value: the encoding's bit (0 when the name is not one it knows, though its first letter is)
     * and whether its weight is exactly {@code q=0}; null when the value cannot be read (an unknown first letter, or
     * junk after the name).
     */
    static int[] encoding(String v) {
        if (v.isEmpty()) {
            return null;
        }
        int bit = 0;
        String rest = null;
        if (v.charAt(0) == '*') {
            bit = STAR;
            rest = v.substring(1);
        } else {
            int idx = -1;
            for (int i = 0; i < NAMES.length; i++) {
                if (NAMES[i][0].charAt(0) == v.charAt(0)) {
                    idx = i;
                }
            }
            if (idx < 0) {
                return null;
            }
            for (int j = 0; j < NAMES[idx].length && bit == 0; j++) {
                if (v.startsWith(NAMES[idx][j])) {
                    bit = BITS[idx][j];
                    rest = v.substring(NAMES[idx][j].length());
                }
            }
        }
        int nullWeight = 0;
        if (bit != 0) {
            rest = rest.stripLeading();
            if (!rest.isEmpty()) {
                if (rest.charAt(0) != ';') {
                    return null;
                }
                nullWeight = rest.substring(1).stripLeading().equals("q=0") ? 1 : 0;
            }
        }
        return new int[] {bit, nullWeight};
    }

    static void putInt(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }

    static int getInt(byte[] b, int off) {
        return b[off] & 0xff | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16 | (b[off + 3] & 0xff) << 24;
    }

    /** The key as {@code show cache} prints it. */
    static String hex(byte[] key) {
        StringBuilder sb = new StringBuilder(2 * LENGTH);
        for (int i = 0; i < LENGTH; i++) {
            sb.append(Character.forDigit((key[i] >> 4) & 0xf, 16)).append(Character.forDigit(key[i] & 0xf, 16));
        }
        return sb.toString();
    }
}
