package dev.sluice.proxy.backend;

/**
 * HAProxy's estimate of how many connections a server needs ({@code curr_used_conns}, {@code max_used_conns},
 * {@code est_need_conns}), kept per event loop for one server: what decides whether a connection that becomes idle
 * is kept, and how many idle ones each {@code pool-purge-delay} closes. HAProxy keeps it per server; here each loop
 * estimates its own share, so nothing is shared between loops. Loop-confined.
 */
final class ConnUse {
    /** Connections of this loop carrying a request now (HTTP/1: attached to a stream; HTTP/2: with a stream). */
    int used;
    /** The most used at once since the last purge. */
    int maxUsed;
    /** The estimate: at least the peak of the last period, decaying by half each purge when fewer are used. */
    int estNeed;

    void use() {
        used++;
        if (maxUsed < used) {
            maxUsed = used;
        }
        if (estNeed < used) {
            estNeed = used;
        }
    }

    /** A reload handed {@code previous}'s idle connections over: its estimate goes on here (the larger one wins). */
    void inherit(ConnUse previous) {
        estNeed = Math.max(estNeed, previous.estNeed);
        maxUsed = Math.max(maxUsed, previous.maxUsed);
    }

    void unuse() {
        if (used > 0) {
            used--;
        }
    }

    /**
     * Whether a connection now leaving the used ones (still counted in {@link #used}) may wait idle, given
     * {@code idle} idle ones already: the first idle one of the loop always, more while the total stays within
     * the estimate plus {@code low} ({@code pool-low-conn}; HAProxy's {@code srv_add_to_idle_list}).
     */
    boolean keepIdle(int idle, int low) {
        return idle == 0 || used + idle <= Math.max(used, estNeed) + low;
    }

    /**
     * One {@code pool-purge-delay} period with {@code idle} idle connections (none: nothing changes, as in HAProxy):
     * returns how many of them to close, half of the excess over the estimate rounded up, and moves the estimate
     * towards the period's peak.
     */
    int purge(int idle) {
        if (idle == 0) {
            return 0;
        }
        int exceed = used + idle - Math.max(maxUsed, estNeed);
        int kill = exceed / 2 + (exceed & 1);
        estNeed = Math.max((estNeed + maxUsed) / 2, maxUsed);
        maxUsed = used;
        return exceed > 0 ? Math.min(kill, idle) : 0;
    }
}
