package dev.sluice.proxy.dns;

import java.net.InetSocketAddress;

/**
 * A {@code nameserver} of a resolvers section and HAProxy 2.6's counters of it ({@code show resolvers}). The counters are
 * written by the section's event loop only and read by the CLI and the Prometheus exporter from other threads. As in
 * HAProxy 2.6, {@code timeout} and {@code cname} are shown but never counted, and {@code too_big} stays 0 (Netty reads
 * at most {@code accepted_payload_size} bytes).
 */
final class Nameserver {
    final String id;
    final InetSocketAddress address;
    final boolean tcp;

    volatile long sent;
    volatile long sndError;
    volatile long valid;
    volatile long update;
    volatile long cname;
    volatile long cnameError;
    volatile long anyErr;
    volatile long nx;
    volatile long timeout;
    volatile long refused;
    volatile long other;
    volatile long invalid;
    volatile long tooBig;
    volatile long truncated;
    volatile long outdated;

    Nameserver(String id, InetSocketAddress address, boolean tcp) {
        this.id = id;
        this.address = address;
        this.tcp = tcp;
    }

    /** HAProxy 2.6's block of {@code show resolvers} for this name server. */
    void dump(StringBuilder out) {
        out.append(" nameserver ").append(id).append(":\n");
        line(out, "sent:        ", sent);
        line(out, "snd_error:   ", sndError);
        line(out, "valid:       ", valid);
        line(out, "update:      ", update);
        line(out, "cname:       ", cname);
        line(out, "cname_error: ", cnameError);
        line(out, "any_err:     ", anyErr);
        line(out, "nx:          ", nx);
        line(out, "timeout:     ", timeout);
        line(out, "refused:     ", refused);
        line(out, "other:       ", other);
        line(out, "invalid:     ", invalid);
        line(out, "too_big:     ", tooBig);
        line(out, "truncated:   ", truncated);
        line(out, "outdated:    ", outdated);
    }

    private static void line(StringBuilder out, String label, long v) {
        out.append("  ").append(label).append(v).append('\n');
    }

    /** The counters in {@code show resolvers} order, for the Prometheus exporter. */
    long[] values() {
        return new long[] {sent, sndError, valid, update, cname, cnameError, anyErr, nx, timeout, refused, other, invalid, tooBig, truncated,
            outdated};
    }

    static final String[] NAMES = {"sent", "snd_error", "valid", "update", "cname", "cname_error", "any_err", "nx", "timeout", "refused",
        "other", "invalid", "too_big", "truncated", "outdated"};
}
