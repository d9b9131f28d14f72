package dev.sluice.config.model;

import java.util.List;

/** {@code balance <algorithm> [<arguments>]}: how a backend picks a server. */
public record Balance(Algorithm algorithm, List<String> args) {

    public static final Balance DEFAULT = new Balance(Algorithm.ROUNDROBIN, List.of());

    public Balance {
        args = List.copyOf(args);
    }

    /** The load-balancing algorithms, by their configuration name. */
    public enum Algorithm {
        ROUNDROBIN("roundrobin");

        private final String keyword;

        Algorithm(String keyword) {
            this.keyword = keyword;
        }

        public String keyword() {
            return keyword;
        }
    }
}
