package dev.sluice.proxy.cli;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * What the configuration language accepts but the daemon cannot run yet (issue 16, layer-4 proxying): in an HTTP proxy,
 * the {@code tcp-response content} rules. Both {@code -c} and start-up refuse such a configuration with one error per
 * proxy; everything else about it (HAProxy's warnings and errors) is reported before, as for any configuration.
 *
 * <p>TEMPORARY: the one place of this refusal. Delete the check when the runtime learns the response rules of HTTP
 * proxies, then this class and its call in {@link Main}.
 */
final class NotYetRunnable {
    private NotYetRunnable() {
    }

    /** One error line per proxy ({@code file:line: error: ...}), empty when the daemon can run the configuration. */
    static List<String> problems(Config config) {
        List<String> out = new ArrayList<>();
        for (Proxy p : config.proxies()) {
            if (p.mode() == Mode.HTTP && !p.tcpRules().responseContent().isEmpty()) {
                out.add(p.where() + ": error: " + p.kind().keyword() + " '" + p.name() + "' : "
                        + "'tcp-response content' rules in mode http are not supported yet (they are checked but would not run).");
            }
        }
        return out;
    }
}
