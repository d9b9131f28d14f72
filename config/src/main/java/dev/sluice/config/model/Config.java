package dev.sluice.config.model;

import java.util.List;
import java.util.Optional;

/**
 * A whole parsed configuration: the global section, every frontend, backend and listen proxy, and the
 * userlists, caches, {@code resolvers} sections (the implicit {@code default} one included) and peers sections (every
 * one read, the disabled and incomplete ones too: their tables exist), the {@code ring} and {@code log-forward} sections,
 * the {@code program} sections (which the master of master-worker mode runs).
 */
public record Config(Global global, List<Proxy> proxies, List<Userlist> userlists, List<Cache> caches, List<Resolvers> resolvers,
        List<Peers> peers, List<Ring> rings, List<LogForward> logForwards, List<Program> programs) {
    public Config {
        programs = List.copyOf(programs);
        rings = List.copyOf(rings);
        logForwards = List.copyOf(logForwards);
        proxies = List.copyOf(proxies);
        userlists = List.copyOf(userlists);
        caches = List.copyOf(caches);
        resolvers = List.copyOf(resolvers);
        peers = List.copyOf(peers);
    }

    public Config(Global global, List<Proxy> proxies, List<Userlist> userlists, List<Cache> caches, List<Resolvers> resolvers,
            List<Peers> peers, List<Ring> rings, List<LogForward> logForwards) {
        this(global, proxies, userlists, caches, resolvers, peers, rings, logForwards, List.of());
    }

    public Config(Global global, List<Proxy> proxies, List<Userlist> userlists, List<Cache> caches, List<Resolvers> resolvers,
            List<Peers> peers) {
        this(global, proxies, userlists, caches, resolvers, peers, List.of(), List.of());
    }

    public Config(Global global, List<Proxy> proxies, List<Userlist> userlists, List<Cache> caches) {
        this(global, proxies, userlists, caches, List.of(), List.of());
    }

    /** The same configuration with other proxies. */
    public Config withProxies(List<Proxy> p) {
        return new Config(global, p, userlists, caches, resolvers, peers, rings, logForwards, programs);
    }

    public Optional<Resolvers> resolvers(String name) {
        for (Resolvers r : resolvers) {
            if (r.name().equals(name)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    public Optional<Peers> peersSection(String name) {
        for (Peers p : peers) {
            if (p.name().equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    public Config(Global global, List<Proxy> proxies, List<Userlist> userlists) {
        this(global, proxies, userlists, List.of());
    }

    public Config(Global global, List<Proxy> proxies) {
        this(global, proxies, List.of(), List.of());
    }

    public Optional<Cache> cache(String name) {
        for (Cache c : caches) {
            if (c.name().equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    public Optional<Userlist> userlist(String name) {
        for (Userlist u : userlists) {
            if (u.name().equals(name)) {
                return Optional.of(u);
            }
        }
        return Optional.empty();
    }

    public Optional<Proxy> proxy(String name) {
        for (Proxy p : proxies) {
            if (p.name().equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Proxies that accept connections: frontends and listens. */
    public List<Proxy> frontends() {
        return proxies.stream().filter(p -> p.kind().hasFrontend()).toList();
    }

    /** Proxies that forward to servers: backends and listens. */
    public List<Proxy> backends() {
        return proxies.stream().filter(p -> p.kind().hasBackend()).toList();
    }
}
