package dev.sluice.proxy.backend;

/**
 * How a backend hands the free slots of a server to the requests waiting for it: its own queue and the backend's, in
 * arrival order (HAProxy's process_srv_queue). Stateless; {@link Backend} calls it.
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
            long mine = own.headTicket();
            long shared = queue.isEmpty() ? Long.MAX_VALUE : queue.headTicket();
            if (shared != Long.MAX_VALUE && !servesBackendQueue(b, s)) {
                shared = Long.MAX_VALUE;
            }
            if (mine == Long.MAX_VALUE && shared == Long.MAX_VALUE) {
                return granted;
            }
            if (!s.take(load)) {
                // every slot is held: each holder drains when it gives its slot back
                return granted;
            }
            WaitQueue first = mine <= shared ? own : queue;
            QueuedRequest r = first.claim();
            if (r == null) {
                WaitQueue other = first == own ? (shared != Long.MAX_VALUE ? queue : null) : own;
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
