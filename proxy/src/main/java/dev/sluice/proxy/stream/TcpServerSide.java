package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.ServerConnection;

/**
 * The server connection of a layer-4 stream ({@link TcpStream}): never pooled nor shared, it carries one stream and
 * {@link #release()} closes it. What it reads and hears goes to the stream it is attached to. All calls happen on the
 * connection's event loop, which is the stream's.
 */
public interface TcpServerSide extends ServerConnection, TcpPeer {
    /** Binds the connection to {@code stream}: its bytes and events go there from now on. */
    void attach(TcpStream stream);
}
