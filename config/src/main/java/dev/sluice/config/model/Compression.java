package dev.sluice.config.model;

import java.util.List;

/**
 * A proxy's HTTP response compression ({@code compression algo|type|offload}): the algorithms offered, in their
 * configured order ({@code identity}, {@code gzip}, {@code deflate}, {@code raw-deflate}), the content types compressed
 * (prefixes of the Content-Type value, any case; empty: every type) and whether the request's Accept-Encoding is
 * removed before it goes to the server ({@code offload}); {@code level} is the zlib level, the global
 * {@code tune.comp.maxlevel} (HAProxy's default 1).
 */
public record Compression(List<String> algos, List<String> types, boolean offload, int level) {

    public Compression(List<String> algos, List<String> types, boolean offload) {
        this(algos, types, offload, Tune.DEFAULT_COMP_LEVEL);
    }

    /** The algorithms Sluice implements, by HAProxy's configuration name. */
    public static final List<String> ALGOS = List.of("identity", "gzip", "deflate", "raw-deflate");

    public Compression {
        algos = List.copyOf(algos);
        types = List.copyOf(types);
    }
}
