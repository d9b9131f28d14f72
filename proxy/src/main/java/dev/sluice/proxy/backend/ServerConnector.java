package dev.sluice.proxy.backend;

import dev.sluice.proxy.http.ServerSide;
import dev.sluice.proxy.runtime.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * Gives a stream a connection to a server: an idle one from the stream's own event loop pool when there
 * is one (most recently used first), else a new one opened on that same loop. No lock, no thread hop.
 */
public final class ServerConnector {

    /** Creates the protocol handler of a new server connection; the handler is also its {@link ServerSide}. */
    public interface HandlerFactory {
        ChannelHandler create(Server server, int loopIndex);
    }

    /** Where the outcome of {@link #acquire} goes; called on the stream's loop. */
    public interface Callback {
        void connected(ServerSide connection);

        void failed(Throwable cause);
    }

    private final Transport transport;
    private final HandlerFactory factory;

    public ServerConnector(Transport transport, HandlerFactory factory) {
        this.transport = transport;
        this.factory = factory;
    }

    /**
     * Acquires a connection to {@code server} for a stream running on {@code loop}. {@code reuse} false
     * skips the idle pool (after a reused connection failed). {@code clientLocal} gives the port for a
     * server declared without one.
     */
    public void acquire(Server server, EventLoop loop, int loopIndex, InetSocketAddress clientLocal, long connectTimeoutMs,
            boolean reuse, Callback cb) {
        if (server.multiplexed()) {
            if (reuse) {
                for (MultiplexedConnection c : server.mux(loopIndex)) {
                    if (c.offer(cb)) {
                        return;
                    }
                }
            }
            ChannelHandler handler = connect(server, loop, loopIndex, clientLocal, connectTimeoutMs, null);
            MultiplexedConnection c = (MultiplexedConnection) handler;
            server.mux(loopIndex).add(c);
            c.offer(cb);
            return;
        }
        if (reuse) {
            ArrayDeque<ServerSide> idle = server.idle(loopIndex);
            ServerSide c;
            while ((c = idle.pollLast()) != null) {
                if (c.isOpen()) {
                    cb.connected(c);
                    return;
                }
            }
        }
        connect(server, loop, loopIndex, clientLocal, connectTimeoutMs, cb);
    }

    /**
     * Opens a connection on {@code loop}. With a callback, the handler (a {@link ServerSide}) is given to
     * it once connected; without, the handler (a multiplexed connection) learns the outcome itself.
     */
    private ChannelHandler connect(Server server, EventLoop loop, int loopIndex, InetSocketAddress clientLocal, long connectTimeoutMs,
            Callback cb) {
        InetSocketAddress addr = server.address();
        if (addr.getPort() == 0) {
            addr = new InetSocketAddress(addr.getAddress(), clientLocal.getPort());
        }
        ChannelHandler handler = factory.create(server, loopIndex);
        Bootstrap b = new Bootstrap()
                .group(loop)
                .channelFactory(transport::newSocketChannel)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, transport.allocator())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeoutMs > 0 ? connectTimeoutMs : 30_000))
                .handler(handler);
        // every new connection attempt counts in connect, for the server and its backend
        server.counters().add(dev.sluice.proxy.stats.Counter.CONNECTS);
        server.backend().counters().add(dev.sluice.proxy.stats.Counter.CONNECTS);
        ChannelFuture f = b.connect(addr);
        if (cb != null) {
            f.addListener(x -> {
                if (x.isSuccess()) {
                    cb.connected((ServerSide) handler);
                } else {
                    cb.failed(x.cause());
                }
            });
        } else {
            f.addListener(x -> {
                if (!x.isSuccess()) {
                    ((MultiplexedConnection) handler).connectFailed(x.cause());
                }
            });
        }
        return handler;
    }

    /** Forgets a multiplexed connection that closed. */
    public static void remove(Server server, int loopIndex, MultiplexedConnection c) {
        server.mux(loopIndex).remove(c);
    }

    /** Puts a connection that may carry another request back in its loop's idle pool. */
    public static void park(Server server, int loopIndex, ServerSide connection) {
        server.idle(loopIndex).offerLast(connection);
    }

    /** Removes a connection from its idle pool (it closed or timed out there). */
    public static void unpark(Server server, int loopIndex, ServerSide connection) {
        server.idle(loopIndex).remove(connection);
    }
}
