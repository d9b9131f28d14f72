package dev.sluice.proxy.tls;

import io.netty.util.Mapping;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Picks the context of a bind for the server name a client sent, as HAProxy does: an exact name first,
 * then a wildcard ({@code *.example.com} covers exactly one more label), else the bind's first
 * certificate, or nothing with {@code strict-sni} (the handshake is then refused). When several
 * certificates carry the same name the first one declared wins. Names are the certificates' DNS SANs and
 * subject CNs. {@code C} is the context type: a TCP bind's {@code SslContext}, a QUIC bind's
 * {@code QuicSslContext}. Immutable after start-up; looked up on event loops (two hash lookups at most).
 */
final class SniMapping<C> implements Mapping<String, C> {
    private final Map<String, C> exact = new HashMap<>();
    /** Keyed by the part after {@code *.}. */
    private final Map<String, C> wildcard = new HashMap<>();
    private final C fallback;
    private final boolean strict;

    SniMapping(List<CertifiedKey> certificates, List<C> contexts, boolean strict) {
        for (int i = 0; i < certificates.size(); i++) {
            for (String name : certificates.get(i).names()) {
                if (name.startsWith("*.")) {
                    wildcard.putIfAbsent(name.substring(2), contexts.get(i));
                } else if (!name.contains("*")) {
                    exact.putIfAbsent(name, contexts.get(i));
                }
            }
        }
        this.fallback = contexts.get(0);
        this.strict = strict;
    }

    /** The context for {@code hostname} (lower case, as Netty's SNI parser gives it; null when the client sent none). */
    @Override
    public C map(String hostname) {
        if (hostname != null) {
            C c = exact.get(hostname);
            if (c != null) {
                return c;
            }
            int dot = hostname.indexOf('.');
            if (dot > 0) {
                c = wildcard.get(hostname.substring(dot + 1));
                if (c != null) {
                    return c;
                }
            }
        }
        return strict ? null : fallback;
    }
}
