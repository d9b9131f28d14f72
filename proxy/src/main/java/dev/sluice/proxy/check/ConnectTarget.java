package dev.sluice.proxy.check;

import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.rules.Samples;
import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Where and how a check's connection goes when a connect rule ({@code tcp-check connect}, {@code http-check connect})
 * says it: the rule's address, port (a number, a sample expression, the address's port) and TLS, SNI and PROXY header
 * settings, over the server's check settings where the rule says {@code default} or gives none, as HAProxy's
 * tcpcheck_eval_connect.
 */
record ConnectTarget(InetSocketAddress address, SocketAddress unix, boolean tls, String sni, int proxyVersion) {

    /** Sets {@code b}'s channels: a UNIX stream socket's for a {@link #unix} target, else TCP's, without Nagle. */
    Bootstrap channels(Bootstrap b, Transport t) {
        if (unix instanceof dev.sluice.proxy.transport.AbstractSockets.Address) {
            // connect() makes the channel, connected already
            return b;
        }
        return unix != null ? b.channelFactory(t::newDomainSocketChannel)
                : b.channelFactory(t::newSocketChannel).option(ChannelOption.TCP_NODELAY, true);
    }

    /**
     * Connects {@code b}'s channel to {@link #connectTo}; a name in the abstract namespace is connected at once through
     * {@link Transport#connectAbstract} (HAProxy's padded address) and its channel registered.
     */
    io.netty.channel.ChannelFuture connect(Bootstrap b, Transport t) {
        if (unix instanceof dev.sluice.proxy.transport.AbstractSockets.Address a) {
            io.netty.channel.Channel ch;
            try {
                ch = t.connectAbstract(a);
            } catch (java.io.IOException e) {
                io.netty.channel.Channel placeholder = t.newDomainSocketChannel();
                placeholder.unsafe().closeForcibly();
                return new io.netty.channel.DefaultChannelPromise(placeholder, b.config().group().next()).setFailure(e);
            }
            return b.channelFactory(() -> ch).register();
        }
        return b.connect(connectTo());
    }

    /** Where to connect: the UNIX socket, else the address. */
    SocketAddress connectTo() {
        return unix != null ? unix : address;
    }

    /** The target of {@code c} for {@code check}; {@code session} evaluates a port expression (null: none given). */
    static ConnectTarget of(TcpCheckOwner check, TcpCheckPlan.Connect c, CheckSession session) {
        InetSocketAddress dflt = check.target();
        InetAddress ip = c.addr() != null ? c.addr() : dflt.getAddress();
        int port = c.port();
        if (port == 0 && c.portExpr() != null && session != null) {
            Long p = Samples.integer(c.portExpr().get(session));
            port = p == null ? 0 : (int) (long) p;
        }
        if (port == 0 && c.addr() != null) {
            port = c.addrPort();
        }
        if (port == 0) {
            port = dflt.getPort();
        }
        boolean tls = c.ssl() || c.useDefault() && check.tls();
        Server server = check.server();
        if (tls && (server == null || server.tls() == null)) {
            // the configuration check refuses a TLS connect without the server's TLS settings (a mailer has none)
            tls = false;
        }
        String sni = c.sni() != null ? c.sni() : c.useDefault() ? check.sni() : null;
        int version = server == null ? 0 : server.config().proxyVersion();
        // a mailer has no server, and so no PROXY header
        int proxyVersion = server == null ? 0 : c.sendProxy() ? (version != 0 ? version : 1) : c.useDefault() ? check.proxyHeaderVersion() : 0;
        // a server on a UNIX socket is checked there unless the rule names an address (a port alone means nothing to it)
        SocketAddress unix = c.addr() == null ? check.unixTarget() : null;
        return new ConnectTarget(new InetSocketAddress(ip, port), unix, tls, sni, proxyVersion);
    }
}
