package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.rules.Cond;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.stream.Frontend;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Parts of {@link ProxyRuntime}'s assembly that read the whole configuration: backends' fullconn, stats pages. */
final class Assembly {
    private Assembly() {
    }

    /** The stats pages: a frontend's or listen's is checked after its rules, a backend's after the backend's. */
    static void statsPages(ProxyRuntime rt, Config config, Map<String, Frontend> frontends, Map<String, Backend> backends,
            StickTables stickTables) {
        for (Proxy p : config.proxies()) {
            if (!p.stats().enabled()) {
                continue;
            }
            List<Cond> admin = ProxyRules.conditions(p, p.stats().admin(), "stats admin", new ArrayList<>(), stickTables);
            List<Cond> access = new ArrayList<>();
            for (dev.sluice.config.model.StatsPage.Rule r : p.stats().rules()) {
                access.add(r.condition() == null ? null
                        : ProxyRules.conditions(p, List.of(r.condition()), "stats http-request", new ArrayList<>(), stickTables).get(0));
            }
            StatsPage page = new StatsPage(rt, p, admin, access);
            Frontend fe = frontends.get(p.name());
            if (fe != null) {
                fe.statsPage(page);
            } else if (backends.get(p.name()) != null) {
                backends.get(p.name()).statsPage(page);
            }
        }
    }

    /**
     * A backend's {@code fullconn} ({@code slim}): the configured one, else HAProxy's default, a tenth of the maxconn of the
     * frontends whose default_backend or use_backend rules name it (a listen counts for itself), rounded up.
     */
    static void fullconn(Config config, Map<String, Frontend> frontends, Map<String, Backend> backends) {
        Map<String, Long> total = new HashMap<>();
        for (Proxy p : config.frontends()) {
            Set<String> targets = new HashSet<>();
            if (p.defaultBackend() != null) {
                targets.add(p.defaultBackend());
            } else if (p.kind() == ProxyKind.LISTEN) {
                targets.add(p.name());
            }
            for (var u : p.useBackends()) {
                targets.add(u.backend());
            }
            long max = frontends.get(p.name()).limit().max();
            for (String t : targets) {
                total.merge(t, max, Long::sum);
            }
        }
        for (Backend be : backends.values()) {
            int configured = be.config().options().fullconn();
            be.fullconn(configured > 0 ? configured : (int) Math.min(Integer.MAX_VALUE, (total.getOrDefault(be.name(), 0L) + 9) / 10));
        }
    }
}
