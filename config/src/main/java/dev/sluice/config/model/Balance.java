package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * How a backend picks a server: {@code balance <algorithm> [<arguments>]} with the options of its
 * algorithm, {@code hash-type} and {@code option allbackups}. {@code argument} is the parameter name of
 * {@code url_param}, the lower-case header name of {@code hdr()}, the sample expression of
 * {@code hash} and the cookie name of {@code rdp-cookie}, null otherwise. {@code uriLen} and {@code uriDepth} are 0 when not limited. {@code where}
 * is the {@code balance} line, null for the default.
 */
public record Balance(Algorithm algorithm, String argument, int uriLen, int uriDepth, boolean uriWhole, boolean uriPathOnly,
        boolean checkPost, boolean domainOnly, int draws, HashType hashType, boolean allBackups, SourceRef where) {

    /** HAProxy's number of draws for a bare {@code balance random}. */
    public static final int DEFAULT_DRAWS = 2;

    public static final Balance DEFAULT = of(Algorithm.ROUNDROBIN, null);

    /** An algorithm without options, with the default hashing and without allbackups. */
    public static Balance of(Algorithm algorithm, SourceRef where) {
        return new Balance(algorithm, null, 0, 0, false, false, false, false, DEFAULT_DRAWS, HashType.DEFAULT, false, where);
    }

    /** The same algorithm with {@code hash-type} and {@code option allbackups} as given. */
    public Balance with(HashType type, boolean allBackups) {
        return new Balance(algorithm, argument, uriLen, uriDepth, uriWhole, uriPathOnly, checkPost, domainOnly, draws, type, allBackups,
                where);
    }

    /** The load-balancing algorithms, by their configuration name. */
    public enum Algorithm {
        ROUNDROBIN("roundrobin", false),
        STATIC_RR("static-rr", false),
        LEASTCONN("leastconn", false),
        FIRST("first", false),
        SOURCE("source", true),
        URI("uri", true),
        URL_PARAM("url_param", true),
        HDR("hdr", true),
        RANDOM("random", false),
        HASH("hash", true),
        RDP_COOKIE("rdp-cookie", true);

        private final String keyword;
        private final boolean hashed;

        Algorithm(String keyword, boolean hashed) {
            this.keyword = keyword;
            this.hashed = hashed;
        }

        public String keyword() {
            return keyword;
        }

        /** Whether the algorithm hashes a part of the request (and so follows {@code hash-type}). */
        public boolean hashed() {
            return hashed;
        }
    }
}
