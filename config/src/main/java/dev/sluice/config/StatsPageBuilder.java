package dev.sluice.config;

import dev.sluice.config.model.Condition;
import dev.sluice.config.SourceRef;
import dev.sluice.config.model.StatsPage;
import java.util.ArrayList;
import java.util.List;

/** The {@code stats} page settings of a proxy while it is parsed; a {@code defaults} section passes them on. Parse-time only. */
final class StatsPageBuilder {
    boolean enabled;
    String uri = StatsPage.DEFAULT_URI;
    long refreshMs;
    final List<String> auth = new ArrayList<>();
    String realm = StatsPage.DEFAULT_REALM;
    final List<Condition> admin = new ArrayList<>();
    final List<StatsPage.Rule> rules = new ArrayList<>();
    boolean hideVersion;
    boolean showLegends;
    boolean showModules;
    String node;
    String desc;
    final List<String> scope = new ArrayList<>();
    SourceRef where;

    void copyFrom(StatsPageBuilder d) {
        enabled = d.enabled;
        uri = d.uri;
        refreshMs = d.refreshMs;
        auth.addAll(d.auth);
        realm = d.realm;
        admin.addAll(d.admin);
        rules.addAll(d.rules);
        hideVersion = d.hideVersion;
        showLegends = d.showLegends;
        showModules = d.showModules;
        node = d.node;
        desc = d.desc;
        scope.addAll(d.scope);
        where = d.where;
    }

    StatsPage build() {
        if (!enabled) {
            return StatsPage.NONE;
        }
        return new StatsPage(true, uri, refreshMs, auth, realm, admin, hideVersion, showLegends, node, desc, scope, where, rules, showModules);
    }
}
