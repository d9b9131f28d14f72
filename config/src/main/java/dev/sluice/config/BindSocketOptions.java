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
                int m = UnixAccounts.octal(value);
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
                    unix = opt.equals("uid") ? unix.withUid(UnixAccounts.atol(value)) : unix.withGid(UnixAccounts.atol(value));
                }
            }
            default -> {
                boolean user = opt.equals("user");
                int id = value.isEmpty() ? -1 : user ? UnixAccounts.uid(value) : UnixAccounts.gid(value);
                if (value.isEmpty()) {
                    fail = "missing " + opt + " name";
                } else if (id < 0) {
                    fail = "unknown " + opt + " name '" + value + "'";
                } else {
                    unix = user ? unix.withUid(id) : unix.withGid(id);
                }
            }
        }
        if (fail != null) {
            c.lineError("'bind " + a.get(0) + "' in section '" + c.section().name().toLowerCase(java.util.Locale.ROOT) + "' : '" + opt + "' : "
                    + fail);
            return TlsKeywords.FAILED;
        }
        return i + 2;
    }

    private static int missing(KeywordContext c, String opt) {
        c.error("'" + opt + "' expects an argument.");
        return TlsKeywords.FAILED;
    }

    BindSocket build() {
        return new BindSocket(name, id, backlog, deferAccept, fastOpen, transparent, v4v6, v6only, mss, userTimeout, iface, unix);
    }
}
