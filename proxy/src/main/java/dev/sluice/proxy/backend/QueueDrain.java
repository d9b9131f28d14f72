package dev.sluice.proxy.backend;

/**
 * How a backend hands the free slots of a server to the requests waiting for it: its own queue and the backend's, in
 * HAProxy's order (process_srv_queue: priority class, then arrival plus priority offset; arrival order without priorities). Stateless; {@link Backend} calls it.
 */
final class QueueDrain {
    private QueueDrain() {
    }

    /** {@link Backend#drain(Server)}, the dynamic maxconn ({@code minconn}) computed for the given moment ({@link SlotLoad}). */
    static int drain(Backend b, Server s, SlotLoad load) {
        WaitQueue queue = b.queue();
        WaitQueue own = s.queue();
        int granted = 0;
        while (true) {
            QueuedRequest mine = own.head();
            QueuedRequest shared = queue.isEmpty() ? null : queue.head();
            if (shared != null && !servesBackendQueue(b, s)) {
                shared = null;
            }
            if (mine == null && shared == null) {
                return granted;
            }
            if (!s.take(load)) {
                // every slot is held: each holder drains when it gives its slot back
                return granted;
            }
            WaitQueue first = shared == null || mine != null && QueuedRequest.ORDER.compare(mine, shared) <= 0 ? own : queue;
            QueuedRequest r = first.claim();
            if (r == null) {
                WaitQueue other = first == own ? (shared != null ? queue : null) : own;
                r = other == null ? null : other.claim();
            }
            if (r == null) {
                s.giveBack();
                continue;
            }
            r.grant(s);
            granted++;
        }
    }

    /**
     * Whether {@code s} takes requests from the backend's queue: usable, and active, or a backup while no
     * active server is usable (the first usable backup, or any with {@code option allbackups}).
     */
    private static boolean servesBackendQueue(Backend b, Server s) {
        if (!s.usable()) {
            return false;
        }
        if (!s.backup()) {
            return true;
        }
        Server firstBackup = null;
        for (Server o : b.serverArray()) {
            if (o.usable()) {
                if (!o.backup()) {
                    return false;
                }
                if (firstBackup == null) {
                    firstBackup = o;
                }
            }
        }
        return b.config().balance().allBackups() || s == firstBackup;
    }
}
