package dev.sluice.regtests;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Minimal HTTP/1.1 reading shared by the test origin and the raw client: heads, fixed and chunked bodies. */
final class Http1 {
    private Http1() {
    }

    /** A parsed head: the first line and the fields in order (names as received). */
    record Head(String startLine, List<String[]> fields) {
        String get(String name) {
            for (String[] f : fields) {
                if (f[0].equalsIgnoreCase(name)) {
                    return f[1];
                }
            }
            return null;
        }

        List<String> all(String name) {
            List<String> out = new ArrayList<>();
            for (String[] f : fields) {
                if (f[0].equalsIgnoreCase(name)) {
                    out.add(f[1]);
                }
            }
            return out;
        }

        boolean has(String name) {
            return get(name) != null;
        }
    }

    /** Reads one CRLF- or LF-terminated line; null at end of stream before any byte. */
    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        boolean any = false;
        while ((c = in.read()) != -1) {
            any = true;
            if (c == '\n') {
                break;
            }
            b.write(c);
        }
        if (!any) {
            return null;
        }
        if (c == -1) {
            throw new EOFException("truncated line: " + b.toString(StandardCharsets.ISO_8859_1));
        }
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /** Reads a head; null when the stream ends before it starts. */
    static Head readHead(InputStream in) throws IOException {
        String first = readLine(in);
        if (first == null) {
            return null;
        }
        List<String[]> fields = new ArrayList<>();
        String line;
        while ((line = readLine(in)) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            fields.add(new String[] {line.substring(0, colon), line.substring(colon + 1).trim()});
        }
        return new Head(first, fields);
    }

    static byte[] readFixed(InputStream in, long n) throws IOException {
        byte[] b = in.readNBytes((int) n);
        if (b.length != n) {
            throw new EOFException("body truncated: " + b.length + " of " + n);
        }
        return b;
    }

    /** Reads a chunked body and its trailers (appended to {@code trailers} when not null). */
    static byte[] readChunked(InputStream in, List<String[]> trailers) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            String size = readLine(in);
            if (size == null) {
                throw new EOFException("chunked body truncated");
            }
            int semi = size.indexOf(';');
            int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
            if (n == 0) {
                String line;
                while ((line = readLine(in)) != null && !line.isEmpty()) {
                    if (trailers != null) {
                        int colon = line.indexOf(':');
                        trailers.add(new String[] {line.substring(0, colon), line.substring(colon + 1).trim()});
                    }
                }
                return out.toByteArray();
            }
            out.write(readFixed(in, n));
            String crlf = readLine(in);
            if (crlf == null || !crlf.isEmpty()) {
                throw new IOException("missing CRLF after chunk");
            }
        }
    }

    static boolean isChunked(Head h) {
        String te = h.get("transfer-encoding");
        return te != null && te.toLowerCase(Locale.ROOT).contains("chunked");
    }
}
