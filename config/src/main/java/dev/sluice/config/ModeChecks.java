package dev.sluice.config;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.ProxyKind;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.StickRule;
import dev.sluice.config.model.UseBackend;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks of HAProxy 2.6 that depend on proxy modes, after parsing: an HTTP frontend cannot use a TCP backend (a TCP
 * frontend may use an HTTP backend: HAProxy upgrades the connection); HTTP settings of a TCP proxy are ignored with a
 * warning (cookies, monitor-uri, an HTTP hash, {@code option httplog} which falls back to tcplog, stats, cookie capture,
 * http-request/http-response/http-after-response/redirect rules, forwardfor and the HTTP options); conditions of an HTTP
 * proxy using layer-6 fetches are warned about. Messages are HAProxy's, word for word. Parse-time only.
 */
final class ModeChecks {
    private ModeChecks() {
    }

    /** {@code builders} and {@code built} are parallel: each proxy as parsed and as built. */
    static void check(List<ProxyBuilder> builders, List<Proxy> built, Map<String, Proxy> backends, Diagnostics diags) {
        Set<ProxyBuilder> checkedDefaults = new HashSet<>();
        for (int i = 0; i < built.size(); i++) {
            ProxyBuilder b = builders.get(i);
            Proxy p = built.get(i);
            if (p.kind().hasFrontend()) {
                pairing(b, p, backends, diags);
            }
            if (p.mode() == Mode.TCP) {
                httpSettingsIgnored(b, p, diags);
            } else {
                l6Ignored(p.name(), ownConditions(b), p.acls(), diags);
            }
            ProxyBuilder d = b.rulesDefaults;
            if (d != null && checkedDefaults.add(d) && d.effectiveMode() == Mode.HTTP) {
                // HAProxy checks the rules of a defaults section once, under the defaults section's name
                l6Ignored(d.name, ownConditions(d), List.of(), diags);
            }
        }
    }

    /** HAProxy's {@code proxy_mode_str} and {@code proxy_type_str} of a proxy: {@code http frontend 'fe'}. */
    private static String describe(Proxy p) {
        return (p.mode() == Mode.HTTP ? "http" : "tcp") + " " + type(p) + " '" + p.name() + "'";
    }

    private static String type(Proxy p) {
        return p.kind() == ProxyKind.LISTEN ? "proxy" : p.kind().keyword();
    }

    private static void pairing(ProxyBuilder b, Proxy p, Map<String, Proxy> backends, Diagnostics diags) {
        if (p.defaultBackend() != null) {
            Proxy be = backends.get(p.defaultBackend());
            if (be != null && be != p && incompatible(p, be)) {
                diags.error(b.defaultBackendWhere != null ? b.defaultBackendWhere : p.where(), describe(p) + " (" + p.where()
                        + ") tries to use incompatible " + describe(be) + " (" + be.where() + ") as its default backend (see 'mode').");
            }
        }
        for (UseBackend u : p.useBackends()) {
            Proxy be = u.isDynamic() ? null : backends.get(u.backend());
            if (be != null && be != p && incompatible(p, be)) {
                diags.error(u.where(), describe(p) + " (" + p.where() + ") tries to use incompatible " + describe(be) + " (" + be.where()
                        + ") in a 'use_backend' rule (see 'mode').");
            }
        }
    }

    /** Modes differ, except a TCP frontend with an HTTP backend (HAProxy's implicit upgrade). */
    private static boolean incompatible(Proxy fe, Proxy be) {
        return fe.mode() != be.mode() && !(fe.mode() == Mode.TCP && be.mode() == Mode.HTTP);
    }

    /** HAProxy's {@code proxy_cfg_ensure_no_http} and the "requires HTTP mode" warnings of a TCP proxy. */
    private static void httpSettingsIgnored(ProxyBuilder b, Proxy p, Diagnostics diags) {
        String it = type(p) + " '" + p.name() + "'";
        if (p.cookie() != null) {
            diags.warning(p.where(), "cookie will be ignored for " + it + " (needs 'mode http').");
        }
        if (p.monitor().uri() != null) {
            diags.warning(p.where(), "monitor-uri will be ignored for " + it + " (needs 'mode http').");
        }
        if (p.kind().hasBackend() && ProxyBuilder.needsHttp(b.balance)) {
            diags.warning(b.balance.where() != null ? b.balance.where() : p.where(),
                    "Layer 7 hash not possible for " + it + " (needs 'mode http'). Falling back to round robin.");
        }
        if (b.tcplogFallback()) {
            diags.warning(b.httplogWhere, "'option httplog' not usable with " + it + " (needs 'mode http'). Falling back to 'option tcplog'.");
        }
        // what 'tcp-request content switch-mode http' makes HTTP is not ignored (a rule of the proxy's own: HAProxy marks
        // the defaults section for the rules of a defaults section)
        boolean upgrades = b.tcpRequestContentRules.stream()
                .anyMatch(r -> r instanceof HttpRule.Action a && a.name().equals("switch-mode") && !a.args().isEmpty() && a.args().get(0).equals("http"));
        if (!upgrades) {
            List<String> ignored = new ArrayList<>();
            if (p.stats().enabled()) {
                ignored.add("'stats' statement ignored for " + it + " as it requires HTTP mode.");
            }
            if (p.logging().captures().cookie() != null) {
                ignored.add("'capture' statement ignored for " + it + " as it requires HTTP mode.");
            }
            rulesIgnored(ignored, "http-request", b.httpRequestRules, it);
            rulesIgnored(ignored, "http-response", b.httpResponseRules, it);
            rulesIgnored(ignored, "http-after-response", b.httpAfterResponseRules, it);
            rulesIgnored(ignored, "redirect", b.redirectRules, it);
            optionIgnored(ignored, "forwardfor", p.http().forwardFor() != null, it);
            optionIgnored(ignored, "http-ignore-probes", p.options().ignoreProbes(), it);
            optionIgnored(ignored, "prefer-last-server", p.options().preferLastServer(), it);
            optionIgnored(ignored, "accept-invalid-http-request", p.kind().hasFrontend() && p.http().acceptInvalidRequest(), it);
            optionIgnored(ignored, "http-use-proxy-header", p.kind().hasFrontend() && p.http().useProxyHeader(), it);
            ignored.forEach(m -> diags.warning(p.where(), m));
        } else if (p.defaultBackend() == null && p.useBackends().isEmpty() && !p.servers().isEmpty()) {
            diags.warning(p.where(), "Proxy '" + p.name() + "' : 'switch-mode http' configured for a tcp " + type(p) + " with no backend."
                    + " Incoming connections upgraded to HTTP cannot be routed to TCP servers");
        }
        for (Server s : p.servers()) {
            if (s.cookie() != null) {
                diags.warning(s.where(), it + " : ignoring cookie for server '" + s.name() + "' as HTTP mode is disabled.");
            }
        }
    }

    private static void rulesIgnored(List<String> out, String what, List<HttpRule> rules, String it) {
        if (!rules.isEmpty()) {
            out.add("'" + what + "' rules ignored for " + it + " as they require HTTP mode.");
        }
    }

    private static void optionIgnored(List<String> out, String option, boolean set, String it) {
        if (set) {
            out.add("'option " + option + "' ignored for " + it + " as it requires HTTP mode.");
        }
    }

    /** A condition and the line it was declared on. */
    private record Declared(SourceRef where, Condition condition) {
    }

    /**
     * The conditions HAProxy checks for layer-6 fetches in an HTTP proxy, declared in this section (not inherited): rules of
     * every set, switching rules, stick rules but store-response.
     */
    private static List<Declared> ownConditions(ProxyBuilder b) {
        List<Declared> out = new ArrayList<>();
        for (List<HttpRule> rules : List.of(b.tcpRequestConnectionRules, b.tcpRequestSessionRules, b.tcpRequestContentRules,
                b.tcpResponseContentRules, b.httpRequestRules, b.httpResponseRules, b.httpAfterResponseRules)) {
            for (HttpRule r : rules) {
                out.add(new Declared(r.where(), r.condition()));
            }
        }
        if (b.section != Section.DEFAULTS) {
            for (UseBackend u : b.kind().hasFrontend() ? b.useBackends : List.<UseBackend>of()) {
                out.add(new Declared(u.where(), u.condition()));
            }
            for (StickRule r : b.kind().hasBackend() ? b.stickRules : List.<StickRule>of()) {
                if (!r.kind().equals("store-response")) {
                    out.add(new Declared(r.where(), r.condition()));
                }
            }
        }
        return out;
    }

    private static void l6Ignored(String proxy, List<Declared> conditions, List<Acl> acls, Diagnostics diags) {
        for (Declared d : conditions) {
            if (L6Fetches.usedBy(d.condition(), acls)) {
                diags.warning(d.where(), "Proxy '" + (proxy == null ? "" : proxy) + "': L6 sample fetches ignored on HTTP proxies (declared at "
                        + d.where() + ").");
            }
        }
    }
}
