package dev.sluice.proxy.backend;

import dev.sluice.config.Addresses;
import dev.sluice.config.ConfigParser;
import dev.sluice.config.Diagnostic;
import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.model.StatsSocket.Level;
import dev.sluice.proxy.admin.CliCommand;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * {@code add server} and {@code del server}, HAProxy's dynamic servers. A new server line is parsed by the
 * configuration parser itself (the same keywords, checks and messages as in a file), must give an IP
 * address (no name is resolved at run time: that would block an event loop), may not use TLS (contexts are
 * built at start-up), and starts in maintenance, as in HAProxy. A server can be deleted once in maintenance
 * with no stream on it; its idle connections close on their own timer. Both only on backends whose
 * algorithm can change its server list ({@link Backend#dynamicAlgorithm}). HAProxy 2.6 prints two errors of
 * {@code add server} (a bad name, an unknown backend) and every answer of {@code del server} without the empty
 * line that ends other answers; so does Sluice.
 */
final class DynamicServers {
    private DynamicServers() {
    }

    static void register(CliRegistry r, Collection<Backend> backends) {
        r.register(new CliCommand(List.of("add", "server"), Level.ADMIN, "add server <bk>/<srv>",
                "create a new server", req -> add(backends, req)));
        r.register(new CliCommand(List.of("del", "server"), Level.ADMIN, "del server <bk>/<srv>",
                "remove a dynamically added server", req -> delete(backends, req)));
    }

    private static String add(Collection<Backend> backends, CliRequest req) {
        String arg = req.arg(2);
        int slash = arg.indexOf('/');
        if (slash <= 0 || slash == arg.length() - 1) {
            req.noSeparator();
            return "Require 'backend/server'.\n";
        }
        Backend be = ServerCommands.backend(backends, arg.substring(0, slash));
        if (be == null) {
            req.noSeparator();
            return "No such backend.\n";
        }
        if (!be.dynamicAlgorithm()) {
            return "Backend must use a dynamic load balancing to support dynamic servers.\n";
        }
        String name = arg.substring(slash + 1);
        if (req.arg(3).isEmpty()) {
            return "'server' expects <name> and <addr>[:<port>] as arguments.\n";
        }
        if (be.server(name) != null) {
            return "Already exists a server with the same name in backend.\n";
        }
        StringBuilder line = new StringBuilder("backend b\n    mode http\n    server ").append(quote(name));
        for (int i = 3; i < req.args().size(); i++) {
            line.append(' ').append(quote(req.arg(i)));
        }
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(), new ConfigParser.Settings(k -> null, Set.of(), "2.6"))
                .parse(List.of(new ConfigParser.Source("cli", line.append('\n').toString())));
        for (Diagnostic d : r.diagnostics()) {
            if (d.isError()) {
                return message(d.message(), name) + "\n";
            }
        }
        dev.sluice.config.model.Server cfg = r.config().proxies().getFirst().servers().getFirst();
        if (!req.args().subList(4, req.args().size()).contains("id")) {
            // the parser numbered it within its one-server backend: the backend gives the id
            cfg = cfg.withId(0);
        }
        if (cfg.tls() != null) {
            return "Sluice cannot add a TLS server at run time (TLS contexts are built at start-up).\n";
        }
        InetAddress ip = Addresses.literal(cfg.host());
        if (ip == null) {
            return "Sluice resolves server names at start-up only: 'add server' needs an IP address.\n";
        }
        if (cfg.id() > 0 && be.serverById(cfg.id()) != null) {
            return "Server id " + cfg.id() + " already used.\n";
        }
        be.addServer(cfg, new InetSocketAddress(ip, cfg.port()), null);
        return "New server registered.\n";
    }

    private static String delete(Collection<Backend> backends, CliRequest req) {
        req.noSeparator();
        ServerCommands.Found f = ServerCommands.find(backends, req.arg(2));
        if (f.error() != null) {
            return f.error();
        }
        Server s = f.server();
        if (!s.backend().dynamicAlgorithm()) {
            return "Backend must use a dynamic load balancing to support dynamic servers.\n";
        }
        if ((s.adminState() & Server.FORCED_MAINT) == 0 && !s.maintenance()) {
            return "Only servers in maintenance mode can be deleted.\n";
        }
        if (s.activeStreams() > 0 || !s.queue().isEmpty()) {
            // as HAProxy: streams served or waiting in its queue
            return "Server still has connections attached to it, cannot remove it.\n";
        }
        s.backend().deleteServer(s);
        return "Server deleted.\n";
    }

    /** A parser message as HAProxy's CLI words it: without the "'server' : server 'x' :" context, ending with a period. */
    static String message(String m, String name) {
        for (String prefix : List.of("'server' : ", "'server " + "b/" + name + "' : ", "server '" + name + "' : ")) {
            if (m.startsWith(prefix)) {
                m = m.substring(prefix.length());
            }
        }
        return m + ".";
    }

    /** A word as the config lexer reads it back unchanged (strong quotes; a quote inside closes and reopens). */
    private static String quote(String w) {
        return "'" + w.replace("'", "'\\''") + "'";
    }

}
