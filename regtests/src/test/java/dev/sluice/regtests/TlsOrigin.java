package dev.sluice.regtests;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TLS test origin on Netty's own TLS (the JDK provider, not the BoringSSL contexts Sluice builds),
 * independent of Sluice's HTTP code: HTTP/1.1 through Netty's codec and, when {@code h2} is offered,
 * HTTP/2 through the frame codec, as ALPN decides. It records each handshake's server name, each
 * request's protocol, target and body, and answers GET with {@code body} and POST with the SHA-256 of
 * what it received.
 */
final class TlsOrigin implements AutoCloseable {

    /** A received request: "h2" or "http/1.1", target, Host or :authority, body. */
    record Request(String protocol, String target, String authority, byte[] body) {
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    /** The server name of each connection's ClientHello, "" when it sent none. */
    private final List<String> serverNames = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger handshakes = new AtomicInteger();
    private final byte[] body;

    /**
     * @param pem  a certificate and its key (one PEM file)
     * @param alpn the protocols offered, in preference order (empty: no ALPN, HTTP/1.1)
     */
    TlsOrigin(TestPki.Issued pem, byte[] body, String... alpn) throws Exception {
        this.body = body;
        SslContextBuilder b = SslContextBuilder.forServer(pem.certFile().toFile(), pem.keyFile().toFile()).sslProvider(SslProvider.JDK);
        if (alpn.length > 0) {
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
        }
        SslContext ctx = b.build();
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        ch.pipeline().addLast(new SniHandler(name -> {
                            serverNames.add(name == null ? "" : name);
                            return ctx;
                        }), new Negotiation());
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

    List<String> serverNames() {
        synchronized (serverNames) {
            return List.copyOf(serverNames);
        }
    }

    /** TCP connections accepted. */
    int connections() {
        return connections.get();
    }

    /** TLS handshakes that completed. */
    int handshakes() {
        return handshakes.get();
    }

    private byte[] answer(String method, byte[] got) {
        return "POST".equals(method) ? Origin.sha256(got).getBytes(StandardCharsets.US_ASCII) : body;
    }

    private final class Negotiation extends ApplicationProtocolNegotiationHandler {
        Negotiation() {
            super(ApplicationProtocolNames.HTTP_1_1);
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            handshakes.incrementAndGet();
            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                ctx.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new H2Handler());
            } else {
                ctx.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024 * 1024), new H1Handler());
            }
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private final class H1Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest r) {
            byte[] got = ByteBufUtil.getBytes(r.content());
            requests.add(new Request("http/1.1", r.uri(), r.headers().get(HttpHeaderNames.HOST), got));
            byte[] out = answer(r.method().name(), got);
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(out));
            res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, out.length).set("x-origin", "tls-h1");
            ctx.writeAndFlush(res);
            if (r.method().equals(HttpMethod.HEAD)) {
                ctx.close();
            }
        }
    }

    private final class H2Handler extends ChannelInboundHandlerAdapter {
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
                bodies.get(d.stream()).writeBytes(ByteBufUtil.getBytes(c));
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
                ReferenceCountUtil.release(msg);
            }
        }

        private void answer(ChannelHandlerContext ctx, Http2FrameStream s) {
            Http2Headers req = heads.remove(s);
            byte[] got = bodies.remove(s).toByteArray();
            requests.add(new Request("h2", req.path().toString(), req.authority() == null ? null : req.authority().toString(), got));
            byte[] out = TlsOrigin.this.answer(req.method().toString(), got);
            Http2Headers h = new DefaultHttp2Headers().status("200").addInt("content-length", out.length).add("x-origin", "tls-h2");
            ctx.write(new DefaultHttp2HeadersFrame(h, false).stream(s));
            ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(out), true).stream(s));
        }
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
