package dev.sluice.proxy.listener;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.ListenAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The sockets received from the old process ({@code -x}) that no listener has taken yet. Each TCP {@code bind} takes
 * the first one it {@link ReceivedSocket#matches matches} ({@link #take}); once every listener started, the rest are
 * closed ({@link #closeUnused}), as HAProxy drops the old sockets its new configuration does not use. QUIC binds
 * take none: their sockets stay the old process's while its QUIC connections finish (see docs/design.md). Used by the
 * main thread at start-up only.
 */
public final class ReceivedSockets {
    private final List<ReceivedSocket> left;

    public ReceivedSockets(List<ReceivedSocket> sockets) {
        this.left = new ArrayList<>(sockets);
    }

    /** Every socket not taken yet. */
    public List<ReceivedSocket> left() {
        return List.copyOf(left);
    }

    /** The descriptor of the received socket {@code bind} would have bound, now the caller's; -1 when there is none. */
    public int take(Bind bind) {
        if (bind.address() instanceof ListenAddress.Unix || bind.address() instanceof ListenAddress.Abstract) {
            for (Iterator<ReceivedSocket> it = left.iterator(); it.hasNext(); ) {
                ReceivedSocket r = it.next();
                if (r.matchesUnix(bind.address())) {
                    it.remove();
                    return r.fd();
                }
            }
            return -1;
        }
        if (!(bind.address() instanceof ListenAddress.Inet inet)) {
            return -1;
        }
        for (Iterator<ReceivedSocket> it = left.iterator(); it.hasNext(); ) {
            ReceivedSocket r = it.next();
            if (r.matches(inet, bind.socket())) {
                it.remove();
                return r.fd();
            }
        }
        return -1;
    }

    /** Closes the sockets no listener took; returns them (closed). */
    public List<ReceivedSocket> closeUnused() {
        List<ReceivedSocket> closed = new ArrayList<>(left);
        for (ReceivedSocket r : closed) {
            PassingCalls.close(r.fd());
        }
        left.clear();
        return closed;
    }
}
