package dev.sluice.config.model;

/**
 * HTTP behaviour options of a proxy: the connection mode ({@code option http-keep-alive},
 * {@code http-server-close}, {@code httpclose}), {@code option forwardfor} (null when off) and
 * {@code option accept-unsafe-violations-in-http-request} (alias {@code accept-invalid-http-request}),
 * {@code option http-use-proxy-header}, {@code http-reuse}; {@code option clitcpka|srvtcpka|tcpka} (TCP keep-alive
 * probes on the client or server connections); {@code pool-purge-delay} (each period, half of a server's idle
 * connections close; 0: never); {@code option h3-alt-svc} ({@code h3AltSvcMaxAge}: the seconds advertised, -1 when
 * off); {@code compression} (null when the proxy has no compression line); {@code option originalto} ({@code originalTo}:
 * its header and except network, null when off).
 */
public record HttpOptions(ConnectionMode connectionMode, ForwardFor forwardFor, boolean acceptInvalidRequest, boolean useProxyHeader,
        Reuse reuse, boolean clientTcpKeepAlive, boolean serverTcpKeepAlive, long poolPurgeDelayMs, long h3AltSvcMaxAge,
        Compression compression, ForwardFor originalTo) {

    /** Without {@code option originalto}. */
    public HttpOptions(ConnectionMode connectionMode, ForwardFor forwardFor, boolean acceptInvalidRequest, boolean useProxyHeader,
            Reuse reuse, boolean clientTcpKeepAlive, boolean serverTcpKeepAlive, long poolPurgeDelayMs, long h3AltSvcMaxAge,
            Compression compression) {
        this(connectionMode, forwardFor, acceptInvalidRequest, useProxyHeader, reuse, clientTcpKeepAlive, serverTcpKeepAlive, poolPurgeDelayMs,
                h3AltSvcMaxAge, compression, null);
    }

    public HttpOptions(ConnectionMode connectionMode, ForwardFor forwardFor, boolean acceptInvalidRequest, boolean useProxyHeader,
            Reuse reuse, boolean clientTcpKeepAlive, boolean serverTcpKeepAlive, long poolPurgeDelayMs, long h3AltSvcMaxAge) {
        this(connectionMode, forwardFor, acceptInvalidRequest, useProxyHeader, reuse, clientTcpKeepAlive, serverTcpKeepAlive, poolPurgeDelayMs,
                h3AltSvcMaxAge, null);
    }

    /** HAProxy's default {@code pool-purge-delay}. */
    public static final long DEFAULT_POOL_PURGE_DELAY_MS = 5000;

    /** {@code option h3-alt-svc}'s default max age: one day. */
    public static final long DEFAULT_ALT_SVC_MAX_AGE = 86_400;

    public HttpOptions(ConnectionMode connectionMode, ForwardFor forwardFor, boolean acceptInvalidRequest, boolean useProxyHeader,
            Reuse reuse, boolean clientTcpKeepAlive, boolean serverTcpKeepAlive) {
        this(connectionMode, forwardFor, acceptInvalidRequest, useProxyHeader, reuse, clientTcpKeepAlive, serverTcpKeepAlive,
                DEFAULT_POOL_PURGE_DELAY_MS, -1);
    }

    public HttpOptions(ConnectionMode connectionMode, ForwardFor forwardFor, boolean acceptInvalidRequest, boolean useProxyHeader,
            Reuse reuse) {
        this(connectionMode, forwardFor, acceptInvalidRequest, useProxyHeader, reuse, false, false, DEFAULT_POOL_PURGE_DELAY_MS, -1);
    }

    public HttpOptions(ConnectionMode connectionMode, ForwardFor forwardFor) {
        this(connectionMode, forwardFor, false, false, Reuse.SAFE);
    }

    public HttpOptions(ConnectionMode connectionMode, ForwardFor forwardFor, boolean acceptInvalidRequest, boolean useProxyHeader) {
        this(connectionMode, forwardFor, acceptInvalidRequest, useProxyHeader, Reuse.SAFE);
    }

    /**
     * {@code http-reuse}: which idle server connections a request may take. {@code NEVER}: only the
     * connection its own client connection used before (idle connections are never shared);
     * {@code SAFE} (the default): the first request of a client connection goes on a new connection (or
     * its own), later ones may take any idle connection; {@code AGGRESSIVE}: a first request may also take a
     * connection that has already been reused; {@code ALWAYS}: any idle connection.
     */
    public enum Reuse {
        NEVER, SAFE, AGGRESSIVE, ALWAYS
    }

    /** How connections are kept between requests. */
    public enum ConnectionMode {
        /** Keep both sides open (the default). */
        KEEP_ALIVE,
        /** Keep the client side, close the server side after each response. */
        SERVER_CLOSE,
        /** Close both sides after each response. */
        CLOSE
    }

    /**
     * {@code option forwardfor [except <network>] [header <name>] [if-none]}: adds the client address in
     * its own header line. {@code except} is null or an IPv4/IPv6 network in CIDR form.
     */
    public record ForwardFor(String header, String except, boolean ifNone) {
    }
}
