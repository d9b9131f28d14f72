package dev.sluice.quic;

import dev.sluice.pools.Pool;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramChannel;
import io.netty.handler.codec.quic.QLogConfiguration;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicCodecDispatcher;
import io.netty.handler.codec.quic.QuicConnectionIdGenerator;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A QUIC bind: one UDP socket per event loop bound with SO_REUSEPORT when the transport has it (one socket
 * otherwise), each with its own QUIC codec and the same handlers in front of it:
 *
 * <pre>
 *   datagram channel:  [dispatcher] -> [ClosingConnections] -> [QUIC codec] -> QuicChannel per connection
 *   QuicChannel:       [ConnectionTracker] -> the application's handler (HTTP/3)
 * </pre>
 *
 * The kernel spreads datagrams over the sockets by address; a short-header packet that lands on the wrong
 * socket (the peer moved) is handed to the socket whose index its CID carries. Built once, started once,
 * stopped once; its sockets then run on their event loops.
 */
public final class QuicListener {
    /**
     * Debugging knob: a directory where quiche writes a qlog file per connection (every packet and frame, in JSON
     * lines; large). Off unless the environment sets {@code SLUICE_QUIC_QLOG}.
     */
    static final String QLOG_DIR = System.getenv("SLUICE_QUIC_QLOG");

    private final String frontend;
    private final InetSocketAddress address;
    private final QuicSettings settings;
    private final QuicSslContext ssl;
    private final ChannelHandler application;
    private final Pool<ClosingConnection> pool;
    private final TokenKeys tokenKeys;
    private final Secrets secrets;
    private final QuicCounters counters = new QuicCounters();
    private final AtomicInteger dropCloses;
    private final List<QuicSocket> sockets = new CopyOnWriteArrayList<>();
    private final List<Channel> channels = new ArrayList<>();
    private ByteBufAllocator allocator = ByteBufAllocator.DEFAULT;

    /**
     * @param application added to every connection's pipeline after the tracker (sharable, or an initializer)
     * @param pool        where closing records come from (null: plain objects)
     */
    public QuicListener(String frontend, InetSocketAddress address, QuicSettings settings, QuicSslContext ssl, ChannelHandler application,
            Pool<ClosingConnection> pool, Secrets secrets, TokenKeys tokenKeys) {
        this.frontend = frontend;
        this.address = address;
        this.settings = settings;
        this.ssl = ssl;
        this.application = application;
        this.pool = pool;
        this.secrets = secrets;
        this.tokenKeys = tokenKeys;
        this.dropCloses = new AtomicInteger(settings.dropCloses());
    }

    /** The buffer allocator of the sockets and connections (before {@link #start}). */
    public QuicListener allocator(ByteBufAllocator a) {
        this.allocator = a;
        return this;
    }

    public String frontend() {
        return frontend;
    }

    public QuicCounters counters() {
        return counters;
    }

    public QuicSettings settings() {
        return settings;
    }

    /** The address the sockets are bound to (the real port once started on port 0). */
    /** The UDP sockets bound so far (one per event loop with SO_REUSEPORT). */
    public List<Channel> channels() {
        return List.copyOf(channels);
    }

    public InetSocketAddress localAddress() {
        return channels.isEmpty() ? address : (InetSocketAddress) channels.get(0).localAddress();
    }

    /**
     * Binds the sockets: one per loop when {@code reusePort} (the transport's SO_REUSEPORT option) is given,
     * else one on the first loop. Throws {@link IllegalStateException} with HAProxy-like wording on failure.
     */
    public void start(List<EventLoop> loops, Supplier<? extends DatagramChannel> channelFactory, ChannelOption<Boolean> reusePort) {
        int n = reusePort == null ? 1 : Math.min(loops.size(), 255);
        Dispatcher dispatcher = new Dispatcher();
        InetSocketAddress bindTo = address;
        try {
            for (int i = 0; i < n; i++) {
                Bootstrap b = new Bootstrap().group(loops.get(i)).channelFactory(channelFactory::get)
                        .option(ChannelOption.ALLOCATOR, allocator)
                        .handler(dispatcher);
                if (reusePort != null) {
                    b.option(reusePort, true);
                }
                ChannelFuture f = b.bind(bindTo).awaitUninterruptibly();
                if (!f.isSuccess()) {
                    Throwable c = f.cause();
                    String why = c == null ? "unknown error" : String.valueOf(c.getMessage());
                    if (why.contains("Address already in use")) {
                        why = "Address already in use";
                    }
                    throw new IllegalStateException("Starting frontend " + frontend + ": cannot bind QUIC socket (" + why + ") ["
                            + format(address) + "]");
                }
                channels.add(f.channel());
                // the other sockets join the first one's port (it may have been chosen by the kernel)
                bindTo = (InetSocketAddress) f.channel().localAddress();
            }
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    private static String format(InetSocketAddress a) {
        String h = a.getAddress().getHostAddress();
        return (h.indexOf(':') >= 0 ? "quic6@[" + h + "]" : "quic4@" + h) + ":" + a.getPort();
    }

    /**
     * Soft stop ({@code SIGUSR1}, {@code -sf}): on each socket's loop, new connections are no longer taken, every
     * live connection gets {@code event} on its pipeline (HTTP/3 sends GOAWAY, finishes its requests, then closes
     * and becomes a closing record), and the socket closes once it has neither live connections nor closing
     * records. {@link #isClosed()} tells when every socket is closed. Does not wait.
     */
    public void softStop(Object event) {
        for (QuicSocket s : sockets) {
            onLoop(s, () -> s.softStop(event));
        }
    }

    private static void onLoop(QuicSocket s, Runnable task) {
        if (s.channel.eventLoop().inEventLoop()) {
            task.run();
            return;
        }
        try {
            s.channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            // the loop is gone, and the socket with it
        }
    }

    /**
     * Hard stop: on each socket's loop, every live connection is closed (its CONNECTION_CLOSE is sent) and then the
     * socket, closing records included. Does not wait (it may be called on one of the loops): the future completes
     * once every socket is closed, its last datagrams written. The loops must not be shut down before: a loop that
     * starts shutting down closes its channels before it runs the tasks still queued, and the CONNECTION_CLOSE
     * datagrams would never be sent (a client then waits for its idle timeout).
     */
    public CompletableFuture<Void> stop() {
        for (QuicSocket s : sockets) {
            onLoop(s, s::hardStop);
        }
        List<CompletableFuture<Void>> closed = new ArrayList<>(channels.size());
        for (Channel c : channels) {
            if (sockets.stream().noneMatch(s -> s.channel == c)) {
                // bound but never initialised (a failed start)
                c.close();
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            c.closeFuture().addListener(x -> f.complete(null));
            closed.add(f);
        }
        return CompletableFuture.allOf(closed.toArray(CompletableFuture[]::new));
    }

    /** Whether every socket of the bind is closed (after a soft stop once they drained, or after a stop). */
    public boolean isClosed() {
        for (Channel c : channels) {
            if (c.isOpen()) {
                return false;
            }
        }
        return true;
    }

    /**
     * How long a connection lingers in the closing state: min(3 x PTO, 1 s), as the closing records live (and
     * HAProxy's closing connections); also how long a draining HTTP/3 connection leaves its last response to be
     * acknowledged before it closes (a CONNECTION_CLOSE discards stream data still unacknowledged).
     */
    public static long closingPeriodNanos(QuicChannel channel) {
        return Math.min(3 * ConnectionTracker.ptoNanos(channel), ClosingConnections.MAX_LIFETIME_NANOS);
    }

    /** The socket that owns a QUIC connection. */
    static QuicSocket socketOf(QuicChannel ch, List<QuicSocket> sockets) {
        for (QuicSocket s : sockets) {
            if (s.channel == ch.parent()) {
                return s;
            }
        }
        return null;
    }

    /**
     * What each socket holds, gathered on its own loop: {@code f} runs there once per socket. Completes when
     * every socket answered.
     */
    <T> CompletableFuture<List<T>> perSocket(Function<QuicSocket, T> f) {
        List<CompletableFuture<T>> parts = new ArrayList<>();
        for (QuicSocket s : sockets) {
            CompletableFuture<T> part = new CompletableFuture<>();
            if (s.channel == null || !s.channel.isRegistered()) {
                continue;
            }
            Runnable task = () -> {
                try {
                    part.complete(f.apply(s));
                } catch (RuntimeException e) {
                    part.completeExceptionally(e);
                }
            };
            if (s.channel.eventLoop().inEventLoop()) {
                // the caller runs on this socket's loop (an admin session): a task would wait behind it
                task.run();
            } else {
                s.channel.eventLoop().execute(task);
            }
            parts.add(part);
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0])).thenApply(v -> {
            List<T> out = new ArrayList<>();
            for (CompletableFuture<T> p : parts) {
                out.add(p.join());
            }
            return out;
        });
    }

    List<QuicSocket> sockets() {
        return sockets;
    }

    /** Closing records alive on every socket (for tests and {@code show quic}). */
    public CompletableFuture<Integer> closingCount() {
        return perSocket(s -> s.closing.size()).thenApply(l -> l.stream().mapToInt(Integer::intValue).sum());
    }

    /** Live connections on every socket. */
    public CompletableFuture<Integer> liveCount() {
        return perSocket(s -> s.live.size()).thenApply(l -> l.stream().mapToInt(Integer::intValue).sum());
    }

    /**
     * Netty's dispatcher for sockets sharing a port, with Sluice's CID layout: the socket index is byte 2 of
     * every CID (see {@link Cids}), and each socket gets its front handler and codec here.
     */
    private final class Dispatcher extends QuicCodecDispatcher {
        Dispatcher() {
            super(Cids.LENGTH);
        }

        @Override
        protected QuicConnectionIdGenerator newIdGenerator(int idx) {
            return new CidGenerator(settings.serverId(), idx, p -> false);
        }

        @Override
        protected int decodeIndex(ByteBuf cid) {
            int r = cid.readerIndex();
            if (cid.readableBytes() < 3 || cid.getUnsignedByte(r) != Cids.FIRST_OCTET) {
                // not one of ours: Netty's dispatcher then keeps the datagram on this socket (it takes any index
                // below its list's size, -1 included, as a socket number)
                return Integer.MAX_VALUE;
            }
            return cid.getUnsignedByte(r + Cids.SOCKET_INDEX);
        }

        @Override
        protected void initChannel(Channel channel, int cidLength, QuicConnectionIdGenerator ignored) {
            int index = socketIndexOf(channel, ignored);
            ClosingConnections closing = new ClosingConnections(pool, counters, dropCloses);
            QuicSocket socket = new QuicSocket(QuicListener.this, index, closing);
            socket.channel = channel;
            CidGenerator cids = new CidGenerator(settings.serverId(), index, closing::taken);
            ChannelHandler codec = new QuicServerCodecBuilder()
                    .sslContext(ssl)
                    .maxIdleTimeout(settings.idleTimeoutMs(), TimeUnit.MILLISECONDS)
                    .initialMaxData(settings.maxData())
                    .initialMaxStreamDataBidirectionalLocal(settings.streamData())
                    .initialMaxStreamDataBidirectionalRemote(settings.streamData())
                    .initialMaxStreamsBidirectional(settings.maxStreamsBidi())
                    .initialMaxStreamsUnidirectional(QuicSettings.MAX_STREAMS_UNI)
                    .initialMaxStreamDataUnidirectional(QuicSettings.UNI_STREAM_DATA)
                    .congestionControlAlgorithm(settings.congestionControl())
                    .hystart(settings.hystart())
                    .localConnectionIdLength(Cids.LENGTH)
                    .connectionIdAddressGenerator(cids)
                    .tokenHandler(new RetryTokens(tokenKeys, settings.forceRetry(), settings.retryThreshold(), counters))
                    .resetTokenGenerator(new ResetTokens(secrets))
                    .option(ChannelOption.ALLOCATOR, allocator)
                    .option(QuicChannelOption.QLOG, QLOG_DIR == null ? null : new QLogConfiguration(QLOG_DIR, "sluice", frontend))
                    .streamOption(ChannelOption.ALLOCATOR, allocator)
                    .handler(new ChannelInitializer<QuicChannel>() {
                        @Override
                        protected void initChannel(QuicChannel ch) {
                            ch.pipeline().addLast("quic-conn", new ConnectionTracker(socket));
                            ch.pipeline().addLast("app", application);
                        }
                    })
                    .build();
            channel.pipeline().addLast("quic-closing", closing);
            channel.pipeline().addLast("quic-codec", codec);
            sockets.add(socket);
        }

        /** The index the dispatcher gave this socket: what its own generator (built just before) carries. */
        private int socketIndexOf(Channel channel, QuicConnectionIdGenerator g) {
            return g instanceof CidGenerator c ? c.socketIndex() : 0;
        }
    }
}
