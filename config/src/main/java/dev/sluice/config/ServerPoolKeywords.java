package dev.sluice.config;

import dev.sluice.config.model.ServerPool;
import java.util.List;

/**
 * The server options of the idle connection pool, with HAProxy 2.6's readings and messages (srv_parse_pool_max_conn,
 * srv_parse_pool_low_conn, srv_parse_pool_purge_delay): {@code pool-max-conn}, {@code pool-low-conn},
 * {@code pool-purge-delay}. Parse-time only.
 */
final class ServerPoolKeywords {
    private ServerPoolKeywords() {
    }

    static final List<String> SERVER_OPTIONS = List.of("pool-max-conn", "pool-low-conn", "pool-purge-delay");

    /**
     * Parses an option of a server line at {@code a[i]}: the index after it, {@link TlsKeywords#NOT_MINE} when it is not
     * one, {@link TlsKeywords#FAILED} after reporting an error.
     */
    static int serverOption(KeywordContext c, String server, ServerParams p, List<String> a, int i) {
        String w = a.get(i);
        if (!SERVER_OPTIONS.contains(w)) {
            return TlsKeywords.NOT_MINE;
        }
        String prefix = server == null ? "" : "server '" + server + "' : ";
        String v = i + 1 < a.size() ? a.get(i + 1) : "";
        if (v.isEmpty()) {
            c.error(prefix + "'" + w + "' expects <value> as argument.");
            return TlsKeywords.FAILED;
        }
        switch (w) {
            case "pool-max-conn" -> {
                // atoi, as HAProxy reads it
                int n = ServerKeywords.atoi(v);
                if (n < -1) {
                    c.error(prefix + "'pool-max-conn' must be >= -1");
                    return TlsKeywords.FAILED;
                }
                p.pool = p.pool.withMaxConn(n);
            }
            case "pool-low-conn" -> p.pool = p.pool.withLowConn(Math.max(0, ServerKeywords.atoi(v)));
            default -> {
                long ms;
                try {
                    ms = Units.parseTimeMillis(v);
                } catch (IllegalArgumentException e) {
                    c.error(prefix + "'pool-purge-delay' : " + e.getMessage() + ".");
                    return TlsKeywords.FAILED;
                }
                p.pool = p.pool.withPurgeDelayMs(ms);
            }
        }
        return i + 2;
    }
}
