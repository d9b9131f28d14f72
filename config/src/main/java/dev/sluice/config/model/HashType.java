package dev.sluice.config.model;

import java.util.Locale;

/**
 * {@code hash-type <method> [<function>] [avalanche]}: how the hash-based algorithms turn a hash into a
 * server. HAProxy's defaults: map-based with sdbm; consistent without a function is sdbm with avalanche.
 */
public record HashType(Method method, Function function, boolean avalanche) {

    public static final HashType DEFAULT = new HashType(Method.MAP_BASED, Function.SDBM, false);

    public enum Method {
        /** A table of the usable servers, each repeated by its weight: {@code table[hash % total weight]}. */
        MAP_BASED("map-based"),
        /** A ring with many points per server: the closest point to the hash. */
        CONSISTENT("consistent");

        private final String keyword;

        Method(String keyword) {
            this.keyword = keyword;
        }

        public String keyword() {
            return keyword;
        }
    }

    public enum Function {
        SDBM, DJB2, WT6, CRC32,
        /** The key is a decimal number used as the hash (HAProxy 2.7+). */
        NONE;

        public String keyword() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
