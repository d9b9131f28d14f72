package dev.sluice.proxy.stats;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@code show errors} prints: the last invalid HTTP/1 message of a proxy, as HAProxy keeps one per
 * frontend (requests) and per backend (responses). Captured at the two HTTP/1 choke points where a message
 * is rejected (the bytes of the message as received, up to {@code tune.bufsize}, and where the parser
 * stopped); HTTP/2 rejections are counted but carry no bytes to show, as in HAProxy. Immutable; the proxy
 * keeps the latest in a volatile field (a rare event, written by the loop that saw it).
 */
public final class ErrorCapture {
    /** HAProxy's buffer size and where its buffer wraps (the buffer less the HTX header). */
    private static final int BUFSIZE = 16384;
    private static final int WRAP = 16336;
    /** HAProxy's error_snapshot_id: events captured since the start, which numbers them. */
    private static final AtomicInteger EVENTS = new AtomicInteger();
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss.SSS", Locale.ROOT)
            .withZone(ZoneId.systemDefault());

    private ErrorCapture() {
    }

    /** Events captured since the start ({@code Total events captured on [..] : N}). */
    public static int total() {
        return EVENTS.get();
    }

    /**
     * One captured message. {@code request} tells the direction; {@code proxy}/{@code proxyId} is the proxy
     * that holds it (the frontend for a request, the backend for a response), {@code other}/{@code otherId}
     * the proxy on the other side (null/-1 when none), {@code server}/{@code serverId} the server (null/-1).
     */
    public record Event(long date, boolean request, String proxy, int proxyId, String other, int otherId, String server, int serverId,
            int number, InetSocketAddress source, byte[] bytes, int errorAt) {

        /** HAProxy's dump of one event: a header, then the message cut into escaped lines of at most 80 columns. */
        public void dump(StringBuilder out) {
            out.append(" \n[").append(DATE.format(Instant.ofEpochMilli(date))).append("] ").append(request ? "frontend " : "backend ")
                    .append(proxy).append(" (#").append(proxyId).append("): invalid ").append(request ? "request" : "response").append('\n');
            out.append("  ").append(request ? "backend " : "frontend ").append(other == null ? "<NONE>" : other).append(" (#").append(otherId)
                    .append("), server ").append(server == null ? "<NONE>" : server).append(" (#").append(serverId).append("), event #")
                    .append(number).append(", src ").append(address(source)).append('\n');
            out.append("  buffer starts at 0 (including 0 out), ").append(BUFSIZE - bytes.length).append(" free,\n");
            out.append("  len ").append(bytes.length).append(", wraps at ").append(WRAP).append(", error at position ").append(errorAt).append('\n');
            out.append("  \n");
            int ptr = 0;
            int line = 0;
            while (ptr < bytes.length) {
                int before = ptr;
                int[] state = {line};
                ptr = textLine(out, bytes, ptr, state);
                line = state[0];
                if (ptr == before) {
                    break;
                }
            }
        }
    }

    /** Makes the event for a message just rejected, numbering it. */
    public static Event capture(boolean request, String proxy, int proxyId, String other, int otherId, String server, int serverId,
            InetSocketAddress source, ByteBuf buf, int from, int errorAt) {
        int n = 0;
        byte[] bytes = new byte[0];
        if (buf != null && buf.refCnt() > 0 && from >= 0 && from <= buf.writerIndex()) {
            n = Math.min(BUFSIZE, buf.writerIndex() - from);
            bytes = new byte[n];
            buf.getBytes(from, bytes);
        }
        return new Event(System.currentTimeMillis(), request, proxy, proxyId, other, otherId, server, serverId, EVENTS.getAndIncrement(), source,
                bytes, Math.max(0, Math.min(errorAt, n)));
    }

    /**
     * HAProxy's {@code dump_text_line}: {@code "  %05d%c "} (a '+' when the line continues one cut at 80
     * columns), printable ASCII as is, {@code \t \n \r \e \\} escaped, other bytes as {@code \xHH}; a line
     * ends after a line feed. Returns where the next line starts; {@code line[0]} is where the current text
     * line began.
     */
    static int textLine(StringBuilder out, byte[] buf, int ptr, int[] line) {
        int startLen = out.length();
        int end = startLen + 80;
        out.append(String.format("  %05d%c ", ptr, ptr == line[0] ? ' ' : '+'));
        while (ptr < buf.length) {
            int c = buf[ptr] & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                if (out.length() > end - 2) {
                    break;
                }
                out.append((char) c);
            } else if (c == '\t' || c == '\n' || c == '\r' || c == 0x1b || c == '\\') {
                if (out.length() > end - 3) {
                    break;
                }
                out.append('\\').append(switch (c) {
                    case '\t' -> 't';
                    case '\n' -> 'n';
                    case '\r' -> 'r';
                    case 0x1b -> 'e';
                    default -> '\\';
                });
            } else {
                if (out.length() > end - 5) {
                    break;
                }
                out.append("\\x").append(Character.toUpperCase(Character.forDigit(c >> 4, 16))).append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
            if (buf[ptr++] == '\n') {
                out.append('\n');
                line[0] = ptr;
                return ptr;
            }
        }
        out.append('\n');
        return ptr;
    }

    private static String address(InetSocketAddress a) {
        if (a == null || a.getAddress() == null) {
            return "?";
        }
        String ip = a.getAddress().getHostAddress();
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + a.getPort();
    }
}
