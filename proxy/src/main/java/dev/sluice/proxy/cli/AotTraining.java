package dev.sluice.proxy.cli;

import dev.sluice.config.Diagnostic;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.Quic;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The training run behind the launcher's ahead-of-time cache ({@code ./sluice aot}, JDK 25's
 * {@code -XX:AOTCacheOutput}): a JVM start spends most of its first second loading, linking and
 * interpreting classes, and the cache keeps the classes this run loads already parsed and linked for every
 * later start with the same jar and JDK (start-up to the first answer 0.64-0.68 of the time without it;
 * docs/design.md, "Start-up", which also says why the run's method profiles are left out).
 *
 * <p>It runs the proxy in this process on a configuration of its own over loopback ports picked by a child JVM
 * (which also makes the certificate): HTTP/1.1, TLS (ALPN h2 and http/1.1), h2c and QUIC listeners, backends
 * reaching them back as h1, h2c, TLS and h2 over TLS servers with health checks, rules, a stick table, the httplog
 * format, the Prometheus exporter, the stats page and the admin socket; another child JVM sends requests of each
 * kind with the JDK's HTTP client, a Netty HTTP/3 client and the admin socket; then it stops the proxy and exits. Exit status 0 when every answer was as expected, 1 otherwise (the
 * launcher then keeps no cache).
 */
public final class AotTraining {
    private static final int ROUNDS = 100;

    private AotTraining() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("prepare")) {
            prepare(Path.of(args[1]));
            return;
        }
        if (args.length == 2 && args[0].equals("client")) {
            System.exit(client(Path.of(args[1])));
        }
        // as the daemon starts (Main.main): the classes it will not load stay out of the cache, which loads them all
        Main.fastInMemoryKeyStores();
        Main.noNettyFlightRecorderEvents();
        Main.nettyLogsToJdkLogging();
        Path dir = Files.createTempDirectory("sluice-aot");
        int code;
        try {
            code = train(dir);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(code);
    }

    /**
     * The proxy's side, in the JVM whose classes the cache keeps. Only what the daemon itself runs may load
     * here: the JVM loads every class of the cache when it starts, so the certificate making and the
     * clients run in child JVMs.
     */
    private static int train(Path dir) throws Exception {
        if (child("prepare", dir) != 0) {
            return 1;
        }
        Path cfg = dir.resolve("training.cfg");
        Main.Parsed parsed = Main.parse(List.of(cfg));
        List<Diagnostic> errors = parsed.diagnostics().stream().filter(Diagnostic::isError).toList();
        if (!errors.isEmpty() || parsed.config() == null) {
            System.err.println("training configuration refused: " + errors);
            return 1;
        }
        // the daemon's own start (Main.run: options, parse, check, build, bind, signals, the reload warm-up): the lambdas
        // and call sites it links are linked in the cache too (70 ms of every start when they were not)
        int[] status = {-1};
        Thread daemon = Thread.ofPlatform().name("training-daemon").start(() -> status[0] = Main.run(new String[] {"-q", "-f", cfg.toString()}));
        String[] ports = Files.readString(dir.resolve("ports"), StandardCharsets.US_ASCII).trim().split(" ");
        if (!listening(Integer.parseInt(ports[0]), daemon) || !listening(Integer.parseInt(ports[1]), daemon)
                || !listening(Integer.parseInt(ports[3]), daemon)) {
            System.err.println("the training daemon did not start (status " + status[0] + ")");
            return 1;
        }
        int code;
        try {
            code = child("client", dir);
        } finally {
            Signals.send(ProcessHandle.current().pid(), "TERM");
            daemon.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (daemon.isAlive() || status[0] != 0) {
            System.err.println("the training daemon did not stop (status " + status[0] + ")");
            return 1;
        }
        return code;
    }

    /** Waits up to 30 s for a connection to {@code port} to succeed while {@code daemon} runs. */
    private static boolean listening(int port, Thread daemon) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (daemon.isAlive() && System.nanoTime() < deadline) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                return true;
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        return false;
    }

    /** Runs this class's {@code role} in another JVM, its output on ours; returns its exit status. */
    private static int child(String role, Path dir) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-Dio.netty.leakDetection.level=disabled", "-cp", System.getProperty("java.class.path"),
                AotTraining.class.getName(), role, dir.toString()).inheritIO().start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            System.err.println("training " + role + " did not end within 120 s");
            return 1;
        }
        return p.exitValue();
    }

    /** Writes the certificate, the configuration and the ports the client will use. */
    private static void prepare(Path dir) throws Exception {
        Path pem = selfSigned(dir.resolve("training.pem"));
        int h1 = freePort();
        int tls = freePort();
        int h2c = freePort();
        int origin = freePort();
        int logPort = freePort();
        Path sock = dir.resolve("admin.sock");
        boolean quic = Quic.isAvailable();
        String cfg = """
                global
                    maxconn 1000
                    stats socket %6$s level admin
                    log 127.0.0.1:%7$d local0 info
                defaults
                    mode http
                    log global
                    option httplog
                    option forwardfor
                    timeout connect 5s
                    timeout client 30s
                    timeout server 30s
                    timeout http-request 10s
                    timeout http-keep-alive 5s
                    timeout check 2s
                frontend fe_h1
                    bind 127.0.0.1:%1$d
                    stick-table type ip size 1k expire 1m store http_req_rate(10s),http_req_cnt,bytes_out_rate(10s)
                    http-request track-sc0 src
                    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 1000000 }
                    http-request use-service prometheus-exporter if { path /metrics }
                    http-request redirect prefix /moved code 302 if { path_beg /redirect }
                    http-request set-header X-Training %%[src]
                    http-request capture req.hdr(host) len 32
                    http-response set-header X-Backend %%[be_name]
                    stats enable
                    stats uri /stats
                    acl to_h2c path_beg /h2c
                    acl to_tls path_beg /tls
                    acl to_tls1 path_beg /tls1
                    use_backend be_tls1 if to_tls1
                    use_backend be_tls if to_tls
                    use_backend be_h2c if to_h2c
                    default_backend be_origin
                frontend fe_tls
                    bind 127.0.0.1:%2$d ssl crt %5$s
                    %8$s
                    http-response set-header alt-svc 'h3=":%2$d"; ma=900'
                    default_backend be_origin
                frontend fe_h2c
                    bind 127.0.0.1:%3$d proto h2
                    default_backend be_origin
                frontend fe_origin
                    bind 127.0.0.1:%4$d
                    http-request return status 200 content-type text/plain string "trained\\n"
                backend be_origin
                    balance roundrobin
                    option httpchk GET /health
                    http-check expect status 200
                    server o1 127.0.0.1:%4$d check inter 100ms
                    server o2 127.0.0.1:%4$d check inter 100ms weight 2
                backend be_h2c
                    balance leastconn
                    server h2c 127.0.0.1:%3$d proto h2
                backend be_tls
                    balance uri
                    server tls 127.0.0.1:%2$d ssl verify none alpn h2 check
                backend be_tls1
                    server tls1 127.0.0.1:%2$d ssl verify none alpn http/1.1
                """.formatted(h1, tls, h2c, origin, pem, sock, logPort,
                quic ? "bind quic4@127.0.0.1:" + tls + " ssl crt " + pem + " alpn h3" : "");
        Files.writeString(dir.resolve("training.cfg"), cfg, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("ports"), h1 + " " + tls + " " + (quic ? 1 : 0) + " " + h2c + "\n", StandardCharsets.US_ASCII);
    }

    /** The clients' side: every kind of request, then the admin socket; exit status 1 when one failed. */
    private static int client(Path dir) throws Exception {
        String[] ports = Files.readString(dir.resolve("ports"), StandardCharsets.US_ASCII).trim().split(" ");
        int h1 = Integer.parseInt(ports[0]);
        int tls = Integer.parseInt(ports[1]);
        int failures = http(h1, tls) + admin(dir.resolve("admin.sock"));
        if (ports[2].equals("1")) {
            failures += h3(tls, ROUNDS / 3, true);
        }
        if (failures > 0) {
            System.err.println(failures + " training requests failed");
            return 1;
        }
        return 0;
    }

    /** Requests through every path of the configuration; returns how many answers were not as expected. */
    private static int http(int h1, int tls) throws Exception {
        SSLContext trustAll = SSLContext.getInstance("TLS");
        trustAll.init(null, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
        int failures = 0;
        try (HttpClient plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
                HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(trustAll)
                        .connectTimeout(Duration.ofSeconds(5)).build();
                HttpClient h1tls = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trustAll)
                        .connectTimeout(Duration.ofSeconds(5)).build()) {
            String base = "http://127.0.0.1:" + h1;
            String secure = "https://127.0.0.1:" + tls;
            byte[] body = new byte[64 * 1024];
            for (int i = 0; i < ROUNDS; i++) {
                failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/r" + (i % 7))).build(), 200);
                failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/h2c/" + i)).build(), 200);
                failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/tls/" + (i % 5))).build(), 200);
                failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/tls1/" + i)).build(), 200);
                failures += expect(h2, HttpRequest.newBuilder(URI.create(secure + "/s" + i)).header("cookie", "a=b").build(), 200);
                if (i % 10 == 0) {
                    failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/upload"))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), 200);
                    failures += expect(h2, HttpRequest.newBuilder(URI.create(secure + "/upload"))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), 200);
                    failures += expect(h1tls, HttpRequest.newBuilder(URI.create(secure + "/t" + i)).build(), 200);
                    failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/redirect")).build(), 302);
                }
            }
            failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), 200);
            failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/stats")).build(), 200);
            failures += expect(plain, HttpRequest.newBuilder(URI.create(base + "/stats;csv")).build(), 200);
        }
        return failures;
    }

    private static int expect(HttpClient client, HttpRequest request, int status) {
        try {
            HttpResponse<byte[]> r = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() == status) {
                return 0;
            }
            System.err.println(request.uri() + ": status " + r.statusCode() + ", expected " + status);
        } catch (IOException e) {
            System.err.println(request.uri() + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 1;
    }

    /** The usual operator commands on the admin socket; returns 1 when one gave no answer. */
    private static int admin(Path sock) throws IOException {
        String[] commands = {"show info", "show stat", "show servers state", "show pools", "show table", "show sess",
            "show activity", "show quic", "help", "reload", "reload"};
        int failures = 0;
        for (String command : commands) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(sock));
                ch.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer in = ByteBuffer.allocate(64 * 1024);
                int total = 0;
                for (int n; (n = ch.read(in)) > 0; in.clear()) {
                    total += n;
                }
                if (total == 0) {
                    System.err.println("admin socket: no answer to " + command);
                    failures++;
                }
            }
        }
        return failures;
    }

    /**
     * {@code rounds} HTTP/3 requests on one QUIC connection with Netty's client; returns how many failed: with
     * {@code strict}, answered otherwise than 200 (reported), else not answered at all.
     */
    static int h3(int port, int rounds, boolean strict) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        int failures = 0;
        try {
            QuicSslContext ctx = QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .applicationProtocols(Http3.supportedApplicationProtocols()).build();
            Channel udp = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                    .handler(Http3.newQuicClientCodecBuilder().sslContext(ctx).maxIdleTimeout(5, TimeUnit.SECONDS)
                            .initialMaxData(10_000_000).initialMaxStreamDataBidirectionalLocal(1_000_000).build())
                    .bind(0).sync().channel();
            QuicChannel quic = QuicChannel.newBootstrap(udp).handler(new Http3ClientConnectionHandler())
                    .remoteAddress(new InetSocketAddress("127.0.0.1", port)).connect().get(5, TimeUnit.SECONDS);
            for (int i = 0; i < rounds; i++) {
                int[] status = {0};
                QuicStreamChannel stream = Http3.newRequestStream(quic, new Http3RequestStreamInboundHandler() {
                    @Override
                    protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
                        CharSequence s = frame.headers().status();
                        if (s != null) {
                            status[0] = Integer.parseInt(s.toString());
                        }
                        ReferenceCountUtil.release(frame);
                    }

                    @Override
                    protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
                        ReferenceCountUtil.release(frame);
                    }

                    @Override
                    protected void channelInputClosed(ChannelHandlerContext ctx) {
                        ctx.close();
                    }
                }).get(5, TimeUnit.SECONDS);
                DefaultHttp3Headers headers = new DefaultHttp3Headers();
                headers.method("GET").path("/q" + i).authority("127.0.0.1:" + port).scheme("https");
                stream.writeAndFlush(new DefaultHttp3HeadersFrame(headers)).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
                if (!stream.closeFuture().await(5, TimeUnit.SECONDS) || status[0] != 200 && (strict || status[0] == 0)) {
                    if (strict) {
                        System.err.println("h3 request " + i + ": status " + status[0]);
                    }
                    failures++;
                }
            }
            quic.close().sync();
            udp.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        return failures;
    }

    /** A free loopback port for TCP and UDP alike (the TLS and QUIC listeners share one). */
    private static int freePort() throws IOException {
        for (int attempt = 0; ; attempt++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = s.getLocalPort();
                try (DatagramSocket d = new DatagramSocket(new InetSocketAddress("127.0.0.1", port))) {
                    return port;
                } catch (IOException e) {
                    if (attempt > 20) {
                        throw e;
                    }
                }
            }
        }
    }

    /** A self-signed EC certificate and its key in one PEM file, as a {@code crt} wants them. */
    private static Path selfSigned(Path file) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        X500Name name = new X500Name("CN=localhost");
        long now = System.currentTimeMillis();
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name,
                BigInteger.valueOf(now), new Date(now - 60_000), new Date(now + 86_400_000L), name, kp.getPublic())
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(cert);
            w.writeObject(new JcaPKCS8Generator(kp.getPrivate(), null));
        }
        return Files.writeString(file, out.toString(), StandardCharsets.US_ASCII);
    }
}
