package dev.sluice.proxy.h2;

import dev.sluice.config.model.H2Tune;
import dev.sluice.config.model.Tune;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Settings;

/**
 * The SETTINGS Sluice sends on its HTTP/2 connections, from the global {@code tune.h2.*} keywords as HAProxy 2.6 sends
 * them: the initial stream window, the streams the peer may open at once (0: no limit, not sent),
 * the HPACK table size and the largest frame when they differ from the protocol's defaults (the frame size is
 * {@code tune.bufsize} unless {@code tune.h2.max-frame-size} is smaller). Static.
 */
final class H2Tuning {
    private H2Tuning() {
    }

    /** HTTP/2's own defaults: what a peer assumes when a setting is not sent. */
    private static final int PROTOCOL_TABLE_SIZE = 4096;
    private static final int PROTOCOL_FRAME_SIZE = 16384;

    /** The settings of a connection from a client ({@code client} true) or to a server. */
    static Http2Settings settings(Tune tune, boolean client) {
        H2Tune h = tune.h2();
        Http2Settings s = Http2Settings.defaultSettings().initialWindowSize(h.initialWindowSize());
        // Netty's defaults hold MAX_CONCURRENT_STREAMS=100 (HAProxy's default too): another value, or none for 0
        if (h.maxConcurrentStreams() > 0) {
            s.maxConcurrentStreams(h.maxConcurrentStreams());
        } else {
            s.remove(Http2CodecUtil.SETTINGS_MAX_CONCURRENT_STREAMS);
        }
        if (!client) {
            s.pushEnabled(false);
        }
        if (h.headerTableSize() != PROTOCOL_TABLE_SIZE) {
            s.headerTableSize(h.headerTableSize());
        }
        int frame = h.effectiveMaxFrameSize(tune.bufsize());
        if (frame != PROTOCOL_FRAME_SIZE) {
            s.maxFrameSize(frame);
        }
        return s;
    }

    /** The most streams Sluice opens at once on a connection to a server (its own limit; the server's may be lower). */
    static int serverStreams(Tune tune) {
        int n = tune.h2().maxConcurrentStreams();
        return n <= 0 ? Integer.MAX_VALUE : n;
    }
}
