package dev.sluice.config.model;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Proxy options that change how requests are served: {@code option prefer-last-server} (backend side: a balanced
 * request goes to the server its client connection holds a private connection to) and {@code fullconn} (backend side:
 * the load at which servers with a {@code minconn} reach their {@code maxconn}; 0 when not set, HAProxy's default then
 * applies: a tenth of the maxconn of the frontends that use the backend), {@code option abortonclose} (backend side: a
 * client's half-close aborts a request not yet answered), {@code option contstats} (frontend side: byte counters follow
 * a transfer instead of growing at its end), {@code option http-ignore-probes} (frontend side: a connection that sends no
 * byte is neither answered, logged nor counted as an error), {@code option splice-auto|splice-request|splice-response}
 * (any side, as HAProxy: a stream splices a direction when its frontend or its backend asks for it), {@code persist}
 * (backend side: {@code option persist}, {@code force-persist}, {@code ignore-persist}, {@code persist rdp-cookie}),
 * {@code sendNameHeader} (backend side: {@code http-send-name-header}, the lower-case name of the field that carries the
 * server's name to it; null when not set); {@code load-server-state-from-file} and {@code server-state-file-name}
 * (backend side: where its servers' state is read from at start-up); {@code option socket-stats} (frontend side:
 * statistics per listener); {@code headerNames} is {@code option http-restrict-req-hdr-names} (any side; null when not
 * set: HAProxy's default, {@code preserve}, or {@code delete} in a backend with a FastCGI application); {@code dispatch}
 * ({@code dispatch <address>:<port>}) and {@code transparent} ({@code option transparent}): where a backend without a
 * balance algorithm sends every request (HAProxy's PR_O_DISPATCH and PR_O_TRANSP; null and false: none).
 */
public record ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes,
        Set<Splice> splice, Persist persist, String sendNameHeader, ServerStateFiles.Load serverState, boolean socketStats,
        HeaderNames headerNames, String dispatch, boolean transparent) {

    /** Without {@code dispatch} nor {@code option transparent}. */
    public ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes,
            Set<Splice> splice, Persist persist, String sendNameHeader, ServerStateFiles.Load serverState, boolean socketStats,
            HeaderNames headerNames) {
        this(preferLastServer, fullconn, abortOnClose, contStats, ignoreProbes, splice, persist, sendNameHeader, serverState, socketStats,
                headerNames, null, false);
    }

    /** Whether the backend sends every request to one destination, as no server: the dispatch address or the client's. */
    public boolean serverless() {
        return dispatch != null || transparent;
    }

    /** {@code option http-restrict-req-hdr-names}: what becomes of request fields named outside [A-Za-z0-9-]. */
    public enum HeaderNames {
        PRESERVE, DELETE, REJECT
    }

    /** Without {@code option http-restrict-req-hdr-names}. */
    public ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes,
            Set<Splice> splice, Persist persist, String sendNameHeader, ServerStateFiles.Load serverState, boolean socketStats) {
        this(preferLastServer, fullconn, abortOnClose, contStats, ignoreProbes, splice, persist, sendNameHeader, serverState, socketStats, null);
    }

    public static final ProxyOptions DEFAULT = new ProxyOptions(false, 0, false, false, false);

    /** Without persistence settings nor listener statistics. */
    public ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes,
            Set<Splice> splice, ServerStateFiles.Load serverState) {
        this(preferLastServer, fullconn, abortOnClose, contStats, ignoreProbes, splice, Persist.NONE, null, serverState, false);
    }

    /** Kernel splicing of layer-4 relays: {@code option splice-auto}, {@code splice-request}, {@code splice-response}. */
    public enum Splice {
        /** Splice a direction once it looks like a bulk transfer (HAProxy's heuristic). */
        AUTO,
        /** Always splice client-to-server data. */
        REQUEST,
        /** Always splice server-to-client data. */
        RESPONSE
    }

    public ProxyOptions {
        splice = splice.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(splice));
        if (serverState == null) {
            serverState = ServerStateFiles.Load.NONE;
        }
        if (persist == null) {
            persist = Persist.NONE;
        }
    }

    /** Without a server state file nor listener statistics. */
    public ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes,
            Set<Splice> splice, Persist persist, String sendNameHeader) {
        this(preferLastServer, fullconn, abortOnClose, contStats, ignoreProbes, splice, persist, sendNameHeader, ServerStateFiles.Load.NONE,
                false);
    }

    /** Without {@code http-send-name-header}. */
    public ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes,
            Set<Splice> splice, Persist persist) {
        this(preferLastServer, fullconn, abortOnClose, contStats, ignoreProbes, splice, persist, null);
    }

    /** Without persistence settings. */
    public ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes,
            Set<Splice> splice) {
        this(preferLastServer, fullconn, abortOnClose, contStats, ignoreProbes, splice, Persist.NONE);
    }

    /** Without splicing. */
    public ProxyOptions(boolean preferLastServer, int fullconn, boolean abortOnClose, boolean contStats, boolean ignoreProbes) {
        this(preferLastServer, fullconn, abortOnClose, contStats, ignoreProbes, Set.of());
    }
}
