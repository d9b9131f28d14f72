package dev.sluice.proxy.backend;

import java.util.Arrays;
import java.util.Comparator;
import java.util.TreeSet;

/**
 * The order in which HAProxy's weighted round robin ({@code lb_fwrr.c}) serves a group of servers with
 * fixed weights, computed once by replaying its algorithm: servers wait in a "current" tree keyed by
 * their next position ({@code npos}, advancing by {@code total / weight} with the remainder carried),
 * a heavier server first on equal positions, and join from an "init" tree sorted by weight when a hole
 * appears. With fixed weights the picks repeat with a period of {@code total / gcd} after at most a
 * couple of picks, so the replay yields a short prefix and a cycle; e.g. 5:1:1 gives s1 s1 s1 s2 s1 s1
 * s3 and 2:2:1 gives s1 s2 s1 s2 s3 (checked against HAProxy 2.6 request by request). Build-time only.
 */
final class FwrrSchedule {
    /** HAProxy's BE_WEIGHT_SCALE, SRV_UWGHT_RANGE and SRV_EWGHT_MAX. */
    private static final int SCALE = 16;
    private static final int UWEIGHT_RANGE = 256;
    private static final int EWEIGHT_MAX = 256 * SCALE;

    /** The picks before the cycle starts, and the cycle; both as indexes into the weights. */
    record Schedule(int[] prefix, int[] cycle) {
    }

    private final int[] eweight;
    private final long[] npos;
    private final long[] rweight;
    private final long[] key;
    private final long[] seq;
    private long inserted;
    private final Comparator<Integer> order;
    private TreeSet<Integer> init;
    private TreeSet<Integer> next;
    private final TreeSet<Integer> curr;
    private long currPos;
    private long currWeight;
    private final long nextWeight;

    /** {@code eweights}: HAProxy's effective weights, user weights times {@link #SCALE} (less during a slow start). */
    private FwrrSchedule(int[] eweights) {
        int n = eweights.length;
        eweight = new int[n];
        npos = new long[n];
        rweight = new long[n];
        key = new long[n];
        seq = new long[n];
        order = Comparator.<Integer>comparingLong(i -> key[i]).thenComparingLong(i -> seq[i]);
        init = new TreeSet<>(order);
        next = new TreeSet<>(order);
        curr = new TreeSet<>(order);
        long total = 0;
        for (int i = 0; i < n; i++) {
            eweight[i] = eweights[i];
            total += eweight[i];
        }
        currPos = total;
        currWeight = total;
        nextWeight = total;
        for (int i = 0; i < n; i++) {
            if (eweight[i] > 0) {
                insert(init, i, EWEIGHT_MAX - eweight[i]);
            }
        }
    }

    /** HAProxy's order for servers of these weights (0 = left out); empty when every weight is 0. */
    static Schedule of(int[] weights) {
        int[] e = new int[weights.length];
        for (int i = 0; i < e.length; i++) {
            e[i] = weights[i] * SCALE;
        }
        return ofEffective(e);
    }

    /** The order for these effective weights ({@link Server#eweight}: user weight times 16, less while warming up). */
    static Schedule ofEffective(int[] eweights) {
        int g = 0;
        long total = 0;
        for (int w : eweights) {
            if (w > 0) {
                g = RoundRobin.gcd(g, w);
                total += w;
            }
        }
        if (total == 0) {
            return new Schedule(new int[0], new int[0]);
        }
        if ((long) g * positive(eweights) == total) {
            // equal weights: declaration order from the first pick (what the replay gives, see FwrrScheduleTest), in
            // O(n) where the replay takes three periods of tree operations (1,000 servers: milliseconds per reload)
            int[] cycle = new int[(int) (total / g)];
            for (int i = 0, k = 0; i < eweights.length; i++) {
                if (eweights[i] > 0) {
                    cycle[k++] = i;
                }
            }
            return new Schedule(new int[0], cycle);
        }
        return replay(eweights, (int) (total / g));
    }

    private static int positive(int[] eweights) {
        int n = 0;
        for (int w : eweights) {
            if (w > 0) {
                n++;
            }
        }
        return n;
    }

    /** Replays HAProxy's algorithm for {@code len} (the period: total weight over the weights' gcd) picks and more. */
    static Schedule replay(int[] eweights, int len) {
        FwrrSchedule f = new FwrrSchedule(eweights);
        // replay enough picks to see where the period starts (observed: within the first few picks)
        int[] picks = new int[3 * len + 8];
        for (int i = 0; i < picks.length; i++) {
            picks[i] = f.pick();
        }
        int start = 0;
        while (!periodicFrom(picks, start, len)) {
            start++;
        }
        return new Schedule(Arrays.copyOfRange(picks, 0, start), Arrays.copyOfRange(picks, start, start + len));
    }

    private static boolean periodicFrom(int[] picks, int start, int len) {
        if (start + 2 * len > picks.length) {
            throw new IllegalStateException("no period of " + len + " in the replay");
        }
        for (int i = start; i + len < picks.length; i++) {
            if (picks[i] != picks[i + len]) {
                return false;
            }
        }
        return true;
    }

    private void insert(TreeSet<Integer> tree, int s, long k) {
        key[s] = k;
        seq[s] = ++inserted;
        tree.add(s);
    }

    /** fwrr_get_next_server for servers that are never saturated. */
    private int pick() {
        boolean switched = false;
        Integer srv;
        while (true) {
            srv = fromGroup();
            if (srv != null) {
                break;
            }
            if (switched) {
                throw new IllegalStateException("empty round robin group");
            }
            switched = true;
            TreeSet<Integer> swap = init;
            init = next;
            next = swap;
            currWeight = nextWeight;
            currPos = currWeight;
        }
        int s = srv;
        updatePosition(s);
        curr.remove(s);
        init.remove(s);
        currPos++;
        queue(s);
        return s;
    }

    /** fwrr_get_server_from_group. */
    private Integer fromGroup() {
        Integer s1 = curr.isEmpty() ? null : curr.first();
        if (s1 != null && npos[s1] <= currPos) {
            return s1;
        }
        if (!init.isEmpty()) {
            int s2 = init.first();
            npos[s2] = 0;
            rweight[s2] = 0;
            return s2;
        }
        return s1;
    }

    /** fwrr_update_position. */
    private void updatePosition(int s) {
        if (npos[s] == 0) {
            npos[s] = currPos;
        }
        npos[s] += nextWeight / eweight[s];
        rweight[s] += nextWeight % eweight[s];
        if (rweight[s] >= eweight[s]) {
            rweight[s] -= eweight[s];
            npos[s]++;
        }
    }

    /** fwrr_queue_srv. */
    private void queue(int s) {
        if (npos[s] >= 2 * currWeight || npos[s] >= currWeight + nextWeight) {
            npos[s] -= currWeight;
            insert(next, s, EWEIGHT_MAX - eweight[s]);
        } else {
            insert(curr, s, UWEIGHT_RANGE * npos[s] + (EWEIGHT_MAX + rweight[s] - eweight[s]) / SCALE);
        }
    }
}
