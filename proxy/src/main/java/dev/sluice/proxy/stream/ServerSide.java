package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import io.netty.buffer.ByteBuf;

/**
 * The server half of a stream: a connection to a server carrying this stream's request (what the backend's
 * pools keep of it is {@link ServerConnection}). Implemented per server protocol. A server connection serves one
 * stream at a time; between streams it waits in its event loop's idle pool. All calls happen on the connection's event loop, which is the stream's.
 */
public interface ServerSide extends ServerConnection {
    /** Binds the connection to a stream; its responses go there until {@link #release()}. */
    void attach(Stream stream);

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
}
