package dev.sluice.proxy.cache;

import dev.sluice.config.model.Cache;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.pools.Budget;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The process's caches by name, one {@link HttpCache} per {@code cache} section, and the {@code show cache} command.
 * Built once per runtime; a reload builds new (empty) ones, as HAProxy's new process starts with an empty cache.
 * Thread-safe.
 */
public final class Caches {
    private final Map<String, HttpCache> byName = new LinkedHashMap<>();

    /** @param blocks the budget every cache's blocks are counted in, or null */
    public Caches(List<Cache> caches, Budget blocks) {
        for (Cache c : caches) {
            byName.put(c.name(), new HttpCache(c, blocks));
        }
    }

    /** The cache of that name, or null. */
    public HttpCache get(String name) {
        return byName.get(name);
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    /** {@code show cache}: each cache's lines (admin level; below it "Permission denied", though {@code help} lists it, as HAProxy 2.6). */
    public String show() {
        StringBuilder sb = new StringBuilder();
        for (HttpCache c : byName.values()) {
            for (String line : c.show()) {
                sb.append(line).append('\n');
            }
        }
        return sb.toString();
    }

    public void register(CliRegistry r) {
        r.register(new CliCommand(List.of("show", "cache"), Level.USER, "show cache", "show cache status",
                req -> req.allowed(Level.ADMIN) ? show() : CliRequest.PERMISSION_DENIED));
    }
}
