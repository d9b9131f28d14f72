package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import io.netty.channel.ChannelHandler;

/**
 * How a layer-4 client connection becomes an HTTP one ({@code tcp-request content switch-mode http}, or HAProxy's
 * implicit upgrade when a {@code mode tcp} frontend chooses a {@code mode http} backend): the handler that takes the
 * connection over, already admitted and counted as a session (an HTTP/1 one, which turns HTTP/2 on a preface). Given to
 * the frontend by the runtime, which knows the HTTP handlers; {@code stream} does not.
 */
@FunctionalInterface
public interface HttpHandoff {
    /**
     * A new HTTP connection handler for a connection of this frontend that was layer-4 so far; {@code chosen}: the
     * backend its first request goes to (the implicit upgrade), or null ({@code switch-mode http}: the HTTP rules choose);
     * {@code proto}: the multiplexer {@code switch-mode http proto} forces ("h1": HTTP/1 even on HTTP/2's preface, "h2"),
     * or null (HTTP/1, upgraded on the preface).
     */
    ChannelHandler connection(Backend chosen, String proto);
}
