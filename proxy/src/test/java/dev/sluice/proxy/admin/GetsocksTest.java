package dev.sluice.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.proxy.listener.ReceivedSocket;
import dev.sluice.proxy.listener.ReceivedSockets;
import dev.sluice.proxy.listener.SocketHandover;
import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.unix.UnixChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code _getsocks} between an admin socket of this process and {@link SocketHandover#fetch}, over a real UNIX
 * socket: the descriptors received are the listening sockets offered (the same kernel sockets), with their
 * addresses; more than one message's worth of them (HAProxy's 252, then an acknowledgement); nothing on a socket
 * without {@code expose-fd listeners}, or when there is nothing to offer; HAProxy's words when it fails.
 */
class GetsocksTest {
    private final Transport transport = Transport.select();
    private MultiThreadIoEventLoopGroup group;
    private final List<Channel> listening = new ArrayList<>();
    private AdminSockets admin;
    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        assumeTrue(transport.name().equals("epoll"), "needs the epoll transport");
        group = transport.newGroup(1, Executors.defaultThreadFactory());
    }

    @AfterEach
    void tearDown() throws Exception {
        if (admin != null) {
            admin.stop();
        }
        for (Channel c : listening) {
            c.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    private Channel listen(String host) throws InterruptedException {
        Channel ch = new ServerBootstrap().group(group).channelFactory(() -> new EpollServerSocketChannel())
                .childHandler(new ChannelInboundHandlerAdapter()).bind(host, 0).sync().channel();
        listening.add(ch);
        return ch;
    }

    private static int fd(Channel ch) {
        return ((UnixChannel) ch).fd().intValue();
    }

    /** What the descriptor is in the kernel ("socket:[inode]"). */
    private static String kernelSocket(int fd) throws IOException {
        return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
    }

    private Path startAdmin(boolean exposeFd, List<SocketHandover.Exported> offered) {
        Path sock = dir.resolve(exposeFd ? "exposed.sock" : "plain.sock");
        admin = new AdminSockets(List.of(new StatsSocket(new SourceRef("t.cfg", 2), new ListenAddress.Unix(sock.toString()), -1,
                StatsSocket.Level.ADMIN, null, null, exposeFd)), 10_000, new CliRegistry()).exportListeners(() -> offered);
        admin.start(transport, group);
        return sock;
    }

    private static List<SocketHandover.Exported> offer(List<Channel> channels) {
        return channels.stream().map(c -> new SocketHandover.Exported(fd(c), "", "")).toList();
    }

    @Test
    void theListeningSocketsComeOverTheAdminSocket() throws Exception {
        List<Channel> three = List.of(listen("127.0.0.1"), listen("127.0.0.1"), listen("::1"));
        Path sock = startAdmin(true, offer(three));
        ReceivedSockets got = SocketHandover.fetch(sock.toString());
        List<ReceivedSocket> left = got.left();
        assertThat(left).hasSize(3);
        for (int i = 0; i < 3; i++) {
            InetSocketAddress local = (InetSocketAddress) three.get(i).localAddress();
            ReceivedSocket r = left.get(i);
            assertThat(r.port()).isEqualTo(local.getPort());
            assertThat(r.address()).isEqualTo(local.getAddress());
            assertThat(r.listening()).isTrue();
            assertThat(r.datagram()).isFalse();
            assertThat(r.iface()).isEmpty();
            assertThat(r.fd()).isNotEqualTo(fd(three.get(i)));
            assertThat(kernelSocket(r.fd())).as("the same socket").isEqualTo(kernelSocket(fd(three.get(i))));
        }
        got.closeUnused();
        assertThat(got.left()).isEmpty();
        // the session ended (its connection was taken off its loop to send, then closed there)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (admin.openSessions() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(admin.openSessions()).isZero();
        assertThat(admin.totalSessions()).isEqualTo(1);
    }

    @Test
    void moreThanOneMessageOfSocketsWaitsForTheAcknowledgement() throws Exception {
        List<Channel> many = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            many.add(listen("127.0.0.1"));
        }
        Path sock = startAdmin(true, offer(many));
        ReceivedSockets got = SocketHandover.fetch(sock.toString());
        try {
            assertThat(got.left()).extracting(ReceivedSocket::port)
                    .containsExactlyElementsOf(many.stream().map(c -> ((InetSocketAddress) c.localAddress()).getPort()).toList());
            assertThat(kernelSocket(got.left().get(299).fd())).isEqualTo(kernelSocket(fd(many.get(299))));
        } finally {
            got.closeUnused();
        }
    }

    @Test
    void aSocketWithoutExposeFdClosesTheSessionWithoutAWord() throws Exception {
        Path sock = startAdmin(false, offer(List.of(listen("127.0.0.1"))));
        assertThatThrownBy(() -> SocketHandover.fetch(sock.toString())).isInstanceOf(SocketHandover.Failure.class)
                .hasMessage("Failed to get the number of sockets to be transferred !");
    }

    @Test
    void nothingToOfferIsNothingSent() {
        Path sock = startAdmin(true, List.of());
        assertThatThrownBy(() -> SocketHandover.fetch(sock.toString())).isInstanceOf(SocketHandover.Failure.class)
                .hasMessage("Failed to get the number of sockets to be transferred !");
    }

    @Test
    void noProcessBehindThePath() {
        String path = dir.resolve("none.sock").toString();
        assertThatThrownBy(() -> SocketHandover.fetch(path)).isInstanceOf(SocketHandover.Failure.class)
                .hasMessage("Failed to connect to the old process socket '" + path + "'");
    }

    @Test
    void theAdminSocketStillAnswersCommandsAfterwards() throws Exception {
        Path sock = startAdmin(true, offer(List.of(listen("127.0.0.1"))));
        SocketHandover.fetch(sock.toString()).closeUnused();
        try (var ch = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(sock))) {
            ch.write(java.nio.ByteBuffer.wrap("help\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            String answer = new String(java.nio.channels.Channels.newInputStream(ch).readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            assertThat(answer).contains("help");
        }
    }
}
