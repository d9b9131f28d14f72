package dev.sluice.proxy.listener;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;

/**
 * The addresses of an accepted connection as the logs, rules and stream see them. A client on a UNIX socket has none:
 * it reads as HAProxy 2.6 logs it, {@code unix} and the listener's id ({@code %ci:%cp} "unix:1", {@code %fi:%fp} too),
 * an unresolved address whose {@link InetSocketAddress#getAddress()} is null (the address fetches {@code src},
 * {@code dst} and their ports give no sample). Static.
 */
public final class ClientAddresses {
    private ClientAddresses() {
    }

    /** Set by the listener on each connection accepted on a UNIX socket: the address its client and frontend show. */
    public static final AttributeKey<InetSocketAddress> UNIX = AttributeKey.valueOf("sluice.unixClient");

    /** HAProxy's host name for a UNIX socket's peer. */
    public static final String UNIX_HOST = "unix";

    /** What a client on a UNIX socket of listener {@code luid} shows as its address. */
    public static InetSocketAddress unix(int luid) {
        return InetSocketAddress.createUnresolved(UNIX_HOST, Math.max(0, Math.min(65535, luid)));
    }

    /** Whether {@code a} is such an address. */
    public static boolean isUnix(InetSocketAddress a) {
        return a != null && a.isUnresolved() && UNIX_HOST.equals(a.getHostString());
    }

    /** The client's address of an accepted connection (the peer's), or the UNIX placeholder. */
    public static InetSocketAddress remote(Channel ch) {
        return ch.remoteAddress() instanceof InetSocketAddress a ? a : ch.attr(UNIX).get();
    }

    /** The address the connection was accepted on, or the UNIX placeholder. */
    public static InetSocketAddress local(Channel ch) {
        return ch.localAddress() instanceof InetSocketAddress a ? a : ch.attr(UNIX).get();
    }
}
