package dev.sluice.proxy.runtime;

import dev.sluice.proxy.transport.Workers;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.config.ConfigParser;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.h1.H1ClientConnection;
import dev.sluice.proxy.http.h1.H1Limits;
import dev.sluice.proxy.h2.H2ClientConnection;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.log.AccessLog;
import dev.sluice.proxy.log.LogWriter;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.tcp.TcpClientConnection;
import dev.sluice.proxy.tcp.TcpServerConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Ticker;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Test fixture: a frontend and its backends assembled from configuration text the way {@link ProxyRuntime} assembles
 * them, on Netty's {@code EmbeddedChannel} instead of sockets. Every channel (client connections, and the server
 * connections the real {@link ServerConnector} opens) shares one embedded event loop with a mock ticker, so a test
 * drives both ends by hand and moves time with {@link #advance}. Single-threaded: the test's thread is the loop.
 */
public final class EmbeddedProxy implements AutoCloseable {
    public static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40000);
    public static final InetSocketAddress FRONT = new InetSocketAddress("127.0.0.1", 8080);
    public static final InetSocketAddress PROXY_SIDE = new InetSocketAddress("127.0.0.1", 50000);

    /** An embedded channel with socket addresses (the proxy casts them to {@link InetSocketAddress}). */
    public static class Channel extends EmbeddedChannel {
        private final InetSocketAddress local;
        private final InetSocketAddress remote;

        Channel(Builder b, InetSocketAddress local, InetSocketAddress remote) {
            super(b);
            this.local = local;
            this.remote = remote;
        }

        @Override
        protected SocketAddress localAddress0() {
            return local;
        }

        @Override
        protected SocketAddress remoteAddress0() {
            return remote;
        }

        /** Everything written to the channel so far, as text; every buffer read is released. */
        public String readText() {
            StringBuilder sb = new StringBuilder();
            Object o;
            while ((o = readOutbound()) != null) {
                if (o instanceof ByteBuf b) {
                    sb.append(b.toString(StandardCharsets.ISO_8859_1));
                }
                ReferenceCountUtil.release(o);
            }
            return sb.toString();
        }

        /** Everything written to the channel so far, in one buffer the caller releases. */
        public ByteBuf readBytes() {
            ByteBuf all = Unpooled.buffer();
            Object o;
            while ((o = readOutbound()) != null) {
                if (o instanceof ByteBuf b) {
                    all.writeBytes(b);
                }
                ReferenceCountUtil.release(o);
            }
            return all;
        }

        /** Sends text as if the peer wrote it (one read, then read-complete). */
        public void receive(String text) {
            writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
        }

        /** Drops (releasing) whatever is left in both directions. */
        public void discard() {
            releaseOutbound();
            releaseInbound();
        }
    }

    /**
     * An embedded channel that can be half-closed, as a socket: what a layer-4 stream needs (its FINs). The peer's FIN is
     * {@link #receiveFin()}; the proxy's is {@link #outputShut()}.
     */
    public static final class Duplex extends Channel implements DuplexChannel {
        private boolean inputShut;
        private boolean outputShut;
        private int queuedAtFin = -1;
        private int shutdowns;
        private boolean refuseFin;

        Duplex(Builder b, InetSocketAddress local, InetSocketAddress remote) {
            super(b, local, remote);
        }

        /** The peer sends its FIN. */
        public void receiveFin() {
            inputShut = true;
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            runPendingTasks();
        }

        /** Whether the proxy sent its FIN (by a shutdown or a close). */
        public boolean outputShut() {
            return outputShut;
        }

        @Override
        public boolean isInputShutdown() {
            return inputShut;
        }

        @Override
        public ChannelFuture shutdownInput() {
            return shutdownInput(newPromise());
        }

        @Override
        public ChannelFuture shutdownInput(ChannelPromise promise) {
            inputShut = true;
            return promise.setSuccess();
        }

        @Override
        public boolean isOutputShutdown() {
            return outputShut;
        }

        @Override
        public ChannelFuture shutdownOutput() {
            return shutdownOutput(newPromise());
        }

        /** The proxy's FIN fails from now on, as on a socket the peer reset ({@code shutdown} gives ENOTCONN). */
        public void refuseFin() {
            refuseFin = true;
        }

        /** How many bytes the proxy had written, and the test not read yet, when it sent its FIN (-1: no FIN yet). */
        public int queuedAtFin() {
            return queuedAtFin;
        }

        @Override
        public ChannelFuture shutdownOutput(ChannelPromise promise) {
            if (refuseFin) {
                return promise.setFailure(new java.io.IOException("Transport endpoint is not connected"));
            }
            shutdowns++;
            finSent();
            return promise.setSuccess();
        }

        /** How many times the proxy asked for its FIN by a shutdown (not by a close). */
        public int shutdowns() {
            return shutdowns;
        }

        private void finSent() {
            if (!outputShut) {
                queuedAtFin = 0;
                for (Object o : outboundMessages()) {
                    if (o instanceof ByteBuf b) {
                        queuedAtFin += b.readableBytes();
                    }
                }
            }
            outputShut = true;
        }

        /** A socket's close sends its FIN too, after what was written (a reset is not modelled here). */
        @Override
        protected void doClose() throws Exception {
            finSent();
            super.doClose();
        }

        @Override
        public boolean isShutdown() {
            return inputShut && outputShut;
        }

        @Override
        public ChannelFuture shutdown() {
            return shutdown(newPromise());
        }

        @Override
        public ChannelFuture shutdown(ChannelPromise promise) {
            inputShut = true;
            outputShut = true;
            return promise.setSuccess();
        }
    }

    /** Addresses are resolved already; an embedded loop has no termination future for the default group to watch. */
    private static final class NoResolver extends io.netty.resolver.AddressResolverGroup<SocketAddress> {
        @Override
        public io.netty.resolver.AddressResolver<SocketAddress> getResolver(io.netty.util.concurrent.EventExecutor executor) {
            return newResolver(executor);
        }

        @Override
        protected io.netty.resolver.AddressResolver<SocketAddress> newResolver(io.netty.util.concurrent.EventExecutor executor) {
            return new io.netty.resolver.NoopAddressResolver(executor);
        }
    }

    /** Fails the connect of the server connection it is in with a given cause. */
    private static final class Refuse extends ChannelOutboundHandlerAdapter {
        private final Throwable cause;

        Refuse(Throwable cause) {
            this.cause = cause;
        }

        @Override
        public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
            promise.setFailure(cause);
        }
    }

    private final io.netty.util.concurrent.MockTicker ticker = Ticker.newMockTicker();
    /** How many of the next server connections fail to connect, and with what. */
    private int refusals;
    private Throwable refusal;
    private final Channel anchor;
    private final Frontend frontend;
    private final StickTables tables;
    private final Map<String, Backend> backends = new LinkedHashMap<>();
    private final List<Channel> servers = new ArrayList<>();
    private final List<Channel> clients = new ArrayList<>();
    private final Proxy proxy;
    private final ProxyRuntime.Prepared prepared;
    private LogWriter logWriter;

    private EmbeddedProxy(Config config, String frontendName) {
        anchor = new Channel(EmbeddedChannel.builder().ticker(ticker), FRONT, CLIENT);
        EventLoop loop = anchor.eventLoop();
        Workers workers = new Workers(loop);
        prepared = ProxyRuntime.check(config);
        List<String> problems = new ArrayList<>();
        tables = StickTables.of(config, problems);
        dev.sluice.config.model.Tune tune = config.global().tune();
        H1Limits limits = new H1Limits(tune.maxHeadBytes(), tune.maxhdr());
        ServerConnector connector = new ServerConnector(() -> {
            // half-closable, for the layer-4 streams; the HTTP server connections never half-close
            Channel c = new Duplex(EmbeddedChannel.builder().register(false), PROXY_SIDE, null);
            if (refusals > 0) {
                refusals--;
                c.pipeline().addLast(new Refuse(refusal));
            }
            servers.add(c);
            return c;
        }, io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, new NoResolver(),
                (srv, index, h2, sni) -> h2 ? FcgiApps.orH2(srv, index, sni, tune) : FcgiApps.orH1(srv, index, limits, sni));
        ServerConnector layer4 = connector.layer4((srv, index, h2, sni) -> new TcpServerConnection(srv, sni));
        int id = 2;
        for (Proxy p : config.backends()) {
            Backend be = new Backend(p, prepared.resolved().get(p.name()), 1, p.mode() == Mode.TCP ? layer4 : connector);
            be.id(id++);
            FcgiApps.attach(be, config.global(), tables, () -> {
                if (logWriter == null) {
                    logWriter = new LogWriter();
                }
                return logWriter;
            });
            if (p.kind() == dev.sluice.config.model.ProxyKind.BACKEND) {
                be.rules(ProxyRules.compile(p, problems, tables));
            } else {
                be.rules(ProxyRules.compile(p, new ArrayList<>(), tables).backendSide());
            }
            backends.put(p.name(), be);
        }
        Proxy p = config.proxy(frontendName).orElseThrow();
        proxy = p;
        Backend dflt = p.defaultBackend() != null ? backends.get(p.defaultBackend())
                : p.kind() == dev.sluice.config.model.ProxyKind.LISTEN ? backends.get(p.name()) : null;
        ConnectionLimit global = new ConnectionLimit("global", 1000, null);
        AccessLog log = null;
        if (!p.logging().targets().isEmpty()) {
            logWriter = new LogWriter();
            log = new AccessLog(p.logging(), logWriter).requestLineRoom(tune.logUriLen());
        }
        frontend = new Frontend(p, 1, workers, new dev.sluice.proxy.stream.LiveStreams(1), ProxyRules.compile(p, problems, tables), backends, dflt,
                new ConnectionLimit(p.name(), 100, global), limits.withAcceptInvalid(p.http().acceptInvalidRequest()), log);
        frontend.tune(tune);
        Frontend fe = frontend;
        frontend.httpHandoff(ProxyRuntime.httpHandoff(fe));
        frontend.process(prepared.process());
        frontend.caches(new dev.sluice.proxy.cache.Caches(config.caches(), null));
        if (problems.stream().anyMatch(s -> s.contains("error"))) {
            throw new IllegalArgumentException(problems.toString());
        }
    }

    /** The frontend {@code fe} of a configuration; {@code timeout} lines and {@code mode http} must be in it. */
    public static EmbeddedProxy of(String config) {
        return of(config, "fe");
    }

    public static EmbeddedProxy of(String config, String frontend) {
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "3.2"))
                .parse(List.of(new ConfigParser.Source("t.cfg", config)));
        if (!r.ok()) {
            throw new IllegalArgumentException(r.diagnostics().toString());
        }
        return new EmbeddedProxy(r.config(), frontend);
    }

    public Frontend frontend() {
        return frontend;
    }

    /** The configuration's stick tables. */
    public StickTables tables() {
        return tables;
    }

    public Backend backend(String name) {
        return backends.get(name);
    }

    /** The loop every channel of this proxy runs on. */
    public EventLoop loop() {
        return anchor.eventLoop();
    }

    /** A new client connection with {@code handler} (admitted by the frontend's limit), active at once. */
    public Channel client(ChannelHandler handler) {
        Channel c = new Channel(EmbeddedChannel.builder().register(false), FRONT, CLIENT);
        c.pipeline().addLast(handler);
        anchor.eventLoop().register(c).syncUninterruptibly();
        clients.add(c);
        c.runPendingTasks();
        return c;
    }

    /** A new client connection of a {@code mode tcp} frontend, half-closable. */
    public Duplex tcpClient() {
        frontend.limit().tryAdmit();
        Duplex c = new Duplex(EmbeddedChannel.builder().register(false), FRONT, CLIENT);
        c.pipeline().addLast(new TcpClientConnection(frontend, true));
        anchor.eventLoop().register(c).syncUninterruptibly();
        clients.add(c);
        c.runPendingTasks();
        return c;
    }

    /**
     * A new client connection accepted on the frontend's first bind (admitted by its limit) and started as the daemon
     * starts it ({@link BindPipelines#starter}: the PROXY header reader, the TLS set-up, the mode's connection),
     * half-closable.
     */
    public Duplex accept() {
        frontend.limit().tryAdmit();
        Duplex c = new Duplex(EmbeddedChannel.builder().register(false), FRONT, CLIENT);
        c.pipeline().addLast(BindPipelines.starter(proxy, proxy.binds().get(0), "1", frontend, prepared.tls(), false).apply(true));
        anchor.eventLoop().register(c).syncUninterruptibly();
        clients.add(c);
        c.runPendingTasks();
        return c;
    }

    /** A new HTTP/1 client connection. */
    public Channel h1Client() {
        frontend.limit().tryAdmit();
        return client(new H1ClientConnection(frontend, true));
    }

    /** A new HTTP/2 client connection (prior knowledge: the first bytes it reads are the preface). */
    public Channel h2Client() {
        frontend.limit().tryAdmit();
        return client(H2ClientConnection.create(frontend, true));
    }

    /**
     * The next {@code n} server connections opened fail to connect with {@code cause} (a {@code ConnectException}: a
     * refused connection; a {@code ConnectTimeoutException}: {@code timeout connect}); they are still listed in
     * {@link #servers()}.
     */
    public void refuseConnects(int n, Throwable cause) {
        refusals = n;
        refusal = cause;
    }

    /** The server connections opened so far, in order. */
    public List<Channel> servers() {
        return servers;
    }

    public Channel server(int i) {
        return servers.get(i);
    }

    /** Moves the loop's clock and runs what became due (timeouts), then what that queued. */
    public void advance(long millis) {
        ticker.advance(millis, TimeUnit.MILLISECONDS);
        run();
    }

    /** Runs the loop's queued and due tasks until none is left. */
    public void run() {
        // a task may queue another (a close queues the inactive event): a few rounds settle them
        for (int i = 0; i < 3; i++) {
            anchor.runPendingTasks();
        }
    }

    /** Closes every channel (releasing what they hold) and the log writer. */
    @Override
    public void close() {
        // the servers first: a stream they fail answers its client, whose channel then releases the answer; one
        // that fails a reused connection may open another (it is in the list by then, and closed in turn)
        for (int i = 0; i < servers.size(); i++) {
            Channel c = servers.get(i);
            if (c.isRegistered()) {
                c.finishAndReleaseAll();
            } else {
                c.releaseOutbound();
            }
        }
        for (Channel c : clients) {
            c.finishAndReleaseAll();
        }
        run();
        for (Channel c : clients) {
            c.releaseOutbound();
        }
        anchor.finishAndReleaseAll();
        if (logWriter != null) {
            logWriter.close();
        }
    }
}
