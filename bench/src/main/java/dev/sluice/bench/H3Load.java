package dev.sluice.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/3 load client (Debian's h2load has no HTTP/3): C connections, each keeping S requests in flight
 * (a new request as soon as one completes), for D seconds after a warm-up; prints requests per second and the
 * status counts. One event loop per connection group, as h2load's threads.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.H3Load host port connections streams seconds [path] [threads]</pre>
 */
public final class H3Load {
    private H3Load() {
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        int conns = Integer.parseInt(args[2]);
        int streams = Integer.parseInt(args[3]);
        int seconds = Integer.parseInt(args[4]);
        String path = args.length > 5 ? args[5] : "/";
        int threads = args.length > 6 ? Integer.parseInt(args[6]) : 1;
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
        QuicSslContext ctx = QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .applicationProtocols(Http3.supportedApplicationProtocols()).build();
        AtomicLong ok = new AtomicLong();
        AtomicLong bad = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        InetSocketAddress target = new InetSocketAddress(host, port);
        List<QuicChannel> open = new ArrayList<>();
        List<Channel> sockets = new ArrayList<>();
        for (int c = 0; c < conns; c++) {
            ChannelHandler codec = Http3.newQuicClientCodecBuilder().sslContext(ctx).maxIdleTimeout(30, TimeUnit.SECONDS)
                    .initialMaxData(64 << 20).initialMaxStreamDataBidirectionalLocal(1 << 20).initialMaxStreamsBidirectional(1000).build();
            Channel s = new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(codec).bind(0).sync().channel();
            sockets.add(s);
            QuicChannel q = QuicChannel.newBootstrap(s).handler(new Http3ClientConnectionHandler()).remoteAddress(target).connect()
                    .get(10, TimeUnit.SECONDS);
            open.add(q);
        }
        volatileRunning = true;
        for (QuicChannel q : open) {
            q.eventLoop().execute(() -> {
                for (int i = 0; i < streams; i++) {
                    request(q, host, path, ok, bad, failed);
                }
            });
        }
        Thread.sleep(2000);
        long before = ok.get();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        long done = ok.get() - before;
        double secs = (System.nanoTime() - t0) / 1e9;
        volatileRunning = false;
        System.out.printf("h3 %s:%d %d connections x %d streams: %.0f req/s (%d in %.1f s), non-2xx %d, failed %d%n", host, port, conns, streams,
                done / secs, done, secs, bad.get(), failed.get());
        for (QuicChannel q : open) {
            q.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        for (Channel s : sockets) {
            s.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static volatile boolean volatileRunning;

    /** One request; when it completes, the next on the same connection. */
    private static void request(QuicChannel q, String host, String path, AtomicLong ok, AtomicLong bad, AtomicLong failed) {
        if (!volatileRunning || !q.isActive()) {
            return;
        }
        Http3.newRequestStream(q, new Http3RequestStreamInboundHandler() {
            private int status;

            @Override
            protected void channelRead(ChannelHandlerContext c, Http3HeadersFrame frame) {
                CharSequence s = frame.headers().status();
                if (s != null) {
                    status = Integer.parseInt(s.toString());
                }
            }

            @Override
            protected void channelRead(ChannelHandlerContext c, Http3DataFrame frame) {
                frame.release();
            }

            @Override
            protected void channelInputClosed(ChannelHandlerContext c) {
                (status >= 200 && status < 300 ? ok : bad).incrementAndGet();
                request(q, host, path, ok, bad, failed);
            }
        }).addListener(f -> {
            if (!f.isSuccess()) {
                failed.incrementAndGet();
                return;
            }
            QuicStreamChannel s = (QuicStreamChannel) f.getNow();
            DefaultHttp3HeadersFrame h = new DefaultHttp3HeadersFrame(new DefaultHttp3Headers());
            h.headers().method("GET").path(path).scheme("https").authority(host);
            s.writeAndFlush(h).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
        });
    }
}
