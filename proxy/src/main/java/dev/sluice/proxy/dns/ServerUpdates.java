package dev.sluice.proxy.dns;

import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerEvents;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What an answer does to the servers, as HAProxy 2.6 does it (snr_resolution_cb, resolv_get_ip_from_response,
 * snr_update_srv_status, srvrq_update_srv_status, the SRV part of resolv_check_response): the address each server takes,
 * the maintenance ('MAINT (resolution)') it enters and leaves, the port and weight SRV records give, and HAProxy's log
 * lines for each. Addresses change through {@code moved}, the path of {@code set server ... addr}. On the section's loop.
 */
final class ServerUpdates {
    /** Called after a server's address changed (its idle connections to the old one are closed). */
    private final Consumer<Server> moved;

    ServerUpdates(Consumer<Server> moved) {
        this.moved = moved;
    }

    /**
     * A valid A/AAAA answer for {@code r}'s resolution: the address it takes ({@code updater} names who gave it, as
     * HAProxy: "resolvers/nameserver" for the first requester, "DNS cache" for the others).
     */
    void answered(Requester r, String updater, Nameserver ns, Map<Object, int[]> cursors) {
        Server s = r.server;
        boolean wasMaint = s.unresolved();
        boolean noIp = false;
        if (r.ipRecord == null) {
            Resolution.Record best = r.networks.isEmpty() && !r.options.allowDupIp() ? quickChoice(r, cursors) : choose(r);
            if (best == null) {
                noIp = true;
            } else {
                best.attached.add(r);
                r.ipRecord = best;
                InetSocketAddress cur = s.address();
                if (s.unresolved() || !best.ip.equals(cur.getAddress())) {
                    if (ns != null) {
                        ns.update++;
                    }
                    changeIp(s, best.ip, cur.getPort(), updater);
                }
            }
        }
        validStatus(r, noIp, wasMaint);
    }

    /**
     * {@link #choose} without {@code resolve-net} and duplicates, where the scores leave few candidates: the current
     * address in the preferred family (11, the most there is), else the first record of that family no other server of
     * the backend has (10), else the current address (3), else the first free record of the other family (2). The first
     * free record of a family is found from where the previous server of the backend took one in this pass
     * ({@code cursors}: records before it are all taken), so a pass over n servers and n records is linear, not
     * quadratic.
     */
    static Resolution.Record quickChoice(Requester r, Map<Object, int[]> cursors) {
        Resolution res = r.resolution;
        Server s = r.server;
        int family = r.options.preferIpv6() ? DnsAnswer.AAAA : DnsAnswer.A;
        Resolution.Record cur = s.unresolved() ? null : res.index.get(s.address().getAddress());
        boolean curFree = cur != null && free(cur, r);
        if (curFree && cur.type == family) {
            return cur;
        }
        int[] at = cursors.computeIfAbsent(s.backend(), k -> new int[2]);
        int slot = family == DnsAnswer.A ? 0 : 1;
        Resolution.Record first = firstFree(res, r, family, at, slot);
        if (first != null) {
            return first;
        }
        if (curFree) {
            return cur;
        }
        return firstFree(res, r, family == DnsAnswer.A ? DnsAnswer.AAAA : DnsAnswer.A, at, 1 - slot);
    }

    private static Resolution.Record firstFree(Resolution res, Requester r, int type, int[] at, int slot) {
        List<Resolution.Record> recs = res.records;
        for (int i = at[slot]; i < recs.size(); i++) {
            Resolution.Record rec = recs.get(i);
            if (rec.type != type) {
                if (i == at[slot]) {
                    at[slot]++;
                }
                continue;
            }
            if (free(rec, r)) {
                return rec;
            }
            if (i == at[slot]) {
                at[slot]++;
            }
        }
        return null;
    }

    /** Whether no other server of {@code r}'s backend has the record. */
    private static boolean free(Resolution.Record rec, Requester r) {
        for (Requester o : rec.attached) {
            if (o != r && o.server.backend() == r.server.backend()) {
                return false;
            }
        }
        return true;
    }

    /** HAProxy's choice: the best score (preferred family 8, preferred network 4, unused 2, current 1), first wins ties. */
    static Resolution.Record choose(Requester r) {
        Resolution res = r.resolution;
        Server s = r.server;
        int family = r.options.preferIpv6() ? DnsAnswer.AAAA : DnsAnswer.A;
        InetAddress current = s.unresolved() ? null : s.address().getAddress();
        Resolution.Record best = null;
        int max = -1;
        for (Resolution.Record rec : res.records) {
            if (!(rec.type == DnsAnswer.A || rec.type == DnsAnswer.AAAA)) {
                continue;
            }
            int score = rec.type == family ? 8 : 0;
            for (Network n : r.networks) {
                if (n.contains(rec.ip)) {
                    score += 4;
                    break;
                }
            }
            boolean used = false;
            for (Requester o : rec.attached) {
                used |= o != r && o.server.backend() == s.backend();
            }
            if (used) {
                if (!r.options.allowDupIp()) {
                    continue;
                }
            } else {
                score += 2;
            }
            if (rec.ip.equals(current)) {
                score++;
            }
            if (score > max) {
                max = score;
                best = rec;
            }
        }
        return best;
    }

    /** HAProxy's line "be/s changed its IP from a to b by updater." and the change itself. */
    void changeIp(Server s, InetAddress ip, int port, String updater) {
        logIpChange(s, ip, updater);
        s.address(new InetSocketAddress(ip, port));
        moved.accept(s);
    }

    private static void logIpChange(Server s, InetAddress ip, String updater) {
        String old = s.unresolved() ? "(none)" : NetUtil.toAddressString(s.address().getAddress());
        s.backend().events().report(ServerEvents.NOTICE, s.backend().name() + "/" + s.name() + " changed its IP from " + old + " to "
                + NetUtil.toAddressString(ip) + " by " + updater + ".", null);
    }

    /** snr_update_srv_status after a valid answer. */
    private static void validStatus(Requester r, boolean noIp, boolean wasMaint) {
        Server s = r.server;
        if (noIp) {
            // when the server was not already out of the address it had
            s.lostAddress("No IP for server ");
            return;
        }
        if (wasMaint && !s.unresolved()) {
            s.backend().events().report(ServerEvents.NOTICE, "Server " + s.backend().name() + "/" + s.name()
                    + " administratively READY thanks to valid DNS answer.", null);
        }
    }

    /**
     * The resolution failed ({@code status}) and its hold period is over: the server loses its address (HAProxy's
     * snr_resolution_error_cb); false while the hold period runs.
     */
    static boolean failed(Requester r, Resolution.Status status) {
        String cause = switch (status) {
            case NX -> "DNS NX status";
            case TIMEOUT -> "DNS timeout status";
            case REFUSED -> "DNS refused status";
            default -> "unspecified DNS error";
        };
        r.server.lostAddress(cause);
        return true;
    }

    /** An SRV record given to a slot (or kept by it): its target, address (additional record), port and weight. */
    void srvAssigned(Requester r, Resolution.Record rec) {
        Server s = r.server;
        // HAProxy's order: the address of the additional record, the name, then the way out of maintenance
        boolean newIp = rec.additional != null && (s.unresolved() || !rec.additional.equals(s.address().getAddress()));
        if (newIp) {
            logIpChange(s, rec.additional, "DNS additional record");
        }
        if (s.fqdn() == null) {
            s.backend().events().logOnly(ServerEvents.NOTICE, s.backend().name() + "/" + s.name() + " changed its FQDN from (null) to "
                    + rec.target + " by 'SRV record'");
            s.fqdn(rec.target);
        }
        if (newIp) {
            s.address(new InetSocketAddress(rec.additional, rec.port));
            moved.accept(s);
        } else if (s.address().getPort() != rec.port) {
            s.address(s.unresolved() ? Server.unresolvedAddress(rec.port) : new InetSocketAddress(s.address().getAddress(), rec.port));
            moved.accept(s);
        }
        if (!r.options.ignoreWeight()) {
            int w = (rec.weight + 255) / 256;
            if (w != s.weight()) {
                s.weight(w);
            }
        }
    }

    /** A slot's SRV record went away: out of its address, name and port (HAProxy's resolv_srvrq_cleanup_srv). */
    static void srvRemoved(Requester r) {
        Server s = r.server;
        s.lostAddress("entry removed from SRV record");
        s.fqdn(null);
        s.address(Server.unresolvedAddress(0));
    }
}
