package dev.sluice.proxy.rules;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The proxies and servers a configuration declares, by name: what the state fetches' arguments are resolved against when
 * the rules are compiled, as HAProxy resolves them while it checks the configuration.
 */
public final class ProxyNames {
    private record Entry(boolean frontend, boolean backend, List<String> servers) {
    }

    private final Map<String, Entry> byName = new HashMap<>();

    /** Those of {@code config}. */
    public static ProxyNames of(Config config) {
        ProxyNames n = new ProxyNames();
        for (Proxy p : config.proxies()) {
            n.add(p.name(), p.kind().hasFrontend(), p.kind().hasBackend(), p.servers().stream().map(dev.sluice.config.model.Server::name).toList());
        }
        return n;
    }

    /** Declares a proxy (tests). */
    public ProxyNames add(String name, boolean frontend, boolean backend, List<String> servers) {
        byName.put(name, new Entry(frontend, backend, servers));
        return this;
    }

    /**
     * Checks {@code name} (the current proxy when null or empty) names a proxy with backend capability; throws HAProxy's
     * message otherwise. Returns the name.
     */
    String backend(String name, String keyword) {
        return proxy(name, keyword, "backend", true);
    }

    /** The same for a proxy with frontend capability. */
    String frontend(String name, String keyword) {
        return proxy(name, keyword, "frontend", false);
    }

    private String proxy(String name, String keyword, String what, boolean backend) {
        boolean given = name != null && !name.isEmpty();
        String n = given ? name : CompileScope.proxy();
        Entry e = n == null ? null : byName.get(n);
        boolean capable = e != null && (backend ? e.backend() : e.frontend());
        if (!capable && (given || e == null)) {
            throw new IllegalArgumentException("unable to find " + what + " '" + n + "' referenced in arg 1 of sample fetch keyword '" + keyword + "'");
        }
        if (!capable) {
            throw new IllegalArgumentException("proxy '" + n + "', referenced in arg 1 of sample fetch keyword '" + keyword
                    + "', has not " + what + " capability");
        }
        return n;
    }

    /** Checks {@code <backend>/<server>} (or {@code <server>} of the current proxy); returns {backend, server}. */
    String[] server(String arg, String keyword) {
        int slash = arg.indexOf('/');
        String be = slash < 0 ? CompileScope.proxy() : arg.substring(0, slash);
        String srv = slash < 0 ? arg : arg.substring(slash + 1);
        Entry e = be == null ? null : byName.get(be);
        if (e == null) {
            throw new IllegalArgumentException("unable to find proxy '" + be + "' referenced in arg 1 of sample fetch keyword '" + keyword + "'");
        }
        if (!e.servers().contains(srv)) {
            throw new IllegalArgumentException("unable to find server '" + srv + "' in proxy '" + be + "', referenced in arg 1 of sample fetch keyword '"
                    + keyword + "'");
        }
        return new String[] {be, srv};
    }
}
