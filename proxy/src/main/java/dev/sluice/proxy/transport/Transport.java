package dev.sluice.proxy.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The I/O transport: native epoll when it loads, NIO otherwise ({@code SLUICE_TRANSPORT=nio} forces NIO).
 * Knows which channel classes go with it and whether it can adopt an inherited socket. Immutable.
 */
public final class Transport {
    private final String name;
    private final IoHandlerFactory ioFactory;
    private final Supplier<ServerChannel> serverChannel;
    private final Supplier<SocketChannel> socketChannel;
    private final IntFunction<ServerChannel> inheritedServerChannel;
    private final Supplier<ServerChannel> domainServerChannel;
    private final IntFunction<ServerChannel> inheritedDomainServerChannel;
    private final String fallbackReason;
    private final Supplier<DatagramChannel> datagramChannel;
    private final ChannelOption<Boolean> reusePort;

    private Transport(String name, IoHandlerFactory ioFactory, Supplier<ServerChannel> serverChannel, Supplier<SocketChannel> socketChannel,
            IntFunction<ServerChannel> inherited, Supplier<ServerChannel> domainServerChannel, IntFunction<ServerChannel> inheritedDomain,
            String fallbackReason) {
        this.name = name;
        this.ioFactory = ioFactory;
        this.serverChannel = serverChannel;
        this.socketChannel = socketChannel;
        this.inheritedServerChannel = inherited;
        this.domainServerChannel = domainServerChannel;
        this.inheritedDomainServerChannel = inheritedDomain;
        this.fallbackReason = fallbackReason;
        boolean epoll = "epoll".equals(name);
        this.datagramChannel = epoll ? EpollDatagramChannel::new : NioDatagramChannel::new;
        this.reusePort = epoll ? EpollChannelOption.SO_REUSEPORT : null;
    }

    /** Picks the best transport available on this machine. */
    public static Transport select() {
        String forced = System.getenv("SLUICE_TRANSPORT");
        if (!"nio".equalsIgnoreCase(forced) && Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel::new, EpollSocketChannel::new,
                    EpollServerSocketChannel::new, EpollServerDomainSocketChannel::new,
                    // an inherited socket is already listening: active from the start (the int-only constructor says not)
                    fd -> new EpollServerDomainSocketChannel(fd, true), null);
        }
        String why = "nio".equalsIgnoreCase(forced) ? "SLUICE_TRANSPORT=nio" : String.valueOf(Epoll.unavailabilityCause());
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel::new, NioSocketChannel::new, null,
                NioServerDomainSocketChannel::new, null, why);
    }

    /**
     * The buffer allocator for every channel. Netty 4.2 defaults to its adaptive allocator; the pooled
     * (jemalloc-style, per-thread caches) allocator costs less here: 31.0 against 37.8 us of proxy CPU
     * per small HTTP/1 request in the same steady-state wrk run (1 event loop, 50 connections).
     */
    public ByteBufAllocator allocator() {
        return PooledByteBufAllocator.DEFAULT;
    }

    public String name() {
        return name;
    }

    /** Why the native transport is not used, or null when it is. */
    public String fallbackReason() {
        return fallbackReason;
    }

    public MultiThreadIoEventLoopGroup newGroup(int threads, ThreadFactory factory) {
        return new MultiThreadIoEventLoopGroup(threads, factory, ioFactory);
    }

    /**
     * The same, each epoll_wait returning at most {@code maxEvents} events ({@code tune.maxpollevents}; 0: Netty's
     * default, which grows with the load). NIO has no such bound: it is ignored there.
     */
    public MultiThreadIoEventLoopGroup newGroup(int threads, ThreadFactory factory, int maxEvents) {
        if (maxEvents <= 0 || !name.equals("epoll")) {
            return newGroup(threads, factory);
        }
        return new MultiThreadIoEventLoopGroup(threads, factory, EpollIoHandler.newFactory(maxEvents, DefaultSelectStrategyFactory.INSTANCE));
    }

    public ServerChannel newServerChannel() {
        return serverChannel.get();
    }

    /**
     * A listening socket for {@code bind}: of the IPv4 family for an IPv4 address, as HAProxy's. Netty's epoll sockets
     * are IPv6 ones by default, an IPv4 address then mapped (::ffff:a.b.c.d): the kernel's IPv6 layer then wraps every
     * connection of it (tcp_v6_connect over tcp_v4_connect, inet6 receive and release paths, a larger socket).
     */
    public ServerChannel newServerChannel(InetSocketAddress bind) {
        return epoll() && bind.getAddress() instanceof Inet4Address ? new EpollServerSocketChannel(SocketProtocolFamily.INET) : serverChannel.get();
    }

    public SocketChannel newSocketChannel() {
        return socketChannel.get();
    }

    /** Sockets of the IPv4 family for IPv4 servers (see {@link #newServerChannel(InetSocketAddress)}); null: the default ones. */
    public io.netty.channel.ChannelFactory<SocketChannel> inet4SocketChannels() {
        return epoll() ? () -> new EpollSocketChannel(SocketProtocolFamily.INET) : null;
    }

    private boolean epoll() {
        return "epoll".equals(name);
    }

    /** A UDP channel (a QUIC socket). */
    public DatagramChannel newDatagramChannel() {
        return datagramChannel.get();
    }

    /**
     * SO_REUSEPORT, with which several UDP sockets share one port and the kernel spreads datagrams over them
     * (one QUIC socket per event loop); null when the transport cannot set it (NIO).
     */
    public ChannelOption<Boolean> reusePortOption() {
        return reusePort;
    }

    public boolean canInherit() {
        return inheritedServerChannel != null;
    }

    /** A listening UNIX stream socket channel (epoll's own, or NIO's on the JDK's UnixDomainSocketAddress). */
    public ServerChannel newDomainServerChannel() {
        return domainServerChannel.get();
    }

    /** A UNIX stream socket channel, to connect to a server listening on one (epoll's own, or NIO's). */
    public Channel newDomainSocketChannel() {
        return "epoll".equals(name) ? new EpollDomainSocketChannel() : new NioDomainSocketChannel();
    }

    /**
     * The address to bind a UNIX stream socket channel of this transport to, or to connect one to; a path starting with a
     * NUL is a name in the abstract namespace ({@link AbstractSockets.Address}: see {@link #connectAbstract}).
     */
    public SocketAddress domainAddress(String path) {
        if (!path.isEmpty() && path.charAt(0) == 0) {
            return new AbstractSockets.Address(path.substring(1));
        }
        return "epoll".equals(name) ? new DomainSocketAddress(path) : UnixDomainSocketAddress.of(path);
    }

    /**
     * A UNIX stream socket channel connected to {@code a} already (HAProxy's padded abstract address, which Netty's own
     * connect cannot give), to register; only the native transport can wrap one.
     */
    public Channel connectAbstract(AbstractSockets.Address a) throws java.io.IOException {
        if (!"epoll".equals(name)) {
            throw new java.io.IOException("abstract UNIX sockets need the epoll transport (" + fallbackReason + ")");
        }
        return new EpollDomainSocketChannel(AbstractSockets.connect(a.name()));
    }

    /** A channel listening on {@code abns@<name>} already (as {@link #connectAbstract}, HAProxy's padded address). */
    public ServerChannel listenAbstract(String abstractName, int backlog) throws java.io.IOException {
        if (!"epoll".equals(name)) {
            throw new java.io.IOException("abstract UNIX sockets need the epoll transport (" + fallbackReason + ")");
        }
        return new EpollServerDomainSocketChannel(AbstractSockets.listen(abstractName, backlog), true);
    }

    /** Wraps an inherited, already listening UNIX stream socket; only the native transport can. */
    public ServerChannel inheritedDomainServerChannel(int fd) {
        if (inheritedDomainServerChannel == null) {
            throw new IllegalStateException("the " + name + " transport cannot adopt inherited sockets (" + fallbackReason + ")");
        }
        return inheritedDomainServerChannel.apply(fd);
    }

    /** Wraps an inherited, already listening socket; only the native transport can. */
    public ServerChannel inheritedServerChannel(int fd) {
        if (inheritedServerChannel == null) {
            throw new IllegalStateException("the " + name + " transport cannot adopt inherited sockets (" + fallbackReason + ")");
        }
        return inheritedServerChannel.apply(fd);
    }
}
