package dev.sluice.proxy.dns;

import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.dns.DefaultDnsQuery;
import io.netty.handler.codec.dns.DnsOpCode;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.handler.codec.dns.TcpDnsQueryEncoder;
import io.netty.handler.codec.dns.TcpDnsResponseDecoder;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One query to a {@code tcp@} name server over DNS over TCP, with Netty's codec (length-prefixed messages): a connection
 * per query, closed with its answer, as Netty's resolver has no TCP-only mode. The answer is the caller's to release.
 * On the loop given.
 */
final class TcpQuery {
    private TcpQuery() {
    }

    static Future<DnsResponse> send(EventLoop loop, Transport transport, InetSocketAddress server, DnsQuestion q, long timeoutMs) {
        Promise<DnsResponse> answer = loop.newPromise();
        Bootstrap b = new Bootstrap().group(loop).channelFactory(transport::newSocketChannel)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeoutMs))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new TcpDnsQueryEncoder(), new TcpDnsResponseDecoder(), new SimpleChannelInboundHandler<DnsResponse>(false) {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, DnsResponse msg) {
                                if (!answer.trySuccess(msg)) {
                                    msg.release();
                                }
                                ctx.close();
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                answer.tryFailure(cause);
                                ctx.close();
                            }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) {
                                answer.tryFailure(new ClosedChannelException());
                            }
                        });
                    }
                });
        ChannelFuture connected = b.connect(server);
        connected.addListener(f -> {
            if (!f.isSuccess()) {
                answer.tryFailure(f.cause());
                return;
            }
            DefaultDnsQuery query = new DefaultDnsQuery(ThreadLocalRandom.current().nextInt(1 << 16), DnsOpCode.QUERY);
            query.setRecursionDesired(true).addRecord(DnsSection.QUESTION, q);
            connected.channel().writeAndFlush(query);
        });
        ScheduledFuture<?> timer = loop.schedule(() -> answer.tryFailure(new TimeoutException("no answer within " + timeoutMs + " ms")), timeoutMs,
                TimeUnit.MILLISECONDS);
        answer.addListener(f -> {
            timer.cancel(false);
            connected.channel().close();
        });
        return answer;
    }
}
