package dev.sluice.proxy.backend;



/**
 * A server's DOWN history: the time spent DOWN (HAProxy's {@code downtime}) and how many times it went from UP to
 * DOWN ({@code chkdown}). Under its own lock: the state changes on a check's event loop or the admin path, the
 * statistics read it from anywhere.
 */
final class DownHistory {
    /** Epoch milliseconds of the last UP to DOWN change while DOWN, -1 while UP. */
    private long downSince = -1;
    private long downtime;
    private long downTransitions;

    /** A history that starts DOWN at {@code now} ({@code init-state down}) or UP. */
    DownHistory(boolean down, long now) {
        if (down) {
            downSince = now;
        }
    }

    /** The server went from UP to DOWN at {@code now}. */
    synchronized void wentDown(long now) {
        downSince = now;
        downTransitions++;
    }

    /** The server is UP again at {@code now} (the time DOWN adds up). */
    synchronized void wentUp(long now) {
        if (downSince >= 0) {
            downtime += now - downSince;
            downSince = -1;
        }
    }

    /** Milliseconds spent DOWN so far. */
    synchronized long downtime() {
        return downtime + (downSince >= 0 ? System.currentTimeMillis() - downSince : 0);
    }

    /** How many times the server went from UP to DOWN. */
    synchronized long downTransitions() {
        return downTransitions;
    }
}
