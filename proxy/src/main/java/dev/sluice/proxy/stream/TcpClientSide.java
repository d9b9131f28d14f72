package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import io.netty.buffer.ByteBuf;

/**
 * The client connection of a layer-4 stream ({@link TcpStream}): the facts of {@link ClientEnd} (its
 * {@link #requestStartNanos()} is when it was accepted: a layer-4 stream has no request date) and the socket the relay
 * drives. Its {@link #bytesOut()} counts what was written towards the client (the bytes read from the server). All calls
 * happen on {@link #loop()}.
 */
public interface TcpClientSide extends ClientEnd, TcpPeer {
    /**
     * The connection becomes an HTTP one ({@link HttpHandoff}): its stream is gone, the bytes it held ({@code held}, or
     * null; ownership passes) are the HTTP handler's first ones, on the multiplexer {@code proto} names ("h1", "h2"; null:
     * HTTP/1 upgraded to HTTP/2 on its preface).
     */
    void switchToHttp(ByteBuf held, Backend chosen, String proto);
}
