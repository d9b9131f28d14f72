package dev.sluice.proxy.tls;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Real handshakes over loopback: a Netty server whose accepted connections start with the handler a
 * {@link ServerTlsContext} gives, followed by a {@link TlsHandshakeHandler} that records the session and
 * writes one line (so that the client reads the TLS 1.3 tickets sent before it); and clients that connect
 * with a given {@link SslHandler} and report what they saw. Everything is closed by {@link #close}.
 */
final class Loopback implements AutoCloseable {
    static final long TIMEOUT_S = 10;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final Channel server;
    /** One entry per accepted connection: its TlsSession, or the Throwable of its failure. */
    private final LinkedBlockingQueue<Object> serverOutcomes = new LinkedBlockingQueue<>();

    /** What a client saw, and what the server recorded for the same connection. */
    record Result(TlsSession client, X509Certificate peerCertificate, Throwable clientFailure, Object serverOutcome) {
        boolean ok() {
            return clientFailure == null;
        }

        TlsSession server() {
            return serverOutcome instanceof TlsSession s ? s : null;
        }

        String peerCn() {
            return peerCertificate == null ? null : CertifiedKey.commonNames(peerCertificate.getSubjectX500Principal()).get(0);
        }
    }

    Loopback(ServerTlsContext tls) throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class).childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(tls.newHandler(ch.alloc(), TimeUnit.SECONDS.toMillis(TIMEOUT_S)));
                ch.pipeline().addLast(new TlsHandshakeHandler(new TlsHandshakeHandler.Callback() {
                    @Override
                    public void handshakeDone(ChannelHandlerContext ctx, TlsSession session) {
                        serverOutcomes.add(session);
                        ctx.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext c, Object msg) {
                                ReferenceCountUtil.release(msg);
                            }
                        });
                        ctx.writeAndFlush(Unpooled.copiedBuffer("hello\n", StandardCharsets.US_ASCII));
                    }

                    @Override
                    public void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
                        serverOutcomes.add(cause);
                    }
                }));
            }
        }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** The outcome the server records for its next connection (waits for it). */
    Object nextServerOutcome() throws InterruptedException {
        return serverOutcomes.poll(TIMEOUT_S, TimeUnit.SECONDS);
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Connects with {@code client}; {@code host} is sent as SNI when it is a host name (and keys the session cache). */
    Result connect(SslContext client, String host) throws Exception {
        return connect(alloc -> client.newHandler(alloc, host, port()));
    }

    /** Connects with the handler {@code handlerFactory} makes for the channel's allocator. */
    Result connect(Function<io.netty.buffer.ByteBufAllocator, SslHandler> handlerFactory) throws Exception {
        CompletableFuture<Void> firstRead = new CompletableFuture<>();
        SslHandler[] ssl = new SslHandler[1];
        Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel c) {
                ssl[0] = handlerFactory.apply(c.alloc());
                c.pipeline().addLast(ssl[0], new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                        firstRead.complete(null);
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        firstRead.complete(null);
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        ctx.close();
                    }
                });
            }
        }).connect(address()).sync().channel();
        try {
            Future<Channel> hs = ssl[0].handshakeFuture().await();
            if (!hs.isSuccess()) {
                return new Result(null, null, hs.cause(), serverOutcomes.poll(TIMEOUT_S, TimeUnit.SECONDS));
            }
            firstRead.get(TIMEOUT_S, TimeUnit.SECONDS);
            TlsSession session = ch.eventLoop().submit(() -> TlsSession.of(ssl[0])).get(TIMEOUT_S, TimeUnit.SECONDS);
            Certificate[] peer = ssl[0].engine().getSession().getPeerCertificates();
            return new Result(session, (X509Certificate) peer[0], null, serverOutcomes.poll(TIMEOUT_S, TimeUnit.SECONDS));
        } finally {
            ch.close().sync();
        }
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
