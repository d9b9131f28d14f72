package dev.sluice.config;

import dev.sluice.config.model.Cache;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * The {@code cache} section ({@code total-max-size}, {@code max-object-size}, {@code max-age}, {@code process-vary},
 * {@code max-secondary-entries}), the {@code filter cache <name>} declaration and the checks HAProxy 2.6 makes of the
 * filters of a proxy once everything is read (src/cache.c, src/flt_http_comp.c), in its words.
 */
final class CacheKeywords {
    private CacheKeywords() {
    }

    /** HAProxy keeps 32 characters of a cache's name. */
    private static final int NAME_MAX = 32;
    private static final long MAX_MEGABYTES = 0xFFFFFFFFL >> 20;

    /** A {@code cache} section while it is parsed. */
    static final class Builder {
        final SourceRef where;
        final String name;
        long maxBlocks;
        long maxObjectSize;
        int maxAge = 60;
        boolean processVary;
        int maxSecondaryEntries = 10;

        Builder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
        }
    }

    /**
     * A filter of a proxy in declaration order: {@code compression}, or a cache ({@code cache} names it); an implicit
     * one is what a {@code cache-use}/{@code cache-store} rule declares when no {@code filter cache} line did.
     */
    record Filter(SourceRef where, String cache, boolean implicit) {
        boolean compression() {
            return cache == null;
        }
    }

    static void register(KeywordRegistry r) {
        EnumSet<Section> cache = EnumSet.of(Section.CACHE);
        r.register(new Keyword("total-max-size", cache, "total-max-size <megabytes>",
                "The cache's memory in megabytes (1 to 4095), counted in 1 kB blocks; mandatory. When full, the oldest objects make room.",
                CacheKeywords::totalMaxSize));
        r.register(new Keyword("max-object-size", cache, "max-object-size <bytes>",
                "The largest object kept (head and body), at most half the cache; by default a 256th of total-max-size.",
                CacheKeywords::maxObjectSize));
        r.register(new Keyword("max-age", cache, "max-age <seconds>",
                "The longest an object is kept (default 60): the shortest of this and the response's s-maxage, max-age or Expires.",
                c -> {
                    if (c.atMost(1)) {
                        if (c.args().isEmpty()) {
                            c.lineWarning("'max-age' expects an age parameter in seconds.");
                        }
                        cacheOf(c).maxAge = atoi(c.args().isEmpty() ? "" : c.args().get(0));
                    }
                }));
        r.register(new Keyword("process-vary", cache, "process-vary on|off",
                "on: keep responses with a Vary on accept-encoding and/or referer, one variant per request's value (off, the default:"
                        + " responses with a Vary field are not kept).",
                CacheKeywords::processVary));
        r.register(new Keyword("max-secondary-entries", cache, "max-secondary-entries <number>",
                "How many variants of one URL (Vary) the cache keeps at once (default 10).", CacheKeywords::maxSecondaryEntries));
        r.register(new Keyword("filter cache", EnumSet.of(Section.FRONTEND, Section.LISTEN, Section.BACKEND), "filter cache <name>",
                "Declare the cache filter of the cache <name> explicitly (the cache-use and cache-store rules declare it otherwise);"
                        + " its place among the filters matters: the compression filter must come after it.",
                CacheKeywords::filter));
    }

    private static Builder cacheOf(KeywordContext c) {
        return c.currentCache();
    }

    /** The digits {@code atoi} reads at the start of {@code s} (0 when none). */
    private static int atoi(String s) {
        int i = 0;
        boolean neg = s.startsWith("-");
        int from = neg || s.startsWith("+") ? 1 : 0;
        i = from;
        while (i < s.length() && i < from + 9 && Character.isDigit(s.charAt(i))) {
            i++;
        }
        int v = i == from ? 0 : Integer.parseInt(s.substring(from, i));
        return neg ? -v : v;
    }

    /** strtoul of the whole word, or -1 when it is not all digits (HAProxy's "wrong value"). */
    private static long strtoul(String s) {
        if (s.isEmpty() || !s.chars().allMatch(Character::isDigit) || s.length() > 18) {
            return s.length() > 18 && s.chars().allMatch(Character::isDigit) ? Long.MAX_VALUE : -1;
        }
        return Long.parseLong(s);
    }

    private static void totalMaxSize(KeywordContext c) {
        if (!c.atMost(1)) {
            return;
        }
        String v = c.args().isEmpty() ? "" : c.args().get(0);
        long mb = strtoul(v);
        if (mb < 0) {
            c.lineError("total-max-size wrong value '" + v + "'");
            return;
        }
        if (mb > MAX_MEGABYTES) {
            c.lineError("\"total-max-size\" (" + v + ") must not be greater than " + MAX_MEGABYTES);
            return;
        }
        cacheOf(c).maxBlocks = mb * 1024 * 1024 / Cache.BLOCK_SIZE;
    }

    private static void maxObjectSize(KeywordContext c) {
        if (!c.atMost(1)) {
            return;
        }
        if (c.args().isEmpty()) {
            c.lineWarning("'max-object-size' expects a maximum file size parameter in bytes.");
        }
        String v = c.args().isEmpty() ? "" : c.args().get(0);
        long n = strtoul(v);
        if (n < 0 || n > 0xFFFFFFFFL) {
            c.lineError("max-object-size wrong value '" + v + "'");
            return;
        }
        cacheOf(c).maxObjectSize = n;
    }

    private static void processVary(KeywordContext c) {
        if (!c.atMost(1)) {
            return;
        }
        String v = c.args().isEmpty() ? "" : c.args().get(0);
        switch (v) {
            case "on" -> cacheOf(c).processVary = true;
            case "off" -> cacheOf(c).processVary = false;
            default -> c.lineWarning("'process-vary' expects \"on\" or \"off\" (enable or disable vary processing).");
        }
    }

    private static void maxSecondaryEntries(KeywordContext c) {
        if (!c.atMost(1)) {
            return;
        }
        if (c.args().isEmpty()) {
            c.lineWarning("'max-secondary-entries' expects a strictly positive number.");
        }
        String v = c.args().isEmpty() ? "" : c.args().get(0);
        long n = strtoul(v);
        if (n <= 0 || n > Integer.MAX_VALUE) {
            c.lineError("max-secondary-entries wrong value '" + v + "'");
            return;
        }
        cacheOf(c).maxSecondaryEntries = (int) n;
    }

    // ---------------------------------------------------------------- section header and end

    /** The {@code cache <name>} line: a new builder, or null (reported) when the line is wrong. */
    static Builder header(SourceRef at, List<String> words, Map<String, Builder> done, Diagnostics diags) {
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "'cache' expects a <name> argument");
            return null;
        }
        if (words.size() > 2) {
            diags.error(at, "'cache' cannot handle unexpected argument '" + words.get(2) + "'.");
            return null;
        }
        String name = words.get(1);
        if (name.length() > NAME_MAX) {
            name = name.substring(0, NAME_MAX);
            diags.warning(at, "cache name is limited to 32 characters, truncate to '" + name + "'.");
        }
        if (done.containsKey(name)) {
            diags.error(at, "Duplicate cache name '" + name + "'.");
            return null;
        }
        return new Builder(at, name);
    }

    /** The end of a cache section: the cache it declares, or null after reporting why there is none. */
    static Cache end(Builder b, Diagnostics diags) {
        if (b.maxBlocks <= 0) {
            diags.error(b.where, "Size not specified for cache '" + b.name + "'");
            return null;
        }
        long objectSize = b.maxObjectSize;
        if (objectSize == 0) {
            objectSize = b.maxBlocks * Cache.BLOCK_SIZE >> 8;
        } else if (objectSize > b.maxBlocks * Cache.BLOCK_SIZE / 2) {
            diags.error(b.where, "\"max-object-size\" is limited to an half of \"total-max-size\" => " + b.maxBlocks * Cache.BLOCK_SIZE / 2);
            return null;
        }
        return new Cache(b.where, b.name, b.maxBlocks, objectSize, b.maxAge, b.processVary, b.maxSecondaryEntries);
    }

    // ---------------------------------------------------------------- filters

    private static void filter(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.lineError("'filter' : 'cache : expects a <name> argument'");
            return;
        }
        if (a.size() > 1) {
            c.lineError("'filter cache' : unknown keyword '" + a.get(1) + "'.");
            return;
        }
        ProxyBuilder p = c.proxy();
        String name = a.get(0);
        int implicit = -1;
        for (int i = 0; i < p.filters.size(); i++) {
            Filter f = p.filters.get(i);
            if (name.equals(f.cache())) {
                if (!f.implicit()) {
                    c.lineError("'filter' : '" + p.name + ": multiple explicit declarations of the cache filter '" + name + "''");
                    return;
                }
                implicit = i;
            }
        }
        if (implicit >= 0) {
            p.filters.remove(implicit);
        }
        p.filters.add(new Filter(c.at(), name, false));
    }

    /** A {@code cache-use} or {@code cache-store} rule names the cache: its filter is declared unless one is already. */
    static void ruleNames(KeywordContext c, String name) {
        ProxyBuilder p = c.proxy();
        for (Filter f : p.filters) {
            if (name.equals(f.cache())) {
                return;
            }
        }
        p.filters.add(new Filter(c.at(), name, true));
    }

    /** {@code filter compression}: its place among the filters. */
    static void compressionFilter(ProxyBuilder p, SourceRef at) {
        p.filters.add(new Filter(at, null, false));
    }

    /**
     * HAProxy's checks of a proxy's filters once all is read: every cache filter names a declared cache, and no
     * compression filter comes before a cache filter (the compression filter's own check, when the proxy compresses,
     * then the cache's).
     */
    static void check(ProxyBuilder p, Map<String, Cache> caches, Diagnostics diags) {
        if (p.filters.isEmpty()) {
            return;
        }
        String named = TcpRuleKeywords.typeOf(p.section) + " '" + p.name + "'";
        boolean compresses = !p.compAlgos.isEmpty() || !p.compTypes.isEmpty() || p.compOffload;
        if (compresses) {
            boolean comp = false;
            for (Filter f : p.filters) {
                if (f.compression()) {
                    comp = true;
                } else if (comp) {
                    diags.error(f.where(), named + ": unable to enable the compression filter before any cache filter.");
                    break;
                }
            }
        }
        boolean comp = false;
        for (Filter f : p.filters) {
            if (f.compression()) {
                comp = true;
                continue;
            }
            if (!caches.containsKey(f.cache())) {
                diags.error(f.where(), named + ": unable to find the cache '" + f.cache() + "' referenced by the filter 'cache'.");
            } else if (comp) {
                diags.error(f.where(), named + ": unable to enable the compression filter before the cache '" + f.cache() + "'.");
            }
        }
    }
}
