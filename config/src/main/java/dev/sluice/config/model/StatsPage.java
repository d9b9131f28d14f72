package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

import java.util.List;

/**
 * A proxy's HTML stats page ({@code stats enable|uri|refresh|auth|realm|admin|hide-version|show-legends|
 * show-node|show-desc|show-modules|scope}): served for requests whose path starts with {@code uri}, CSV at
 * {@code <uri>;csv}. {@code auth} holds {@code user:password} pairs (none: no authentication);
 * {@code admin} the conditions under which the page offers server actions; {@code scope} the proxies shown
 * (empty: all); {@code node} and {@code desc} are null unless shown; {@code showModules}: the statistics modules' columns
 * (ssl, h2, h1) are added to each table. {@link #NONE} when disabled.
 */
public record StatsPage(boolean enabled, String uri, long refreshMs, List<String> auth, String realm, List<Condition> admin,
        boolean hideVersion, boolean showLegends, String node, String desc, List<String> scope, SourceRef where, List<Rule> rules,
        boolean showModules) {

    public StatsPage(boolean enabled, String uri, long refreshMs, List<String> auth, String realm, List<Condition> admin,
            boolean hideVersion, boolean showLegends, String node, String desc, List<String> scope, SourceRef where, List<Rule> rules) {
        this(enabled, uri, refreshMs, auth, realm, admin, hideVersion, showLegends, node, desc, scope, where, rules, false);
    }

    /**
     * A {@code stats http-request allow|deny|auth [realm <realm>] [if|unless <cond>]} rule ({@code condition} null: always;
     * {@code realm} null: the page's).
     */
    public record Rule(String action, String realm, Condition condition) {
    }

    public StatsPage(boolean enabled, String uri, long refreshMs, List<String> auth, String realm, List<Condition> admin,
            boolean hideVersion, boolean showLegends, String node, String desc, List<String> scope, SourceRef where) {
        this(enabled, uri, refreshMs, auth, realm, admin, hideVersion, showLegends, node, desc, scope, where, List.of());
    }

    /** HAProxy's defaults. */
    public static final String DEFAULT_URI = "/haproxy?stats";
    public static final String DEFAULT_REALM = "HAProxy Statistics";

    public static final StatsPage NONE = new StatsPage(false, DEFAULT_URI, 0, List.of(), DEFAULT_REALM, List.of(), false, false, null, null,
            List.of(), null);

    public StatsPage {
        auth = List.copyOf(auth);
        admin = List.copyOf(admin);
        rules = List.copyOf(rules);
        scope = List.copyOf(scope);
    }
}
