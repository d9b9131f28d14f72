package dev.sluice.proxy.backend;

/**
 * A server connection that carries several streams at once (HTTP/2). Streams are handed out through
 * {@link #offer}; a connection still being established queues the requests and serves them once ready.
 * Lives in its event loop's list for its server; used only on that loop.
 */
public interface MultiplexedConnection {
    /**
     * Gives {@code cb} a new stream now or once the connection is ready; returns false when this
     * connection cannot take one (closing, or at its concurrent-stream limit counting the queued ones).
     */
    boolean offer(ServerConnector.Callback cb);

    /** The connection could not be established: fail what was queued. */
    void connectFailed(Throwable cause);

    /** The TLS server name the connection was opened with (null: none); it only carries requests for that name. */
    String sni();

    /**
     * The TLS handshake chose HTTP/1.1 instead: forget this connection and return the requests queued on
     * it, for the caller to place elsewhere.
     */
    java.util.List<ServerConnector.Callback> abandon();
}
