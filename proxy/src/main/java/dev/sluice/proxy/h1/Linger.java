package dev.sluice.proxy.h1;

import dev.sluice.config.model.Timeouts;
import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;

/**
 * The two decisions of a lingering close ({@link H1ClientConnection} after an answer sent while the client may still
 * be sending): how the output is shut (TLS close_notify first, then the TCP FIN) and for how long input is drained.
 * Stateless; called on the connection's event loop.
 */
final class Linger {

    private Linger() {
    }

    /**
     * How long to wait for the client's FIN: {@code timeout client-fin}, else {@code timeout client} (the timeouts
     * HAProxy applies to a half-closed client connection), never more than {@code cap}.
     */
    static long millis(Timeouts t, long cap) {
        long fin = t.clientFin() != Timeouts.UNSET ? t.clientFin() : t.client();
        return fin > 0 ? Math.min(fin, cap) : cap;
    }

    /**
     * Shuts the output after what was written: a TLS connection sends its close_notify first; a channel that
     * cannot half-close is closed.
     */
    static void shutdownOutput(Channel ch) {
        if (!(ch instanceof DuplexChannel d)) {
            ch.close();
            return;
        }
        SslHandler ssl = ch.pipeline().get(SslHandler.class);
        if (ssl == null) {
            d.shutdownOutput();
            return;
        }
        ssl.closeOutbound().addListener(f -> {
            if (ch.isActive()) {
                d.shutdownOutput();
            }
        });
    }
}
