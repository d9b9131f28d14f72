package dev.sluice.quic;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one QUIC bind, shared by its sockets: the one source of {@code show quic}'s summary and of
 * the metrics. Everything here moves per connection, per Retry or per datagram reaching a closing record, not
 * per request. Thread-safe.
 */
public final class QuicCounters {
    /** Connections whose handshake is not done yet (what {@code tune.quic.retry-threshold} compares with). */
    final AtomicInteger halfOpen = new AtomicInteger();
    final LongAdder connections = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder tokensValid = new LongAdder();
    final LongAdder tokensInvalid = new LongAdder();
    final LongAdder closingRecords = new LongAdder();
    final LongAdder recordsFreed = new LongAdder();
    final LongAdder closeResends = new LongAdder();
    final LongAdder closeAmplificationDrops = new LongAdder();
    final LongAdder closingDatagrams = new LongAdder();
    final LongAdder peerCloses = new LongAdder();
    final LongAdder emptyDatagrams = new LongAdder();
    final LongAdder poolFailures = new LongAdder();
    final LongAdder knobDrops = new LongAdder();
    final LongAdder refusedWhileStopping = new LongAdder();

    public int halfOpen() {
        return halfOpen.get();
    }

    public long connections() {
        return connections.sum();
    }

    public long retries() {
        return retries.sum();
    }

    public long tokensValid() {
        return tokensValid.sum();
    }

    public long tokensInvalid() {
        return tokensInvalid.sum();
    }

    /** Closing records created (server-side closes that sent a CONNECTION_CLOSE). */
    public long closingRecords() {
        return closingRecords.sum();
    }

    /** Closing records freed (at their deadline, or when their socket closed). */
    public long recordsFreed() {
        return recordsFreed.sum();
    }

    /** CONNECTION_CLOSE datagrams re-sent from records. */
    public long closeResends() {
        return closeResends.sum();
    }

    /** Re-sends skipped by the anti-amplification limit. */
    public long closeAmplificationDrops() {
        return closeAmplificationDrops.sum();
    }

    /** Datagrams that reached a closing record. */
    public long closingDatagrams() {
        return closingDatagrams.sum();
    }

    /** Connections the peer closed (draining: nothing kept). */
    public long peerCloses() {
        return peerCloses.sum();
    }

    /** Empty datagrams dropped (io_uring writes one as a flush barrier when a connection closes). */
    public long emptyDatagrams() {
        return emptyDatagrams.sum();
    }

    /** Long-header datagrams of new connections dropped while the bind stops. */
    public long refusedWhileStopping() {
        return refusedWhileStopping.sum();
    }

    /** Closes that kept no record because the pool refused an object. */
    public long poolFailures() {
        return poolFailures.sum();
    }
}
