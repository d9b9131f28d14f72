package dev.sluice.proxy.rules;

import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;

/**
 * A stream's three stick counters ({@code track-sc0..2}): the entries it tracks, each counted as one
 * tracker (so it cannot expire or be evicted) until the stream ends. Used on the stream's loop only.
 */
public final class Trackers {
    public static final int SLOTS = 3;
    private final StickEntry[] entries = new StickEntry[SLOTS];
    /** The connection's trackers ({@code tcp-request connection}) under a stream's, or null. */
    private final Trackers session;
    private final boolean isSession;
    private boolean ended;
    private boolean requestCounted;

    /** A stream's trackers (released at the end of the stream), above its connection's when it has some. */
    public Trackers(Trackers session) {
        this.session = session;
        this.isSession = false;
    }

    private Trackers() {
        this.session = null;
        this.isSession = true;
    }

    /** A connection's trackers, released by {@link #endSession} when it closes. */
    public static Trackers forSession() {
        return new Trackers();
    }

    /** The entry of a slot: the stream's own, else its connection's. */
    public StickEntry get(int slot) {
        StickEntry e = entries[slot];
        return e != null || session == null ? e : session.get(slot);
    }

    public boolean isEmpty() {
        for (StickEntry e : entries) {
            if (e != null) {
                return false;
            }
        }
        return true;
    }

    /**
     * The request is counted (HAProxy does it once the tcp-request content rules have passed): every entry
     * tracked so far, the connection's and the stream's, counts it, and entries tracked later (by
     * http-request rules) are credited with it when they attach.
     */
    public void startRequest() {
        requestCounted = true;
        if (session != null) {
            for (StickEntry e : session.entries) {
                if (e != null) {
                    e.onHttpRequest();
                    e.table().touch(e);
                }
            }
        }
        for (StickEntry e : entries) {
            if (e != null) {
                e.onHttpRequest();
                e.table().touch(e);
            }
        }
    }

    /**
     * The connection became a session (it passed its {@code tcp-request connection} rules and, on a TLS
     * bind, its handshake): {@code sess_cnt} and {@code sess_rate} count it on the connection's trackers.
     * As in HAProxy, trackers set later by {@code tcp-request content} or {@code http-request} rules never
     * count sessions. Null-safe, so callers pass the channel's trackers as they find them.
     */
    public static void sessionStarted(Trackers session) {
        if (session == null || session.ended) {
            return;
        }
        for (StickEntry e : session.entries) {
            if (e != null) {
                e.onSession();
                e.table().touch(e);
            }
        }
    }

    /**
     * {@code track-scN}: the first tracker of a slot wins. Attaching credits the entry with a connection,
     * and with the current request once it is counted, as HAProxy does; a full table tracks nothing.
     */
    public void track(int slot, StickTable table, StickKey key) {
        if (ended || get(slot) != null || key == null) {
            return;
        }
        StickEntry e = table.track(key);
        if (e == null) {
            return;
        }
        e.onTrackStart();
        if (requestCounted && !isSession) {
            e.onHttpRequest();
        }
        table.touch(e);
        entries[slot] = e;
    }

    /**
     * The stream ended with {@code status} ({@code 0} when no response was sent) after moving
     * {@code bytesIn} from and {@code bytesOut} to the client; {@code local} when the proxy answered by
     * itself with {@code return} or {@code redirect}. Counts errors (4xx from the server or a deny, and
     * requests that got no answer) and failures (5xx except 501 and 505, not local), as HAProxy does,
     * then releases every entry.
     */
    public void end(int status, boolean local, long bytesIn, long bytesOut) {
        ended = true;
        for (int i = 0; i < SLOTS; i++) {
            StickEntry e = entries[i];
            if (e != null) {
                entries[i] = null;
                count(e, status, local, bytesIn, bytesOut);
                release(e);
            }
        }
        if (session != null) {
            for (StickEntry e : session.entries) {
                if (e != null) {
                    count(e, status, local, bytesIn, bytesOut);
                    e.table().touch(e);
                }
            }
        }
    }


    /** The connection closed: its trackers go. */
    public void endSession() {
        ended = true;
        for (int i = 0; i < SLOTS; i++) {
            StickEntry e = entries[i];
            if (e != null) {
                entries[i] = null;
                release(e);
            }
        }
    }

    private static void count(StickEntry e, int status, boolean local, long bytesIn, long bytesOut) {
        if (!local && (status >= 400 && status < 500 || status == 0)) {
            e.onHttpError();
        } else if (!local && status >= 500 && status != 501 && status != 505) {
            e.onHttpFailure();
        }
        e.onBytesIn(bytesIn);
        e.onBytesOut(bytesOut);
    }

    private static void release(StickEntry e) {
        e.onTrackEnd();
        StickTable t = e.table();
        t.touch(e);
        t.untrack(e);
    }
}
