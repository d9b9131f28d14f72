package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HopByHop;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Writes heads, chunk framing and trailers in HTTP/1.1 syntax. Field names are written as the model holds
 * them (lower-case, as HAProxy sends them). The hop-by-hop fields go as HAProxy 2.6's mux_h1 writes them: a Connection
 * field without its close and keep-alive tokens (not at all when nothing is left), a TE field as "trailers" or not at
 * all ({@link HopByHop#teValue}), the others as they are; the Connection line the proxy adds itself (close, keep-alive)
 * is the caller's, after reading {@link #connectionTokens}. Stateless.
 */
public final class H1Encoder {
    private H1Encoder() {
    }

    private static final byte[] HTTP11_SP = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' '};
    private static final byte[] HTTP10_SP = {'H', 'T', 'T', 'P', '/', '1', '.', '0', ' '};
    private static final byte[] SP_HTTP11_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n'};
    private static final byte[] SP_HTTP10_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '0', '\r', '\n'};
    private static final byte[] COLON_SP = {':', ' '};
    private static final byte[] CRLF = {'\r', '\n'};
    public static final byte[] TE_CHUNKED = "transfer-encoding: chunked\r\n".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] CONNECTION_CLOSE = "connection: close\r\n".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] CONNECTION_KEEP_ALIVE = "connection: keep-alive\r\n".getBytes(StandardCharsets.US_ASCII);

    /** {@link #connectionTokens}: a close, keep-alive or upgrade token in the Connection fields. */
    public static final int CLOSE_TOKEN = ConnectionFields.CLOSE_TOKEN;
    public static final int KEEP_ALIVE_TOKEN = ConnectionFields.KEEP_ALIVE_TOKEN;
    public static final int UPGRADE_TOKEN = ConnectionFields.UPGRADE_TOKEN;

    /**
     * The close, keep-alive and upgrade tokens of the Connection fields of a head about to be written, or-ed: what
     * HAProxy's mux_h1 reads of them on the way out. An upgrade token means no Connection line of the proxy's own; a
     * close one (a rule's) that the connection closes after the exchange. A parsed head has only the upgrade token
     * left ({@link ConnectionFields}); the others come from rules.
     */
    public static int connectionTokens(HttpFields f) {
        int t = 0;
        for (int i = 0; i < f.size(); i++) {
            if (isConnection(f.name(i))) {
                t |= ConnectionFields.tokens(f.value(i));
            }
        }
        return t;
    }

    private static boolean isConnection(AsciiString name) {
        return name.length() == 10 && name.contentEquals(HeaderNames.CONNECTION);
    }

    private static final byte[] LAST_CHUNK = {'0', '\r', '\n'};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private static int fieldsSize(HttpFields f) {
        int n = 0;
        for (int i = 0; i < f.size(); i++) {
            n += f.name(i).length() + f.value(i).length() + 4;
        }
        return n;
    }

    private static void writeAscii(ByteBuf out, AsciiString s) {
        if (s.isEntireArrayUsed()) {
            out.writeBytes(s.array());
        } else {
            out.writeBytes(s.array(), s.arrayOffset(), s.length());
        }
    }

    /** The fields of a head ({@code head}: TE and Connection as HAProxy writes them) or of trailers (as they are). */
    private static void writeFields(ByteBuf out, HttpFields f, boolean head) {
        for (int i = 0; i < f.size(); i++) {
            AsciiString name = f.name(i);
            AsciiString value = head ? headValue(name, f.value(i)) : f.value(i);
            if (value == null) {
                continue;
            }
            writeAscii(out, name);
            out.writeBytes(COLON_SP);
            writeAscii(out, value);
            out.writeBytes(CRLF);
        }
    }

    /** What a head's field is written with: TE reduced, Connection cleaned; null when it is not written. */
    private static AsciiString headValue(AsciiString name, AsciiString value) {
        if (HopByHop.isTe(name)) {
            return HopByHop.teValue(value);
        }
        if (isConnection(name)) {
            AsciiString kept = ConnectionFields.cleaned(value);
            return kept.isEmpty() ? null : kept;
        }
        return value;
    }

    /** {@code <method> <target> HTTP/1.1}, the fields, then the extra lines (already CRLF-terminated). */
    public static ByteBuf request(ByteBufAllocator alloc, RequestHead h, byte[] extra1, byte[] extra2) {
        return request(alloc, h, false, extra1, extra2);
    }

    /** The same, with {@code HTTP/1.0} in the request line when {@code http10}. */
    public static ByteBuf request(ByteBufAllocator alloc, RequestHead h, boolean http10, byte[] extra1, byte[] extra2) {
        HttpFields f = h.fields();
        int size = h.method().length() + h.target().length() + 16 + fieldsSize(f) + len(extra1) + len(extra2);
        ByteBuf out = alloc.directBuffer(size);
        writeAscii(out, h.method());
        out.writeByte(' ');
        writeAscii(out, h.target());
        out.writeBytes(http10 ? SP_HTTP10_CRLF : SP_HTTP11_CRLF);
        writeFields(out, f, true);
        if (extra1 != null) {
            out.writeBytes(extra1);
        }
        if (extra2 != null) {
            out.writeBytes(extra2);
        }
        out.writeBytes(CRLF);
        return out;
    }

    /**
     * {@code HTTP/1.1 <status> <reason>} ({@code HTTP/1.0} for an HTTP/1.0 server's response, which HAProxy relays with
     * its version: h1_format_htx_stline), the fields, then the extra lines (already CRLF-terminated).
     */
    public static ByteBuf response(ByteBufAllocator alloc, ResponseHead h, byte[] extra1, byte[] extra2, int bodyReserve) {
        HttpFields f = h.fields();
        AsciiString reason = h.reason();
        int size = 16 + reason.length() + fieldsSize(f) + len(extra1) + len(extra2) + bodyReserve;
        ByteBuf out = alloc.directBuffer(size);
        out.writeBytes(h.version() == HttpVersion.HTTP_1_0 ? HTTP10_SP : HTTP11_SP);
        int s = h.status();
        out.writeByte('0' + s / 100 % 10).writeByte('0' + s / 10 % 10).writeByte('0' + s % 10);
        out.writeByte(' ');
        writeAscii(out, reason);
        out.writeBytes(CRLF);
        writeFields(out, f, true);
        if (extra1 != null) {
            out.writeBytes(extra1);
        }
        if (extra2 != null) {
            out.writeBytes(extra2);
        }
        out.writeBytes(CRLF);
        return out;
    }

    private static int len(byte[] b) {
        return b == null ? 0 : b.length;
    }

    /**
     * The framing before a chunk of {@code size} bytes: the CRLF closing the previous chunk when there was
     * one, the size in hex and CRLF.
     */
    public static ByteBuf chunkHeader(ByteBufAllocator alloc, int size, boolean afterChunk) {
        ByteBuf out = alloc.directBuffer(12);
        if (afterChunk) {
            out.writeBytes(CRLF);
        }
        int shift = 28;
        while (shift > 0 && ((size >>> shift) & 0xf) == 0) {
            shift -= 4;
        }
        for (; shift >= 0; shift -= 4) {
            out.writeByte(HEX[(size >>> shift) & 0xf]);
        }
        out.writeBytes(CRLF);
        return out;
    }

    /** The end of a chunked body: closes the last chunk, the zero-size chunk, trailers, empty line. */
    public static ByteBuf lastChunk(ByteBufAllocator alloc, boolean afterChunk, HttpFields trailers) {
        int size = 7 + (trailers == null ? 0 : fieldsSize(trailers));
        ByteBuf out = alloc.directBuffer(size);
        if (afterChunk) {
            out.writeBytes(CRLF);
        }
        out.writeBytes(LAST_CHUNK);
        if (trailers != null) {
            writeFields(out, trailers, false);
        }
        out.writeBytes(CRLF);
        return out;
    }

    /** Copies a generated body after its head in one buffer. */
    public static void appendBody(ByteBuf out, byte[] body) {
        if (body != null) {
            out.writeBytes(body);
        }
    }

    public static String debug(ByteBuf b) {
        return ByteBufUtil.prettyHexDump(b);
    }
}
