package dev.sluice.config;

import dev.sluice.config.model.BindSocket;
import dev.sluice.config.model.UnixPerms;
import java.util.List;
import java.util.Set;

/** The socket options of one {@code bind} line while parsing; {@link #build} freezes them. Parse-time only. */
final class BindSocketOptions {
    String name;
    int id = -1;
    int backlog;
    boolean deferAccept;
    boolean fastOpen;
    boolean transparent;
    boolean v4v6;
    boolean v6only;
    int mss;
    long userTimeout;
    String iface;
    /** The UNIX socket file's mode and owner: the global {@code unix-bind}'s, then the line's. */
    UnixPerms unix = UnixPerms.NONE;
    private static final Set<String> VALUED = Set.of("name", "id", "backlog", "mss", "tcp-ut", "interface");

    /** The first socket option seen (they do not apply to inherited sockets or QUIC). */
    String used;

    /**
     * Parses the option at {@code a[i]}: the index after it, {@link TlsKeywords#NOT_MINE} when it is not a
     * socket option, {@link TlsKeywords#FAILED} after reporting an error.
     */
    int option(KeywordContext c, List<String> a, int i) {
        String opt = a.get(i);
        String v = i + 1 < a.size() ? a.get(i + 1) : null;
        int next = i + 2;
        if (VALUED.contains(opt) && v == null) {
            return missing(c, opt);
        }
        switch (opt) {
            case "mode", "user", "group", "uid", "gid" -> {
                return unixOption(c, a, opt, v, i);
            }
            case "name" -> {
                name = v;
                return i + 2;
            }
            case "id" -> id = c.intArg(v, "id", 1, Integer.MAX_VALUE, -1);
            case "backlog" -> backlog = c.intArg(v, "backlog", 1, Integer.MAX_VALUE, 0);
            case "mss" -> mss = c.intArg(v, "mss", 1, 65535, 0);
            case "tcp-ut" -> {
                userTimeout = c.timeArg(v);
                if (userTimeout < 0) {
                    return TlsKeywords.FAILED;
                }
            }
            case "interface" -> iface = v;
            case "defer-accept" -> {
                deferAccept = true;
                next = i + 1;
            }
            case "tfo" -> {
                fastOpen = true;
                next = i + 1;
            }
            case "transparent" -> {
                transparent = true;
                next = i + 1;
            }
            case "v4v6" -> {
                v4v6 = true;
                v6only = false;
                next = i + 1;
            }
            case "v6only" -> {
                v6only = true;
                v4v6 = false;
                next = i + 1;
            }
            default -> {
                return TlsKeywords.NOT_MINE;
            }
        }
        if (!opt.equals("name") && !opt.equals("id") && used == null) {
            used = opt;
        }
        return next;
    }

    /** HAProxy's UNIX bind options ({@code cfgparse-unix.c}): on any bind, used by UNIX sockets only. */
    private int unixOption(KeywordContext c, List<String> a, String opt, String v, int i) {
        String value = v == null ? "" : v;
        String fail = null;
        switch (opt) {
            case "mode" -> {
                int m = octal(value);
                if (m < 0) {
                    fail = "missing or invalid mode '" + value + "' (octal integer expected)";
                } else {
                    unix = unix.withMode(m);
                }
            }
            case "uid", "gid" -> {
                if (value.isEmpty()) {
                    fail = "missing value";
                } else {
                    unix = opt.equals("uid") ? unix.withUid(atol(value)) : unix.withGid(atol(value));
                }
            }
            default -> {
                // the name is resolved by the daemon when it reads the configuration (NSS), as HAProxy does while parsing
                if (value.isEmpty()) {
                    fail = "missing " + opt + " name";
                } else {
                    UnixPerms.Name n = new UnixPerms.Name(value, c.at(), bindLine(c, a));
                    unix = opt.equals("user") ? unix.withUser(n) : unix.withGroup(n);
                }
            }
        }
        if (fail != null) {
            c.lineError(bindLine(c, a) + " : '" + opt + "' : " + fail);
            return TlsKeywords.FAILED;
        }
        return i + 2;
    }

    /** How HAProxy's messages about a bind option name the line: {@code 'bind /run/a.sock' in section 'frontend'}. */
    private static String bindLine(KeywordContext c, List<String> a) {
        return "'bind " + a.get(0) + "' in section '" + c.section().name().toLowerCase(java.util.Locale.ROOT) + "'";
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

    private static int missing(KeywordContext c, String opt) {
        c.error("'" + opt + "' expects an argument.");
        return TlsKeywords.FAILED;
    }

    BindSocket build() {
        return new BindSocket(name, id, backlog, deferAccept, fastOpen, transparent, v4v6, v6only, mss, userTimeout, iface, unix);
    }
}
