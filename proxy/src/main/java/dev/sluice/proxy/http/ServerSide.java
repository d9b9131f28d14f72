package dev.sluice.proxy.http;

import io.netty.buffer.ByteBuf;

/**
 * The server half of a stream: a connection to a server carrying this stream's request. Implemented per
 * server protocol. A server connection serves one stream at a time; between streams it waits in its
 * event loop's idle pool. All calls happen on the connection's event loop, which is the stream's.
 */
public interface ServerSide {
    /** Binds the connection to a stream; its responses go there until {@link #release()}. */
    void attach(Stream stream);

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

    /** The server this connection goes to (null when unknown: a multiplexed stream). */
    default dev.sluice.proxy.backend.Server server() {
        return null;
    }

    /** The client connection {@code session} closed: a connection private to it closes too. */
    default void ownerGone(Object session) {
    }

    void sendHead(RequestHead head);

    /** Takes ownership of {@code data}. */
    void sendBody(ByteBuf data);

    void sendEnd(HttpFields trailers);

    boolean isWritable();

    void flush();

    void pauseResponseBody();

    void resumeResponseBody();

    /** The server switched protocols: from now on raw bytes go both ways through {@link Stream#onTunnelFromServer}. */
    void startTunnel();

    /** Tunnel bytes towards the server; takes ownership. */
    void sendRaw(ByteBuf data);

    /** The exchange is over: back to the idle pool if the connection can carry another request, else closed. */
    void release();

    /** Closes the connection at once (the exchange failed). */
    void abort();
}
