package dev.sluice.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * User and group names as the C library's {@code getpwnam}/{@code getgrnam} find them in the files ({@code /etc/passwd},
 * {@code /etc/group}): the UNIX bind options and {@code unix-bind} resolve them while parsing, as HAProxy does. Static.
 */
final class UnixAccounts {
    private UnixAccounts() {
    }

    /** The uid of user {@code name}, or -1 when there is none. */
    static int uid(String name) {
        return id(Path.of("/etc/passwd"), name);
    }

    /** The gid of group {@code name}, or -1 when there is none. */
    static int gid(String name) {
        return id(Path.of("/etc/group"), name);
    }

    private static int id(Path file, String name) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            return -1;
        }
        for (String line : lines) {
            String[] f = line.split(":", -1);
            if (f.length >= 3 && f[0].equals(name)) {
                try {
                    return Integer.parseInt(f[2]);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /** C's {@code atol} as HAProxy reads {@code uid} and {@code gid}: leading digits (with a sign), 0 when none. */
    static int atol(String v) {
        int i = 0;
        while (i < v.length() && Character.isWhitespace(v.charAt(i))) {
            i++;
        }
        int start = i;
        if (i < v.length() && (v.charAt(i) == '-' || v.charAt(i) == '+')) {
            i++;
        }
        while (i < v.length() && Character.isDigit(v.charAt(i))) {
            i++;
        }
        try {
            return i - start > 0 && Character.isDigit(v.charAt(i - 1)) ? (int) Long.parseLong(v.substring(start, i)) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** {@code strtol(v, &end, 8)} with the whole value used, or -1 (HAProxy's "missing or invalid mode"). */
    static int octal(String v) {
        if (v == null || v.isEmpty() || !v.chars().allMatch(ch -> ch >= '0' && ch <= '7')) {
            return -1;
        }
        try {
            return Integer.parseInt(v, 8);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
