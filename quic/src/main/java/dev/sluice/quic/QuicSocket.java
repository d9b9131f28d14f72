package dev.sluice.quic;

import io.netty.channel.Channel;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One UDP socket of a QUIC bind (one per event loop with SO_REUSEPORT): its index (carried in every CID it
 * issues), its channel, its closing records and its live connections, and how it stops. Owned by its event
 * loop.
 */
final class QuicSocket {
    final QuicListener listener;
    final int index;
    final ClosingConnections closing;
    final Set<ConnectionTracker> live = new LinkedHashSet<>();
    /** The live connections by CID prefix (while stopping, only their long-header packets still reach the codec). */
    final LongObjectHashMap<ConnectionTracker> livePrefixes = new LongObjectHashMap<>();
    Channel channel;
    /** Soft stop: no new connection; the socket closes once no live connection and no closing record remain. */
    boolean stopping;

    QuicSocket(QuicListener listener, int index, ClosingConnections closing) {
        this.listener = listener;
        this.index = index;
        this.closing = closing;
    }

    void added(ConnectionTracker t, boolean ours, long prefix) {
        live.add(t);
        if (ours) {
            livePrefixes.put(prefix, t);
        }
    }

    void removed(ConnectionTracker t, boolean ours, long prefix) {
        live.remove(t);
        if (ours && livePrefixes.get(prefix) == t) {
            livePrefixes.remove(prefix);
        }
        if (stopping && channel != null) {
            // not from inside the codec's close: once it is done (and its closing record kept)
            channel.eventLoop().execute(this::closeIfDrained);
        }
    }

    /**
     * Soft stop, on the socket's loop: new connections are no longer taken (their packets are dropped before the
     * codec), every live connection gets {@code event} (HTTP/3 answers with GOAWAY, finishes its requests and
     * closes), and the socket closes once the last connection and the last closing record are gone.
     */
    void softStop(Object event) {
        if (stopping) {
            return;
        }
        stopping = true;
        closing.stopAccepting(livePrefixes::containsKey, this::closeIfDrained);
        for (ConnectionTracker t : new ArrayList<>(live)) {
            t.channel().pipeline().fireUserEventTriggered(event);
        }
        closeIfDrained();
    }

    /** Hard stop, on the socket's loop: every live connection is closed (its CONNECTION_CLOSE is sent), then the socket. */
    void hardStop() {
        stopping = true;
        for (ConnectionTracker t : new ArrayList<>(live)) {
            t.channel().close();
        }
        if (channel != null) {
            // the connections' CONNECTION_CLOSE datagrams are written by now but may not be flushed: closing the socket in
            // this same task would drop them (a client then waits for its idle timeout); flush, then close in a next task
            Channel ch = channel;
            ch.flush();
            ch.eventLoop().execute(() -> {
                ch.flush();
                ch.close();
            });
        }
    }

    void closeIfDrained() {
        if (stopping && live.isEmpty() && closing.size() == 0 && channel != null && channel.isOpen()) {
            channel.close();
        }
    }
}
