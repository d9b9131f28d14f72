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
    private boolean ended;

    public StickEntry get(int slot) {
        return entries[slot];
    }

    /**
     * {@code track-scN}: the first tracker of a slot wins. Attaching credits the entry with a connection
     * and the current request, as HAProxy does; a full table tracks nothing.
     */
    public void track(int slot, StickTable table, StickKey key) {
        if (ended || entries[slot] != null || key == null) {
            return;
        }
        StickEntry e = table.track(key);
        if (e == null) {
            return;
        }
        e.onTrackStart();
        e.onHttpRequest();
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
            if (e == null) {
                continue;
            }
            entries[i] = null;
            if (!local && (status >= 400 && status < 500 || status == 0)) {
                e.onHttpError();
            } else if (!local && status >= 500 && status != 501 && status != 505) {
                e.onHttpFailure();
            }
            e.onBytesIn(bytesIn);
            e.onBytesOut(bytesOut);
            e.onTrackEnd();
            StickTable t = e.table();
            t.touch(e);
            t.untrack(e);
        }
    }
}
