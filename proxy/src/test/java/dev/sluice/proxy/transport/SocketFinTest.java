package dev.sluice.proxy.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link SocketFin} on a real epoll socket: the peer reads what was written, then the end of the stream, and can still
 * send (a half-close); on anything but an open epoll socket it is not available.
 */
class SocketFinTest {
    @Test
    void theFinEndsWhatThePeerReadsAndItMayStillSend() throws Exception {
        assumeTrue(Epoll.isAvailable());
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        BlockingQueue<String> read = new LinkedBlockingQueue<>();
        try {
            Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    read.add(((ByteBuf) msg).toString(StandardCharsets.US_ASCII));
                                    ((ByteBuf) msg).release();
                                }
                            });
                            accepted.complete(ch);
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            try (Socket s = new Socket()) {
                s.connect(server.localAddress());
                s.setSoTimeout(10_000);
                Channel ch = accepted.get(5, TimeUnit.SECONDS);
                CompletableFuture<SocketFin.Result> fin = new CompletableFuture<>();
                ch.eventLoop().execute(() -> ch.writeAndFlush(Unpooled.copiedBuffer("bye", StandardCharsets.US_ASCII))
                        .addListener(f -> fin.complete(SocketFin.send(ch))));
                assertThat(fin.get(5, TimeUnit.SECONDS)).isEqualTo(SocketFin.Result.SENT);
                InputStream in = s.getInputStream();
                assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("bye");
                // half-closed: the other way still carries bytes
                s.getOutputStream().write("more".getBytes(StandardCharsets.US_ASCII));
                assertThat(read.poll(5, TimeUnit.SECONDS)).isEqualTo("more");
                s.close();
                ch.closeFuture().await(5, TimeUnit.SECONDS);
                assertThat(ch.isOpen()).isFalse();
                assertThat(SocketFin.send(ch)).isEqualTo(SocketFin.Result.UNAVAILABLE);
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void notAnEpollSocketUsesNettysShutdown() {
        EmbeddedChannel ch = new EmbeddedChannel();
        assertThat(SocketFin.send(ch)).isEqualTo(SocketFin.Result.UNAVAILABLE);
        ch.finishAndReleaseAll();
    }
}
