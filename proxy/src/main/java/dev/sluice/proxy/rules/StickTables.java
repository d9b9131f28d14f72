package dev.sluice.proxy.rules;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.sticktable.KeyType;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;
import dev.sluice.sticktable.StickTableConfigException;
import dev.sluice.sticktable.StickTableSpec;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stick tables of a configuration, one per proxy that declares one, by proxy name. Rules compiled
 * for a proxy resolve table names here once, at compile time (see {@link #compiling}).
 */
public final class StickTables {
    private final Map<String, StickTable> byName = new LinkedHashMap<>();

    /** The configuration's proxy and server names, for the state fetches' arguments; null: not checked. */
    private ProxyNames names;

    /** No tables. */
    public StickTables() {
    }

    /** Parses every proxy's {@code stick-table}; each problem goes to {@code problems} as "file:line: error: ...". */
    public static StickTables of(Config config, List<String> problems) {
        return of(config, problems, null);
    }

    /**
     * As {@link #of(Config, List)}, each table accounting its entries in the memory {@code memory} gives for
     * its entry size (the proxy's pools, under {@code -m}); null for none.
     */
    public static StickTables of(Config config, List<String> problems, java.util.function.IntFunction<dev.sluice.sticktable.EntryMemory> memory) {
        return of(config, problems, memory, null);
    }

    /**
     * As {@link #of(Config, List, java.util.function.IntFunction)}, for an in-process reload: a table of
     * {@code previous} with the same name and definition is kept, entries and all; a changed one starts empty, with a
     * warning in {@code problems}.
     */
    public static StickTables of(Config config, List<String> problems, java.util.function.IntFunction<dev.sluice.sticktable.EntryMemory> memory,
            StickTables previous) {
        // tables that stick rules use keep the server of each key, as HAProxy adds server_id/server_key to them
        java.util.Set<String> sticky = new java.util.HashSet<>();
        for (Proxy p : config.proxies()) {
            for (dev.sluice.config.model.StickRule r : p.stickRules()) {
                sticky.add(r.table() != null ? r.table() : p.name());
            }
        }
        StickTables t = new StickTables();
        t.names = ProxyNames.of(config);
        for (Proxy p : config.proxies()) {
            if (p.stickTable() == null) {
                continue;
            }
            try {
                StickTableSpec spec = StickTableSpec.parse(p.stickTable().args(),
                        w -> problems.add(p.stickTable().where() + ": warning: 'stick-table' : " + w + "."));
                if (spec.peers() != null && !config.peersSection(spec.peers()).map(dev.sluice.config.model.Peers::active).orElse(false)) {
                    spec = spec.withPeers(null); // a disabled or incomplete section does not replicate, as in HAProxy
                }
                if (sticky.contains(p.name()) && !spec.store().has(dev.sluice.sticktable.DataType.SERVER_ID)) {
                    spec = spec.withStore(spec.store().plus("server_id,server_key", null));
                }
                dev.sluice.sticktable.TableOptions options = dev.sluice.sticktable.TableOptions.DEFAULT;
                if (memory != null) {
                    dev.sluice.sticktable.DataLayout layout = new dev.sluice.sticktable.DataLayout(spec.store());
                    options = options.withMemory(memory.apply(dev.sluice.sticktable.EntryMemory.entrySize(layout, spec.keyLength())));
                }
                t.byName.put(p.name(), kept(previous, p.name(), spec, options, p.stickTable().where(), problems));
            } catch (StickTableConfigException e) {
                problems.add(p.stickTable().where() + ": error: 'stick-table' : " + e.getMessage() + ".");
            }
        }
        // the tables of peers sections, named <section>/<table>, replicated in their section
        for (dev.sluice.config.model.Peers ps : config.peers()) {
            for (dev.sluice.config.model.Peers.PeersTable pt : ps.tables()) {
                try {
                    StickTableSpec spec = StickTableSpec.parse(pt.decl().args(),
                            w -> problems.add(pt.where() + ": warning: 'table' : " + w + ".")).withPeers(ps.active() ? ps.name() : null);
                    if (sticky.contains(pt.fullName()) && !spec.store().has(dev.sluice.sticktable.DataType.SERVER_ID)) {
                        spec = spec.withStore(spec.store().plus("server_id,server_key", null));
                    }
                    dev.sluice.sticktable.TableOptions options = dev.sluice.sticktable.TableOptions.DEFAULT;
                    if (memory != null) {
                        dev.sluice.sticktable.DataLayout layout = new dev.sluice.sticktable.DataLayout(spec.store());
                        options = options.withMemory(memory.apply(dev.sluice.sticktable.EntryMemory.entrySize(layout, spec.keyLength())));
                    }
                    t.byName.put(pt.fullName(), kept(previous, pt.fullName(), spec, options, pt.where(), problems));
                } catch (StickTableConfigException e) {
                    problems.add(pt.where() + ": error: 'table' : " + e.getMessage() + ".");
                }
            }
        }
        return t;
    }

    /** The table of {@code previous} named {@code name} when its definition is {@code spec}, else a new one. */
    private static StickTable kept(StickTables previous, String name, StickTableSpec spec, dev.sluice.sticktable.TableOptions options,
            Object where, List<String> problems) {
        StickTable old = previous == null ? null : previous.get(name);
        if (old != null && old.spec().equals(spec)) {
            return old;
        }
        if (old != null) {
            problems.add(where + ": warning: stick-table '" + name + "' changed on reload: it starts empty (" + old.size()
                    + " entries dropped).");
        }
        return new StickTable(name, spec, options);
    }

    /** Adds a table under its own name (tests build tables without a configuration). */
    StickTables add(StickTable table) {
        byName.put(table.name(), table);
        return this;
    }

    public StickTable get(String name) {
        return byName.get(name);
    }

    public Iterable<StickTable> all() {
        return byName.values();
    }

    /** The key of a sample in {@code table}, cast as HAProxy casts samples; null when it cannot be one. */
    public static StickKey keyOf(StickTable table, Object sample) {
        if (sample == null) {
            return null;
        }
        KeyType type = table.keyType();
        try {
            return switch (type) {
                case IP, IPV6 -> {
                    InetAddress a = Samples.ip(sample);
                    yield a == null ? null : table.keyOfAddress(a);
                }
                case INTEGER -> {
                    Long v = Samples.integer(sample);
                    yield v == null ? null : table.keyOfInteger(v);
                }
                case STRING -> sample instanceof byte[] b ? table.keyOfBytes(b) : table.keyOfString(Samples.str(sample));
                case BINARY -> table.keyOfBytes(Samples.bytes(sample));
            };
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The configuration's proxy and server names, or null when these tables were not made from a configuration. */
    public ProxyNames names() {
        return names;
    }

    /** Sets them (tests). */
    public StickTables names(ProxyNames n) {
        names = n;
        return this;
    }

    /** Runs {@code body} with {@code tables} and {@code proxy}'s table visible to the sample compilers. */
    static <T> T compiling(StickTables tables, String proxy, java.util.function.Supplier<T> body) {
        return CompileScope.in(tables, proxy, null, body);
    }

    /**
     * The table named {@code name} (the current proxy's own table when null), for a sample compiler;
     * throws HAProxy's message when there is none.
     */
    static StickTable resolve(String name) {
        StickTables tables = CompileScope.tables();
        String n = name != null && !name.isEmpty() ? name : CompileScope.proxy();
        StickTable t = tables == null || n == null ? null : tables.get(n);
        if (t == null) {
            throw new IllegalArgumentException(name != null && !name.isEmpty() ? "unable to find table '" + name + "'"
                    : "no table in proxy '" + n + "'");
        }
        return t;
    }
}
