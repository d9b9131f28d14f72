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
        boolean transparent, String iface, String namespace) {

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
            return family == PassingCalls.AF_UNIX ? "a UNIX socket" : "a socket of family " + family;
        }
        String host = address.getHostAddress();
        String text = (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
        return (datagram ? "udp " : "") + text;
    }
}
