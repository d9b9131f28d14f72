package dev.sluice.proxy.backend;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.tls.ServerTlsContext;
import dev.sluice.proxy.tls.TlsHandshakeHandler;
import dev.sluice.proxy.tls.TlsSession;
import dev.sluice.proxy.transport.EpollEmptyInterest;
import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.DefaultAddressResolverGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.PlatformDependent;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * Gives a stream a connection to a server: an idle one from the stream's own event loop pool when there
 * is one (most recently used first, opened for the same TLS server name), else a new one opened on that
 * same loop. No lock, no thread hop.
 * <p>
 * HTTP/2 or HTTP/1.1: {@code proto h2} servers always get HTTP/2. Over TLS with {@code alpn} offering h2,
 * the handshake decides; a new connection is opened expecting what the server chose last time (h2 at
 * first), so that concurrent streams queue on it rather than each opening a connection. When ALPN then
 * picks HTTP/1.1, the first queued stream gets the connection and the others are placed again. A TLS
 * connection counts as connected once its handshake completed: a handshake failure (a certificate that
 * does not verify) is a connect failure, retried like one.
 */
public final class ServerConnector {

    /** Creates the protocol handler of a new server connection; the handler is also its {@link ServerConnection}. */
    public interface HandlerFactory {
        /**
         * A multiplexed connection (a {@link MultiplexedConnection}: HTTP/2, or FastCGI to an application that may
         * multiplex, see {@link Server#multiplexed}) when {@code h2}, else an HTTP/1.1 (or one-request FastCGI) one (a
         * {@link ServerConnection}).
         */
        ChannelHandler create(Server server, int loopIndex, boolean h2, String sni);
    }

    /** Where the outcome of {@link #acquire} goes; called on the stream's loop. */
    public interface Callback {
        void connected(ServerConnection connection);

        void failed(Throwable cause);

        /** Completes when the stream's client connection closes (a private server connection goes with it); null: unknown. */
        default Future<?> sessionEnd() {
            return null;
        }

        /** The client's address for a PROXY protocol header ({@code send-proxy}); null: not known. */
        default InetSocketAddress proxiedSource() {
            return null;
        }

        /** The address the client connected to, for a PROXY protocol header; null: not known. */
        default InetSocketAddress proxiedDestination() {
            return null;
        }

        /**
         * What a PROXY protocol v2 header says of the client's connection besides its addresses, for the extra fields
         * of {@code options} ({@code proxy-v2-options} bits; the unique id is made only when asked for); null: nothing.
         */
        default dev.sluice.proxy.listener.ProxyHeader.Client proxiedClient(int options) {
            return null;
        }
    }

    private final ChannelFactory<? extends Channel> channels;
    /** Sockets of the IPv4 family for IPv4 servers ({@link Transport#inet4SocketChannels}); null: {@link #channels} for all. */
    private ChannelFactory<? extends Channel> inet4Channels;
    /** UNIX stream sockets, for servers on one ({@code unix@<path>}), and the address of a path; null: none here. */
    private ChannelFactory<? extends Channel> unixChannels;
    private java.util.function.Function<String, SocketAddress> unixAddress;
    private final ByteBufAllocator allocator;
    private final AddressResolverGroup<?> resolver;
    private final HandlerFactory factory;
    /** For layer-4 streams: half-closing connections, never reused, never HTTP/2. */
    private final boolean layer4;
    /** {@code tune.rcvbuf.server}, {@code tune.sndbuf.server} (0: the kernel's). */
    private int rcvbuf;
    private int sndbuf;

    public ServerConnector(Transport transport, HandlerFactory factory) {
        this(transport::newSocketChannel, transport.allocator(), DefaultAddressResolverGroup.INSTANCE, factory);
        this.inet4Channels = transport.inet4SocketChannels();
        this.unixChannels = transport::newDomainSocketChannel;
        this.unixAddress = transport::domainAddress;
        this.abstractChannels = transport::connectAbstract;
    }

    /** Makes a socket connected to an abstract name already (HAProxy's padded address, which Netty's connect cannot give). */
    @FunctionalInterface
    private interface AbstractConnect {
        Channel connect(dev.sluice.proxy.transport.AbstractSockets.Address a) throws java.io.IOException;
    }

    private AbstractConnect abstractChannels;

    /**
     * Opens server connections as {@code channels} makes them, resolving with {@code resolver}: the transport's
     * sockets and Netty's default resolver in the process; unit tests give channels that need no socket (Netty's
     * {@code EmbeddedChannel}, whose loop no resolver can be bound to) and drive both ends themselves.
     */
    public ServerConnector(ChannelFactory<? extends Channel> channels, ByteBufAllocator allocator,
            AddressResolverGroup<?> resolver, HandlerFactory factory) {
        this(channels, allocator, resolver, factory, false);
    }

    private ServerConnector(ChannelFactory<? extends Channel> channels, ByteBufAllocator allocator, AddressResolverGroup<?> resolver,
            HandlerFactory factory, boolean layer4) {
        this.channels = layer4 ? guarded(channels) : channels;
        this.allocator = allocator;
        this.resolver = resolver;
        this.factory = factory;
        this.layer4 = layer4;
    }

    /**
     * A connector opening the same sockets for layer-4 streams ({@code mode tcp} backends), each connection made by
     * {@code factory} (never HTTP/2): a connection may be half-closed (a FIN read leaves it open for writing,
     * {@code ALLOW_HALF_CLOSURE}), is never taken from an idle pool (its handler never parks it) and carries no
     * multiplexed streams.
     */
    public ServerConnector layer4(HandlerFactory factory) {
        ServerConnector c = new ServerConnector(channels, allocator, resolver, factory, true).socketBuffers(rcvbuf, sndbuf);
        c.inet4Channels = inet4Channels == null ? null : guarded(inet4Channels);
        c.unixChannels = unixChannels == null ? null : guarded(unixChannels);
        c.unixAddress = unixAddress;
        c.abstractChannels = abstractChannels;
        return c;
    }

    /** SO_RCVBUF and SO_SNDBUF of every server connection ({@code tune.rcvbuf.server}, {@code tune.sndbuf.server}; 0: the kernel's). */
    public ServerConnector socketBuffers(int rcv, int snd) {
        this.rcvbuf = rcv;
        this.sndbuf = snd;
        return this;
    }

    /**
     * Acquires a connection to {@code server} for a stream running on {@code loop}. {@code reuse} false
     * skips the idle pool (after a reused connection failed). {@code clientLocal} gives the port for a
     * server declared without one. {@code sni} is the TLS server name for this request (null: none).
     */
    public void acquire(Server server, EventLoop loop, int loopIndex, InetSocketAddress clientLocal, long connectTimeoutMs,
            boolean reuse, String sni, Callback cb) {
        acquire(server, loop, loopIndex, clientLocal, connectTimeoutMs, reuse, sni, null, false, HttpOptions.Reuse.ALWAYS, cb);
    }

    /**
     * Acquires a connection for a stream of client connection {@code session}, following the backend's
     * {@code http-reuse} policy ({@code first}: the first request of that client connection, which HTTP/2 and
     * HTTP/3 streams never are): see {@link #reusable} for idle HTTP/1 connections and {@link #shareable} for
     * HTTP/2 ones.
     */
    public void acquire(Server server, EventLoop loop, int loopIndex, InetSocketAddress clientLocal, long connectTimeoutMs,
            boolean reuse, String sni, Object session, boolean first, HttpOptions.Reuse policy, Callback cb) {
        if (reuse && !layer4) {
            for (MultiplexedConnection c : server.pools().mux(loopIndex)) {
                if (Objects.equals(c.sni(), sni) && current(server, c.remoteAddress()) && shareable(c, session, first, policy)
                        && c.offer(cb, session)) {
                    return;
                }
            }
            ArrayDeque<ServerConnection> idle = server.pools().idle(loopIndex);
            // under 'safe' a client connection's first request takes no idle connection: no need to look at any (with
            // clients that close after each request the pool holds thousands and this is every request)
            boolean none = first && policy == HttpOptions.Reuse.SAFE;
            for (Iterator<ServerConnection> it = idle.descendingIterator(); !none && it.hasNext();) {
                ServerConnection c = it.next();
                if (!c.isOpen()) {
                    it.remove();
                } else if (Objects.equals(c.sni(), sni) && reusable(c, session, first, policy)) {
                    it.remove();
                    if (server.config().pool().maxConn() > 0) {
                        // one idle connection fewer for pool-max-conn, seen from the other loops
                        server.pools().idleSeen(loopIndex, idleCount(server, loopIndex));
                    }
                    cb.connected(c);
                    return;
                }
            }
            Server p = server.predecessor();
            if (p != null && !none && fromPredecessor(p, server, loopIndex, sni, session, first, policy, cb)) {
                return;
            }
        }
        InetSocketAddress addr = server.address();
        SocketAddress target;
        if (server.unix()) {
            if (unixAddress == null) {
                cb.failed(new java.io.IOException("UNIX sockets are not available here"));
                return;
            }
            target = unixAddress.apply(server.config().unixPath());
        } else {
            if (addr.getPort() == 0) {
                // option transparent: where the client connected; a server without a port: the client's port
                addr = server.backend().config().options().transparent() ? clientLocal
                        : new InetSocketAddress(addr.getAddress(), clientLocal.getPort());
            }
            target = addr;
        }
        int timeout = (int) Math.min(Integer.MAX_VALUE, connectTimeoutMs > 0 ? connectTimeoutMs : 30_000);
        boolean keepAlive = server.backend().http().serverTcpKeepAlive();
        // every new connection attempt counts in connect, for the server and its backend
        server.counters().add(Counter.CONNECTS);
        server.backend().counters().add(Counter.CONNECTS);
        boolean h2 = !layer4 && server.multiplexed();
        if (server.tls() != null) {
            TlsConnect t = new TlsConnect(server, loop, loopIndex, clientLocal, addr, connectTimeoutMs, sni, session, policy);
            t.proxyHeader = proxyHeader(server, cb);
            if (h2) {
                t.pending = newMux(server, loopIndex, sni, session, policy, cb);
            } else {
                t.cb = cb;
            }
            open(loop, target, t, timeout, keepAlive).addListener(x -> {
                if (!x.isSuccess()) {
                    t.fail(x.cause());
                }
            });
            return;
        }
        ChannelHandler handler = h2 ? (ChannelHandler) newMux(server, loopIndex, null, session, policy, cb) : factory.create(server, loopIndex, false, null);
        ProxyHeaderWriter pp = proxyHeader(server, cb);
        ChannelHandler head = handler;
        if (pp != null) {
            head = new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast("pp", pp).addLast(handler);
                }
            };
        }
        ChannelFuture f = open(loop, target, head, timeout, keepAlive);
        f.addListener(x -> {
            if (x.isSuccess()) {
                if (!h2) {
                    cb.connected((ServerConnection) handler);
                }
            } else if (h2) {
                ((MultiplexedConnection) handler).connectFailed(x.cause());
            } else {
                cb.failed(x.cause());
            }
        });
    }

    /**
     * Opens a connection to {@code addr} on {@code loop} whose pipeline starts with {@code handler}: what Netty's
     * {@code Bootstrap} does, without making one per connection (a bootstrap, its option and attribute maps, a
     * resolver looked up under a lock: a tenth of the allocation under connection churn). Only the options that differ
     * from a new socket's are set (each is a system call). An address not resolved yet goes through a bootstrap and
     * its resolver. The channel is closed if the connect fails.
     */
    private ChannelFuture open(EventLoop loop, SocketAddress addr, ChannelHandler handler, int timeoutMs, boolean keepAlive) {
        boolean unix = !(addr instanceof InetSocketAddress);
        if (!unix && ((InetSocketAddress) addr).isUnresolved()) {
            Bootstrap b = new Bootstrap().group(loop).channelFactory(channels).resolver(resolver).handler(handler)
                    .option(ChannelOption.ALLOCATOR, allocator).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeoutMs);
            options(b, keepAlive);
            return b.connect(addr);
        }
        if (addr instanceof dev.sluice.proxy.transport.AbstractSockets.Address abs) {
            return openAbstract(loop, abs, handler, timeoutMs);
        }
        Channel ch = (unix ? unixChannels
                : inet4Channels != null && ((InetSocketAddress) addr).getAddress() instanceof java.net.Inet4Address ? inet4Channels : channels)
                .newChannel();
        ChannelConfig c = ch.config();
        c.setAllocator(allocator);
        c.setConnectTimeoutMillis(timeoutMs);
        // TCP's options mean nothing to a UNIX socket (Netty would warn of each)
        if (!unix && !PlatformDependent.canEnableTcpNoDelayByDefault()) {
            c.setOption(ChannelOption.TCP_NODELAY, true);
        }
        if (!unix && keepAlive) {
            c.setOption(ChannelOption.SO_KEEPALIVE, true);
        }
        if (!unix && rcvbuf > 0) {
            c.setOption(ChannelOption.SO_RCVBUF, rcvbuf);
        }
        if (!unix && sndbuf > 0) {
            c.setOption(ChannelOption.SO_SNDBUF, sndbuf);
        }
        if (layer4) {
            // a FIN from the server is carried to the client while the client may still send
            c.setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        }
        ch.pipeline().addLast(handler);
        ChannelPromise connected = ch.newPromise();
        loop.register(ch).addListener(r -> {
            if (r.isSuccess()) {
                // in a task of its own, as the bootstrap does: no callback runs inside acquire
                ch.eventLoop().execute(() -> ch.connect(addr, connected).addListener(ChannelFutureListener.CLOSE_ON_FAILURE));
            } else {
                if (ch.isRegistered()) {
                    ch.close();
                } else {
                    ch.unsafe().closeForcibly();
                }
                connected.setFailure(r.cause());
            }
        });
        return connected;
    }

    /**
     * {@link #open} for a server in the abstract namespace: the socket is connected at once (or refused) before Netty
     * has it, then registered; the connection is established when the registration is done.
     */
    private ChannelFuture openAbstract(EventLoop loop, dev.sluice.proxy.transport.AbstractSockets.Address addr, ChannelHandler handler,
            int timeoutMs) {
        Channel ch;
        try {
            if (abstractChannels == null) {
                throw new java.io.IOException("abstract UNIX sockets are not available here");
            }
            ch = abstractChannels.connect(addr);
        } catch (java.io.IOException e) {
            Channel placeholder = unixChannels.newChannel();
            placeholder.unsafe().closeForcibly();
            return new io.netty.channel.DefaultChannelPromise(placeholder, loop).setFailure(e);
        }
        if (layer4) {
            EpollEmptyInterest.guard(ch);
            ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        }
        ch.config().setAllocator(allocator);
        ch.pipeline().addLast(handler);
        ChannelPromise connected = ch.newPromise();
        loop.register(ch).addListener(r -> {
            if (r.isSuccess()) {
                connected.setSuccess();
            } else {
                ch.unsafe().closeForcibly();
                connected.setFailure(r.cause());
            }
        });
        return connected;
    }

    /** The same options on a bootstrap. */
    private void options(Bootstrap b, boolean keepAlive) {
        if (!PlatformDependent.canEnableTcpNoDelayByDefault()) {
            b.option(ChannelOption.TCP_NODELAY, true);
        }
        if (keepAlive) {
            b.option(ChannelOption.SO_KEEPALIVE, true);
        }
        if (rcvbuf > 0) {
            b.option(ChannelOption.SO_RCVBUF, rcvbuf);
        }
        if (sndbuf > 0) {
            b.option(ChannelOption.SO_SNDBUF, sndbuf);
        }
        if (layer4) {
            b.option(ChannelOption.ALLOW_HALF_CLOSURE, true);
        }
    }

    /**
     * {@code channels} making epoll sockets whose interest set is guarded from their start ({@link EpollEmptyInterest}):
     * set before the registration, the guard goes in the {@code epoll_ctl} that adds the socket, not one of its own.
     */
    private static ChannelFactory<? extends Channel> guarded(ChannelFactory<? extends Channel> channels) {
        return () -> {
            Channel ch = channels.newChannel();
            EpollEmptyInterest.guard(ch);
            return ch;
        };
    }

    /** The writer of the PROXY protocol header a new connection to {@code server} starts with, for {@code cb}'s client; null: none. */
    private static ProxyHeaderWriter proxyHeader(Server server, Callback cb) {
        int version = server.config().proxyVersion();
        if (version == 0) {
            return null;
        }
        int options = version == 2 ? server.config().proxyV2Options() : 0;
        return new ProxyHeaderWriter(version, cb.proxiedSource(), cb.proxiedDestination(), options,
                version == 2 ? cb.proxiedClient(options) : null);
    }

    /** A new HTTP/2 connection in the loop's list, private to {@code session} under {@code never}, with {@code cb}'s stream queued. */
    private MultiplexedConnection newMux(Server server, int loopIndex, String sni, Object session, HttpOptions.Reuse policy, Callback cb) {
        MultiplexedConnection c = (MultiplexedConnection) factory.create(server, loopIndex, true, sni);
        if (policy == HttpOptions.Reuse.NEVER && session != null) {
            c.owner(session, cb.sessionEnd());
        }
        server.pools().mux(loopIndex).add(c);
        c.offer(cb, session);
        return c;
    }

    /**
     * A TLS connection being established: puts the TLS handler first, and once the handshake is done adds
     * the protocol handler ALPN chose and hands the connection out. Either {@link #cb} (HTTP/1.1 expected)
     * or {@link #pending} (HTTP/2 expected, streams queue on it) is set. Used on the connection's loop.
     */
    private final class TlsConnect extends ChannelInitializer<Channel> implements TlsHandshakeHandler.Callback {
        private final Server server;
        private final EventLoop loop;
        private final int loopIndex;
        private final InetSocketAddress clientLocal;
        private final InetSocketAddress addr;
        private final long connectTimeoutMs;
        private final String sni;
        private final Object session;
        private final HttpOptions.Reuse policy;
        Callback cb;
        MultiplexedConnection pending;
        /** The PROXY protocol header the connection starts with, before TLS; null: none. */
        ProxyHeaderWriter proxyHeader;
        private boolean settled;

        TlsConnect(Server server, EventLoop loop, int loopIndex, InetSocketAddress clientLocal, InetSocketAddress addr, long connectTimeoutMs,
                String sni, Object session, HttpOptions.Reuse policy) {
            this.server = server;
            this.loop = loop;
            this.loopIndex = loopIndex;
            this.clientLocal = clientLocal;
            this.addr = addr;
            this.connectTimeoutMs = connectTimeoutMs;
            this.sni = sni;
            this.session = session;
            this.policy = policy;
        }

        @Override
        protected void initChannel(Channel ch) {
            SslHandler ssl = server.tls().context().newHandler(ch.alloc(), sni, addr);
            // the handshake is part of connecting: timeout connect bounds it, as in HAProxy
            ssl.setHandshakeTimeoutMillis(connectTimeoutMs > 0 ? connectTimeoutMs : ServerTlsContext.DEFAULT_HANDSHAKE_TIMEOUT_MS);
            if (proxyHeader != null) {
                ch.pipeline().addLast("pp", proxyHeader);
            }
            ch.pipeline().addLast("tls", ssl).addLast("handshake", new TlsHandshakeHandler(this));
        }

        @Override
        public void handshakeDone(ChannelHandlerContext ctx, TlsSession session) {
            if (settled) {
                return;
            }
            settled = true;
            boolean h2 = !layer4 && (server.forcesH2() || server.fcgiMultiplexed() || "h2".equals(session.alpn()));
            if (!layer4 && !server.forcesH2() && !server.fcgiMultiplexed()) {
                server.alpnAgreed(h2);
            }
            if (h2) {
                MultiplexedConnection c = pending;
                if (c == null) {
                    c = newMux(server, loopIndex, sni, session, policy, cb);
                }
                // added to an active channel, the connection sends its preface and serves what queued on it
                ctx.pipeline().addAfter(ctx.name(), "h2", (ChannelHandler) c);
                return;
            }
            ChannelHandler h1 = factory.create(server, loopIndex, false, sni);
            ctx.pipeline().addAfter(ctx.name(), layer4 ? "tcp" : "h1", h1);
            if (pending == null) {
                cb.connected((ServerConnection) h1);
                return;
            }
            List<Callback> waiting = pending.abandon();
            if (waiting.isEmpty()) {
                ctx.close();
                return;
            }
            waiting.get(0).connected((ServerConnection) h1);
            for (int i = 1; i < waiting.size(); i++) {
                // placed again as not-first requests of no particular client connection: they were already waiting
                acquire(server, loop, loopIndex, clientLocal, connectTimeoutMs, true, sni, null, false,
                        policy == HttpOptions.Reuse.NEVER ? HttpOptions.Reuse.SAFE : policy, waiting.get(i));
            }
        }

        @Override
        public void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
            fail(handshakeTimedOut(cause) ? new ConnectTimeoutException("TLS handshake timed out (timeout connect)") : cause);
        }

        void fail(Throwable cause) {
            if (settled) {
                return;
            }
            settled = true;
            if (pending != null) {
                pending.connectFailed(cause);
            } else {
                cb.failed(cause);
            }
        }
    }

    /**
     * Whether a server's TLS handshake failed by {@code timeout connect}: that is a connect timeout (HAProxy's {@code sC},
     * retried at once), not a refused connection ({@code SC}, retried after the turn-around wait).
     */
    static boolean handshakeTimedOut(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof SslHandshakeTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** Whether an idle HTTP/1 connection may carry a request of {@code session} under {@code policy}. */
    static boolean reusable(ServerConnection c, Object session, boolean first, HttpOptions.Reuse policy) {
        Object owner = c.owner();
        if (owner != null || policy == HttpOptions.Reuse.NEVER) {
            return owner == session;
        }
        return switch (policy) {
            case SAFE -> !first;
            case AGGRESSIVE -> !first || c.reused();
            default -> true;
        };
    }

    /**
     * Whether an HTTP/2 connection may carry a stream of {@code session} under {@code policy}, as HAProxy 2.6
     * shares them (checked against it): a private one ({@code never}) only its own client connection's, however
     * many at once; under {@code safe} one carrying streams only more streams of the client connection it carries
     * them for, and an idle one any request but a first; under {@code aggressive} and {@code always} anyone's
     * (HAProxy files every idle HTTP/2 connection as safe, so {@code aggressive} shares as {@code always} does).
     */
    static boolean shareable(MultiplexedConnection c, Object session, boolean first, HttpOptions.Reuse policy) {
        Object owner = c.owner();
        if (owner != null || policy == HttpOptions.Reuse.NEVER) {
            return owner == session;
        }
        if (policy == HttpOptions.Reuse.SAFE) {
            Object busyFor = c.reservedBy();
            return busyFor != null ? busyFor == session : !first;
        }
        return true;
    }

    /** A connection of {@code server} on this loop now carries a request (see {@link ConnUse}). */
    public static void used(Server server, int loopIndex) {
        server.pools().use(loopIndex).use();
    }

    /** A connection of {@code server} on this loop carries no request any more (it is idle or closed). */
    public static void unused(Server server, int loopIndex) {
        server.pools().use(loopIndex).unuse();
    }

    /**
     * Whether a connection of {@code server} that is about to stop carrying requests (still counted as used) may
     * wait idle for the next ones, as HAProxy decides: never with {@code pool-purge-delay 0}, always when the loop
     * has no idle connection to that server, else while the connections stay within the estimated need.
     */
    public static boolean keepIdle(Server server, int loopIndex) {
        var pool = server.config().pool();
        if (server.purgeDelayMs() <= 0 || pool.maxConn() == 0) {
            return false;
        }
        int idle = idleCount(server, loopIndex);
        if (pool.maxConn() > 0) {
            // pool-max-conn bounds the server's idle connections on every loop together (the others' as they last counted)
            server.pools().idleSeen(loopIndex, idle);
            if (idle + server.pools().idleElsewhere(loopIndex) >= pool.maxConn()) {
                return false;
            }
        }
        return server.pools().use(loopIndex).keepIdle(idle, pool.lowConn());
    }

    /**
     * The purge periods of a backend's servers ({@code pool-purge-delay}: a server's own, else the backend's), each once;
     * the backend's is among them when it has one (for the servers added at run time). 0 (nothing kept) is not one.
     */
    public static java.util.Set<Long> purgePeriods(Backend b) {
        java.util.Set<Long> periods = new java.util.TreeSet<>();
        if (b.http().poolPurgeDelayMs() > 0) {
            periods.add(b.http().poolPurgeDelayMs());
        }
        for (Server s : b.servers()) {
            if (s.purgeDelayMs() > 0) {
                periods.add(s.purgeDelayMs());
            }
        }
        return periods;
    }

    /** The purge of every server of {@code b} whose period is {@code period}, on loop {@code loopIndex}. */
    public static void purge(Backend b, long period, int loopIndex) {
        for (Server s : b.servers()) {
            if (s.purgeDelayMs() == period) {
                purge(s, loopIndex);
            }
        }
    }

    /** Idle connections to {@code server} on this loop that any client connection may take (not private ones). */
    private static int idleCount(Server server, int loopIndex) {
        int n = 0;
        for (Iterator<ServerConnection> it = server.pools().idle(loopIndex).iterator(); it.hasNext();) {
            ServerConnection c = it.next();
            if (!c.isOpen()) {
                it.remove();
            } else if (c.owner() == null) {
                n++;
            }
        }
        for (MultiplexedConnection c : server.pools().mux(loopIndex)) {
            if (c.owner() == null && c.isIdle()) {
                n++;
            }
        }
        return n;
    }

    /** Forgets a multiplexed connection that closed. */
    public static void remove(Server server, int loopIndex, MultiplexedConnection c) {
        server.pools().mux(loopIndex).remove(c);
    }

    /** Adds a multiplexed connection to the server's list of this loop (one a reload handed over). */
    public static void add(Server server, int loopIndex, MultiplexedConnection c) {
        server.pools().mux(loopIndex).add(c);
    }

    /**
     * Whether a connection to {@code remote} still goes where the server is (its address changed: {@code set server ...
     * addr}, DNS at run time). A connection that does not takes no new request.
     */
    public static boolean current(Server server, java.net.SocketAddress remote) {
        return !(remote instanceof InetSocketAddress r) || r.getAddress().equals(server.address().getAddress());
    }

    /** Puts a connection that may carry another request back in its loop's idle pool. */
    public static void park(Server server, int loopIndex, ServerConnection connection) {
        server.pools().idle(loopIndex).offerLast(connection);
    }

    /**
     * HAProxy's idle-connection purge, run every {@code pool-purge-delay} (5 s) on each loop: closes half of the idle
     * connections in excess of the estimated need (rounded up), least recently used first, HTTP/1 ones then HTTP/2
     * ones, and lets the estimate decay towards what the period used (see {@link ConnUse#purge}). So a pool grown by
     * a burst shrinks back, and the last idle connection of a server no one uses goes after about three periods.
     * Private connections ({@code http-reuse never}) are not the pool's: they close with their client connection.
     * On the loop.
     */
    public static void purge(Server server, int loopIndex) {
        int idle = idleCount(server, loopIndex);
        int kill = server.pools().use(loopIndex).purge(idle);
        if (server.config().pool().maxConn() > 0) {
            server.pools().idleSeen(loopIndex, idle - kill);
        }
        // the head holds the least recently used: connections are taken from the tail
        for (Iterator<ServerConnection> it = server.pools().idle(loopIndex).iterator(); kill > 0 && it.hasNext();) {
            ServerConnection c = it.next();
            if (c.owner() == null) {
                it.remove();
                c.abort();
                kill--;
            }
        }
        for (MultiplexedConnection c : List.copyOf(server.pools().mux(loopIndex))) {
            if (kill > 0 && c.owner() == null && c.isIdle()) {
                c.close();
                kill--;
            }
        }
    }

    /**
     * The server's address changed ({@code set server ... addr}, DNS at run time): its idle connections on this loop, which
     * go to the old address, are closed; connections carrying a request finish there. On the loop.
     */
    public static void closeIdle(Server server, int loopIndex) {
        for (Iterator<ServerConnection> it = server.pools().idle(loopIndex).iterator(); it.hasNext();) {
            ServerConnection c = it.next();
            if (c.owner() == null) {
                it.remove();
                c.abort();
            }
        }
        for (MultiplexedConnection c : List.copyOf(server.pools().mux(loopIndex))) {
            if (c.isIdle()) {
                c.close();
            }
        }
    }

    /**
     * A reload replaced {@code from} by {@code to}, which goes to the same address with the same settings: the idle
     * connections of this loop that may serve any client go on in {@code to}'s pools (no new connect, TLS handshake or
     * HTTP/2 preface after a reload); the others close as {@link #closeIdle} closes them. On the loop.
     */
    public static void handOver(Server from, Server to, int loopIndex) {
        to.pools().use(loopIndex).inherit(from.pools().use(loopIndex));
        ArrayDeque<ServerConnection> idle = from.pools().idle(loopIndex);
        for (Iterator<ServerConnection> it = idle.iterator(); it.hasNext();) {
            ServerConnection c = it.next();
            if (c.owner() == null) {
                it.remove();
                if (c.moveTo(to)) {
                    to.pools().idle(loopIndex).add(c);
                } else {
                    c.abort();
                }
            }
        }
        List<MultiplexedConnection> mux = from.pools().mux(loopIndex);
        for (MultiplexedConnection c : List.copyOf(mux)) {
            if (c.isIdle() && c.owner() == null) {
                if (c.moveTo(to)) {
                    mux.remove(c);
                    to.pools().mux(loopIndex).add(c);
                } else {
                    c.close();
                }
            }
        }
    }

    /**
     * A reload is handing {@code p}'s idle connections to {@code server} and this loop's turn has not come: a reusable
     * idle HTTP/1 connection of {@code p} is taken over now rather than a new one opened. Whether one was.
     */
    private static boolean fromPredecessor(Server p, Server server, int loopIndex, String sni, Object session, boolean first,
            HttpOptions.Reuse policy, Callback cb) {
        for (Iterator<ServerConnection> it = p.pools().idle(loopIndex).descendingIterator(); it.hasNext();) {
            ServerConnection c = it.next();
            if (c.isOpen() && Objects.equals(c.sni(), sni) && c.owner() == null && reusable(c, session, first, policy)) {
                it.remove();
                if (c.moveTo(server)) {
                    cb.connected(c);
                    return true;
                }
                c.abort();
            }
        }
        return false;
    }

    /** Removes a connection from its idle pool (it closed or timed out there). */
    public static void unpark(Server server, int loopIndex, ServerConnection connection) {
        server.pools().idle(loopIndex).remove(connection);
    }
}
