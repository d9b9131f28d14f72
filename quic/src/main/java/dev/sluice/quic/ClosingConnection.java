package dev.sluice.quic;

import dev.sluice.pools.Pool;
import dev.sluice.pools.PoolRegistry;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * What remains of a QUIC connection that the server closed: the CID prefix its packets carry, the peer's
 * address and port, the exact CONNECTION_CLOSE datagram that was sent, the byte counts of the
 * anti-amplification limit, the back-off state and the deadline. {@value #SIZE} bytes plus the datagram, where
 * the live connection held about 54 KB (quiche, TLS, streams, buffers). HAProxy's {@code quic_cc_conn}. Pooled
 * ({@code quic_conn_closed} in {@code show pools}, see {@link #pool}); owned by one socket's event loop.
 */
public final class ClosingConnection {
    /** The pool's name, HAProxy's. */
    public static final String POOL = "quic_conn_closed";

    /**
     * Bytes per record: 96, measured (heap histogram of {@code bench/QuicClosingMemory}, 10,000 records; see
     * docs/design.md, "QUIC and HTTP/3"). The CONNECTION_CLOSE datagram is a separate array owned by the record
     * and not counted here: 64 bytes for a 45-byte 1-RTT close, up to about 1,270 for a padded Initial one.
     */
    public static final int SIZE = 96;

    /**
     * The pool records come from: {@value #POOL} in {@code show pools}, {@value #SIZE} bytes each, reset by
     * {@link #clear} (a pooled record keeps no datagram).
     *
     * <p>Measured against {@code new} ({@code bench/.../ClosingConnectionBench}, 2 threads of 1,024 live records,
     * G1; {@code java -jar bench/target/benchmarks.jar ClosingConnectionBench -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc},
     * three runs at load average 6.5 to 7.9 on 2 CPUs): pooled/plain throughput 0.31 [0.28-0.32], bytes allocated
     * per close 160 to 64, GCs per close 0.35 [0.33-0.43], GC time per close 0.54 [0.14-0.60]. Pooled not for
     * throughput (a recycled record is old and each close stores a young datagram in it) but for a bound: the
     * records are counted in {@code show pools} and held to the {@code -m} ceiling, and collect less; the extra
     * 0.13 us a close is nothing against a QUIC handshake. Details in docs/design.md, "Pools".
     */
    public static Pool<ClosingConnection> pool(PoolRegistry registry) {
        return registry.create(POOL, ClosingConnection.class, SIZE, ClosingConnection::new, ClosingConnection::clear);
    }

    long prefix;
    /** The peer address as two longs (an IPv4 address in {@code lo}, {@code v4} set). */
    long addrHi;
    long addrLo;
    int port;
    boolean v4;
    /** Whether the peer's address was validated (handshake done or Retry passed): no amplification limit. */
    boolean validated;
    byte[] datagram;
    /** Bytes received from and sent to the peer, over the connection's life and since closing. */
    long rx;
    long tx;
    /** HAProxy's nb_pkt_for_cc / nb_pkt_since_cc: re-send after 1, then 2, then 3 ... received datagrams. */
    int packetsForResend;
    int packetsSinceResend;
    int resends;
    /** {@link System#nanoTime()} at which the record is freed. */
    long deadline;
    /** When the close was sent, for {@code show quic}. */
    long closedAt;

    void set(long prefix, InetSocketAddress peer, byte[] datagram, long rx, long tx, boolean validated, long closedAt, long deadline) {
        this.prefix = prefix;
        InetAddress a = peer.getAddress();
        byte[] b = a.getAddress();
        this.v4 = a instanceof Inet4Address;
        long hi = 0;
        long lo = 0;
        if (v4) {
            lo = ((b[0] & 0xffL) << 24) | ((b[1] & 0xffL) << 16) | ((b[2] & 0xffL) << 8) | (b[3] & 0xffL);
        } else {
            for (int i = 0; i < 8; i++) {
                hi = hi << 8 | (b[i] & 0xff);
                lo = lo << 8 | (b[8 + i] & 0xff);
            }
        }
        this.addrHi = hi;
        this.addrLo = lo;
        this.port = peer.getPort();
        this.datagram = datagram;
        this.rx = rx;
        this.tx = tx;
        this.validated = validated;
        this.packetsForResend = 1;
        this.packetsSinceResend = 0;
        this.resends = 0;
        this.closedAt = closedAt;
        this.deadline = deadline;
    }

    /** Forgets everything (the pool's reset step): no reference is kept, the datagram goes to the GC. */
    void clear() {
        datagram = null;
        prefix = 0;
        addrHi = addrLo = 0;
        port = 0;
        v4 = false;
        validated = false;
        rx = tx = 0;
        packetsForResend = packetsSinceResend = resends = 0;
        deadline = closedAt = 0;
    }

    /** Whether {@code a} is the address the close was sent to. */
    boolean isPeer(InetSocketAddress a) {
        if (a.getPort() != port) {
            return false;
        }
        byte[] b = a.getAddress().getAddress();
        if (v4) {
            return b.length == 4 && lo(b, 0, 4) == addrLo;
        }
        return b.length == 16 && lo(b, 0, 8) == addrHi && lo(b, 8, 8) == addrLo;
    }

    private static long lo(byte[] b, int from, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            v = v << 8 | (b[from + i] & 0xff);
        }
        return v;
    }

    InetSocketAddress peer() {
        byte[] b;
        if (v4) {
            b = new byte[] {(byte) (addrLo >>> 24), (byte) (addrLo >>> 16), (byte) (addrLo >>> 8), (byte) addrLo};
        } else {
            b = new byte[16];
            for (int i = 0; i < 8; i++) {
                b[i] = (byte) (addrHi >>> (56 - 8 * i));
                b[8 + i] = (byte) (addrLo >>> (56 - 8 * i));
            }
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(b), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A datagram of {@code len} bytes arrived for this connection: whether to re-send the close now. It is
     * re-sent after the 1st, then the 2nd, then the 3rd ... datagram received since the last re-send (a
     * linear back-off), when the anti-amplification limit allows: before the address is validated, what is
     * sent stays within three times what was received.
     */
    boolean onDatagram(int len, boolean fromPeer) {
        rx += len;
        if (++packetsSinceResend < packetsForResend) {
            return false;
        }
        packetsForResend++;
        packetsSinceResend = 0;
        if (fromPeer) {
            return validated || tx + datagram.length <= 3 * rx;
        }
        // another address (the peer moved, or someone replays its CID): never more than three times what it sent
        return datagram.length <= 3L * len;
    }

    void sent() {
        tx += datagram.length;
        resends++;
    }

    public long prefix() {
        return prefix;
    }

    public int datagramLength() {
        return datagram == null ? 0 : datagram.length;
    }

    public int resends() {
        return resends;
    }

    public long deadlineNanos() {
        return deadline;
    }
}
