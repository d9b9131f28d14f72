package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * Where server state files are read from at start-up (HAProxy's {@code server-state-base} and the global
 * {@code server-state-file}, null when not set, with the line that set it), and how a backend loads its servers' state
 * ({@link Load}). The files are written by an operator from {@code show servers state} before a reload.
 */
public record ServerStateFiles(String base, String globalFile, SourceRef globalFileAt) {

    public static final ServerStateFiles NONE = new ServerStateFiles(null, null, null);

    /**
     * The path of a state file named {@code file}: as it is when absolute or without a base directory, else under the
     * base (a {@code /} put between them when the base does not end with one), as HAProxy's srv_state_get_filepath.
     */
    public String path(String file) {
        if (file.startsWith("/") || base == null) {
            return file;
        }
        return base + (base.endsWith("/") ? "" : "/") + file;
    }

    /** Which file a backend's servers take their state from ({@code load-server-state-from-file}). */
    public enum From {
        /** The global {@code server-state-file}, whose lines are matched by backend and server names. */
        GLOBAL,
        /** The backend's own file ({@code server-state-file-name}, default the backend's name), matched by id or name. */
        LOCAL,
        /** None: the servers start as configured (HAProxy's default). */
        NONE
    }

    /**
     * A backend's {@code load-server-state-from-file} and {@code server-state-file-name} ({@code fileName}: null means
     * the backend's name).
     */
    public record Load(From from, String fileName) {
        public static final Load NONE = new Load(From.NONE, null);
    }
}
