package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.SslEarlyDataReadyEvent;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code bind quic4@... allow-0rtt}: a client resuming a session may send early data (0-RTT) to a bind that allows it, and only
 * to such a bind. Netty's QUIC client says it is in early data ({@link SslEarlyDataReadyEvent}) when its session ticket lets it:
 * BoringSSL only issues such tickets when the server enabled early data. HAProxy 2.6 (Debian's build) has no QUIC to compare
 * with.
 */
class QuicEarlyDataTest {

    /** Whether a second connection, resuming the first one's session, starts in early data. */
    private static boolean resumesInEarlyData(int port) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            QuicSslContext ctx = QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .applicationProtocols(Http3.supportedApplicationProtocols()).earlyData(true).build();
            ChannelHandler codec = Http3.newQuicClientCodecBuilder().sslContext(ctx)
                    // the session cache of the client keys sessions by peer host and port
                    .sslEngineProvider(q -> ctx.newEngine(q.alloc(), "localhost", port))
                    .maxIdleTimeout(5, TimeUnit.SECONDS).initialMaxData(1_000_000).initialMaxStreamDataBidirectionalLocal(100_000).build();
            Channel datagram = new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(codec).bind(0).sync().channel();
            try {
                boolean early = false;
                for (int i = 0; i < 2; i++) {
                    CompletableFuture<Boolean> event = new CompletableFuture<>();
                    QuicChannel q = QuicChannel.newBootstrap(datagram).handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void userEventTriggered(ChannelHandlerContext c, Object evt) {
                            if (evt instanceof SslEarlyDataReadyEvent) {
                                event.complete(true);
                            }
                            c.fireUserEventTriggered(evt);
                        }
                    }).remoteAddress(new InetSocketAddress("127.0.0.1", port)).connect().get(5, TimeUnit.SECONDS);
                    // the session ticket comes after the handshake: give it time to arrive before closing
                    Thread.sleep(300);
                    early = event.getNow(false);
                    q.close().sync();
                }
                return early;
            } finally {
                datagram.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        }
    }

    @Test
    void onlyABindWithAllow0rttTakesEarlyData() throws Exception {
        TestPki.Issued cert = new TestPki("early-ca").leaf("localhost", "127.0.0.1");
        int allowing = Ports.free();
        int plain = Ports.free();
        String cfg = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%1$d
                    bind quic4@127.0.0.1:%1$d ssl crt %3$s allow-0rtt
                    bind quic4@127.0.0.1:%2$d ssl crt %3$s
                    http-request return status 200
                """.formatted(allowing, plain, cert.pem());
        try (Sluice s = Sluice.start(cfg, allowing)) {
            assertThat(resumesInEarlyData(allowing)).as("resuming on the bind with allow-0rtt").isTrue();
            assertThat(resumesInEarlyData(plain)).as("resuming on the bind without it").isFalse();
        }
    }
}
