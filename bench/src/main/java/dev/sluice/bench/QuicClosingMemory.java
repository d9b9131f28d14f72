package dev.sluice.bench;

import dev.sluice.pools.Pool;
import dev.sluice.pools.PoolRegistry;
import dev.sluice.quic.ClosingConnection;
import dev.sluice.quic.QuicListener;
import dev.sluice.quic.QuicSettings;
import dev.sluice.quic.Secrets;
import dev.sluice.quic.TokenKeys;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicCongestionControlAlgorithm;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * What a closing QUIC connection costs, measured: a server process (Sluice's {@link QuicListener} with
 * Netty's HTTP/3 handler, one event loop) and a client process (Netty HTTP/3 clients) on loopback. The client
 * opens N HTTP/3 connections (one request each) and keeps them; the server closes them all; the server's heap
 * (after a full GC) and resident memory are read with N live connections, with N closing records, and after
 * the records are freed. Records live min(3 x PTO, 1 s); closing 10,000 connections takes longer than a second
 * on a small machine, so the server process raises the cap (a measurement-only property) and the clients
 * advertise a 16 s max_ack_delay (a long PTO): every record then lives until it is weighed.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.QuicClosingMemory [connections]</pre>
 */
public final class QuicClosingMemory {
    private QuicClosingMemory() {
    }

    /** The records' lifetime cap in the measuring server (production: 1 s). */
    static final long CAP_MS = Long.getLong("cap", 60_000);

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("server")) {
            server();
            return;
        }
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        client(n);
    }

    // ------------------------------------------------------------------ server process

    private static long lastClose;

    private static void server() throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Set<QuicChannel> live = ConcurrentHashMap.newKeySet();
        ChannelInitializer<QuicChannel> app = new ChannelInitializer<>() {
            @Override
            protected void initChannel(QuicChannel ch) {
                live.add(ch);
                ch.closeFuture().addListener(f -> live.remove(ch));
                ch.pipeline().addLast(new Http3ServerConnectionHandler(new ChannelInitializer<QuicStreamChannel>() {
                    @Override
                    protected void initChannel(QuicStreamChannel s) {
                        s.pipeline().addLast(new Http3RequestStreamInboundHandler() {
                            @Override
                            protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
                            }

                            @Override
                            protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
                                frame.release();
                            }

                            @Override
                            protected void channelInputClosed(ChannelHandlerContext ctx) {
                                DefaultHttp3HeadersFrame h = new DefaultHttp3HeadersFrame();
                                h.headers().status("200");
                                ctx.write(h);
                                ctx.writeAndFlush(new DefaultHttp3DataFrame(Unpooled.wrappedBuffer("ok\n".getBytes())))
                                        .addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
                            }
                        });
                    }
                }));
            }
        };
        PoolRegistry registry = new PoolRegistry();
        Pool<ClosingConnection> pool = ClosingConnection.pool(registry);
        QuicSettings settings = new QuicSettings(900_000, 100, 1 << 20, 256 << 10, true, QuicCongestionControlAlgorithm.CUBIC,
                Integer.MAX_VALUE, false, 0, 0);
        Secrets secrets = Secrets.of(null);
        QuicListener listener = new QuicListener("bench", new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), settings, sslContext(),
                app, pool, secrets, new TokenKeys(secrets));
        List<EventLoop> loops = new ArrayList<>();
        loops.add(group.next());
        listener.start(loops, NioDatagramChannel::new, null);
        PrintWriter out = new PrintWriter(System.out, true);
        out.println("port " + listener.localAddress().getPort());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String cmd;
        while ((cmd = in.readLine()) != null) {
            switch (cmd) {
                case "stats" -> out.println(stats(listener, pool));
                case "diag" -> out.println(diag(listener));
                case "close" -> {
                    long start = System.nanoTime();
                    List<QuicChannel> all = new ArrayList<>(live);
                    // one task on the (single) loop closes them all, as an admin shutdown or a reload would
                    group.next().submit(() -> {
                        for (QuicChannel ch : all) {
                            ch.close(true, Http3ErrorCode.H3_NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
                        }
                    }).sync();
                    long closedAt = System.nanoTime();
                    lastClose = closedAt;
                    out.println("closed " + all.size() + " in " + TimeUnit.NANOSECONDS.toMillis(closedAt - start) + " ms; " + stats(listener, pool));
                }
                case "wait" -> {
                    long closedAt = lastClose;
                    while (listener.closingCount().get() > 0) {
                        Thread.sleep(2);
                    }
                    long lastDeadline = closedAt + TimeUnit.MILLISECONDS.toNanos(CAP_MS);
                    out.println("records freed: the last one " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastDeadline)
                            + " ms after the last deadline (" + CAP_MS + " ms after the closes)");
                }
                case "quit" -> {
                    listener.stop();
                    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
                    return;
                }
                default -> out.println("?");
            }
        }
        // the measuring process went away: stop too
        listener.stop();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @SuppressWarnings({"deprecation", "removal"})
    private static void runFinalization() {
        System.runFinalization();
    }

    /** Sizes of the QUIC codec's private tables (reflection; diagnostics only). */
    private static String diag(QuicListener l) throws Exception {
        StringBuilder b = new StringBuilder();
        java.lang.reflect.Field sockets = QuicListener.class.getDeclaredField("channels");
        sockets.setAccessible(true);
        for (Object o : (List<?>) sockets.get(l)) {
            Channel ch = (Channel) o;
            Object codec = ch.pipeline().get("quic-codec");
            for (Class<?> c = codec.getClass(); c != null; c = c.getSuperclass()) {
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    f.setAccessible(true);
                    Object v = f.get(codec);
                    if (v instanceof java.util.Collection<?> col) {
                        b.append(f.getName()).append('=').append(col.size()).append(' ');
                    } else if (v instanceof java.util.Map<?, ?> m) {
                        b.append(f.getName()).append('=').append(m.size()).append(' ');
                    } else if (v != null && v.getClass().getSimpleName().contains("Map")) {
                        java.lang.reflect.Field inner = v.getClass().getDeclaredField("channelMap");
                        inner.setAccessible(true);
                        b.append(f.getName()).append('=').append(((java.util.Map<?, ?>) inner.get(v)).size()).append(' ');
                    }
                }
            }
        }
        return b.toString();
    }

    /** Heap after a full GC, resident memory, live connections, closing records, pool objects in use. */
    private static String stats(QuicListener l, Pool<ClosingConnection> pool) throws Exception {
        // Netty's QuicheQuicConnection has a finalizer: a closed connection's objects outlive one collection, until
        // the finalizer thread has run; collect until the heap stops shrinking
        long heap = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            runFinalization();
            Thread.sleep(100);
            long h = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (h >= heap - 4096) {
                heap = Math.min(h, heap);
                break;
            }
            heap = h;
        }
        long rss = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        return "live=" + l.liveCount().get() + " closing=" + l.closingCount().get() + " pool_used=" + pool.used() + " heap=" + heap + " rss=" + rss;
    }

    private static QuicSslContext sslContext() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        Instant now = Instant.now();
        X500Name name = new X500Name("CN=localhost");
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name,
                BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minus(1, ChronoUnit.DAYS)), Date.from(now.plus(1, ChronoUnit.DAYS)), name,
                kp.getPublic()).build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
        return QuicSslContextBuilder.forServer(kp.getPrivate(), null, cert).applicationProtocols(Http3.supportedApplicationProtocols()).build();
    }

    // ------------------------------------------------------------------ client process

    private static void client(int n) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        // records live 3 x PTO, at most 1 s; closing 10,000 connections takes longer than that here, so the measuring
        // server keeps them up to 120 s (a measurement-only property) and frees them when asked
        Process server = new ProcessBuilder(java, "-Xmx1g", "--enable-native-access=ALL-UNNAMED", "-Dsluice.quic.closingMaxLifetimeMs=" + CAP_MS + "",
                "-cp", System.getProperty("java.class.path"),
                QuicClosingMemory.class.getName(), "server").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader sin = new BufferedReader(new InputStreamReader(server.getInputStream()));
        PrintWriter sout = new PrintWriter(server.getOutputStream(), true);
        int port = Integer.parseInt(sin.readLine().substring(5));
        sout.println("stats");
        String empty = sin.readLine();
        System.out.println("server, nothing open:   " + empty);

        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        QuicSslContext ctx = QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .applicationProtocols(Http3.supportedApplicationProtocols()).build();
        // many connections share a client socket; 16 s max_ack_delay: the server's records live the full 1 s
        List<Channel> sockets = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ChannelHandler codec = Http3.newQuicClientCodecBuilder().sslContext(ctx).maxIdleTimeout(120, TimeUnit.SECONDS)
                    .maxAckDelay(16_000, TimeUnit.MILLISECONDS).initialMaxData(1 << 20).initialMaxStreamDataBidirectionalLocal(1 << 18).build();
            sockets.add(new Bootstrap().group(group).channel(NioDatagramChannel.class).handler(codec).bind(0).sync().channel());
        }
        InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        List<QuicChannel> conns = new ArrayList<>(n);
        Semaphore inFlight = new Semaphore(200);
        AtomicInteger failed = new AtomicInteger();
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            inFlight.acquire();
            QuicChannel q;
            try {
                q = QuicChannel.newBootstrap(sockets.get(i % sockets.size())).handler(new Http3ClientConnectionHandler())
                        .remoteAddress(target).connect().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                failed.incrementAndGet();
                inFlight.release();
                continue;
            }
            conns.add(q);
            QuicStreamChannel s = Http3.newRequestStream(q, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext c, Object msg) {
                    io.netty.util.ReferenceCountUtil.release(msg);
                }

                @Override
                public void channelInactive(ChannelHandlerContext c) {
                    inFlight.release();
                }
            }).get(30, TimeUnit.SECONDS);
            DefaultHttp3HeadersFrame req = new DefaultHttp3HeadersFrame(new DefaultHttp3Headers());
            req.headers().method("GET").path("/").scheme("https").authority("localhost");
            s.writeAndFlush(req).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
        }
        inFlight.acquire(200);
        System.out.printf("opened %d HTTP/3 connections (one request each) in %d ms, %d failed%n", conns.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), failed.get());
        sout.println("stats");
        String open = sin.readLine();
        System.out.println("server, all open:       " + open);
        sout.println("close");
        System.out.println("server, just closed:    " + sin.readLine());
        // Netty keeps the objects of a closed connection reachable for a few seconds (they were gone 5 to 9 s after
        // the close in trials with 1,000): weigh the records once that has passed
        long settle = Long.getLong("settle", 20_000);
        Thread.sleep(settle);
        sout.println("stats");
        String closing = sin.readLine();
        System.out.println("server, " + settle / 1000 + " s later:     " + closing);
        long hold = Long.getLong("hold", 0);
        if (hold > 0) {
            // time to look at the server process (jcmd <pid> GC.class_histogram)
            System.out.println("holding " + hold + " ms; server pid " + server.pid());
            sout.println("diag");
            System.out.println("diag: " + sin.readLine());
            Thread.sleep(hold);
        }
        sout.println("wait");
        String freed = sin.readLine();
        System.out.println("server: " + freed);
        sout.println("stats");
        String after = sin.readLine();
        System.out.println("server, records freed:  " + after);

        long e = field(empty, "heap");
        long o = field(open, "heap");
        long c = field(closing, "heap");
        long a = field(after, "heap");
        int live = (int) field(open, "live");
        System.out.printf("per live connection: heap %d B, resident %d B%n", (o - e) / live, (field(open, "rss") - field(empty, "rss")) / live);
        System.out.printf("per closing record:  heap %d B (records' heap over the heap after they are freed)%n", (c - a) / live);
        System.out.printf("resident with records %d MB, after they are freed %d MB (glibc keeps freed memory in its arenas)%n",
                field(closing, "rss") >> 20, field(after, "rss") >> 20);
        for (QuicChannel q : conns) {
            q.close();
        }
        sout.println("quit");
        server.waitFor(10, TimeUnit.SECONDS);
        for (Channel s : sockets) {
            s.close().sync();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static long field(String line, String name) {
        for (String part : line.split("[ ;]+")) {
            if (part.startsWith(name + "=")) {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        throw new IllegalArgumentException(name + " not in " + line);
    }
}
