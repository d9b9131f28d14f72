package dev.sluice.quic;

import io.netty.channel.Channel;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One UDP socket of a QUIC bind (one per event loop with SO_REUSEPORT): its index (carried in every CID it
 * issues), its channel, its closing records and its live connections. Owned by its event loop.
 */
final class QuicSocket {
    final QuicListener listener;
    final int index;
    final ClosingConnections closing;
    final Set<ConnectionTracker> live = new LinkedHashSet<>();
    Channel channel;

    QuicSocket(QuicListener listener, int index, ClosingConnections closing) {
        this.listener = listener;
        this.index = index;
        this.closing = closing;
    }
}
