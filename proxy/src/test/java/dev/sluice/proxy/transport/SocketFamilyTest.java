package dev.sluice.proxy.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * An IPv4 address gets a socket of the IPv4 family, listening and connecting, as HAProxy's: not Netty's default IPv6
 * socket with the address mapped (::ffff:a.b.c.d), whose connections the kernel handles through its IPv6 layer. Read
 * from the kernel's tables: /proc/net/tcp lists IPv4 sockets, /proc/net/tcp6 the IPv6 ones, mapped addresses included.
 */
class SocketFamilyTest {
    @Test
    void ipv4AddressesGetIpv4Sockets() throws Exception {
        assumeTrue(Epoll.isAvailable() && Files.isReadable(Path.of("/proc/net/tcp6")));
        Transport t = Transport.select();
        assumeTrue(t.name().equals("epoll"));
        MultiThreadIoEventLoopGroup group = t.newGroup(1, Thread::new);
        try {
            InetSocketAddress bind = new InetSocketAddress("127.0.0.1", 0);
            Channel server = new ServerBootstrap().group(group).channelFactory(() -> t.newServerChannel(bind))
                    .childHandler(new ChannelInboundHandlerAdapter()).bind(bind).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            Channel client = new Bootstrap().group(group).channelFactory(t.inet4SocketChannels()).handler(new ChannelInboundHandlerAdapter())
                    .connect(new InetSocketAddress("127.0.0.1", port)).sync().channel();
            int clientPort = ((InetSocketAddress) client.localAddress()).getPort();
            String hex = ":" + String.format(Locale.ROOT, "%04X", port) + " ";
            String clientHex = ":" + String.format(Locale.ROOT, "%04X", clientPort) + " ";
            String v4 = Files.readString(Path.of("/proc/net/tcp"));
            String v6 = Files.readString(Path.of("/proc/net/tcp6"));
            // the listener, and the client's end of the connection, each in the IPv4 table and not in the IPv6 one
            assertThat(v4).contains("0100007F" + hex).contains("0100007F" + clientHex);
            assertThat(v6).doesNotContain("0000000000000000FFFF00000100007F" + hex).doesNotContain("0000000000000000FFFF00000100007F" + clientHex);
            // Netty's default socket: the mapped address in the IPv6 table (what this test would see without the choice)
            Channel mapped = new ServerBootstrap().group(group).channelFactory(t::newServerChannel)
                    .childHandler(new ChannelInboundHandlerAdapter()).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int mappedPort = ((InetSocketAddress) mapped.localAddress()).getPort();
            assertThat(Files.readString(Path.of("/proc/net/tcp6")))
                    .contains("0000000000000000FFFF00000100007F:" + String.format(Locale.ROOT, "%04X", mappedPort) + " ");
            client.close().sync();
            server.close().sync();
            mapped.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }
}
