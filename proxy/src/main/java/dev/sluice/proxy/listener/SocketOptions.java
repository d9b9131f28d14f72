package dev.sluice.proxy.listener;

import dev.sluice.config.model.BindSocket;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.RawUnixChannelOption;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The Linux socket options of a {@code bind} line, set on the listening socket before it binds (accepted
 * sockets inherit them) or on each accepted socket: {@code defer-accept}, {@code tfo}, {@code transparent},
 * {@code v4v6}/{@code v6only}, {@code mss}, {@code tcp-ut}, {@code interface}. epoll only.
 */
final class SocketOptions {
    private SocketOptions() {
    }

    private static final int SOL_SOCKET = 1;
    private static final int SO_BINDTODEVICE = 25;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_MAXSEG = 2;
    private static final int IPPROTO_IPV6 = 41;
    private static final int IPV6_V6ONLY = 26;
    private static final ChannelOption<Integer> V6ONLY = new IntegerUnixChannelOption("IPV6_V6ONLY", IPPROTO_IPV6, IPV6_V6ONLY);
    private static final ChannelOption<Integer> MAXSEG = new IntegerUnixChannelOption("TCP_MAXSEG", IPPROTO_TCP, TCP_MAXSEG);
    private static final ChannelOption<Integer> DEFER_ACCEPT = new IntegerUnixChannelOption("TCP_DEFER_ACCEPT", IPPROTO_TCP, 9);
    private static final ChannelOption<Integer> FASTOPEN = new IntegerUnixChannelOption("TCP_FASTOPEN", IPPROTO_TCP, 23);
    private static final int IFNAMSIZ = 16;
    private static final ChannelOption<ByteBuffer> BINDTODEVICE = new RawUnixChannelOption("SO_BINDTODEVICE", SOL_SOCKET, SO_BINDTODEVICE,
            IFNAMSIZ);
    /** HAProxy's accept queue for TCP Fast Open. */
    private static final int FASTOPEN_QUEUE = 256;

    /**
     * Sets the listening socket's options on a new, unbound channel; throws {@link IllegalStateException}
     * naming the option when the kernel refuses one (HAProxy does not start either).
     */
    static void apply(ServerChannel ch, BindSocket so, String where, boolean ipv4) {
        if (so.deferAccept()) {
            // seconds to wait for data before accepting; HAProxy sets 1
            set(ch, EpollChannelOption.TCP_DEFER_ACCEPT, 1, "defer-accept", where);
        }
        if (so.fastOpen()) {
            set(ch, EpollChannelOption.TCP_FASTOPEN, FASTOPEN_QUEUE, "tfo", where);
        }
        if (so.transparent()) {
            set(ch, EpollChannelOption.IP_TRANSPARENT, true, "transparent", where);
        }
        if ((so.v4v6() || so.v6only()) && !ipv4) {
            // an IPv6 socket's option: an IPv4 address has an IPv4 socket, where HAProxy does not set it either
            set(ch, V6ONLY, so.v6only() ? 1 : 0, so.v6only() ? "v6only" : "v4v6", where);
        }
        if (so.mss() > 0) {
            set(ch, MAXSEG, so.mss(), "mss", where);
        }
        if (so.iface() != null) {
            byte[] name = so.iface().getBytes(StandardCharsets.US_ASCII);
            if (name.length >= IFNAMSIZ) {
                throw new IllegalStateException("cannot bind to interface '" + so.iface() + "' for " + where + " (name too long)");
            }
            // the kernel takes a NUL-padded name of IFNAMSIZ bytes
            ByteBuffer buf = ByteBuffer.allocateDirect(IFNAMSIZ);
            buf.put(name);
            buf.clear();
            set(ch, BINDTODEVICE, buf, "interface " + so.iface(), where);
        }
    }

    /**
     * The options a socket received from the old process ({@code -x}) can still take once bound, set or cleared as
     * this bind says (HAProxy's tcp_bind_listener does the same): {@code defer-accept}, {@code tfo}, {@code mss}. The
     * others ({@code transparent}, {@code v4v6}/{@code v6only}, {@code interface}) were matched before it was taken.
     */
    static void applyAfterBind(ServerChannel ch, BindSocket so, String where) {
        if (so.deferAccept() || current(ch, DEFER_ACCEPT) != 0) {
            set(ch, DEFER_ACCEPT, so.deferAccept() ? 1 : 0, "defer-accept", where);
        }
        if (so.fastOpen() || current(ch, FASTOPEN) != 0) {
            set(ch, FASTOPEN, so.fastOpen() ? FASTOPEN_QUEUE : 0, "tfo", where);
        }
        if (so.mss() > 0) {
            set(ch, MAXSEG, so.mss(), "mss", where);
        }
    }

    /** The options that accepted sockets get one by one. */
    static void applyChildren(ServerBootstrap b, BindSocket so) {
        if (so.userTimeoutMs() > 0) {
            b.childOption(EpollChannelOption.TCP_USER_TIMEOUT, (int) Math.min(Integer.MAX_VALUE, so.userTimeoutMs()));
        }
    }

    /** The socket's value of an option as the kernel has it (Netty's own getters may answer from their settings). */
    private static int current(Channel ch, ChannelOption<Integer> option) {
        try {
            Integer v = ch.config().getOption(option);
            return v == null ? 0 : v;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static <T> void set(Channel ch, ChannelOption<T> option, T value, String name, String where) {
        boolean ok;
        String why = "not supported by this transport";
        try {
            ok = ch.config().setOption(option, value);
        } catch (RuntimeException e) {
            ok = false;
            why = e.getMessage();
        }
        if (!ok) {
            throw new IllegalStateException("cannot set socket option '" + name + "' for " + where + " (" + why + ")");
        }
    }
}
