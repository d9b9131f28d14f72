package dev.sluice.regtests;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3GoAwayFrame;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.QLogConfiguration;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamResetException;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP/3 client of the regtests (Netty's codec over quiche): any number of requests on one connection, with
 * fields of any name and value (Netty's validation off, to check that Sluice rejects what is malformed) and
 * bodies. Each request reports its response (status, final header fields, body) or the error code its stream was
 * reset with; the connection reports the server's GOAWAY and CONNECTION_CLOSE. Used from the test thread; Netty's
 * one event loop of the client does the I/O.
 */
final class H3Client implements AutoCloseable {
    /** How one request ended: a response (status, final header fields, body), or a reset with an HTTP/3 error code. */
    record Result(int status, Http3Headers headers, byte[] body, long resetCode) {
        /** A field of the final response ({@code null} when absent). */
        String header(String name) {
            CharSequence v = headers == null ? null : headers.get(name);
            return v == null ? null : v.toString();
        }

        String text() {
            return new String(body, StandardCharsets.US_ASCII);
        }
    }

    private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel datagram;
    private final int port;
    /** The share of received datagrams dropped before the codec (as a lossy network would), from now on. */
    volatile double dropRate;
    /** Datagrams dropped so far. */
    final AtomicLong dropped = new AtomicLong();
    final QuicChannel quic;
    /** The id of the GOAWAY frame the server sent, once it did. */
    final CompletableFuture<Long> goAway = new CompletableFuture<>();
    /** How the server closed the connection (its CONNECTION_CLOSE), once it did. */
    final CompletableFuture<QuicConnectionCloseEvent> closed = new CompletableFuture<>();

    H3Client(int port) throws Exception {
        this(port, 25, 10_000);
    }

    /**
     * @param maxAckDelayMs    the client's max_ack_delay: the server's PTO estimate grows with it (a long one makes
     *                         the server's closing records live their full second)
     * @param connectTimeoutMs how long the handshake may take (the constructor then throws)
     */
    H3Client(int port, long maxAckDelayMs, long connectTimeoutMs) throws Exception {
        this(port, maxAckDelayMs, connectTimeoutMs, 10_000);
    }

    /** @param idleTimeoutMs the client's max_idle_timeout (a request held at the origin sees no packet meanwhile) */
    H3Client(int port, long maxAckDelayMs, long connectTimeoutMs, long idleTimeoutMs) throws Exception {
        this(port, maxAckDelayMs, connectTimeoutMs, idleTimeoutMs, null);
    }

    /**
     * @param qlog where quiche writes the connection's qlog (JSON-SEQ: every frame sent and received), or null;
     *             complete once the client is closed
     */
    H3Client(int port, long maxAckDelayMs, long connectTimeoutMs, long idleTimeoutMs, Path qlog) throws Exception {
        this.port = port;
        QuicSslContext ctx = QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .applicationProtocols(Http3.supportedApplicationProtocols()).build();
        ChannelHandler codec = Http3.newQuicClientCodecBuilder().sslContext(ctx).maxIdleTimeout(idleTimeoutMs, TimeUnit.MILLISECONDS)
                .maxAckDelay(maxAckDelayMs, TimeUnit.MILLISECONDS)
                .initialMaxData(10_000_000).initialMaxStreamDataBidirectionalLocal(1_000_000).build();
        Random drops = new Random(7);
        ChannelHandler lossy = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                if (dropRate > 0 && drops.nextDouble() < dropRate) {
                    dropped.incrementAndGet();
                    ReferenceCountUtil.release(msg);
                    return;
                }
                c.fireChannelRead(msg);
            }
        };
        datagram = new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(lossy, codec);
            }
        }).bind(0).sync().channel();
        ChannelHandler control = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                if (msg instanceof Http3GoAwayFrame g) {
                    goAway.complete(g.id());
                }
                ReferenceCountUtil.release(msg);
            }
        };
        try {
            quic = QuicChannel.newBootstrap(datagram).handler(new ChannelInitializer<QuicChannel>() {
                @Override
                protected void initChannel(QuicChannel ch) {
                    ch.pipeline().addLast(new Http3ClientConnectionHandler(control, null, null, null, true));
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void userEventTriggered(ChannelHandlerContext c, Object evt) {
                            if (evt instanceof QuicConnectionCloseEvent e) {
                                closed.complete(e);
                            }
                            c.fireUserEventTriggered(evt);
                        }
                    });
                }
            }).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeoutMs)
                    .option(QuicChannelOption.QLOG, qlog == null ? null : new QLogConfiguration(qlog.toString(), "h3client", "regtests"))
                    .remoteAddress(new InetSocketAddress("127.0.0.1", port)).connect().get(connectTimeoutMs + 2000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            datagram.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** A STREAM frame the client received, as its qlog tells. */
    record StreamFrame(long stream, boolean fin, long offset, long length) {
    }

    private static final Pattern STREAM_FRAME = Pattern.compile(
            "\\{\"frame_type\":\"stream\",\"stream_id\":(\\d+),\"offset\":(\\d+)(,\"fin\":true)?,\"raw\":\\{\"payload_length\":(\\d+)\\}\\}");

    /** The STREAM frames on {@code stream} in the packets received, in order, from a closed client's qlog. */
    static List<StreamFrame> streamFramesReceived(Path qlog, long stream) throws IOException {
        List<StreamFrame> out = new ArrayList<>();
        for (String event : framesReceived(qlog)) {
            Matcher m = STREAM_FRAME.matcher(event);
            while (m.find()) {
                if (Long.parseLong(m.group(1)) == stream) {
                    out.add(new StreamFrame(stream, m.group(3) != null, Long.parseLong(m.group(2)), Long.parseLong(m.group(4))));
                }
            }
        }
        return out;
    }

    /** The packet_received events of a closed client's qlog (one JSON text each, frames included). */
    static List<String> framesReceived(Path qlog) throws IOException {
        return Files.readString(qlog).lines().filter(l -> l.contains("\"name\":\"quic:packet_received\"")).toList();
    }

    /** The client's UDP port. */
    int localPort() {
        return ((InetSocketAddress) datagram.localAddress()).getPort();
    }

    /** Opens a unidirectional stream and writes {@code bytes} on it (a stream type and frames, as they are). */
    void uniStream(byte... bytes) throws Exception {
        QuicStreamChannel s = quic.createStream(QuicStreamType.UNIDIRECTIONAL, new ChannelInboundHandlerAdapter()).get(5, TimeUnit.SECONDS);
        s.writeAndFlush(Unpooled.wrappedBuffer(bytes)).sync();
    }

    /** Request fields as given, in order ({@code :method}, {@code :path} ... included); no validation. */
    static Http3Headers fields(String... nameValue) {
        Http3Headers h = new DefaultHttp3Headers(false);
        for (int i = 0; i < nameValue.length; i += 2) {
            h.add(nameValue[i], nameValue[i + 1]);
        }
        return h;
    }

    /** GET {@code path} (authority 127.0.0.1:port) and wait for how it ended. */
    Result get(String path) throws Exception {
        return send(fields(":method", "GET", ":scheme", "https", ":authority", "127.0.0.1:" + port, ":path", path), null);
    }

    /** POST {@code body} to {@code path} and wait for how it ended. */
    Result post(String path, byte[] body) throws Exception {
        return send(fields(":method", "POST", ":scheme", "https", ":authority", "127.0.0.1:" + port, ":path", path), body);
    }

    /** Sends a request (body null: none) and waits for how it ended. */
    Result send(Http3Headers headers, byte[] body) throws Exception {
        return start(headers, body).get(10, TimeUnit.SECONDS);
    }

    /** Sends a request (body null: none); the future completes when it ended (from the client's event loop). */
    CompletableFuture<Result> start(Http3Headers headers, byte[] body) throws Exception {
        CompletableFuture<Result> done = new CompletableFuture<>();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int[] status = {0};
        Http3Headers[] fields = {null};
        QuicStreamChannel s = Http3.newRequestStream(quic, new Http3RequestStreamInboundHandler() {
            @Override
            protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
                CharSequence st = frame.headers().status();
                if (st != null && status[0] < 200) {
                    status[0] = Integer.parseInt(st.toString());
                    if (status[0] >= 200) {
                        fields[0] = frame.headers();
                    }
                }
            }

            @Override
            protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
                ByteBuf c = frame.content();
                byte[] b = new byte[c.readableBytes()];
                c.readBytes(b);
                got.writeBytes(b);
                frame.release();
            }

            @Override
            protected void channelInputClosed(ChannelHandlerContext ctx) {
                done.complete(new Result(status[0], fields[0], got.toByteArray(), -1));
            }

            @Override
            protected void handleQuicException(ChannelHandlerContext ctx, QuicException e) {
                done.complete(new Result(status[0], fields[0], got.toByteArray(), e instanceof QuicStreamResetException r ? r.applicationProtocolCode() : -2));
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                if (cause instanceof QuicStreamResetException r) {
                    done.complete(new Result(status[0], fields[0], got.toByteArray(), r.applicationProtocolCode()));
                    return;
                }
                super.exceptionCaught(ctx, cause);
            }
        }).get(5, TimeUnit.SECONDS);
        if (body == null) {
            s.writeAndFlush(new DefaultHttp3HeadersFrame(headers)).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
        } else {
            s.write(new DefaultHttp3HeadersFrame(headers));
            s.writeAndFlush(new DefaultHttp3DataFrame(Unpooled.wrappedBuffer(body))).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
        }
        return done;
    }

    @Override
    public void close() {
        quic.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        datagram.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
}
