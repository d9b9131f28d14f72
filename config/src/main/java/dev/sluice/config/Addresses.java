package dev.sluice.config;

import dev.sluice.config.model.ListenAddress;
import java.net.InetAddress;

/**
 * Parses HAProxy address syntax: {@code [ipv4@|ipv6@]<ip>:<port>}, {@code *:<port>}, {@code :<port>},
 * {@code [<ipv6>]:<port>}, {@code <ipv6>:<port>} (the last colon separates the port),
 * {@code quic4@}/{@code quic6@} addresses, {@code fd@<n>}, UNIX socket paths and {@code abns@<name>}. Literals only: no name resolution happens here.
 */
public final class Addresses {
    private Addresses() {
    }

    /** A host (IP literal or name, no brackets) and a port (0 when absent). */
    public record HostPort(String host, int port) {
    }

    /** Parses a {@code bind} address; throws {@link IllegalArgumentException} with a readable reason. */
    public static ListenAddress listen(String s) {
        return listen(s, null);
    }

    /**
     * A listening address where only sockets of the network (and {@code fd@}) are taken: peers, stats sockets on an address.
     */
    public static ListenAddress networkListen(String s) {
        ListenAddress a = listen(s, null);
        if (a instanceof ListenAddress.Unix || a instanceof ListenAddress.Abstract) {
            throw new IllegalArgumentException(a instanceof ListenAddress.Abstract ? "address family 'abns@' is not supported by Sluice yet"
                    : "UNIX socket listeners ('" + s + "') are not supported here by Sluice yet");
        }
        return a;
    }

    /**
     * The longest name of a socket in the abstract namespace ({@code abns@}), and of a UNIX socket path with the temporary
     * suffix a bind adds ({@code .<pid>.tmp}) without a {@code unix-bind prefix}: HAProxy 2.6's limits.
     */
    static final int ABNS_MAX = 107;
    static final int UNIX_MAX = 97;

    /**
     * Parses a {@code bind} address, a UNIX socket path ({@code /path}, {@code unix@path}, {@code uxst@path}) having
     * {@code unixPrefix} ({@code unix-bind prefix}, null: none) put in front, as HAProxy does.
     */
    public static ListenAddress listen(String s, String unixPrefix) {
        boolean abstractName = s.startsWith("abns@");
        if (abstractName || s.startsWith("unix@") || s.startsWith("uxst@") || s.startsWith("/")) {
            String path = s.startsWith("/") ? s : s.substring(5);
            int prefix = abstractName || unixPrefix == null ? 0 : unixPrefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            int max = abstractName ? ABNS_MAX : UNIX_MAX - prefix;
            if (path.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > max) {
                throw new IllegalArgumentException("socket path '" + s + "' too long (max " + max + ")");
            }
            if (abstractName) {
                return new ListenAddress.Abstract(path);
            }
            return new ListenAddress.Unix(prefix > 0 ? unixPrefix + path : path);
        }
        if (s.startsWith("fd@")) {
            String n = s.substring(3);
            try {
                int fd = Integer.parseInt(n);
                if (fd < 0) {
                    throw new NumberFormatException();
                }
                return new ListenAddress.InheritedFd(fd);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'fd@' expects a file descriptor number, not '" + n + "'"
                        + (n.isEmpty() ? " (is the environment variable set?)" : ""));
            }
        }
        if (s.startsWith("quic4@") || s.startsWith("quic6@")) {
            return quic(s);
        }
        for (String unsupported : new String[] {"abnsz@", "sockpair@", "rhttp@", "udp@", "udp4@", "udp6@", "quic@",
                "uxdg@", "mptcp@", "mptcp4@", "mptcp6@"}) {
            if (s.startsWith(unsupported)) {
                throw new IllegalArgumentException("address family '" + unsupported + "' is not supported by Sluice yet");
            }
        }
        boolean v4 = false;
        boolean v6 = false;
        if (s.startsWith("ipv4@")) {
            v4 = true;
            s = s.substring(5);
        } else if (s.startsWith("ipv6@")) {
            v6 = true;
            s = s.substring(5);
        } else if (s.indexOf('@') >= 0) {
            throw new IllegalArgumentException("unknown address family '" + s.substring(0, s.indexOf('@') + 1) + "'");
        }
        HostPort hp = split(s, true);
        if (hp.port() == 0) {
            throw new IllegalArgumentException("missing port in address '" + s + "'");
        }
        String host = hp.host();
        if (host.isEmpty() || host.equals("*")) {
            return new ListenAddress.Inet(v6 ? "::" : (v4 ? "0.0.0.0" : ""), hp.port());
        }
        InetAddress a = literal(host);
        if (a == null) {
            throw new IllegalArgumentException("'" + host + "' is not an IP address (bind takes IP addresses, '*' or nothing)");
        }
        if ((v4 && host.indexOf(':') >= 0) || (v6 && host.indexOf(':') < 0)) {
            throw new IllegalArgumentException("address '" + host + "' does not match its family prefix");
        }
        return new ListenAddress.Inet(host, hp.port());
    }

    /**
     * {@code quic4@<ipv4>:<port>} / {@code quic6@<ipv6>:<port>}, the wildcard written {@code *}, empty, or
     * as the family's any-address.
     */
    private static ListenAddress quic(String s) {
        boolean v6 = s.startsWith("quic6@");
        String rest = s.substring(6);
        HostPort hp = split(rest, true);
        String host = hp.host();
        if (host.isEmpty() || host.equals("*")) {
            return new ListenAddress.Quic(v6 ? "::" : "0.0.0.0", hp.port());
        }
        InetAddress a = literal(host);
        if (a == null) {
            throw new IllegalArgumentException("'" + host + "' is not an IP address (bind takes IP addresses, '*' or nothing)");
        }
        if (v6 != (host.indexOf(':') >= 0)) {
            throw new IllegalArgumentException("address '" + host + "' does not match its family prefix '" + s.substring(0, 6) + "'");
        }
        return new ListenAddress.Quic(host, hp.port());
    }

    /**
     * Splits {@code host:port}. With brackets the host is what they enclose; otherwise the last colon
     * separates the port. {@code port} may be missing when {@code portRequired} is false.
     */
    public static HostPort split(String s, boolean portRequired) {
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("missing ']' in address '" + s + "'");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (rest.isEmpty()) {
                port = null;
            } else if (rest.startsWith(":")) {
                port = rest.substring(1);
            } else {
                throw new IllegalArgumentException("unexpected '" + rest + "' after ']' in address '" + s + "'");
            }
        } else {
            int colon = s.lastIndexOf(':');
            int colons = 0;
            for (int i = 0; i < s.length(); i++) {
                if (s.charAt(i) == ':') {
                    colons++;
                }
            }
            if (colon < 0 || (colons > 1 && !portRequired && literal(s) != null)) {
                host = s;
                port = null;
            } else {
                host = s.substring(0, colon);
                port = s.substring(colon + 1);
            }
        }
        if (port == null || port.isEmpty()) {
            if (portRequired) {
                throw new IllegalArgumentException("missing port in address '" + s + "'");
            }
            return new HostPort(host, 0);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            if (port.matches("\\d+-\\d+")) {
                throw new IllegalArgumentException("port ranges ('" + port + "') are not supported by Sluice");
            }
            throw new IllegalArgumentException("invalid port '" + port + "' in address '" + s + "'");
        }
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("port " + p + " in address '" + s + "' is not between 1 and 65535");
        }
        return new HostPort(host, p);
    }

    /** The address for an IP literal, or null when {@code host} is not one. Never resolves names. */
    public static InetAddress literal(String host) {
        if (host.isEmpty() || host.startsWith("[")) {
            return null;
        }
        if (host.indexOf(':') < 0) {
            // inet_pton only takes the full dotted quad: no "127.1" or "10.0.0" shorthands (a loop, not a split: a
            // reload reads every server's address through here)
            int dots = 0;
            int digits = 0;
            for (int i = 0; i < host.length(); i++) {
                char c = host.charAt(i);
                if (c == '.') {
                    if (digits == 0) {
                        return null;
                    }
                    dots++;
                    digits = 0;
                } else if (c < '0' || c > '9' || ++digits > 3) {
                    return null;
                }
            }
            if (dots != 3 || digits == 0) {
                return null;
            }
        }
        try {
            return InetAddress.ofLiteral(host);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
