package dev.sluice.proxy.fcgi;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * The head of a CGI response, the start of a FastCGI application's STDOUT: header lines without a status line, ended
 * by an empty line (CRLF or LF). As HAProxy 2.6 reads it (src/h1_htx.c, h1_postparse_res_hdrs; src/fcgi-app.c): the
 * status is the {@code Status} header's ("404 Not Found"), a {@code Location} header makes it 302 "Moved Temporarily"
 * (the last of the two wins), else 200 OK; the {@code Status} header is removed; a {@code Date} header is added when
 * there is none. Stateless.
 */
public final class CgiHead {
    private CgiHead() {
    }

    private static final AsciiString STATUS = AsciiString.cached("status");
    private static final AsciiString LOCATION = AsciiString.cached("location");
    private static final AsciiString TRANSFER_ENCODING = AsciiString.cached("transfer-encoding");
    private static final AsciiString DATE = AsciiString.cached("date");
    /** HAProxy's strftime("%a, %d %b %Y %T %Z") in UTC. */
    private static final java.time.format.DateTimeFormatter DATE_FORMAT = java.time.format.DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US);

    /** A head too large (more than this many bytes without its end) is refused, as a full buffer is by HAProxy. */
    public static final int MAX_HEAD = 16384;

    /**
     * Parses the head at the start of {@code in}: null when its end has not arrived yet (nothing consumed), else the
     * response (HTTP/1.1 for a request of HTTP/1.1 or later, HTTP/1.0 otherwise) with {@code in} moved past the head.
     * Throws {@link IllegalArgumentException} for a malformed head.
     */
    public static ResponseHead parse(ByteBuf in, boolean http11) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        int lineStart = start;
        HttpFields fields = new HttpFields(16);
        int status = 0;
        AsciiString reason = null;
        for (int i = start; i < end; i++) {
            if (in.getByte(i) != '\n') {
                continue;
            }
            int lineEnd = i > lineStart && in.getByte(i - 1) == '\r' ? i - 1 : i;
            if (lineEnd == lineStart) {
                in.readerIndex(i + 1);
                if (fields.indexOf(TRANSFER_ENCODING) >= 0) {
                    throw new IllegalArgumentException("transfer-encoding in a CGI response");
                }
                if (status == 0) {
                    status = 200;
                    reason = AsciiString.cached("OK");
                }
                fields.removeAll(STATUS);
                if (!fields.contains(DATE)) {
                    fields.add(DATE, new AsciiString(DATE_FORMAT.format(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC))));
                }
                return new ResponseHead(http11 ? HttpVersion.HTTP_1_1 : HttpVersion.HTTP_1_0, status, reason, fields);
            }
            String line = in.toString(lineStart, lineEnd - lineStart, StandardCharsets.ISO_8859_1);
            int colon = line.indexOf(':');
            if (colon <= 0 || !token(line, colon)) {
                throw new IllegalArgumentException("malformed CGI header line");
            }
            AsciiString name = new AsciiString(line.substring(0, colon));
            AsciiString value = new AsciiString(line.substring(colon + 1).strip());
            if (name.contentEqualsIgnoreCase(STATUS)) {
                String v = value.toString();
                int code = statusCode(v);
                if (code < 100) {
                    throw new IllegalArgumentException("bad Status header");
                }
                status = code;
                String r = v.length() > 3 ? v.substring(3).strip() : "";
                reason = new AsciiString(r.isEmpty() ? Status.reason(code).toString() : r);
            } else if (name.contentEqualsIgnoreCase(LOCATION)) {
                status = 302;
                reason = AsciiString.cached("Moved Temporarily");
            }
            fields.add(name.toLowerCase(), value);
            lineStart = i + 1;
        }
        if (end - start > MAX_HEAD) {
            throw new IllegalArgumentException("CGI response head too large");
        }
        return null;
    }

    /** The three digits starting a Status value, or -1. */
    private static int statusCode(String v) {
        if (v.length() < 3 || v.length() > 3 && v.charAt(3) != ' ') {
            return -1;
        }
        int code = 0;
        for (int i = 0; i < 3; i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            code = code * 10 + (c - '0');
        }
        return code;
    }

    private static boolean token(String line, int end) {
        for (int i = 0; i < end; i++) {
            char c = line.charAt(i);
            if (c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** Content-Length from the head, or -1 when there is none or it is not a plain number. */
    public static long contentLength(ResponseHead head) {
        AsciiString v = head.fields().get(HeaderNames.CONTENT_LENGTH);
        if (v == null || v.isEmpty()) {
            return -1;
        }
        try {
            return Long.parseLong(v.toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
