package dev.sluice.proxy.cli;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import java.util.ArrayList;
import java.util.List;

/**
 * What the configuration language accepts but the daemon cannot run yet (issue 16, layer-4 proxying): in a
 * {@code mode tcp} proxy, TLS on its binds or its servers,; in any
 * HTTP proxy, the {@code tcp-response content} rules. Both {@code -c} and start-up refuse
 * such a configuration with one error per proxy; everything else about it (HAProxy's warnings and errors) is reported
 * before, as for any configuration.
 *
 * <p>TEMPORARY: the one place of this refusal. Delete the check of each feature as the runtime learns it (response
 * rules of HTTP proxies, TLS ends with the TLS step), then
 * this class and its call in {@link Main}.
 */
final class NotYetRunnable {
    private NotYetRunnable() {
    }

    /** One error line per proxy ({@code file:line: error: ...}), empty when the daemon can run the configuration. */
    static List<String> problems(Config config) {
        List<String> out = new ArrayList<>();
        for (Proxy p : config.proxies()) {
            String what = p.kind().keyword() + " '" + p.name() + "'";
            String problem = null;
            if (p.mode() == Mode.HTTP && !p.tcpRules().responseContent().isEmpty()) {
                problem = "'tcp-response content' rules in mode http are not supported yet (they are checked but would not run)";
            } else if (p.mode() == Mode.TCP) {
                problem = tcpProblem(config, p);
            }
            if (problem != null) {
                out.add(p.where() + ": error: " + what + " : " + problem + ".");
            }
        }
        return out;
    }

    /** What a {@code mode tcp} proxy uses that the layer-4 runtime does not run yet, or null. */
    private static String tcpProblem(Config config, Proxy p) {
        for (Bind b : p.binds()) {
            if (b.tls() != null) {
                return "'ssl' on the binds of a mode tcp proxy is not supported yet";
            }
        }
        for (Server s : p.servers()) {
            if (s.tls() != null) {
                return "'ssl' on the servers of a mode tcp proxy is not supported yet";
            }
        }
        return null;
    }
}
