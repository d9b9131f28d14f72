package dev.sluice.proxy.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A {@link SpliceRegion} written to a real epoll socket between two buffers: everything arrives in order, also when
 * the reader is slow and the socket fills (the region resumes at EPOLLOUT), and its promise completes.
 */
class SpliceRegionTest {
    @Test
    void pipeBytesGoOutInOrderBetweenBuffers() throws Exception {
        assumeTrue(Epoll.isAvailable() && SpliceCalls.available());
        int size = 1 << 20;
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
            data[i] = (byte) (i * 31 + (i >> 12));
        }
        SpliceCalls calls = new SpliceCalls();
        int[] pipe = calls.pipe(size);
        try (FileOutputStream w = new FileOutputStream("/proc/self/fd/" + pipe[1])) {
            w.write(data);
        }
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        try {
            Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childOption(ChannelOption.SO_SNDBUF, 16 * 1024).childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            accepted.complete(ch);
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            try (Socket s = new Socket()) {
                s.setReceiveBufferSize(32 * 1024);
                s.connect(server.localAddress());
                s.setSoTimeout(10_000);
                AbstractEpollStreamChannel ch = (AbstractEpollStreamChannel) accepted.get(5, TimeUnit.SECONDS);
                CompletableFuture<ChannelFuture> written = new CompletableFuture<>();
                ch.eventLoop().execute(() -> {
                    ch.write(Unpooled.wrappedBuffer(new byte[] {'<'}));
                    ChannelFuture f = ch.write(new SpliceRegion(calls, pipe[0], ch, size));
                    ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'>'}));
                    written.complete(f);
                });
                ChannelFuture f = written.get(5, TimeUnit.SECONDS);
                // the socket fills before anything is read: the rest goes at EPOLLOUT
                Thread.sleep(200);
                assertThat(f.isDone()).as("a 1 MiB region into a socket nobody reads: %s", f.cause()).isFalse();
                InputStream in = s.getInputStream();
                byte[] got = in.readNBytes(size + 2);
                assertThat(got[0]).isEqualTo((byte) '<');
                assertThat(got[size + 1]).isEqualTo((byte) '>');
                assertThat(Arrays.equals(got, 1, size + 1, data, 0, size)).isTrue();
                assertThat(f.await(5, TimeUnit.SECONDS) && f.isSuccess()).isTrue();
                ch.close().sync();
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            SpliceCalls.close(pipe[0]);
            SpliceCalls.close(pipe[1]);
        }
    }
}
