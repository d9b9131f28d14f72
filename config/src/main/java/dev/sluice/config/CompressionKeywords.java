package dev.sluice.config;

import dev.sluice.config.model.Compression;
import java.util.EnumSet;
import java.util.List;

/**
 * {@code compression algo <algo>...}, {@code compression type <type>...}, {@code compression offload}, and the
 * declaration of the compression filter ({@code filter compression}); HAProxy 2.6's words.
 */
final class CompressionKeywords {
    private CompressionKeywords() {
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("compression", Section.PROXIES, "compression algo <algo>... | type <mime type>... | offload",
                "Compress responses for clients that accept it (Accept-Encoding, best q-value first): algo gzip, deflate,"
                        + " raw-deflate or identity (lines add up); type: only Content-Types starting with one of these (any case);"
                        + " offload: remove Accept-Encoding from requests so that servers never compress. Only 200-203 responses"
                        + " with a body, to HTTP/1.1 or later requests other than HEAD, without Content-Encoding, Cache-Control"
                        + " no-transform or a multipart type, are compressed (zlib level 1, flushed as data arrives); the backend's"
                        + " settings win over the frontend's, as in HAProxy.",
                CompressionKeywords::compression));
        // filter cache is CacheKeywords'; the others (spoe, trace, bwlim-*, fcgi-app) are Unsupported's "filter"
        r.family("filter", "filter");
        r.register(new Keyword("filter compression", EnumSet.of(Section.FRONTEND, Section.LISTEN, Section.BACKEND), "filter compression",
                "Declare the compression filter. Compression being the only filter, the 'compression' keywords are enough, as in"
                        + " HAProxy when no other filter is declared: this line changes nothing (once per proxy).",
                CompressionKeywords::filter));
    }

    private static void filter(KeywordContext c) {
        if (!c.expectArgs(0, 0, "filter compression")) {
            return;
        }
        if (c.proxy().compressionFilter) {
            c.error("'" + c.proxy().name + "': Proxy supports only one compression filter");
            return;
        }
        c.proxy().compressionFilter = true;
        CacheKeywords.compressionFilter(c.proxy(), c.at());
    }

    private static void compression(KeywordContext c) {
        List<String> a = c.args();
        ProxyBuilder p = c.proxy();
        String what = a.isEmpty() ? "" : a.get(0);
        switch (what) {
            case "algo" -> {
                if (a.size() < 2) {
                    c.error("expects <algorithm>");
                    return;
                }
                for (String algo : a.subList(1, a.size())) {
                    if (!Compression.ALGOS.contains(algo)) {
                        c.error("'" + algo + "' is not a supported algorithm.");
                        return;
                    }
                }
                for (String algo : a.subList(1, a.size())) {
                    if (!p.compAlgos.contains(algo)) {
                        p.compAlgos.add(algo);
                    }
                }
            }
            case "type" -> {
                if (a.size() < 2) {
                    c.error("expects <type>");
                    return;
                }
                p.compTypes.addAll(a.subList(1, a.size()));
            }
            case "offload" -> {
                if (!c.expectArgs(1, 1, "compression offload")) {
                    return;
                }
                p.compOffload = true;
            }
            default -> c.error("expects 'algo', 'type' or 'offload'");
        }
    }
}
