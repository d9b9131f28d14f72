package dev.sluice.proxy.backend;

import dev.sluice.proxy.rules.Txn;
import java.util.concurrent.atomic.AtomicLong;

/**
 * HAProxy's server map ({@code lb_map.c}): {@code balance static-rr} walks it, and map-based hashing
 * picks {@code map[hash % total weight]}. The map has one entry per unit of effective weight (the user
 * weights divided by their gcd over all servers) of the servers in use, ordered as HAProxy's
 * {@code recalc_server_map} orders them: at each slot every server adds its weight to its score and the
 * highest {@code (score + total) / total} wins (the first declared on a tie), losing {@code total}. So
 * 4 equal servers give s1 s2 s3 s4 and 3:1 gives s1 s1 s1 s2. When no active server is usable the
 * backups are used, and without {@code option allbackups} the total is the first backup's weight, as
 * in HAProxy. Immutable snapshot, replaced on {@link #rebuild}; lock-free reads.
 */
public final class ServerMap implements LbAlgorithm, HashBalance.Table {
    private final Server[] servers;
    private final boolean allBackups;
    private volatile Server[] map;
    private final AtomicLong next = new AtomicLong();

    public ServerMap(Server[] servers, boolean allBackups) {
        this.servers = servers;
        this.allBackups = allBackups;
        rebuild();
    }

    @Override
    public synchronized void rebuild() {
        map = build(servers, allBackups);
    }

    /** The map of HAProxy's {@code init_server_map} and {@code recalc_server_map}. */
    static Server[] build(Server[] servers, boolean allBackups) {
        // effective weights: user weights divided by the gcd of all the non-zero ones (wmult)
        int g = 0;
        for (Server s : servers) {
            if (s.weight() > 0) {
                g = RoundRobin.gcd(g, s.weight());
            }
        }
        int[] eweight = new int[servers.length];
        boolean active = false;
        Server firstBackup = null;
        long totActive = 0;
        long totBackup = 0;
        for (int i = 0; i < servers.length; i++) {
            Server s = servers[i];
            eweight[i] = g == 0 ? 0 : s.weight() / g;
            if (!s.usable()) {
                continue;
            }
            if (s.backup()) {
                if (firstBackup == null && !allBackups) {
                    firstBackup = s;
                }
                totBackup += eweight[i];
            } else {
                active = true;
                totActive += eweight[i];
            }
        }
        long tot = active ? totActive : firstBackup != null ? eweight[firstBackup.index()] : totBackup;
        if (tot == 0) {
            return new Server[0];
        }
        int total = (int) tot;
        Server[] out = new Server[total];
        int[] score = new int[servers.length];
        for (int o = 0; o < total; o++) {
            int max = 0;
            int best = -1;
            for (int i = 0; i < servers.length; i++) {
                Server s = servers[i];
                if (s.backup() == active || !s.usable()) {
                    continue;
                }
                if (total == 1) {
                    best = i;
                    break;
                }
                score[i] += eweight[i];
                int v = (score[i] + total) / total;
                if (best < 0 || v > max) {
                    max = v;
                    best = i;
                }
            }
            out[o] = servers[best];
            score[best] -= total;
        }
        return out;
    }

    /** The map, for tests. */
    Server[] map() {
        return map;
    }

    /** {@code balance static-rr}. */
    @Override
    public Server pick(Txn txn) {
        return takeNext();
    }

    @Override
    public Server lookup(int hash) {
        Server[] m = map;
        return m.length == 0 ? null : m[(int) Long.remainderUnsigned(hash & 0xffff_ffffL, m.length)];
    }

    /** The next entry of the map that can take a request, its slot taken (HAProxy's map_get_server_rr). */
    @Override
    public Server takeNext() {
        Server[] m = map;
        int n = m.length;
        if (n == 0) {
            return null;
        }
        // a server that cannot take the request loses its turn, as in HAProxy
        for (int k = 0; k < n; k++) {
            Server s = m[(int) Math.floorMod(next.getAndIncrement(), (long) n)];
            if (s.usable() && s.tryTake()) {
                return s;
            }
        }
        return null;
    }
}
