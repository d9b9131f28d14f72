package dev.sluice.proxy.admin;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.proxy.listener.InheritedSocket;
import dev.sluice.proxy.listener.SocketHandover;
import dev.sluice.proxy.transport.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The process's admin sockets ({@code stats socket} lines) and what they count: sessions opened and open,
 * bytes answered. A UNIX socket is bound to a temporary name next to its path, given its mode and owner,
 * then renamed over the path, so a reloading process replaces the socket of the old one atomically (and
 * the old one leaves the path alone when it stops). Started and stopped once, by the runtime.
 */
public final class AdminSockets {
    private final List<StatsSocket> config;
    private volatile CliRegistry registry;
    private final long timeoutMs;
    private final CliRouter router;
    private final List<Channel> channels = new ArrayList<>();
    private final LongAdder sessions = new LongAdder();
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder bytesOut = new LongAdder();
    private volatile Supplier<List<SocketHandover.Exported>> exported;

    public AdminSockets(List<StatsSocket> config, long timeoutMs, CliRegistry registry) {
        this(config, timeoutMs, registry, null);
    }

    /** Sockets whose sessions may send commands to other processes through {@code router} (the master CLI). */
    public AdminSockets(List<StatsSocket> config, long timeoutMs, CliRegistry registry, CliRouter router) {
        this.config = config;
        this.timeoutMs = timeoutMs;
        this.registry = registry;
        this.router = router;
    }

    /**
     * Where {@code _getsocks} finds the listening sockets to hand over on the sockets with {@code expose-fd listeners}
     * (asked at each command); without it, those the process offers ({@link SocketHandover#offer}). With neither (and on
     * the master CLI) the command is unknown.
     */
    public AdminSockets exportListeners(Supplier<List<SocketHandover.Exported>> sockets) {
        this.exported = sockets;
        return this;
    }

    /** Whether {@code _getsocks} is a command here. */
    boolean handsOverSockets() {
        return router == null && (exported != null || SocketHandover.offered() != null);
    }

    List<SocketHandover.Exported> exportedSockets() {
        Supplier<List<SocketHandover.Exported>> s = exported;
        List<SocketHandover.Exported> offered = s != null ? s.get() : SocketHandover.offered();
        return offered == null ? List.of() : offered;
    }

    public CliRegistry registry() {
        return registry;
    }

    /** The commands of a reloaded configuration: sessions opened from now on run them. */
    public void registry(CliRegistry r) {
        this.registry = r;
    }

    /** {@code stats timeout}: how long a session may stay idle. */
    long timeoutMs() {
        return timeoutMs;
    }

    /** How many sockets are configured. */
    public int count() {
        return config.size();
    }

    /** Sessions opened since the start (HAProxy counts them in CumConns and CumReq). */
    public long totalSessions() {
        return sessions.sum();
    }

    /** Sessions open now. */
    public int openSessions() {
        return open.get();
    }

    /** Bytes of answers sent since the start. */
    public long bytesOut() {
        return bytesOut.sum();
    }

    void sessionStarted() {
        sessions.increment();
        open.incrementAndGet();
    }

    void sessionEnded() {
        open.decrementAndGet();
    }

    void countBytesOut(long n) {
        bytesOut.add(n);
    }

    /** The local address of each bound socket, in configuration order (for tests and -d output). */
    public List<SocketAddress> localAddresses() {
        return channels.stream().map(Channel::localAddress).toList();
    }

    /** Binds every socket; throws {@link IllegalStateException} in HAProxy's words when one cannot be. */
    public void start(Transport transport, EventLoopGroup group) {
        for (StatsSocket s : config) {
            channels.add(bind(s, transport, group));
        }
        if (handsOverSockets() && transport.canInherit() && config.stream().anyMatch(StatsSocket::exposeFd)) {
            // the next process's _getsocks is answered at once
            Thread.ofVirtual().name("sluice-link").start(SocketHandover::prepareSend);
        }
    }

    private Channel bind(StatsSocket s, Transport transport, EventLoopGroup group) {
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .option(ChannelOption.ALLOCATOR, transport.allocator())
                .childOption(ChannelOption.ALLOCATOR, transport.allocator())
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("idle", new IdleStateHandler(timeoutMs, 0, 0, TimeUnit.MILLISECONDS));
                        ch.pipeline().addLast("cli", new CliConnection(new CliSession(AdminSockets.this::registry, s.level(), router), AdminSockets.this,
                                s.exposeFd()));
                    }
                });
        ListenAddress addr = s.address();
        String what = "Binding [" + s.where() + "] for frontend GLOBAL: ";
        ChannelFuture f;
        Path tmp = null;
        if (addr instanceof ListenAddress.InheritedFd fd) {
            if (!transport.canInherit()) {
                throw new IllegalStateException(what + "cannot use inherited socket [" + fd + "]: the " + transport.name()
                        + " transport cannot adopt sockets (" + transport.fallbackReason() + ")");
            }
            boolean unix;
            try {
                InheritedSocket.prepare(fd.fd());
                unix = InheritedSocket.isUnix(fd.fd());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(what + "cannot use inherited socket [" + fd + "]: " + e.getMessage());
            }
            b.channelFactory(() -> unix ? transport.inheritedDomainServerChannel(fd.fd()) : transport.inheritedServerChannel(fd.fd()));
            f = b.register();
        } else if (addr instanceof ListenAddress.Unix u) {
            tmp = Path.of(u.path() + "." + ProcessHandle.current().pid() + ".tmp");
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException e) {
                throw new IllegalStateException(what + "cannot remove the stale temporary socket (" + e.getMessage() + ") [" + tmp + "]");
            }
            b.channelFactory(() -> (ServerChannel) transport.newDomainServerChannel());
            f = b.bind(transport.domainAddress(tmp.toString()));
        } else {
            ListenAddress.Inet inet = (ListenAddress.Inet) addr;
            b.option(ChannelOption.SO_REUSEADDR, true);
            b.channelFactory(transport::newServerChannel);
            InetSocketAddress sa = inet.host().isEmpty() ? new InetSocketAddress(inet.port())
                    : new InetSocketAddress(Addresses.literal(inet.host()), inet.port());
            f = b.bind(sa);
        }
        f.awaitUninterruptibly();
        if (!f.isSuccess()) {
            String why = f.cause() == null || f.cause().getMessage() == null ? "unknown error" : f.cause().getMessage();
            // native errors read "bind(..) failed with error(-2): No such file or directory": keep the system's words, as HAProxy does
            if (why.contains("failed") && why.lastIndexOf(": ") >= 0) {
                why = why.substring(why.lastIndexOf(": ") + 2);
            }
            if (why.contains("Address already in use")) {
                why = "Address already in use";
            }
            String kind = addr instanceof ListenAddress.Unix ? "UNIX socket" : "socket";
            throw new IllegalStateException(what + "cannot bind " + kind + " (" + why + ") [" + s.describe() + "]");
        }
        if (tmp != null) {
            Channel ch = f.channel();
            UnixSocketFiles.publish(s, tmp, () -> ch.close().awaitUninterruptibly());
        }
        return f.channel();
    }

    /** Closes the sockets; open sessions end with the event loops. The UNIX paths stay (a new process may own them). */
    public void stop() {
        for (Channel c : channels) {
            c.close().awaitUninterruptibly();
        }
    }
}
