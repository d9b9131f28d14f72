package dev.sluice.config;

import dev.sluice.config.model.HttpOptions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The global QUIC settings: {@code tune.quic.*} (HAProxy's names where HAProxy has the setting) and
 * {@code cluster-secret}. The bind options ({@code quic-force-retry}, {@code quic-cc-algo}) are parsed with
 * the bind line.
 */
final class QuicKeywords {
    private QuicKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);

    static void register(KeywordRegistry r) {
        r.register(new Keyword("tune.quic.frontend.max-idle-timeout", GLOBAL, "tune.quic.frontend.max-idle-timeout <time>",
                "Idle timeout advertised to QUIC clients (default 30s): a connection without traffic that long is dropped silently by both ends.",
                c -> {
                    if (c.expectArgs(1, 1, "tune.quic.frontend.max-idle-timeout <time>")) {
                        long v = c.timeArg(c.args().get(0));
                        if (v >= 0) {
                            c.global().quicIdleTimeout = v;
                        }
                    }
                }));
        r.register(new Keyword("tune.quic.frontend.max-streams-bidi", GLOBAL, "tune.quic.frontend.max-streams-bidi <number>",
                "Request streams a QUIC client may open at once (default 100).", c -> {
                    if (c.expectArgs(1, 1, "tune.quic.frontend.max-streams-bidi <number>")) {
                        c.global().quicMaxStreams = c.intArg(c.args().get(0), "tune.quic.frontend.max-streams-bidi", 1, 1 << 20,
                                c.global().quicMaxStreams);
                    }
                }));
        r.register(new Keyword("tune.quic.frontend.max-data", GLOBAL, "tune.quic.frontend.max-data <size>",
                "Connection flow-control window of QUIC clients: bytes of request bodies in flight per connection (default 16m).",
                c -> c.global().quicMaxData = size(c, "tune.quic.frontend.max-data", c.global().quicMaxData)));
        r.register(new Keyword("tune.quic.frontend.stream-data", GLOBAL, "tune.quic.frontend.stream-data <size>",
                "Flow-control window of each QUIC request stream: bytes of one request body in flight (default 256k).",
                c -> c.global().quicStreamData = size(c, "tune.quic.frontend.stream-data", c.global().quicStreamData)));
        r.register(new Keyword("tune.quic.cc-hystart", GLOBAL, "tune.quic.cc-hystart on|off",
                "HyStart++ in the QUIC congestion controller's slow start (default on).", c -> {
                    if (c.expectArgs(1, 1, "tune.quic.cc-hystart on|off")) {
                        switch (c.args().get(0)) {
                            case "on" -> c.global().quicHystart = true;
                            case "off" -> c.global().quicHystart = false;
                            default -> c.error("expects 'on' or 'off', not '" + c.args().get(0) + "'.");
                        }
                    }
                }));
        r.register(new Keyword("tune.quic.retry-threshold", GLOBAL, "tune.quic.retry-threshold <number>",
                "Half-open QUIC connections (handshake not done) above which new clients must first pass a Retry (default 100).",
                c -> {
                    if (c.expectArgs(1, 1, "tune.quic.retry-threshold <number>")) {
                        c.global().quicRetryThreshold = c.intArg(c.args().get(0), "tune.quic.retry-threshold", 0, Integer.MAX_VALUE,
                                c.global().quicRetryThreshold);
                    }
                }));
        r.register(new Keyword("tune.quic.socket-owner", GLOBAL, "tune.quic.socket-owner listener",
                "Which socket QUIC connections use: only 'listener' (the bind's socket, shared by its connections).", c -> {
                    if (c.expectArgs(1, 1, "tune.quic.socket-owner listener")) {
                        String v = c.args().get(0);
                        if (v.equals("connection")) {
                            c.error("'tune.quic.socket-owner connection' is not supported by Sluice: QUIC connections share their listener's socket.");
                        } else if (!v.equals("listener")) {
                            c.error("expects 'listener' or 'connection', not '" + v + "'.");
                        }
                    }
                }));
        r.register(new Keyword("option h3-alt-svc", Section.FRONTEND_SIDE, "[no] option h3-alt-svc [ma <seconds>]",
                "On a frontend with a QUIC bind, add 'alt-svc: h3=\":<port>\"; ma=<seconds>' (default one day) to the responses sent on its"
                        + " TCP connections (HTTP/1 and HTTP/2) that have none, so that clients move to HTTP/3.",
                QuicKeywords::altSvc));
        r.register(new Keyword("cluster-secret", GLOBAL, "cluster-secret <secret>",
                "Secret shared by the processes of a cluster: QUIC Retry-token keys and stateless-reset tokens are derived from it"
                        + " (default: a random secret per process, so tokens do not survive a restart).", c -> {
                    if (c.expectArgs(1, 1, "cluster-secret <secret>")) {
                        if (c.args().get(0).isEmpty()) {
                            c.error("the secret must not be empty.");
                        } else {
                            c.global().clusterSecret = c.args().get(0);
                        }
                    }
                }));
    }

    /** {@code [no] option h3-alt-svc [ma <seconds>]}. */
    private static void altSvc(KeywordContext c) {
        if (c.negated()) {
            if (c.expectArgs(0, 0, "no option h3-alt-svc")) {
                c.proxy().h3AltSvcMaxAge = -1;
            }
            return;
        }
        List<String> a = c.args();
        long ma = HttpOptions.DEFAULT_ALT_SVC_MAX_AGE;
        if (a.size() == 2 && a.get(0).equals("ma")) {
            ma = c.intArg(a.get(1), "ma", 0, Integer.MAX_VALUE, -2);
            if (ma == -2) {
                return;
            }
        } else if (!a.isEmpty()) {
            c.error("unexpected argument '" + a.get(0) + "'; expected: option h3-alt-svc [ma <seconds>]");
            return;
        }
        c.proxy().h3AltSvcMaxAge = ma;
    }

    private static long size(KeywordContext c, String name, long fallback) {
        if (!c.expectArgs(1, 1, name + " <size>")) {
            return fallback;
        }
        try {
            long v = Units.parseSize(c.args().get(0));
            if (v < 1024 || v > (1L << 32)) {
                c.error("'" + c.args().get(0) + "' is out of range (1k to 4g).");
                return fallback;
            }
            return v;
        } catch (IllegalArgumentException e) {
            c.error(e.getMessage());
            return fallback;
        }
    }
}
