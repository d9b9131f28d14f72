package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Hashes;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * HAProxy's consistent hashing ring ({@code lb_chash.c}, {@code hash-type consistent}, and the ring that
 * {@code balance random} draws from). Each usable server of the group in use has {@code weight * 16}
 * points, point {@code n} of the server with id {@code id} at {@code full_hash(id * 4096 + n)}. A hash
 * goes to the closer of the first point at or after it and the point before that (the earlier one when
 * both are as far), wrapping around the ring. When no active server is usable and {@code option
 * allbackups} is off, the first usable backup takes everything, as in HAProxy. The ring is an immutable
 * sorted array replaced on {@link #rebuild}; lookups are a binary search without a lock.
 */
public final class ConsistentRing implements HashBalance.Table {
    /** HAProxy's BE_WEIGHT_SCALE: points per unit of weight. */
    static final int WEIGHT_SCALE = 16;
    /** HAProxy's SRV_EWGHT_RANGE: the key space each server id reserves. */
    static final int ID_RANGE = 256 * WEIGHT_SCALE;

    /** Points sorted by unsigned key; {@code fixed} is the one server used instead, or null. */
    private record Ring(int[] keys, Server[] owners, Server fixed) {
    }

    private final Server[] servers;
    private final boolean allBackups;
    private volatile Ring ring;
    private final AtomicLong next = new AtomicLong();

    public ConsistentRing(Server[] servers, boolean allBackups) {
        this.servers = servers;
        this.allBackups = allBackups;
        rebuild();
    }

    @Override
    public synchronized void rebuild() {
        Server[] group = LbAlgorithm.eligible(servers, allBackups);
        boolean onlyFirstBackup = group.length == 1 && group[0].backup() && !allBackups;
        if (onlyFirstBackup) {
            ring = new Ring(new int[0], new Server[0], group[0]);
            return;
        }
        int count = 0;
        for (Server s : group) {
            count += s.eweight();
        }
        // key in the high half, insertion order in the low half: a stable sort, as the tree keeps duplicates in order;
        // the sign bit is flipped so that the signed sort orders the keys as unsigned numbers
        long[] points = new long[count];
        Server[] byOrder = new Server[count];
        int k = 0;
        for (Server s : group) {
            // HAProxy's lb_nodes_now: the first eweight points of the server (all of them once warmed up)
            int n = s.eweight();
            for (int node = 0; node < n; node++) {
                int key = Hashes.fullAvalanche(s.id() * ID_RANGE + node);
                points[k] = ((key & 0xffff_ffffL) << 32 | k) ^ Long.MIN_VALUE;
                byOrder[k] = s;
                k++;
            }
        }
        Arrays.sort(points);
        int[] keys = new int[count];
        Server[] owners = new Server[count];
        for (int i = 0; i < count; i++) {
            long p = points[i] ^ Long.MIN_VALUE;
            keys[i] = (int) (p >>> 32);
            owners[i] = byOrder[(int) p];
        }
        ring = new Ring(keys, owners, null);
    }

    /** HAProxy's chash_get_server_hash. */
    @Override
    public Server lookup(int hash) {
        return lookup(hash, null);
    }

    /**
     * HAProxy's chash_get_server_hash with a server to avoid: from the closest point on, the first point of another
     * server (going round the ring once; {@code avoid} itself when it is alone). The fixed backup is kept whatever.
     */
    Server lookup(int hash, Server avoid) {
        Ring r = ring;
        if (r.fixed != null) {
            return r.fixed;
        }
        int[] keys = r.keys;
        int n = keys.length;
        if (n == 0) {
            return null;
        }
        int next = firstAtOrAfter(keys, hash);
        if (next == n) {
            next = 0;
        }
        int prev = next == 0 ? n - 1 : next - 1;
        int dp = hash - keys[prev];
        int dn = keys[next] - hash;
        int at = Integer.compareUnsigned(dp, dn) <= 0 ? prev : next;
        Server s = r.owners[at];
        for (int k = 1; s == avoid && k < n; k++) {
            s = r.owners[(at + k) % n];
        }
        return s;
    }

    private static int firstAtOrAfter(int[] keys, int hash) {
        int lo = 0;
        int hi = keys.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Integer.compareUnsigned(keys[mid], hash) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The next point's server that can take a request, its slot taken (HAProxy's chash_get_next_server). */
    @Override
    public Server takeNext() {
        Ring r = ring;
        if (r.fixed != null) {
            return r.fixed.tryTake() ? r.fixed : null;
        }
        int n = r.owners.length;
        if (n == 0) {
            return null;
        }
        // a server that cannot take the request loses its turn, as in HAProxy
        for (int k = 0; k < n; k++) {
            Server s = r.owners[(int) Math.floorMod(next.getAndIncrement(), (long) n)];
            if (s.usable() && s.tryTake()) {
                return s;
            }
        }
        return null;
    }

    /** The number of points on the ring, for tests. */
    int points() {
        return ring.keys.length;
    }
}
