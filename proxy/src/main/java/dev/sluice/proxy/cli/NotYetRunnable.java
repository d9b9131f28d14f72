package dev.sluice.proxy.cli;

import dev.sluice.config.model.Config;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.UseBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the configuration language accepts but the daemon cannot run yet (issue 16, layer-4 proxying): in a
 * {@code mode tcp} proxy, content inspection ({@code tcp-request content} rules, {@code tcp-request inspect-delay})
 * and an HTTP backend behind a TCP frontend (HAProxy's implicit upgrade); in any
 * proxy, the {@code tcp-request session} and {@code tcp-response content} rules. Both {@code -c} and start-up refuse
 * such a configuration with one error per proxy; everything else about it (HAProxy's warnings and errors) is reported
 * before, as for any configuration.
 *
 * <p>TEMPORARY: the one place of this refusal. Delete the check of each feature as the runtime learns it (content,
 * session and response rules with content inspection, the upgrade with switch-mode), then
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
            if (!p.tcpRules().session().isEmpty()) {
                problem = "'tcp-request session' rules are not supported yet (they are checked but would not run)";
            } else if (!p.tcpRules().responseContent().isEmpty()) {
                problem = "'tcp-response content' rules are not supported yet (they are checked but would not run)";
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
        if (!p.tcpRules().content().isEmpty() || p.tcpRules().inspectDelay() > 0) {
            return "'tcp-request content' rules and 'tcp-request inspect-delay' in mode tcp are not supported yet (content inspection)";
        }
        List<String> targets = new ArrayList<>();
        if (p.defaultBackend() != null) {
            targets.add(p.defaultBackend());
        }
        for (UseBackend u : p.useBackends()) {
            targets.add(u.backend());
        }
        for (String t : targets) {
            Optional<Proxy> be = config.proxy(t);
            if (be.isPresent() && be.get().mode() == Mode.HTTP) {
                return "a mode tcp frontend using an HTTP backend ('" + t + "') is not supported yet (HAProxy's implicit upgrade)";
            }
        }
        return null;
    }
}
