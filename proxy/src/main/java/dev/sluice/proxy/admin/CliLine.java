package dev.sluice.proxy.admin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * HAProxy's CLI line syntax. A command ends at a line feed, or at a semicolon unless a backslash escapes
 * it; a trailing carriage return is dropped; like HAProxy's C strings, a line stops at its first NUL byte.
 * Words are separated by spaces and tabs, a backslash keeps the next character (so {@code \;} and
 * {@code \ } stay inside a word, {@code \\} is one backslash), and at most {@link #MAX_ARGS} words count.
 */
public final class CliLine {
    private CliLine() {
    }

    /** HAProxy's MAX_CLI_ARGS. */
    public static final int MAX_ARGS = 64;

    /**
     * The index of the byte ending the first command in {@code buf[0..len)}, or -1 when no command is
     * complete yet. A line feed always ends one (HAProxy's escape does not hold it back, so
     * {@code get weight a/b\} runs as {@code get weight a/b}); a semicolon does unless a backslash escapes it.
     */
    public static int end(byte[] buf, int len) {
        for (int i = 0; i < len; i++) {
            byte b = buf[i];
            if (b == '\n') {
                return i;
            }
            if (b == '\\') {
                if (i + 1 < len && buf[i + 1] == '\n') {
                    return i + 1;
                }
                i++;
            } else if (b == ';') {
                return i;
            }
        }
        return -1;
    }

    /** The text of a command that ended at {@code end} (exclusive): trailing CR removed, cut at a NUL. */
    public static String text(byte[] buf, int end) {
        int n = end;
        for (int i = 0; i < n; i++) {
            if (buf[i] == 0) {
                n = i;
                break;
            }
        }
        if (n == end && n > 0 && buf[n - 1] == '\r') {
            n--;
        }
        return new String(buf, 0, n, StandardCharsets.UTF_8);
    }

    /** The words of a command, escapes resolved. */
    public static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (out.size() < MAX_ARGS && i < n) {
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                i++;
            }
            if (i >= n) {
                break;
            }
            StringBuilder w = new StringBuilder();
            while (i < n) {
                char c = line.charAt(i);
                if (c == ' ' || c == '\t') {
                    break;
                }
                if (c == '\\') {
                    if (i + 1 < n) {
                        w.append(line.charAt(i + 1));
                        i += 2;
                    } else {
                        i++;
                    }
                    continue;
                }
                w.append(c);
                i++;
            }
            out.add(w.toString());
        }
        return out;
    }
}
