package dev.sluice.proxy.dns;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Resolvers;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.metrics.MetricSink;
import dev.sluice.proxy.transport.Transport;
import dev.sluice.proxy.transport.Workers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * DNS at run time: one {@link ResolverSection} per {@code resolvers} section (the implicit {@code default} one last, as
 * HAProxy lists it), spread over the event loops, each given the servers that name it; {@code show resolvers [<id>]}
 * and the Prometheus counters. Built with the runtime, started with the listeners, stopped with them.
 */
public final class DnsRuntime {
    private final Map<String, ResolverSection> sections = new LinkedHashMap<>();

    /**
     * @param moved what follows a server's change of address (the path of {@code set server ... addr}: its idle
     *        connections to the old address are closed on every loop)
     */
    public DnsRuntime(Config config, Collection<Backend> backends, Workers workers, Transport transport, Consumer<Server> moved) {
        List<Resolvers> ordered = new ArrayList<>();
        for (Resolvers r : config.resolvers()) {
            if (!r.implicit()) {
                ordered.add(r);
            }
        }
        for (Resolvers r : config.resolvers()) {
            if (r.implicit()) {
                ordered.add(r);
            }
        }
        int i = 0;
        for (Resolvers r : ordered) {
            sections.put(r.name(), new ResolverSection(r, workers.loop(i++ % workers.count()), transport, moved));
        }
        for (Backend be : backends) {
            for (Server s : be.servers()) {
                ResolverSection sec = s.config().dns().resolvers() == null ? null : sections.get(s.config().dns().resolvers());
                if (sec != null) {
                    if (s.config().resolves()) {
                        sec.add(s, s.config().dns());
                    }
                    s.renamer(sec::rename);
                }
            }
        }
    }

    /** The sections, in {@code show resolvers} order. */
    public Collection<ResolverSection> sections() {
        return sections.values();
    }

    public void start() {
        for (ResolverSection s : sections.values()) {
            s.start();
        }
    }

    public void stop() {
        for (ResolverSection s : sections.values()) {
            s.stop();
        }
    }

    /** {@code show resolvers [<id>]}, HAProxy 2.6's output. */
    public String show(String id) {
        StringBuilder out = new StringBuilder();
        if (sections.isEmpty()) {
            return "No resolvers found\n";
        }
        if (!id.isEmpty()) {
            ResolverSection s = sections.get(id);
            if (s == null) {
                return "Can't find that resolvers section\n";
            }
            s.dump(out);
            return out.toString();
        }
        for (ResolverSection s : sections.values()) {
            s.dump(out);
        }
        return out.toString();
    }

    public void register(CliRegistry r) {
        r.register(new CliCommand(List.of("show", "resolvers"), Level.USER, "show resolvers [id]",
                "dumps counters from all resolvers section and associated name servers", req -> show(req.arg(2))));
    }

    /** Each name server's counters: {@code sluice_resolver_<counter>_total{resolver, nameserver}}. */
    public void collect(MetricSink m) {
        for (ResolverSection s : sections.values()) {
            for (Nameserver ns : s.nameservers()) {
                long[] v = ns.values();
                for (int i = 0; i < v.length; i++) {
                    m.counter("sluice_resolver_" + Nameserver.NAMES[i] + "_total", "DNS answers and queries of this name server, as 'show"
                            + " resolvers' counts them (" + Nameserver.NAMES[i] + ").", v[i], "resolver", s.name(), "nameserver", ns.id);
                }
            }
        }
    }
}
