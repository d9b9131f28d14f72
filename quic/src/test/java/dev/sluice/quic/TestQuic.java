package dev.sluice.quic;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicCongestionControlAlgorithm;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.CharsetUtil;
import io.netty.util.concurrent.EventExecutor;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A real QUIC listener and real Netty QUIC clients over loopback for the module's tests: the server's
 * application protocol ("sluice-test") answers each stream with what it read, and closes the whole
 * connection (application error 0x42) when a stream says {@code close}.
 */
final class TestQuic implements AutoCloseable {
    static final String ALPN = "sluice-test";
    static final int APP_ERROR = 0x42;

    final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    final QuicListener listener;

    TestQuic(boolean forceRetry, int dropCloses) throws Exception {
        this(forceRetry, dropCloses, 10_000);
    }

    TestQuic(boolean forceRetry, int dropCloses, long idleMs) throws Exception {
        QuicSettings s = new QuicSettings(idleMs, 100, 1 << 20, 256 << 10, true, QuicCongestionControlAlgorithm.CUBIC, 100, forceRetry, 7,
                dropCloses);
        Secrets secrets = Secrets.of(null);
        listener = new QuicListener("fe_test", new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), s, serverContext(), new App(), null,
                secrets, new TokenKeys(secrets));
        List<EventLoop> loops = new ArrayList<>();
        for (EventExecutor e : group) {
            loops.add((EventLoop) e);
        }
        listener.start(loops, NioDatagramChannel::new, null);
    }

    private static QuicSslContext serverContext;

    /** One certificate for the whole run (making it and the context is the slow part of a test's start). */
    static synchronized QuicSslContext serverContext() throws Exception {
        if (serverContext == null) {
            serverContext = newServerContext();
        }
        return serverContext;
    }

    private static QuicSslContext newServerContext() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        Instant now = Instant.now();
        X500Name name = new X500Name("CN=localhost");
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name,
                BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minus(1, ChronoUnit.DAYS)), Date.from(now.plus(1, ChronoUnit.DAYS)), name,
                kp.getPublic()).build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
        return QuicSslContextBuilder.forServer(kp.getPrivate(), null, cert).applicationProtocols(ALPN).build();
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    /** A client connection (its own datagram socket), with {@code alpn} as its protocol. */
    Client connect(String alpn) throws Exception {
        return new Client(this, alpn, null);
    }

    /** The same, handing the client's TLS key log lines to {@code keylog}. */
    Client connect(String alpn, io.netty.handler.codec.quic.BoringSSLKeylog keylog) throws Exception {
        return new Client(this, alpn, keylog);
    }

    int closing() throws Exception {
        return listener.closingCount().get(5, TimeUnit.SECONDS);
    }

    int live() throws Exception {
        return listener.liveCount().get(5, TimeUnit.SECONDS);
    }

    /** The prefixes of the closing records. */
    List<ClosingConnection> records() throws Exception {
        List<ClosingConnection> out = new ArrayList<>();
        listener.perSocket(s -> s.closing.records()).get(5, TimeUnit.SECONDS).forEach(out::addAll);
        return out;
    }

    @Override
    public void close() {
        listener.stop();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The user event on which the test application closes the connection (application error 0x42). */
    static final String CLOSE_EVENT = "test-close";

    @ChannelHandler.Sharable
    private static final class App extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (CLOSE_EVENT.equals(evt)) {
                ((QuicChannel) ctx.channel()).close(true, APP_ERROR, Unpooled.copiedBuffer("stopping", CharsetUtil.US_ASCII));
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof QuicStreamChannel s) {
                s.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext sctx, Object m) {
                        ByteBuf b = (ByteBuf) m;
                        String text = b.toString(CharsetUtil.US_ASCII);
                        if (text.startsWith("close")) {
                            b.release();
                            ((QuicChannel) sctx.channel().parent()).close(true, APP_ERROR, Unpooled.copiedBuffer("bye", CharsetUtil.US_ASCII));
                            return;
                        }
                        sctx.writeAndFlush(b);
                    }
                });
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** A Netty QUIC client connection. */
    static final class Client implements AutoCloseable {
        final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        final Channel datagram;
        final QuicChannel quic;

        Client(TestQuic server, String alpn, io.netty.handler.codec.quic.BoringSSLKeylog keylog) throws Exception {
            QuicSslContext ctx = QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).applicationProtocols(alpn)
                    .keylog(keylog).build();
            ChannelHandler codec = new QuicClientCodecBuilder().sslContext(ctx).maxIdleTimeout(10_000, TimeUnit.MILLISECONDS)
                    .initialMaxData(1 << 20).initialMaxStreamDataBidirectionalLocal(1 << 18).initialMaxStreamDataBidirectionalRemote(1 << 18)
                    .initialMaxStreamsBidirectional(10)
                    // a long max_ack_delay makes the server's PTO estimate, hence its records' lifetime, the full 1 s:
                    // room for the test's steps on a loaded machine
                    .maxAckDelay(400, TimeUnit.MILLISECONDS).build();
            datagram = new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(codec).bind(0).sync().channel();
            QuicChannel q;
            try {
                q = QuicChannel.newBootstrap(datagram).handler(new ChannelInboundHandlerAdapter()).streamHandler(new ChannelInboundHandlerAdapter())
                        .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
                        .remoteAddress(server.address()).connect().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                q = null;
            }
            quic = q;
        }

        /** Opens a stream and writes {@code text} on it. */
        QuicStreamChannel send(String text, ChannelHandler reader) throws Exception {
            QuicStreamChannel s = quic.createStream(QuicStreamType.BIDIRECTIONAL, reader).get(5, TimeUnit.SECONDS);
            s.writeAndFlush(Unpooled.copiedBuffer(text, CharsetUtil.US_ASCII)).sync();
            return s;
        }

        InetSocketAddress localAddress() {
            return (InetSocketAddress) datagram.localAddress();
        }

        @Override
        public void close() {
            datagram.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
