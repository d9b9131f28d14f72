package dev.sluice.config;

import dev.sluice.config.model.LogForward;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.Ring;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code ring} and {@code log-forward} sections (HAProxy 2.6's src/sink.c and src/log.c), in HAProxy's words. Their
 * lines are read here, not through the registry (their {@code server}, {@code bind}, {@code timeout} are not a proxy's);
 * the registry holds their reference entries, and the {@code log} lines of a log-forward section go through
 * {@link LogKeywords}.
 */
final class RingKeywords {
    private RingKeywords() {
    }

    /** A {@code ring} section while it is parsed. */
    static final class RingBuilder {
        final SourceRef where;
        final String name;
        String description;
        LogTarget.Format format = LogTarget.Format.RAW;
        int maxLen = Ring.DEFAULT_SIZE;
        int size = Ring.DEFAULT_SIZE;
        long connectMs = 1000;
        long serverMs = 5000;
        final List<Ring.Server> servers = new ArrayList<>();

        RingBuilder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
        }

        Ring build() {
            return new Ring(where, name, description == null ? name : description, format, maxLen, size, connectMs, serverMs, servers);
        }
    }

    /** A {@code log-forward} section while it is parsed. */
    static final class ForwardBuilder {
        final SourceRef where;
        final String name;
        final List<LogForward.Address> binds = new ArrayList<>();
        final List<LogForward.Address> dgramBinds = new ArrayList<>();
        final List<LogTarget> targets = new ArrayList<>();
        int maxConn = 10;
        int backlog;
        long clientMs;

        ForwardBuilder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
        }

        LogForward build() {
            return new LogForward(where, name, binds, dgramBinds, targets, maxConn, backlog, clientMs);
        }
    }

    static void register(KeywordRegistry r) {
        Set<Section> ring = EnumSet.of(Section.RING);
        r.register(new Keyword("format", ring, "format iso|local|raw|rfc3164|rfc5424|short|priority|timed",
                "The syslog header each message gets as it enters the ring (default raw: none). The ring's other lines:"
                        + " 'description <text>' (shown by 'show events'), 'timeout connect|server <time>' and"
                        + " 'server <name> <address>:<port> [log-proto legacy|octet-count]': a TCP syslog server the messages are"
                        + " sent to, framed by their length (octet-count, RFC 6587) or ended by a line feed (legacy, the default).",
                c -> {
                }));
        r.register(new Keyword("maxlen", ring, "maxlen <bytes>",
                "The longest message kept, header included (longer ones are cut); default 16384.", c -> {
                }));
        r.register(new Keyword("size", ring, "size <bytes>",
                "The ring's size, 16384 (the default) or more: when a message does not fit, the oldest ones are dropped."
                        + " 'show events <ring>' dumps it.", c -> {
                }));
        r.register(new Keyword("dgram-bind", EnumSet.of(Section.LOG_FORWARD), "dgram-bind <address>:<port>",
                "Receive syslog messages over UDP there. The section's other lines: 'bind <address>:<port>' (TCP syslog, octet-count"
                        + " or line-feed framing), 'log <target> ...' as in a proxy (where messages go, ring@<name> included, each"
                        + " re-headed in the target's format), 'maxconn <n>' (TCP clients at once, default 10), 'backlog <n>',"
                        + " 'timeout client <time>'. Messages received count in 'show info' (CumRecvLogs).", c -> {
                }));
    }

    static RingBuilder ringHeader(SourceRef at, List<String> words, Map<String, RingBuilder> rings, Diagnostics diags) {
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "missing ring name.");
            return null;
        }
        String name = words.get(1);
        String bad = invalidChar(name);
        if (bad != null) {
            diags.error(at, "invalid ring name '" + name + "' (character '" + bad + "' is not permitted).");
            return null;
        }
        if (rings.containsKey(name) || name.equals("buf0") || name.equals("stdout") || name.equals("stderr")) {
            diags.error(at, "sink named '" + name + "' already exists.");
            return null;
        }
        RingBuilder b = new RingBuilder(at, name);
        rings.put(name, b);
        return b;
    }

    private static String invalidChar(String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (!Character.isLetterOrDigit(ch) && ch != '-' && ch != '_' && ch != '.' && ch != ':') {
                return String.valueOf(ch);
            }
        }
        return null;
    }

    static void ringLine(RingBuilder b, SourceRef at, List<String> w, Diagnostics diags) {
        String kw = w.get(0);
        String arg = w.size() > 1 ? w.get(1) : "";
        switch (kw) {
            case "size" -> {
                // HAProxy reads the size with atol ("1M" is 1)
                long size = leadingNumber(arg);
                if (size <= 0 || size > Integer.MAX_VALUE) {
                    diags.error(at, "invalid size '" + arg + "' for new sink buffer.");
                    return;
                }
                if (size < b.size) {
                    // HAProxy 2.6.12's words (a warning) for what stops it (a fatal error)
                    diags.error(at, "ignoring new size '" + size + "' that is smaller than current size '" + b.size + "' for ring '"
                            + b.name + "'.");
                    return;
                }
                b.size = (int) size;
            }
            case "maxlen" -> {
                long len = parseLong(arg);
                if (len <= 0 || len > Integer.MAX_VALUE) {
                    diags.error(at, "invalid size '" + arg + "' for new sink buffer.");
                    return;
                }
                b.maxLen = (int) len;
            }
            case "format" -> {
                try {
                    b.format = LogTarget.Format.valueOf(arg.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    diags.error(at, "unknown format '" + arg + "'.");
                }
            }
            case "description" -> {
                if (arg.isEmpty()) {
                    diags.error(at, "missing ring description text.");
                    return;
                }
                b.description = arg;
            }
            case "timeout" -> {
                if (!arg.equals("connect") && !arg.equals("server")) {
                    diags.error(at, "unable to set timeout '" + arg + "'.");
                    return;
                }
                long ms = time(at, w, 2, "'timeout " + arg + "'", diags);
                if (ms >= 0) {
                    if (arg.equals("connect")) {
                        b.connectMs = ms;
                    } else {
                        b.serverMs = ms;
                    }
                }
            }
            case "server" -> server(b, at, w, diags);
            default -> diags.error(at, "unknown statement '" + kw + "'.");
        }
    }

    private static void server(RingBuilder b, SourceRef at, List<String> w, Diagnostics diags) {
        if (w.size() < 3) {
            diags.error(at, "'server' expects <name> and <addr>[:<port>] as arguments.");
            return;
        }
        String name = w.get(1);
        String addr = w.get(2);
        for (String pfx : new String[] {"tcp@", "tcp4@", "tcp6@", "ipv4@", "ipv6@"}) {
            if (addr.startsWith(pfx)) {
                addr = addr.substring(pfx.length());
            }
        }
        Addresses.HostPort hp;
        try {
            hp = Addresses.split(addr, true);
        } catch (IllegalArgumentException e) {
            diags.error(at, "'server " + name + "' : " + e.getMessage());
            return;
        }
        boolean octet = false;
        for (int i = 3; i < w.size(); i++) {
            String p = w.get(i);
            if (p.equals("log-proto") && i + 1 < w.size()) {
                String proto = w.get(++i);
                if (proto.equals("octet-count")) {
                    octet = true;
                } else if (proto.equals("legacy")) {
                    octet = false;
                } else {
                    diags.error(at, "'log-proto' expects one of 'legacy' or 'octet-count' but got '" + proto + "'.");
                    return;
                }
            } else if (p.equals("check") || p.equals("inter") || p.equals("weight")) {
                // accepted as HAProxy does; a ring's server is not checked by Sluice
                if (!p.equals("check")) {
                    i++;
                }
            } else {
                diags.error(at, "'server " + name + "' : option '" + p + "' of a ring's server is not supported by Sluice yet"
                        + " (only log-proto).");
                return;
            }
        }
        b.servers.add(new Ring.Server(at, name, hp.host(), hp.port(), octet));
    }

    static ForwardBuilder forwardHeader(SourceRef at, List<String> words, Map<String, ForwardBuilder> done, Diagnostics diags) {
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "missing name for log-forward section.");
            return null;
        }
        String name = words.get(1);
        String bad = invalidChar(name);
        if (bad != null) {
            diags.error(at, "character '" + bad + "' is not permitted in 'log-forward' name '" + name + "'.");
            return null;
        }
        if (done.containsKey(name)) {
            diags.error(at, "log-forward section '" + name + "' has the same name as another log-forward section declared.");
            return null;
        }
        ForwardBuilder b = new ForwardBuilder(at, name);
        done.put(name, b);
        return b;
    }

    static void forwardLine(ForwardBuilder b, SourceRef at, List<String> w, Diagnostics diags) {
        String kw = w.get(0);
        String arg = w.size() > 1 ? w.get(1) : "";
        switch (kw) {
            case "bind", "dgram-bind" -> {
                if (arg.isEmpty()) {
                    diags.error(at, "'" + kw + "' : missing address");
                    return;
                }
                if (w.size() > 2) {
                    diags.error(at, "'" + kw + "' : option '" + w.get(2) + "' is not supported by Sluice yet in a log-forward section.");
                    return;
                }
                String a = arg;
                for (String pfx : new String[] {"udp@", "udp4@", "udp6@", "tcp@", "tcp4@", "tcp6@", "ipv4@", "ipv6@"}) {
                    if (a.startsWith(pfx)) {
                        a = a.substring(pfx.length());
                    }
                }
                try {
                    Addresses.HostPort hp = Addresses.split(a, true);
                    (kw.equals("bind") ? b.binds : b.dgramBinds).add(new LogForward.Address(at, hp.host(), hp.port()));
                } catch (IllegalArgumentException e) {
                    diags.error(at, "'" + kw + "' : " + e.getMessage());
                }
            }
            case "maxconn", "backlog" -> {
                long n = parseLong(arg);
                if (w.size() != 2 || n <= 0 || n > Integer.MAX_VALUE) {
                    diags.error(at, "'" + kw + "' expects a positive integer argument.");
                    return;
                }
                if (kw.equals("maxconn")) {
                    b.maxConn = (int) n;
                } else {
                    b.backlog = (int) n;
                }
            }
            case "timeout" -> {
                if (!arg.equals("client")) {
                    diags.error(at, "unknown keyword '" + arg + "' in 'timeout' (only 'client' in a log-forward section).");
                    return;
                }
                long ms = time(at, w, 2, "'timeout client'", diags);
                if (ms >= 0) {
                    b.clientMs = ms;
                }
            }
            default -> diags.error(at, "unknown keyword '" + kw + "' in log-forward section.");
        }
    }

    private static long time(SourceRef at, List<String> w, int i, String what, Diagnostics diags) {
        if (i >= w.size()) {
            diags.error(at, what + " expects <time> as argument.");
            return -1;
        }
        try {
            return Units.parseTimeMillis(w.get(i));
        } catch (IllegalArgumentException e) {
            diags.error(at, what + " : " + e.getMessage());
            return -1;
        }
    }

    private static long leadingNumber(String s) {
        int i = 0;
        while (i < s.length() && i < 18 && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i == 0 ? 0 : Long.parseLong(s.substring(0, i));
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * After everything is read: each {@code log ring@<name>} must name a ring section, as HAProxy's post-parsing check
     * of the log targets requires.
     */
    static void checkTargets(List<LogTarget> targets, Set<String> rings, Diagnostics diags) {
        for (LogTarget t : targets) {
            if (t.kind() == LogTarget.Kind.RING && !rings.contains(t.address()) && !t.address().equals("buf0")) {
                // HAProxy 2.6 says so when it starts (not with -c)
                diags.error(t.where(), "log server uses unknown ring named '" + t.address() + "'.");
            }
        }
    }
}
