package dev.sluice.config;

import dev.sluice.config.model.Balance;
import dev.sluice.config.model.Proxy;
import java.util.EnumSet;

/**
 * {@code dispatch <address>:<port>} and {@code option transparent}: a backend without a balance algorithm sends every
 * request to one destination, the dispatch address or the address the client connected to, as no server (HAProxy's
 * PR_O_DISPATCH and PR_O_TRANSP, with its messages once the proxy is built: a dispatch address is ignored in balance
 * mode, transparent and balance mode cannot go together).
 */
final class DispatchKeywords {
    private DispatchKeywords() {
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("dispatch", EnumSet.of(Section.BACKEND, Section.LISTEN), "dispatch <address>:<port>",
                "Without a 'balance' line, send every request to this address and port (logged as <NOSRV>); the servers are"
                        + " still checked and shown. HAProxy's legacy single-destination mode.",
                c -> {
                    if (!c.expectArgs(1, 1, "dispatch <address>:<port>")) {
                        return;
                    }
                    String a = c.args().get(0);
                    Addresses.HostPort hp;
                    try {
                        hp = Addresses.split(a.startsWith("ipv4@") || a.startsWith("ipv6@") ? a.substring(5) : a, false);
                    } catch (IllegalArgumentException e) {
                        c.error(e.getMessage());
                        return;
                    }
                    if (hp.host().isEmpty() || hp.port() == 0) {
                        c.error("missing port number: '" + a + "'");
                        return;
                    }
                    c.proxy().dispatch = hp.host().indexOf(':') >= 0 ? "[" + hp.host() + "]:" + hp.port() : hp.host() + ":" + hp.port();
                }));
        r.register(new Keyword("option transparent", Section.BACKEND_SIDE, "[no] option transparent",
                "Without a 'balance' line, connect each request to the address the client connected to (its original"
                        + " destination, as an iptables REDIRECT keeps it), logged as <NOSRV>.",
                c -> {
                    if (c.expectArgs(0, 0, "option transparent")) {
                        c.proxy().transparent = !c.negated();
                    }
                }));
    }

    /** HAProxy's check_config_validity messages about the two modes in balance mode. */
    static void afterBuild(ProxyBuilder b, Proxy p, Diagnostics diags) {
        if (!p.kind().hasBackend() || b.section == Section.DEFAULTS || b.balance == Balance.DEFAULT) {
            return;
        }
        String what = p.kind().hasFrontend() ? "proxy" : "backend";
        if (b.transparent) {
            diags.error(p.where(), what + " '" + p.name() + "' cannot use both transparent and balance mode.");
        } else if (b.dispatch != null) {
            diags.warning(p.where(), "dispatch address of " + what + " '" + p.name() + "' will be ignored in balance mode.");
        }
    }
}
