package dev.sluice.proxy.dns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DefaultDnsResponse;
import io.netty.handler.codec.dns.DnsQuery;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.handler.codec.dns.TcpDnsQueryDecoder;
import io.netty.handler.codec.dns.TcpDnsResponseEncoder;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A {@code tcp@} name server is asked over TCP (length-prefixed DNS messages); one that does not answer times out. */
class TcpQueryTest {
    private final Transport transport = Transport.select();
    private EventLoopGroup group;
    private final AtomicInteger queries = new AtomicInteger();

    @BeforeEach
    void start() {
        group = transport.newGroup(1, r -> new Thread(r, "tcp-query-test"));
    }

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Channel server(boolean answer) {
        return new ServerBootstrap().group(group).channelFactory(transport::newServerChannel).childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new TcpDnsQueryDecoder(), new TcpDnsResponseEncoder(), new SimpleChannelInboundHandler<DnsQuery>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DnsQuery q) {
                        queries.incrementAndGet();
                        if (!answer) {
                            return;
                        }
                        DnsResponse r = new DefaultDnsResponse(q.id());
                        r.addRecord(DnsSection.QUESTION, q.recordAt(DnsSection.QUESTION));
                        r.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord("app.test.", DnsRecordType.A, 60,
                                Unpooled.wrappedBuffer(new byte[] {10, 0, 0, 9})));
                        ctx.writeAndFlush(r);
                    }
                });
            }
        }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
    }

    @Test
    void anAnswerOverTcp() throws Exception {
        Channel s = server(true);
        DnsQuestion q = new DefaultDnsQuestion("app.test.", DnsRecordType.A);
        Future<DnsResponse> f = TcpQuery.send(group.next(), transport, (InetSocketAddress) s.localAddress(), q, 2000).await();
        assertThat(f.isSuccess()).as("%s", f.cause()).isTrue();
        DnsResponse r = f.getNow();
        try {
            DnsAnswer a = DnsAnswer.of(r, q);
            assertThat(a.items()).extracting(DnsAnswer.Item::ip).containsExactly(InetAddress.getByName("10.0.0.9"));
        } finally {
            r.release();
        }
        assertThat(queries).hasValue(1);
        s.close().syncUninterruptibly();
    }

    @Test
    void noAnswerIsATimeout() throws Exception {
        Channel s = server(false);
        DnsQuestion q = new DefaultDnsQuestion("app.test.", DnsRecordType.A);
        Future<DnsResponse> f = TcpQuery.send(group.next(), transport, (InetSocketAddress) s.localAddress(), q, 200).await();
        assertThat(f.cause()).isInstanceOf(TimeoutException.class);
        s.close().syncUninterruptibly();
    }
}
