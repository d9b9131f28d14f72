package dev.sluice.proxy.cli;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * What the configuration language accepts but the daemon cannot run yet (issue 16, layer-4 proxying): a proxy in
 * {@code mode tcp}, and the {@code tcp-request session} and {@code tcp-response content} rules of HTTP proxies. Both
 * {@code -c} and start-up refuse such a configuration with one error per proxy; everything else about it (HAProxy's
 * warnings and errors) is reported before, as for any configuration.
 *
 * <p>TEMPORARY: the one place of this refusal. Delete the check of each feature as the runtime learns it (mode tcp with
 * the TCP stream, session and response rules with content inspection), then this class and its call in {@link Main}.
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
            if (p.mode() == Mode.TCP) {
                problem = "mode tcp is not supported yet (layer-4 proxying)";
            } else if (!p.tcpRules().session().isEmpty()) {
                problem = "'tcp-request session' rules are not supported yet (they are checked but would not run)";
            } else if (!p.tcpRules().responseContent().isEmpty()) {
                problem = "'tcp-response content' rules are not supported yet (they are checked but would not run)";
            }
            if (problem != null) {
                out.add(p.where() + ": error: " + what + " : " + problem + ".");
            }
        }
        return out;
    }
}
