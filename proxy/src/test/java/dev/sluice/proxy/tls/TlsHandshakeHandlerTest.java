package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The handler that waits for the end of the handshake: held reads, one report per failure, plain text on a TLS port. */
class TlsHandshakeHandlerTest {
    @TempDir
    static Path dir;
    static ServerTlsContext single;
    static ServerTlsContext several;

    @BeforeAll
    static void contexts() {
        Path a = Fixtures.combined(dir, "a.pem", Fixtures.A);
        single = Fixtures.serverContext(Fixtures.bind(a));
        several = Fixtures.serverContext(Fixtures.bind(Fixtures.combined(dir, "d.pem", Fixtures.DEFAULT), a));
    }

    /** Records what the callback is told. */
    private static final class Recorder implements TlsHandshakeHandler.Callback {
        final List<Object> events = new ArrayList<>();
        final List<Object> reads = new ArrayList<>();

        @Override
        public void handshakeDone(ChannelHandlerContext ctx, TlsSession session) {
            events.add(session);
            ctx.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext c, Object msg) {
                    reads.add(msg);
                }
            });
        }

        @Override
        public void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
            events.add(cause);
        }
    }

    @Test
    void readsBeforeTheEndAreHeldThenPassedOn() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel();
        SslHandler ssl = (SslHandler) single.newHandler(ch.alloc());
        ch.pipeline().addLast("ssl", ssl).addLast("before", new ChannelInboundHandlerAdapter()).addLast(new TlsHandshakeHandler(r));
        ChannelHandlerContext before = ch.pipeline().context("before");
        before.fireChannelRead(Unpooled.copiedBuffer("early", StandardCharsets.US_ASCII));
        assertThat(r.reads).isEmpty();
        before.fireUserEventTriggered(SslHandshakeCompletionEvent.SUCCESS);
        assertThat(r.events).singleElement().isInstanceOf(TlsSession.class);
        assertThat(TlsSession.of(ch)).isSameAs(r.events.get(0));
        assertThat(ch.pipeline().get(TlsHandshakeHandler.class)).isNull();
        assertThat(r.reads).hasSize(1);
        assertThat(((ByteBuf) r.reads.get(0)).toString(StandardCharsets.US_ASCII)).isEqualTo("early");
        r.reads.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
    }

    @Test
    void failureIsReportedOnceAndHeldReadsReleased() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel();
        SslHandler ssl = (SslHandler) single.newHandler(ch.alloc());
        ch.pipeline().addLast("ssl", ssl).addLast("before", new ChannelInboundHandlerAdapter()).addLast(new TlsHandshakeHandler(r));
        ChannelHandlerContext before = ch.pipeline().context("before");
        ByteBuf early = Unpooled.copiedBuffer("early", StandardCharsets.US_ASCII);
        before.fireChannelRead(early);
        SSLException boom = new SSLException("boom");
        before.fireExceptionCaught(boom);
        // the TLS handler's own event for the same failure: not reported again
        before.fireUserEventTriggered(new SslHandshakeCompletionEvent(new SSLException("the same failure")));
        assertThat(early.refCnt()).isZero();
        assertThat(r.events).containsExactly(boom);
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void closeBeforeTheEnd() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(single.newHandler(ch.alloc()), new TlsHandshakeHandler(r));
        ch.close();
        assertThat(r.events).singleElement().isInstanceOf(ClosedChannelException.class);
        ch.finishAndReleaseAll();
    }

    @Test
    void plainTextOnATlsPortFailsTheHandshake() throws Exception {
        for (ServerTlsContext tls : List.of(single, several)) {
            try (Loopback lb = new Loopback(tls)) {
                Object outcome = rawExchange(lb, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(outcome).isInstanceOf(Throwable.class);
                assertThat(causes((Throwable) outcome)).anyMatch(t -> t instanceof NotSslRecordException);
            }
        }
    }

    private static List<Throwable> causes(Throwable t) {
        List<Throwable> out = new ArrayList<>();
        for (Throwable c = t; c != null; c = c.getCause()) {
            out.add(c);
        }
        return out;
    }

    /** Writes {@code text} in clear, waits for the server to close, and returns its recorded outcome. */
    private static Object rawExchange(Loopback lb, String text) throws Exception {
        EventLoopGroup g = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel ch = new Bootstrap().group(g).channel(NioSocketChannel.class).handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel c) {
                    c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ReferenceCountUtil.release(msg);
                        }
                    });
                }
            }).connect(lb.address()).sync().channel();
            ch.writeAndFlush(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
            assertThat(ch.closeFuture().await(Loopback.TIMEOUT_S, TimeUnit.SECONDS)).as("the server closes").isTrue();
            return lb.nextServerOutcome();
        } finally {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
