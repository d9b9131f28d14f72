package dev.sluice.quic;

import io.netty.handler.codec.quic.QuicCongestionControlAlgorithm;

/**
 * The transport settings of one QUIC bind: what is advertised to clients (idle timeout, request streams,
 * flow-control windows), the congestion controller, when to ask for Retry, and the server id carried in
 * every CID. {@code dropCloses} is a test knob: the first N CONNECTION_CLOSE datagrams are not sent, as if
 * lost (0 in production). Immutable.
 */
public record QuicSettings(long idleTimeoutMs, int maxStreamsBidi, long maxData, long streamData, boolean hystart,
        QuicCongestionControlAlgorithm congestionControl, int retryThreshold, boolean forceRetry, int serverId, int dropCloses) {

    /** Unidirectional streams a client may open: HTTP/3's control and two QPACK streams, plus room for GREASE. */
    static final int MAX_STREAMS_UNI = 8;
    /** Window of each unidirectional stream (control frames and QPACK instructions only). */
    static final long UNI_STREAM_DATA = 64 * 1024;
}
