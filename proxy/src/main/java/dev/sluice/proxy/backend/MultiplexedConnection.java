package dev.sluice.proxy.backend;

import io.netty.util.concurrent.Future;
import java.util.List;

/**
 * A server connection that carries several streams at once (HTTP/2). Streams are handed out through
 * {@link #offer}; a connection still being established queues the requests and serves them once ready.
 * Lives in its event loop's list for its server; used only on that loop.
 * <p>
 * {@code http-reuse} (see {@link ServerConnector}): a connection may be private to one client connection
 * ({@link #owner}, under {@code never}), or, while it carries streams, reserved for the client connection those
 * streams belong to ({@link #reservedBy}, what {@code safe} respects).
 */
public interface MultiplexedConnection {
    /**
     * Gives {@code cb} a new stream now or once the connection is ready, for client connection {@code session};
     * returns false when this connection cannot take one (closing, or at its concurrent-stream limit counting the
     * queued ones). A connection that had no stream becomes reserved for {@code session}.
     */
    boolean offer(ServerConnector.Callback cb, Object session);

    /** The connection could not be established: fail what was queued. */
    void connectFailed(Throwable cause);

    /** The TLS server name the connection was opened with (null: none); it only carries requests for that name. */
    String sni();

    /**
     * The TLS handshake chose HTTP/1.1 instead: forget this connection and return the requests queued on
     * it, for the caller to place elsewhere.
     */
    List<ServerConnector.Callback> abandon();

    /** The client connection this one is private to ({@code http-reuse never}), or null. */
    Object owner();

    /** Makes the connection private to {@code session}; it closes when that client connection does. */
    void owner(Object session, Future<?> sessionEnd);

    /** The client connection whose streams it carries now, or null when it carries none. */
    Object reservedBy();

    /** Carries no stream and has none queued: an idle connection, which the pool purge may close. */
    boolean isIdle();

    /** As {@link ServerConnection#moveTo}: an idle connection goes on as one of {@code successor}'s. On its loop. */
    default boolean moveTo(Server successor) {
        return false;
    }

    /** The server address it is connected to (null when unknown). */
    default java.net.SocketAddress remoteAddress() {
        return null;
    }

    /** Closes the connection (idle: it has no stream to lose). */
    void close();
}
