package dev.sluice.proxy.http.h1;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Writes heads, chunk framing and trailers in HTTP/1.1 syntax. Field names are written as the model holds
 * them (lower-case, as HAProxy sends them). Stateless.
 */
public final class H1Encoder {
    private H1Encoder() {
    }

    private static final byte[] HTTP11_SP = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' '};
    private static final byte[] SP_HTTP11_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n'};
    private static final byte[] SP_HTTP10_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '0', '\r', '\n'};
    private static final byte[] COLON_SP = {':', ' '};
    private static final byte[] CRLF = {'\r', '\n'};
    public static final byte[] TE_CHUNKED = "transfer-encoding: chunked\r\n".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] CONNECTION_CLOSE = "connection: close\r\n".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] CONNECTION_KEEP_ALIVE = "connection: keep-alive\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION_UPGRADE = "connection: upgrade\r\nupgrade: ".getBytes(StandardCharsets.US_ASCII);

    /** The {@code connection: upgrade} and {@code upgrade: <protocol>} lines of an HTTP/1 upgrade. */
    public static byte[] upgradeLines(AsciiString protocol) {
        byte[] out = new byte[CONNECTION_UPGRADE.length + protocol.length() + 2];
        System.arraycopy(CONNECTION_UPGRADE, 0, out, 0, CONNECTION_UPGRADE.length);
        System.arraycopy(protocol.array(), protocol.arrayOffset(), out, CONNECTION_UPGRADE.length, protocol.length());
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return out;
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

    private static void writeFields(ByteBuf out, HttpFields f) {
        for (int i = 0; i < f.size(); i++) {
            writeAscii(out, f.name(i));
            out.writeBytes(COLON_SP);
            writeAscii(out, f.value(i));
            out.writeBytes(CRLF);
        }
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
        writeFields(out, f);
        if (extra1 != null) {
            out.writeBytes(extra1);
        }
        if (extra2 != null) {
            out.writeBytes(extra2);
        }
        out.writeBytes(CRLF);
        return out;
    }

    /** {@code HTTP/1.1 <status> <reason>}, the fields, then the extra lines (already CRLF-terminated). */
    public static ByteBuf response(ByteBufAllocator alloc, ResponseHead h, byte[] extra1, byte[] extra2, int bodyReserve) {
        HttpFields f = h.fields();
        AsciiString reason = h.reason();
        int size = 16 + reason.length() + fieldsSize(f) + len(extra1) + len(extra2) + bodyReserve;
        ByteBuf out = alloc.directBuffer(size);
        out.writeBytes(HTTP11_SP);
        int s = h.status();
        out.writeByte('0' + s / 100 % 10).writeByte('0' + s / 10 % 10).writeByte('0' + s % 10);
        out.writeByte(' ');
        writeAscii(out, reason);
        out.writeBytes(CRLF);
        writeFields(out, f);
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
            writeFields(out, trailers);
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
