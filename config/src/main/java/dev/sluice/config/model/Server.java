package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A {@code server} line of a backend, with {@code default-server} values already applied. {@code host}
 * is an IP literal (no brackets), a host name resolved at start-up, or {@code unix@<path>} for a UNIX stream socket; {@code tls} is null for clear text;
 * {@code proto} is "h2" for HTTP/2 (h2c, or forced on TLS), null for HTTP/1.1 (or ALPN's choice on TLS).
 * {@code id} is the server's numeric id ({@code id <n>}, else the first free one, as HAProxy assigns
 * them); {@code initState} is null when not set. {@code maxconn} and {@code maxqueue} are 0 for no limit,
 * {@code slowstart} is in milliseconds (0: none). {@code check} holds its health-check options (never null). {@code cookie}
 * is its persistence cookie value ({@code cookie <value>}), null when none. {@code minconn} makes {@code maxconn} a dynamic
 * limit (see {@code fullconn}); as HAProxy, a {@code minconn} above {@code maxconn} raises {@code maxconn} to it, and
 * without {@code minconn} it equals {@code maxconn} (a static limit). {@code sendProxy} is HAProxy's {@code pp_opts}: the PROXY
 * protocol versions set ({@link #PP_V1} {@code send-proxy}, {@link #PP_V2} {@code send-proxy-v2}; v2 wins when both are) and
 * the v2 extra fields ({@code proxy-v2-options}, {@code send-proxy-v2-ssl[-cn]}); see {@link #proxyVersion()}. {@code initAddr} is
 * {@code init-addr}: how a host name is turned into an address at start-up, in order ({@code last}, {@code libc},
 * {@code none}, or an IP address); HAProxy's default {@link #DEFAULT_INIT_ADDR}. {@code idForced}: the id was given
 * ({@code id}), not assigned (HAProxy's SRV_F_FORCED_ID, {@code srv_f_forced_id} in {@code show servers state}). {@code pool}
 * is its idle connection pool ({@code pool-max-conn}, {@code pool-low-conn}, {@code pool-purge-delay}).
 */
public record Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto, int id, boolean backup,
        boolean disabled, InitState initState, int maxconn, int maxqueue, long slowstart, ServerCheck check, String cookie,
        int minconn, int sendProxy, List<String> initAddr, boolean idForced, ServerDns dns, ServerPool pool) {

    /** With the default idle pool. */
    public Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto, int id, boolean backup,
            boolean disabled, InitState initState, int maxconn, int maxqueue, long slowstart, ServerCheck check, String cookie,
            int minconn, int sendProxy, List<String> initAddr, boolean idForced, ServerDns dns) {
        this(where, name, host, port, weight, tls, proto, id, backup, disabled, initState, maxconn, maxqueue, slowstart, check, cookie, minconn,
                sendProxy, initAddr, idForced, dns, null);
    }

    /** Without DNS at run time. */
    public Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto, int id, boolean backup,
            boolean disabled, InitState initState, int maxconn, int maxqueue, long slowstart, ServerCheck check, String cookie,
            int minconn, int sendProxy, List<String> initAddr, boolean idForced) {
        this(where, name, host, port, weight, tls, proto, id, backup, disabled, initState, maxconn, maxqueue, slowstart, check, cookie, minconn,
                sendProxy, initAddr, idForced, null);
    }

    /** With {@code idForced} as the id says: set (above 0) means given with {@code id}. */
    public Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto, int id, boolean backup,
            boolean disabled, InitState initState, int maxconn, int maxqueue, long slowstart, ServerCheck check, String cookie,
            int minconn, int sendProxy, List<String> initAddr) {
        this(where, name, host, port, weight, tls, proto, id, backup, disabled, initState, maxconn, maxqueue, slowstart, check, cookie, minconn,
                sendProxy, initAddr, id > 0);
    }

    /** The prefix of {@link #host} for a server on a UNIX stream socket ({@code unix@<path>} or {@code /<path>}). */
    public static final String UNIX_PREFIX = "unix@";

    /** Whether {@code host} names a UNIX stream socket (see {@link #UNIX_PREFIX}). */
    public static boolean unixHost(String host) {
        return host.startsWith(UNIX_PREFIX);
    }

    /** Whether the server is a UNIX stream socket: {@link #unixPath} is where it listens, there is no port. */
    public boolean unix() {
        return unixHost(host);
    }

    /**
     * The path of the server's UNIX socket, or null when it is not one; a name in Linux's abstract namespace
     * ({@code abns@<name>}) is a NUL then the name.
     */
    public String unixPath() {
        return unix() ? host.substring(UNIX_PREFIX.length()) : null;
    }

    /** HAProxy's SRV_PP_* bits of {@link #sendProxy()}. */
    public static final int PP_V1 = 0x1;
    public static final int PP_V2 = 0x2;
    public static final int PP_V2_SSL = 0x4;
    public static final int PP_V2_SSL_CN = 0x8;
    public static final int PP_V2_SSL_KEY_ALG = 0x10;
    public static final int PP_V2_SSL_SIG_ALG = 0x20;
    public static final int PP_V2_SSL_CIPHER = 0x40;
    public static final int PP_V2_AUTHORITY = 0x80;
    public static final int PP_V2_CRC32C = 0x100;
    public static final int PP_V2_UNIQUE_ID = 0x200;

    /** The PROXY protocol version each new connection to the server starts with: 2, 1, or 0 for none. */
    public int proxyVersion() {
        return (sendProxy & PP_V2) != 0 ? 2 : sendProxy & PP_V1;
    }

    /** The v2 extra fields asked for (the {@code PP_V2_*} bits above {@link #PP_V2}); they go out only with version 2. */
    public int proxyV2Options() {
        return sendProxy & ~(PP_V1 | PP_V2);
    }

    /** {@code init-addr}'s default: the state file's address, then the system's resolver. */
    public static final List<String> DEFAULT_INIT_ADDR = List.of("last", "libc");

    public Server {
        if (initAddr == null) {
            initAddr = DEFAULT_INIT_ADDR;
        }
        if (check == null) {
            check = ServerCheck.DEFAULT;
        }
        if (dns == null) {
            dns = ServerDns.DEFAULT;
        }
        if (pool == null) {
            pool = ServerPool.DEFAULT;
        }
    }

    /** Whether the server follows DNS at run time ({@code resolvers}) on a name (not an IP literal). */
    public boolean resolves() {
        return dns.resolvers() != null && !isIpLiteral(host) && !unix();
    }

    /** Whether its name asks for SRV records ({@code _service._proto.name}). */
    public boolean srv() {
        return host.startsWith("_");
    }

    private static boolean isIpLiteral(String h) {
        return h.indexOf(':') >= 0 || h.chars().allMatch(ch -> ch == '.' || (ch >= '0' && ch <= '9'));
    }

    public Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto, int id, boolean backup,
            boolean disabled, InitState initState, int maxconn, int maxqueue, long slowstart, ServerCheck check, String cookie, int minconn) {
        this(where, name, host, port, weight, tls, proto, id, backup, disabled, initState, maxconn, maxqueue, slowstart, check, cookie, minconn, 0,
                null);
    }

    public Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto, int id, boolean backup,
            boolean disabled, InitState initState, int maxconn, int maxqueue, long slowstart) {
        this(where, name, host, port, weight, tls, proto, id, backup, disabled, initState, maxconn, maxqueue, slowstart, ServerCheck.DEFAULT, null, 0);
    }

    public Server(SourceRef where, String name, String host, int port, int weight, ServerTls tls, String proto) {
        this(where, name, host, port, weight, tls, proto, 0, false, false, null, 0, 0, 0);
    }

    public Server(SourceRef where, String name, String host, int port, int weight) {
        this(where, name, host, port, weight, null, null);
    }

    public Server withTls(ServerTls t) {
        return new Server(where, name, host, port, weight, t, proto, id, backup, disabled, initState, maxconn, maxqueue, slowstart, check, cookie, minconn, sendProxy, initAddr, idForced, dns, pool);
    }

    /** With an id the parser assigned (the first free one): not forced. */
    public Server withId(int newId) {
        return new Server(where, name, host, port, weight, tls, proto, newId, backup, disabled, initState, maxconn, maxqueue, slowstart, check, cookie, minconn, sendProxy, initAddr, false, dns, pool);
    }

    /** {@code init-state}: the state a server starts in, before any health check. */
    public enum InitState {
        FULLY_UP("fully-up", true),
        UP("up", true),
        DOWN("down", false),
        FULLY_DOWN("fully-down", false);

        private final String keyword;
        private final boolean up;

        InitState(String keyword, boolean up) {
            this.keyword = keyword;
            this.up = up;
        }

        public String keyword() {
            return keyword;
        }

        /** Whether the server starts UP. */
        public boolean up() {
            return up;
        }
    }
}
