package dev.sluice.config.model;

import java.util.List;
import java.util.Optional;

/** A whole parsed configuration: the global section and every frontend, backend and listen proxy. */
public record Config(Global global, List<Proxy> proxies) {
    public Config {
        proxies = List.copyOf(proxies);
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
