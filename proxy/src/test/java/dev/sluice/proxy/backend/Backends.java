package dev.sluice.proxy.backend;

import dev.sluice.config.KeywordRegistry;
import dev.sluice.config.ConfigParser;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Test helper: backends built from configuration lines, the way the runtime builds them (no sockets). */
public final class Backends {
    private Backends() {
    }

    /**
     * A backend 'be' from its section body (balance, hash-type, server lines...); servers need no
     * address: "server s1" lines get 127.0.0.1 and distinct ports.
     */
    public static Backend of(String body) {
        return of(body, 1);
    }

    /** {@link #of(String)} with {@code loops} event loops' pools. */
    public static Backend of(String body, int loops) {
        return of(body, loops, null);
    }

    /** {@link #of(String)} as an in-process reload builds it after {@code before} (the backend of the same name). */
    public static Backend after(Backend before, String body) {
        return of(body, 1, before);
    }

    private static Backend of(String body, int loops, Backend before) {
        StringBuilder sb = new StringBuilder("""
                defaults
                    mode http
                    timeout client 1s
                    timeout server 1s
                    timeout connect 1s
                frontend fe
                    bind 127.0.0.1:1
                    default_backend be
                backend be
                """);
        int port = 8001;
        for (String line : body.strip().split("\n")) {
            String l = line.strip();
            if (l.startsWith("server ")) {
                String[] w = l.split(" ", 3);
                l = w[0] + " " + w[1] + " 127.0.0.1:" + port++ + (w.length > 2 ? " " + w[2] : "");
            }
            sb.append("    ").append(l).append('\n');
        }
        ConfigParser.Result r = new ConfigParser(KeywordRegistry.standard(),
                new ConfigParser.Settings(Map.<String, String>of()::get, Set.of(), "3.2")).parse(List.of(new ConfigParser.Source("t.cfg", sb.toString())));
        if (!r.ok()) {
            throw new IllegalArgumentException(r.diagnostics().toString());
        }
        Config c = r.config();
        Proxy be = c.proxy("be").orElseThrow();
        List<Backend.ResolvedServer> servers = new ArrayList<>();
        for (dev.sluice.config.model.Server s : be.servers()) {
            servers.add(new Backend.ResolvedServer(s, new InetSocketAddress(InetAddress.getLoopbackAddress(), s.port()), null));
        }
        return new Backend(be, servers, loops, null, before);
    }

    /** Servers s1..sN with these weights and the given options on every line. */
    static String servers(String options, int... weights) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < weights.length; i++) {
            sb.append("server s").append(i + 1).append(" weight ").append(weights[i]).append(options.isEmpty() ? "" : " " + options).append('\n');
        }
        return sb.toString();
    }

    public static Server server(Backend b, String name) {
        return b.servers().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    /** {@code n} picks without a request, their slots given back at once. */
    static List<String> picks(Backend b, int n) {
        return picks(b, n, true);
    }

    static List<String> picks(Backend b, int n, boolean release) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Server s = b.pickServer();
            out.add(s == null ? null : s.name());
            if (s != null && release) {
                s.streamEnded();
            }
        }
        return out;
    }
}
