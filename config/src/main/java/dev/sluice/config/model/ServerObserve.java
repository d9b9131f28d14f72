package dev.sluice.config.model;

/**
 * A server's analysis of its live traffic (HAProxy's {@code observe}, {@code error-limit}, {@code on-error}) and what its
 * state changes do to the streams in progress ({@code on-marked-down}, {@code on-marked-up}). {@code layer} is what is
 * watched: connections ({@link Layer#LAYER4}) or HTTP responses too ({@link Layer#LAYER7}); {@code errorLimit}
 * consecutive errors trigger {@code onError}. {@code shutdownSessions}: going DOWN kills the server's streams;
 * {@code shutdownBackupSessions}: a non-backup server coming UP kills the streams of the backend's backup servers.
 */
public record ServerObserve(Layer layer, int errorLimit, OnError onError, boolean shutdownSessions, boolean shutdownBackupSessions) {

    /** HAProxy's defaults: nothing observed, 10 errors, {@code fail-check}. */
    public static final ServerObserve DEFAULT = new ServerObserve(Layer.NONE, 10, OnError.FAIL_CHECK, false, false);

    /** {@code observe none|layer4|layer7}. */
    public enum Layer {
        NONE, LAYER4, LAYER7
    }

    /** {@code on-error}: what {@code errorLimit} consecutive errors do. */
    public enum OnError {
        /** Checks run at {@code fastinter} (every mode does that too). */
        FASTINTER("fastinter"),
        /** As one failed check. */
        FAIL_CHECK("fail-check"),
        /** As a failed check that leaves a single check before DOWN. */
        SUDDEN_DEATH("sudden-death"),
        /** DOWN at once. */
        MARK_DOWN("mark-down");

        private final String keyword;

        OnError(String keyword) {
            this.keyword = keyword;
        }

        public String keyword() {
            return keyword;
        }
    }

    public ServerObserve withLayer(Layer l) {
        return new ServerObserve(l, errorLimit, onError, shutdownSessions, shutdownBackupSessions);
    }

    public ServerObserve withErrorLimit(int n) {
        return new ServerObserve(layer, n, onError, shutdownSessions, shutdownBackupSessions);
    }

    public ServerObserve withOnError(OnError e) {
        return new ServerObserve(layer, errorLimit, e, shutdownSessions, shutdownBackupSessions);
    }

    public ServerObserve withShutdownSessions(boolean on) {
        return new ServerObserve(layer, errorLimit, onError, on, shutdownBackupSessions);
    }

    public ServerObserve withShutdownBackupSessions(boolean on) {
        return new ServerObserve(layer, errorLimit, onError, shutdownSessions, on);
    }
}
