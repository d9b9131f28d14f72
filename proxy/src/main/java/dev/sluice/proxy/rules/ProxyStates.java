package dev.sluice.proxy.rules;

/**
 * What the state fetches ({@code nbsrv}, {@code be_conn}, {@code srv_is_up}...) read of the proxies and servers of the
 * running configuration: the stream side implements it over its backends and servers, so that the rules do not depend
 * on them. Names were checked when the rule was compiled ({@link ProxyNames}); a lookup of a name that a reload removed
 * answers null (the fetch then has no sample).
 */
public interface ProxyStates {
    /** The backend (or listen) section named {@code name}, or null. */
    BackendState backend(String name);

    /** The backend the stream was given so far, or null. */
    BackendState currentBackend();

    /** The server the stream was given so far, or null. */
    ServerState currentServer();

    /** The frontend (or listen) section named {@code name}, or null. */
    FrontendState frontend(String name);

    /** The frontend's {@code default_backend}, or null ({@code fe_defbe}). */
    String frontendDefaultBackend();

    /** Whether the process is stopping ({@code stopping}). */
    boolean stopping();

    /** The frontend's numeric id ({@code fe_id}). */
    int frontendId();

    /** The frontend's {@code timeout client}, ms, or 0 when unset. */
    long frontendClientTimeout();

    /** A frontend as the fetches read it. */
    interface FrontendState {
        /** Current connections (feconn). */
        long connections();

        /** Sessions per second over the last second. */
        long sessionRate();

        /** HTTP requests per second over the last second. */
        long requestRate();
    }

    /** A backend as the fetches read it. */
    interface BackendState {
        int id();

        /** HAProxy's be_usable_srv: usable active servers, else 1 for the first usable backup (all of them with allbackups). */
        int usableServers();

        /** Current connections (streams) on the backend (beconn). */
        long connections();

        /**
         * be_conn_free: the free connection slots below the dynamic maxconn of the servers that would take new requests
         * (the usable active ones, else the first usable backup or all of them with allbackups); -1 when one has no maxconn.
         */
        long connectionsFree();

        /** Requests waiting in its queue and its servers' queues (totpend). */
        long queued();

        /** Sessions per second over the last second. */
        long sessionRate();

        /** Its servers, in declaration order. */
        java.util.List<ServerState> servers();

        /** Its server named {@code name}, or null. */
        ServerState server(String name);

        /** {@code timeout server}, ms, 0 when unset. */
        long serverTimeout();

        /** {@code timeout tunnel}, ms, 0 when unset. */
        long tunnelTimeout();
    }

    /** A server as the fetches read it. */
    interface ServerState {
        int id();

        String name();

        /** srv_is_up: not in maintenance, and UP or without enabled health checks. */
        boolean isUp();

        /** HAProxy's cur_state == STOPPED: down or in maintenance. */
        boolean stopped();

        /** Current connections (cur_sess). */
        long connections();

        /** srv_conn_free: free slots below its dynamic maxconn, -1 without maxconn. */
        long connectionsFree();

        /** Requests in its own queue. */
        long queued();

        /** {@code maxconn}, 0 for none. */
        int maxconn();

        /** {@code maxqueue}, 0 for none. */
        int maxqueue();

        long sessionRate();

        /** The effective weight in the configured scale (rounded up: lower while it warms up). */
        int weight();

        /** The weight of the configuration. */
        int initialWeight();

        /** The weight as set (configuration, admin socket, agent). */
        int userWeight();
    }
}
