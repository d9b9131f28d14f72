package dev.sluice.config;

import dev.sluice.config.model.Mode;
import dev.sluice.config.model.ServerObserve;
import dev.sluice.config.model.ServerObserve.Layer;
import dev.sluice.config.model.ServerObserve.OnError;
import java.util.List;

/**
 * The server options of the analysis of live traffic, with HAProxy 2.6's readings and messages (srv_parse_observe,
 * srv_parse_error_limit, srv_parse_on_error, srv_parse_on_marked_down|up): {@code observe}, {@code error-limit},
 * {@code on-error}, {@code on-marked-down}, {@code on-marked-up}. Parse-time only.
 */
final class ObserveKeywords {
    private ObserveKeywords() {
    }

    static final List<String> SERVER_OPTIONS = List.of("observe", "error-limit", "on-error", "on-marked-down", "on-marked-up");

    /**
     * Parses an option of a server line at {@code a[i]}: the index after it, {@link TlsKeywords#NOT_MINE} when it is not
     * one, {@link TlsKeywords#FAILED} after reporting an error.
     */
    static int serverOption(KeywordContext c, String server, ServerParams p, List<String> a, int i) {
        String w = a.get(i);
        String prefix = server == null ? "" : "server '" + server + "' : ";
        String v = i + 1 < a.size() ? a.get(i + 1) : "";
        ServerObserve o = p.observe;
        switch (w) {
            case "observe" -> {
                switch (v) {
                    case "" -> {
                        c.error(prefix + "'observe' expects <mode> as argument.");
                        return TlsKeywords.FAILED;
                    }
                    case "none" -> p.observe = o.withLayer(Layer.NONE);
                    case "layer4" -> p.observe = o.withLayer(Layer.LAYER4);
                    case "layer7" -> {
                        // HAProxy's alert that does not fail the configuration: the option is left as it was
                        if (c.proxy().mode != Mode.HTTP) {
                            c.warning(prefix + "'layer7' can only be used in http proxies.");
                        } else {
                            p.observe = o.withLayer(Layer.LAYER7);
                        }
                    }
                    default -> {
                        c.error(prefix + "'observe' expects one of 'none', 'layer4', 'layer7' but got '" + v + "'.");
                        return TlsKeywords.FAILED;
                    }
                }
                return i + 2;
            }
            case "error-limit" -> {
                if (v.isEmpty()) {
                    c.error(prefix + "'error-limit' expects an integer argument.");
                    return TlsKeywords.FAILED;
                }
                int n = ServerKeywords.atoi(v);
                if (n <= 0) {
                    c.error(prefix + "error-limit has to be > 0.");
                    return TlsKeywords.FAILED;
                }
                p.observe = o.withErrorLimit(n);
                return i + 2;
            }
            case "on-error" -> {
                for (OnError e : OnError.values()) {
                    if (e.keyword().equals(v)) {
                        p.observe = o.withOnError(e);
                        return i + 2;
                    }
                }
                c.error(prefix + "'on-error' expects one of 'fastinter', 'fail-check', 'sudden-death' or 'mark-down' but got '" + v + "'");
                return TlsKeywords.FAILED;
            }
            case "on-marked-down" -> {
                if (!v.equals("shutdown-sessions")) {
                    c.error(prefix + "'on-marked-down' expects 'shutdown-sessions' but got '" + v + "'");
                    return TlsKeywords.FAILED;
                }
                p.observe = o.withShutdownSessions(true);
                return i + 2;
            }
            case "on-marked-up" -> {
                if (!v.equals("shutdown-backup-sessions")) {
                    c.error(prefix + "'on-marked-up' expects 'shutdown-backup-sessions' but got '" + v + "'");
                    return TlsKeywords.FAILED;
                }
                p.observe = o.withShutdownBackupSessions(true);
                return i + 2;
            }
            default -> {
                return TlsKeywords.NOT_MINE;
            }
        }
    }
}
