package dev.sluice.proxy.listener;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.BindSocket;
import dev.sluice.config.model.ListenAddress;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * A socket received from the old process ({@code -x}): its descriptor in this process and what it is, as
 * {@code getsockname}/{@code getsockopt} tell (an IPv4-mapped IPv6 address reads as the IPv4 one; {@code family} says
 * which it was), with the interface and network namespace names the old process sent beside it (empty for none).
 * Immutable; the descriptor is owned by {@link ReceivedSockets} until a listener takes it.
 */
public record ReceivedSocket(int fd, int family, InetAddress address, int port, boolean datagram, boolean listening, boolean v6only,
        boolean transparent, String iface, String namespace, String unixPath) {

    /** A socket of the network (no UNIX path). */
    public ReceivedSocket(int fd, int family, InetAddress address, int port, boolean datagram, boolean listening, boolean v6only,
            boolean transparent, String iface, String namespace) {
        this(fd, family, address, port, datagram, listening, v6only, transparent, iface, namespace, null);
    }

    /**
     * Whether this UNIX socket is the one a {@code bind} on {@code addr} would have bound, as HAProxy 2.6's
     * {@code sock_unix_addrcmp}: an abstract name byte for byte (its padded {@code sun_path}), a path equal to the bind's but
     * for a {@code .<digits>.tmp} suffix (the old process bound it under its temporary name before renaming it).
     * {@link #unixPath} holds the path, or for an abstract socket a NUL and the rest of the 108 bytes (ISO-8859-1).
     */
    public boolean matchesUnix(ListenAddress addr) {
        if (datagram || !listening || unixPath == null || family != PassingCalls.AF_UNIX) {
            return false;
        }
        if (addr instanceof ListenAddress.Abstract a) {
            byte[] want = dev.sluice.proxy.transport.AbstractSockets.sunPath(a.name());
            return unixPath.equals(new String(want, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        if (!(addr instanceof ListenAddress.Unix u) || unixPath.isEmpty() || unixPath.charAt(0) == 0) {
            return false;
        }
        String want = new String(u.path().getBytes(java.nio.charset.StandardCharsets.UTF_8), java.nio.charset.StandardCharsets.ISO_8859_1);
        return want.equals(unixPath) || tmpOf(want, unixPath) || tmpOf(unixPath, want);
    }

    /** Whether {@code tmp} is {@code path} with HAProxy's temporary suffix ({@code .<digits>.tmp}). */
    private static boolean tmpOf(String path, String tmp) {
        if (!tmp.startsWith(path + ".") || !tmp.endsWith(".tmp")) {
            return false;
        }
        String digits = tmp.substring(path.length() + 1, tmp.length() - 4);
        return !digits.isEmpty() && digits.chars().allMatch(Character::isDigit);
    }

    /**
     * Whether this socket is the one a {@code bind} on {@code addr} with options {@code so} would have bound, as HAProxy
     * matches them (address and port, {@code transparent}, {@code v6only} on the IPv6 wildcard, {@code interface}, namespace), read for
     * Sluice's sockets: Netty binds an IPv4 address on a dual-stack IPv6 socket (as {@code ::ffff:a.b.c.d}, the wildcard
     * as {@code ::} without {@code IPV6_V6ONLY}), HAProxy on an IPv4 one; either is taken. A listening stream socket only.
     */
    public boolean matches(ListenAddress.Inet addr, BindSocket so) {
        if (datagram || !listening || address == null || port != addr.port()) {
            return false;
        }
        if (!namespace.isEmpty() || !iface.equals(so.iface() == null ? "" : so.iface()) || transparent != so.transparent()) {
            return false;
        }
        InetAddress want = addr.host().isEmpty() ? null : Addresses.literal(addr.host());
        if (!addr.host().isEmpty() && want == null) {
            return false;
        }
        if (want == null || want instanceof Inet4Address) {
            boolean any = want == null || want.isAnyLocalAddress();
            if (family == PassingCalls.AF_INET) {
                return any ? address.isAnyLocalAddress() : address.equals(want);
            }
            if (any) {
                return address instanceof Inet6Address && address.isAnyLocalAddress() && !v6only;
            }
            return address instanceof Inet4Address && address.equals(want);
        }
        if (!(family == PassingCalls.AF_INET6 && address instanceof Inet6Address && address.equals(want))) {
            return false;
        }
        // Netty turns IPV6_V6ONLY off on its IPv6 sockets unless 'v6only' says otherwise; the kernel turns it on when it
        // binds an address that is not the wildcard (HAProxy compares it there too, and takes none of those without 'v6only')
        return !want.isAnyLocalAddress() || v6only == so.v6only();
    }

    /** How logs name it: {@code 127.0.0.1:80}, {@code [::]:80}, or the family for another kind. */
    public String describe() {
        if (address == null) {
            if (family == PassingCalls.AF_UNIX && unixPath != null) {
                return unixPath.isEmpty() || unixPath.charAt(0) != 0 ? "unix@" + unixPath
                        : "abns@" + unixPath.substring(1).replaceFirst("\u0000+$", "");
            }
            return family == PassingCalls.AF_UNIX ? "a UNIX socket" : "a socket of family " + family;
        }
        String host = address.getHostAddress();
        String text = (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
        return (datagram ? "udp " : "") + text;
    }
}
