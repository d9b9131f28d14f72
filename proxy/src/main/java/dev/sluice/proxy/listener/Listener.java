package dev.sluice.proxy.listener;


import dev.sluice.config.Addresses;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.BindSocket;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.SocketTune;
import dev.sluice.pools.Budget;
import dev.sluice.proxy.transport.EpollEmptyInterest;
import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.internal.PlatformDependent;
import java.net.InetSocketAddress;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One {@code bind} of a frontend: a listening socket bound on start-up or adopted from the parent
 * process ({@code fd@<n>}). Accepted connections are spread over the event loops; each one is admitted
 * against its {@link ConnectionLimit} before anything is read from it.
 */
public final class Listener {
    private final Bind bind;
    private boolean tcpKeepAlive;
    private boolean reusePort = true;
    private ChannelGroup clients;
    private final String frontend;
    private final ConnectionLimit limit;
    private final Function<Boolean, ChannelHandler> connectionHandler;
    private Channel channel;
    private Predicate<Channel> acceptFilter;
    private Budget sessions;
    /** Its own counters ({@code option socket-stats}), or null. */
    private ListenerCounters counters;
    private SocketTune tune = SocketTune.DEFAULT;
    /** What the socket's accepted connections go through: passed on to the listener that takes the socket over. */
    private Acceptor acceptor;
    /** The backlog the socket was made with. */
    private int backlogUsed;
    /** A listening socket received from the old process ({@code -x}) to start on instead of binding, or -1. */
    private int receivedFd = -1;
    /** What the logs and fetches see as the address of a client on a UNIX socket: "unix" and the listener's id. */
    private InetSocketAddress unixClient = ClientAddresses.unix(1);
    private ListenerIdentity identity;

    /**
     * @param connectionHandler makes the protocol handler of an accepted connection, given whether the
     *                          connection was admitted at once
     */
    public Listener(Bind bind, String frontend, ConnectionLimit limit, Function<Boolean, ChannelHandler> connectionHandler) {
        this.bind = bind;
        this.frontend = frontend;
        this.limit = limit;
        this.connectionHandler = connectionHandler;
    }

    /**
     * The budget each accepted connection takes until it closes ({@code show pools}' session line); when the
     * memory ceiling refuses it, the connection is closed at once, before any rule or admission.
     */
    public Listener sessions(Budget b) {
        this.sessions = b;
        return this;
    }

    /** Gives the listener its own counters ({@code option socket-stats}): each accepted connection carries them. */
    public Listener counters(ListenerCounters c) {
        this.counters = c;
        return this;
    }

    /** Decides on each accepted connection before admission ({@code tcp-request connection} rules); false closes it. */
    public Listener acceptFilter(Predicate<Channel> filter) {
        this.acceptFilter = filter;
        return this;
    }

    /** {@code SO_REUSEPORT} on the listening socket (the default; {@code noreuseport} turns it off). */
    public Listener reusePort(boolean on) {
        this.reusePort = on;
        return this;
    }

    /**
     * The global socket tuning: {@code tune.rcvbuf.client} on the listening socket (accepted connections inherit it, and the
     * window scale they announce follows it), {@code tune.sndbuf.client} on each accepted connection, {@code tune.maxaccept}
     * as the number of connections accepted in a row.
     */
    public Listener socketTune(SocketTune t) {
        this.tune = t;
        return this;
    }

    /** Where every accepted connection is registered until it closes (for a graceful stop). */
    public Listener clients(ChannelGroup group) {
        this.clients = group;
        return this;
    }

    /** {@code option clitcpka}: TCP keep-alive probes on the accepted connections. */
    public Listener tcpKeepAlive(boolean on) {
        this.tcpKeepAlive = on;
        return this;
    }

    /**
     * Starts on {@code fd}, a listening socket received from the old process ({@link SocketHandover}) for this bind,
     * instead of binding a new one; the listener owns it from now on.
     */
    public Listener useReceivedSocket(int fd) {
        this.receivedFd = fd;
        return this;
    }

    public Bind bind() {
        return bind;
    }

    /** The listener's id in its frontend (HAProxy's luid), which a client on a UNIX socket shows as its port. */
    public Listener id(int luid) {
        this.unixClient = ClientAddresses.unix(luid);
        this.identity = new ListenerIdentity(luid, bind.socket().name());
        return this;
    }

    /** Whether the bind is a UNIX socket: a path or an abstract name. */
    public boolean unix() {
        return bind.address() instanceof ListenAddress.Unix || bind.address() instanceof ListenAddress.Abstract;
    }

    public Channel channel() {
        return channel;
    }

    public InetSocketAddress localAddress() {
        return channel == null || !(channel.localAddress() instanceof InetSocketAddress a) ? null : a;
    }

    /** Binds (or adopts) the socket; throws {@link IllegalStateException} with HAProxy-like wording on failure. */
    public void start(Transport transport, EventLoopGroup group, int backlog) {
        ListenAddress addr = bind.address();
        BindSocket so = bind.socket();
        boolean unix = unix();
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .option(ChannelOption.SO_BACKLOG, so.backlog() > 0 ? so.backlog() : backlog)
                .option(ChannelOption.ALLOCATOR, transport.allocator())
                .childOption(ChannelOption.ALLOCATOR, transport.allocator())
                // a client may half-close after its request and still expect the response
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .handler(AcceptedInterest.INSTANCE)
                .childHandler(acceptor = new Acceptor(this));
        backlogUsed = so.backlog() > 0 ? so.backlog() : backlog;
        if (!unix) {
            b.option(ChannelOption.SO_REUSEADDR, true);
        }
        // each option set is a system call per connection: only those that differ from a new socket's
        if (!unix && !PlatformDependent.canEnableTcpNoDelayByDefault()) {
            b.childOption(ChannelOption.TCP_NODELAY, true);
        }
        if (!unix && tcpKeepAlive) {
            b.childOption(ChannelOption.SO_KEEPALIVE, true);
        }
        if (tune.clientRcvbuf() > 0) {
            b.option(ChannelOption.SO_RCVBUF, tune.clientRcvbuf());
        }
        if (tune.clientSndbuf() > 0) {
            b.childOption(ChannelOption.SO_SNDBUF, tune.clientSndbuf());
        }
        if (tune.maxAccept() != 0) {
            b.option(ChannelOption.RCVBUF_ALLOCATOR, new ServerChannelRecvByteBufAllocator()
                    .maxMessagesPerRead(tune.maxAccept() < 0 ? Integer.MAX_VALUE : tune.maxAccept()));
        }
        if (reusePort && transport.name().equals("epoll") && !unix && !(addr instanceof ListenAddress.InheritedFd)) {
            // as HAProxy: a new process (-sf) binds the same ports while the old one finishes
            b.option(EpollChannelOption.SO_REUSEPORT, true);
        }
        if (so.needsEpoll() && !unix) {
            if (!transport.name().equals("epoll")) {
                throw new IllegalStateException("Starting frontend " + frontend + ": the socket options of 'bind " + bind.text()
                        + "' need the epoll transport (" + transport.fallbackReason() + ")");
            }
            SocketOptions.applyChildren(b, so);
        }
        ChannelFuture f;
        if (receivedFd >= 0) {
            f = startReceived(b, transport, so);
        } else if (addr instanceof ListenAddress.InheritedFd fd) {
            if (!transport.canInherit()) {
                throw new IllegalStateException("Starting frontend " + frontend + ": cannot use inherited socket [" + fd + "]: "
                        + "the " + transport.name() + " transport cannot adopt sockets (" + transport.fallbackReason() + ")");
            }
            try {
                InheritedSocket.prepare(fd.fd());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("Starting frontend " + frontend + ": cannot use inherited socket [" + fd + "]: "
                        + e.getMessage());
            }
            boolean unixFd = InheritedSocket.isUnix(fd.fd());
            b.channelFactory(() -> unixFd ? transport.inheritedDomainServerChannel(fd.fd()) : transport.inheritedServerChannel(fd.fd()));
            f = b.register();
        } else if (unix) {
            UnixListenSocket u = new UnixListenSocket(bind, frontend, transport, backlogUsed);
            f = u.start(b);
            f.awaitUninterruptibly();
            if (f.isSuccess()) {
                u.publish(f.channel());
            } else {
                throw u.failure(f.cause());
            }
        } else {
            ListenAddress.Inet inet = (ListenAddress.Inet) addr;
            String where = "[" + addr + "]";
            InetSocketAddress sa = inet.host().isEmpty() ? new InetSocketAddress(inet.port())
                    : new InetSocketAddress(Addresses.literal(inet.host()), inet.port());
            b.channelFactory(() -> {
                ServerChannel ch = transport.newServerChannel(sa);
                if (so.needsEpoll()) {
                    try {
                        SocketOptions.apply(ch, so, where, sa.getAddress() instanceof java.net.Inet4Address);
                    } catch (IllegalStateException e) {
                        ch.unsafe().closeForcibly();
                        throw e;
                    }
                }
                return ch;
            });
            f = b.bind(sa);
        }
        f.awaitUninterruptibly();
        if (!f.isSuccess()) {
            Throwable c = f.cause();
            if (c instanceof IllegalStateException) {
                // a socket option the kernel refused (SocketOptions)
                throw new IllegalStateException("Starting frontend " + frontend + ": " + c.getMessage());
            }
            String why = c == null ? "unknown error" : c.getMessage();
            if (why != null && why.contains("Address already in use")) {
                why = "Address already in use";
            }
            throw new IllegalStateException("Starting frontend " + frontend + ": cannot bind socket (" + why + ") [" + addr + "]");
        }
        channel = f.channel();
        if (identity != null) {
            identity.mark(channel);
        }
        limit.addListener(channel);
    }

    /** What an accepted connection gets: its budget, counters, filter, admission and protocol handler. */
    private void accepted(Channel ch) {
        if (!(ch.remoteAddress() instanceof InetSocketAddress)) {
            ch.attr(ClientAddresses.UNIX).set(unixClient);
        }
        Budget budget = sessions;
        if (budget != null) {
            if (!budget.take()) {
                ch.close();
                return;
            }
            ch.closeFuture().addListener(f -> budget.give());
        }
        ListenerCounters lc = counters;
        if (lc != null) {
            lc.accepted(ch);
        }
        if (identity != null) {
            identity.accepted(ch);
        }
        if (acceptFilter != null && !acceptFilter.test(ch)) {
            // as HAProxy: a connection its tcp-request connection rules refuse closes with a single RST (no linger),
            // whether or not its first bytes came already
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close();
            return;
        }
        if (clients != null) {
            clients.add(ch);
        }
        boolean admitted = limit.admit(ch);
        ch.pipeline().addLast("conn", connectionHandler.apply(admitted));
    }

    /**
     * Whether this listener's socket can be handed to {@code next} at an in-process reload: the same address and
     * socket options, and the same options its accepted sockets get (they are fixed when the socket is made).
     */
    public boolean sameSocket(Listener next, int backlog) {
        BindSocket so = next.bind.socket();
        return channel != null && channel.isActive() && bind.address().equals(next.bind.address()) && bind.socket().equals(so)
                && tcpKeepAlive == next.tcpKeepAlive && reusePort == next.reusePort && tune.clientRcvbuf() == next.tune.clientRcvbuf()
                && tune.clientSndbuf() == next.tune.clientSndbuf() && tune.maxAccept() == next.tune.maxAccept()
                && backlogUsed == (so.backlog() > 0 ? so.backlog() : backlog);
    }

    /**
     * Takes the socket of {@code old} over (an in-process reload): nothing is closed nor bound, the connections
     * waiting in its queue and those accepted from now on are this listener's.
     */
    public void adopt(Listener old) {
        channel = old.channel;
        if (identity != null) {
            // the new configuration may number or name the bind differently
            identity.mark(channel);
        }
        backlogUsed = old.backlogUsed;
        acceptor = old.acceptor;
        old.channel = null;
        old.acceptor = null;
        old.limit.removeListener(channel);
        limit.addListener(channel);
        acceptor.target = this;
    }

    /** The child handler of the socket: each accepted connection goes to the listener that owns the socket now. */
    private static final class Acceptor extends ChannelInitializer<Channel> {
        volatile Listener target;

        Acceptor(Listener target) {
            this.target = target;
        }

        @Override
        protected void initChannel(Channel ch) {
            target.accepted(ch);
        }
    }

    /** Registers the received socket, given the options a bound socket can still take (HAProxy resets them too). */
    private ChannelFuture startReceived(ServerBootstrap b, Transport transport, BindSocket so) {
        int fd = receivedFd;
        String where = "[" + bind.address() + "]";
        try {
            InheritedSocket.prepare(fd);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Starting frontend " + frontend + ": cannot use the socket received for " + where + ": " + e.getMessage());
        }
        boolean unixFd = InheritedSocket.isUnix(fd);
        b.channelFactory(() -> {
            ServerChannel ch = unixFd ? transport.inheritedDomainServerChannel(fd) : transport.inheritedServerChannel(fd);
            try {
                if (!unixFd) {
                    SocketOptions.applyAfterBind(ch, so, where);
                }
            } catch (IllegalStateException e) {
                ch.unsafe().closeForcibly();
                throw e;
            }
            return ch;
        });
        return b.register();
    }

    /**
     * On the listening channel, before Netty's acceptor: an accepted socket gets its interest set before it is
     * registered ({@link EpollEmptyInterest#prime}), one {@code epoll_ctl} where there were two or three.
     */
    @ChannelHandler.Sharable
    private static final class AcceptedInterest extends ChannelInboundHandlerAdapter {
        static final AcceptedInterest INSTANCE = new AcceptedInterest();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Channel child) {
                EpollEmptyInterest.prime(child);
            }
            ctx.fireChannelRead(msg);
        }
    }

    public void stop() {
        if (channel != null) {
            channel.close().awaitUninterruptibly();
        }
    }
}
