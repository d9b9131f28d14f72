package dev.sluice.proxy.rules;

import dev.sluice.proxy.listener.ListenerIdentity;
import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollTcpInfo;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.HashSet;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * HAProxy 2.6's fetches of the client connection's socket (tcp_sample.c, connection.c): the kernel's TCP_INFO
 * ({@code fc_rtt}, {@code fc_retrans}...), whether an address is local to the system ({@code src_is_local}...), and
 * the HTTP encoding on the wire ({@code fc_http_major}). Registered by {@link Fetches}; they read neither message.
 */
final class FetchesConnection {
    private FetchesConnection() {
    }

    private static final Set<String> ANY_PHASE = new HashSet<>();

    static boolean anyPhase(String name) {
        return ANY_PHASE.contains(name);
    }

    static void register() {
        // tcpi_rtt and tcpi_rttvar are in microseconds: milliseconds unless "us" is asked, rounded as HAProxy rounds them
        time("fc_rtt", EpollTcpInfo::rtt);
        time("fc_rttvar", EpollTcpInfo::rttvar);
        counter("fc_unacked", EpollTcpInfo::unacked);
        counter("fc_sacked", EpollTcpInfo::sacked);
        counter("fc_lost", EpollTcpInfo::lost);
        counter("fc_retrans", EpollTcpInfo::retrans);
        counter("fc_fackets", EpollTcpInfo::fackets);
        counter("fc_reordering", EpollTcpInfo::reordering);
        // the stream's addresses (after set-src/set-dst) or the connection's; as the fetches themselves, in this version
        local("src_is_local", true);
        local("fc_src_is_local", true);
        local("dst_is_local", false);
        local("fc_dst_is_local", false);
        ANY_PHASE.add("fc_http_major");
        // 2 on HTTP/2's mux, 1 on any other HTTP one (HTTP/3 included, as HAProxy 2.6 compares the mux name with "H2"),
        // no sample on a TCP stream
        Fetches.def("fc_http_major", 0, 0, Match.INT, false, a -> t -> {
            int v = t.clientHttpMajor();
            return v == 0 ? null : (Object) (long) v;
        });
        // HAProxy's connection error code and its text: a connection a stream runs on has none ("Success", as 2.6.12 words
        // code 0); the errors themselves end the connection before any stream or log line with samples
        ANY_PHASE.add("fc_err");
        ANY_PHASE.add("fc_err_str");
        Fetches.def("fc_err", 0, 0, Match.INT, false, a -> t -> t.clientChannel() == null ? null : (Object) 0L);
        Fetches.def("fc_err_str", 0, 0, Match.STR, false, a -> t -> t.clientChannel() == null ? null : "Success");
        backend();
        ANY_PHASE.add("so_id");
        ANY_PHASE.add("so_name");
        ANY_PHASE.add("dst_conn");
        Fetches.def("dst_conn", 0, 0, Match.INT, false, a -> t -> {
            ListenerIdentity l = ListenerIdentity.of(t.clientChannel());
            return l == null ? null : (Object) (long) l.connections();
        });
        Fetches.def("so_id", 0, 0, Match.INT, false, a -> t -> {
            ListenerIdentity l = ListenerIdentity.of(t.clientChannel());
            return l == null ? null : (Object) (long) l.id();
        });
        Fetches.def("so_name", 0, 0, Match.STR, false, a -> t -> {
            ListenerIdentity l = ListenerIdentity.of(t.clientChannel());
            return l == null ? null : l.name();
        });
        ANY_PHASE.add("cur_server_timeout");
        ANY_PHASE.add("cur_tunnel_timeout");
        Fetches.def("cur_server_timeout", 0, 0, Match.INT, false, a -> t -> t.currentTimeout(false));
        Fetches.def("cur_tunnel_timeout", 0, 0, Match.INT, false, a -> t -> t.currentTimeout(true));
    }

    /** The server connection's addresses and encoding: known once connected, so in response rules and logs. */
    private static void backend() {
        Fetches.def("bc_src", 0, 0, Match.IP, true, a -> t -> address(t, true) == null ? null : address(t, true).getAddress());
        Fetches.def("bc_src_port", 0, 0, Match.INT, true, a -> t -> Fetches.port(address(t, true)));
        Fetches.def("bc_dst", 0, 0, Match.IP, true, a -> t -> address(t, false) == null ? null : address(t, false).getAddress());
        Fetches.def("bc_dst_port", 0, 0, Match.INT, true, a -> t -> Fetches.port(address(t, false)));
        // the stream's last server connection, as long as it has one (a refused connect leaves none: no sample, as HAProxy)
        Fetches.def("bc_err", 0, 0, Match.INT, true, a -> t -> t.serverChannel() == null ? null : (Object) 0L);
        Fetches.def("bc_err_str", 0, 0, Match.STR, true, a -> t -> t.serverChannel() == null ? null : "Success");
        Fetches.def("bc_http_major", 0, 0, Match.INT, true, a -> t -> t.serverHttpMajor() == 0 ? null : (Object) (long) t.serverHttpMajor());
    }

    /** The local ({@code source}) or remote address of the stream's server connection, null without one or off IP. */
    private static InetSocketAddress address(Txn t, boolean source) {
        Channel ch = t.serverChannel();
        if (ch == null) {
            return null;
        }
        return (source ? ch.localAddress() : ch.remoteAddress()) instanceof InetSocketAddress a ? a : null;
    }

    private static void time(String name, ToLongFunction<EpollTcpInfo> read) {
        ANY_PHASE.add(name);
        Fetches.def(name, 0, 1, Match.INT, false, a -> {
            boolean us = false;
            if (!a.isEmpty()) {
                switch (a.get(0)) {
                    case "us" -> us = true;
                    case "ms" -> us = false;
                    default -> throw new IllegalArgumentException("expects 'us' or 'ms', got '" + a.get(0) + "'");
                }
            }
            boolean micros = us;
            return t -> {
                EpollTcpInfo info = tcpInfo(t.clientChannel());
                if (info == null) {
                    return null;
                }
                long v = read.applyAsLong(info);
                return micros ? v : (v + 500) / 1000;
            };
        });
    }

    /** A counter takes no argument; HAProxy 2.6 ignores one (with a warning), as older versions took one by mistake. */
    private static void counter(String name, ToLongFunction<EpollTcpInfo> read) {
        ANY_PHASE.add(name);
        Fetches.def(name, 0, 1, Match.INT, false, a -> t -> {
            EpollTcpInfo info = tcpInfo(t.clientChannel());
            return info == null ? null : (Object) read.applyAsLong(info);
        });
    }

    private static void local(String name, boolean source) {
        ANY_PHASE.add(name);
        Fetches.def(name, 0, 0, Match.BOOL, false, a -> t -> {
            InetSocketAddress addr = source ? t.clientAddress() : t.frontendAddress();
            if (addr == null || addr.getAddress() == null) {
                // a UNIX socket's peer: HAProxy's addr_is_local says local for anything not inet
                return Boolean.TRUE;
            }
            return isLocal(addr.getAddress());
        });
    }

    /**
     * The kernel's TCP_INFO of the client connection's socket (an HTTP/2 stream's is its connection's), or null: no
     * stream (tcp-request connection rules), a QUIC or UNIX connection, or a transport without it (NIO).
     */
    static EpollTcpInfo tcpInfo(Channel ch) {
        if (!(Network.socketOf(ch) instanceof EpollSocketChannel e)) {
            return null;
        }
        try {
            return e.isOpen() ? e.tcpInfo() : null;
        } catch (RuntimeException ex) {
            // the socket closed under us: no sample, as a failed getsockopt gives none in HAProxy
            return null;
        }
    }

    /**
     * Whether {@code ip} is an address of this system, as HAProxy's addr_is_local finds out: a UDP socket binds to it
     * and connects to it; null (no sample) when the system answers neither way.
     */
    static Boolean isLocal(InetAddress ip) {
        try (DatagramSocket s = new DatagramSocket(null)) {
            try {
                s.bind(new InetSocketAddress(ip, 0));
            } catch (java.net.BindException e) {
                return Boolean.FALSE;
            }
            try {
                s.connect(new InetSocketAddress(ip, s.getLocalPort()));
                return Boolean.TRUE;
            } catch (SocketException e) {
                return Boolean.FALSE;
            }
        } catch (IOException e) {
            return null;
        }
    }
}
