package dev.sluice.proxy.backend;

/**
 * A connection to a server as the backend's pools see it: open or not, whom it may serve, how it ends. The
 * request path's side of it (sending a request, receiving a response) is {@code stream.ServerSide}, which
 * every server connection handler implements; the backend only keeps such connections idle between requests
 * and hands them out. All calls happen on the connection's event loop.
 */
public interface ServerConnection {
    boolean isOpen();

    /** The TLS server name the connection was opened with (null: none); it only carries requests for that name. */
    String sni();

    /** Whether the connection was used before (a failure on it may be a stale connection). */
    boolean reused();

    /**
     * The client connection this server connection is private to ({@code http-reuse never}), or null
     * when idle it may serve any client connection.
     */
    default Object owner() {
        return null;
    }

    default void owner(Object session) {
    }

    /** The connection's TLS session (the ssl_bc_* and ssl_s_* fetches), null in clear text. */
    default dev.sluice.proxy.tls.TlsSession tlsSession() {
        return null;
    }

    /** The connection's socket channel (an HTTP/2 stream's is its connection's), or null before it is connected. */
    default io.netty.channel.Channel channel() {
        return null;
    }

    /** The HTTP encoding on the wire (bc_http_major): 2 for HTTP/2, 1 for HTTP/1 and FastCGI, 0 for a TCP relay. */
    default int httpMajor() {
        return 0;
    }

    /** The server this connection goes to (null when unknown: a multiplexed stream). */
    default Server server() {
        return null;
    }

    /**
     * A reload replaced the server by {@code successor}, which goes to the same address with the same settings: an idle
     * connection that may serve any client connection goes on as one of its connections. Whether it did (false: it
     * cannot move, and is closed). On the connection's loop.
     */
    default boolean moveTo(Server successor) {
        return false;
    }

    /** The client connection {@code session} closed: a connection private to it closes too. */
    default void ownerGone(Object session) {
    }

    /** The exchange is over: back to the idle pool if the connection can carry another request, else closed. */
    void release();

    /** Closes the connection at once (the exchange failed). */
    void abort();
}
