package dev.sluice.config;

/**
 * HAProxy 2.6's warnings for a rule written after one of another set that runs after it ({@code warnif_misplaced_*} of
 * its cfgparse-listen.c): the request-side sets run in the order tcp-request connection, tcp-request session, tcp-request
 * content, monitor fail, http-request, redirect, use_backend, use-server, and a rule placed after a later set gets one
 * warning, naming the first later set found in that order. Called by the keyword parsers before they add their rule.
 */
final class RuleOrder {
    private RuleOrder() {
    }

    /** The sets, in the order they run. */
    enum Set {
        TCP_CONNECTION("a 'tcp-request connection'"),
        TCP_SESSION("a 'tcp-request session'"),
        TCP_CONTENT("a 'tcp-request content'"),
        MONITOR("a 'monitor fail'"),
        HTTP_REQUEST("an 'http-request'"),
        REDIRECT("a 'redirect'"),
        USE_BACKEND("a 'use_backend'"),
        USE_SERVER("a 'use-server'");

        final String what;

        Set(String what) {
            this.what = what;
        }
    }

    /**
     * Warns (HAProxy's words, with {@code arg} the keyword as HAProxy names it: "tcp-request", "http-request", "redirect",
     * "monitor fail") when the proxy already has a rule of a set that runs after {@code set}.
     */
    static void check(KeywordContext c, Set set, String arg) {
        for (Set later : Set.values()) {
            if (later.ordinal() > set.ordinal() && has(c.proxy(), later)) {
                c.lineWarning("a '" + arg + "' rule placed after " + later.what + " rule will still be processed before.");
                return;
            }
        }
    }

    private static boolean has(ProxyBuilder p, Set s) {
        return switch (s) {
            case TCP_CONNECTION -> !p.tcpRequestConnectionRules.isEmpty();
            case TCP_SESSION -> !p.tcpRequestSessionRules.isEmpty();
            case TCP_CONTENT -> !p.tcpRequestContentRules.isEmpty();
            case MONITOR -> !p.monitorFail.isEmpty();
            case HTTP_REQUEST -> !p.httpRequestRules.isEmpty();
            case REDIRECT -> !p.redirectRules.isEmpty();
            case USE_BACKEND -> !p.useBackends.isEmpty();
            case USE_SERVER -> !p.useServers.isEmpty();
        };
    }
}
