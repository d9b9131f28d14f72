package dev.sluice.proxy.stats;

/**
 * The {@code qtime ctime rtime ttime} of a backend or server: each an average over the last 1024 requests
 * with HAProxy's sliding sum ({@code swrate_add}: {@code sum = sum - sum / 1024 + v}, read as {@code sum / n},
 * {@code n} the number of samples up to 1024, as {@code swrate_avg}), and the maxima ({@code *_max}). Every event loop keeps its
 * own sums (written by that loop only with plain stores: no atomic, no fence, each loop on its own cache
 * lines), so the request path shares nothing; readers may see a value a moment old, as HAProxy's readers do; a read combines the loops' averages weighted by their sample counts, which is the average of
 * the last requests of each loop rather than of the process's last 1024. Values are milliseconds.
 */
public final class TimeStats {
    /** HAProxy's TIME_STATS_SAMPLES. */
    public static final int SAMPLES = 1024;

    /** One loop's sums; padded so that two loops' sums never share a cache line. */
    @SuppressWarnings("unused")
    private static final class Window {
        long p0, p1, p2, p3, p4, p5, p6;
        long count;
        long queue, connect, response, total;
        long queueMax, connectMax, responseMax, totalMax;
        long q0, q1, q2, q3, q4, q5, q6;
    }

    private final Window[] loops;

    public TimeStats(int loopCount) {
        loops = new Window[Math.max(1, loopCount)];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new Window();
        }
    }

    /**
     * Adds one request's timers (the log's Tw, Tc, Tr and Ta, in ms); only on loop {@code loop}. A timer not
     * reached is not recorded, as HAProxy skips requests that never connected or got no response.
     */
    public void record(int loop, long queue, long connect, long response, long total) {
        Window w = loops[loop < loops.length ? loop : 0];
        long n = SAMPLES;
        w.count = w.count + 1;
        w.queue = w.queue - w.queue / n + queue;
        w.connect = w.connect - w.connect / n + connect;
        w.response = w.response - w.response / n + response;
        w.total = w.total - w.total / n + total;
        if (queue > w.queueMax) {
            w.queueMax = queue;
        }
        if (connect > w.connectMax) {
            w.connectMax = connect;
        }
        if (response > w.responseMax) {
            w.responseMax = response;
        }
        if (total > w.totalMax) {
            w.totalMax = total;
        }
    }

    /** {@code clear counters}: the maxima; with {@code all}, the averages too. Admin path (racy by design, as HAProxy's). */
    public void clear(boolean all) {
        for (Window w : loops) {
            w.queueMax = 0;
            w.connectMax = 0;
            w.responseMax = 0;
            w.totalMax = 0;
            if (all) {
                w.count = 0;
                w.queue = 0;
                w.connect = 0;
                w.response = 0;
                w.total = 0;
            }
        }
    }

    /** The averages and maxima now: {queue, connect, response, total, queueMax, connectMax, responseMax, totalMax}. */
    public Snapshot snapshot() {
        long weight = 0;
        double q = 0;
        double c = 0;
        double r = 0;
        double t = 0;
        long qm = 0;
        long cm = 0;
        long rm = 0;
        long tm = 0;
        for (Window w : loops) {
            long n = Math.min(w.count, SAMPLES);
            if (n > 0) {
                // each loop's sum / n is its average; weighted by n, the sums simply add up
                q += w.queue;
                c += w.connect;
                r += w.response;
                t += w.total;
                weight += n;
            }
            qm = Math.max(qm, w.queueMax);
            cm = Math.max(cm, w.connectMax);
            rm = Math.max(rm, w.responseMax);
            tm = Math.max(tm, w.totalMax);
        }
        if (weight == 0) {
            return new Snapshot(0, 0, 0, 0, qm, cm, rm, tm);
        }
        return new Snapshot(Math.round(q / weight), Math.round(c / weight), Math.round(r / weight), Math.round(t / weight), qm, cm, rm, tm);
    }

    /** Averages (ms) over the last requests and maxima (ms). */
    public record Snapshot(long queue, long connect, long response, long total, long queueMax, long connectMax, long responseMax,
            long totalMax) {
    }
}
