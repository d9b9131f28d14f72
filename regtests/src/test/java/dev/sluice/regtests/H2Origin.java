package dev.sluice.regtests;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
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
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cleartext HTTP/2 (h2c, prior knowledge) test origin built on Netty's frame codec, independent of
 * Sluice's own HTTP/2 code: it records each request (pseudo-headers, fields, body) and answers GET
 * with {@code body} and POST with the SHA-256 of what it received.
 */
final class H2Origin implements AutoCloseable {

    /** A received request. */
    record Request(Http2Headers headers, byte[] body) {
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger connections = new AtomicInteger();
    private final byte[] body;
    private final String status;

    H2Origin(byte[] body) throws InterruptedException {
        this(body, "200");
    }

    /** Answering with {@code status}. */
    H2Origin(byte[] body, String status) throws InterruptedException {
        this.body = body;
        this.status = status;
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Handler());
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    int connections() {
        return connections.get();
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        private final Map<Http2FrameStream, Http2Headers> heads = new HashMap<>();
        private final Map<Http2FrameStream, ByteArrayOutputStream> bodies = new HashMap<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Http2HeadersFrame h) {
                if (!heads.containsKey(h.stream())) {
                    heads.put(h.stream(), h.headers());
                    bodies.put(h.stream(), new ByteArrayOutputStream());
                }
                if (h.isEndStream()) {
                    answer(ctx, h.stream());
                }
            } else if (msg instanceof Http2DataFrame d) {
                ByteBuf c = d.content();
                int n = c.readableBytes();
                byte[] b = new byte[n];
                c.readBytes(b);
                bodies.get(d.stream()).writeBytes(b);
                if (n > 0) {
                    ctx.write(new DefaultHttp2WindowUpdateFrame(n).stream(d.stream()));
                }
                boolean end = d.isEndStream();
                d.release();
                if (end) {
                    answer(ctx, d.stream());
                }
                ctx.flush();
            } else {
                io.netty.util.ReferenceCountUtil.release(msg);
            }
        }

        private void answer(ChannelHandlerContext ctx, Http2FrameStream s) {
            Http2Headers req = heads.remove(s);
            byte[] got = bodies.remove(s).toByteArray();
            requests.add(new Request(req, got));
            byte[] out = "POST".contentEquals(req.method()) ? Origin.sha256(got).getBytes(StandardCharsets.US_ASCII) : body;
            Http2Headers h = new DefaultHttp2Headers().status(status).addInt("content-length", out.length).add("x-origin", "h2");
            ctx.write(new DefaultHttp2HeadersFrame(h, false).stream(s));
            ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(out), true).stream(s));
        }
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
