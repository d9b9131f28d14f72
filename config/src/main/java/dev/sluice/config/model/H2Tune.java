package dev.sluice.config.model;

/**
 * HTTP/2 settings of the {@code global} section, HAProxy 2.6's {@code tune.h2.*}: the HPACK dynamic table size advertised
 * ({@code header-table-size}, 4096 to 65536), the initial stream window ({@code initial-window-size}), the streams a
 * client may open at once and a server connection carries at once ({@code max-concurrent-streams}, 0: no limit) and the
 * largest frame accepted ({@code max-frame-size}, 0: tune.bufsize; never more than tune.bufsize).
 */
public record H2Tune(int headerTableSize, int initialWindowSize, int maxConcurrentStreams, int maxFrameSize) {
    public static final H2Tune DEFAULT = new H2Tune(4096, 65535, 100, 0);

    /** The SETTINGS_MAX_FRAME_SIZE Sluice advertises with buffers of {@code bufsize} bytes, as HAProxy 2.6 computes it. */
    public int effectiveMaxFrameSize(int bufsize) {
        int mfs = maxFrameSize == 0 || maxFrameSize > bufsize ? bufsize : maxFrameSize;
        // HTTP/2's bounds: a peer may always send 16384-byte frames
        return Math.max(16384, Math.min(mfs, 16777215));
    }
}
