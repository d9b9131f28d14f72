package dev.sluice.config;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.UseBackend;
import dev.sluice.config.model.Userlist;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The checks of {@code userlist} sections once the whole configuration is read, with HAProxy 2.6's messages. */
final class UserlistChecks {
    private UserlistChecks() {
    }

    /**
     * The groups a user names and the users a group names must exist in the userlist; the userlists and
     * groups that {@code http_auth(<userlist>)} and {@code http_auth_group(<userlist>) <group>...} name too.
     */
    static void check(List<Userlist> lists, List<Proxy> built, Diagnostics diags) {
        Map<String, Userlist> byName = new HashMap<>();
        for (var ul : lists) {
            byName.put(ul.name(), ul);
            Set<String> users = new HashSet<>();
            Set<String> groups = new HashSet<>();
            ul.users().forEach(u -> users.add(u.name()));
            ul.groups().forEach(g -> groups.add(g.name()));
            for (var u : ul.users()) {
                for (String g : u.groups()) {
                    if (!groups.contains(g)) {
                        diags.error(u.where(), "userlist '" + ul.name() + "': no such group '" + g + "' specified in user '" + u.name() + "'"
                                + Suggestions.didYouMean(Suggestions.closest(g, groups)) + ".");
                    }
                }
            }
            for (var g : ul.groups()) {
                for (String u : g.users()) {
                    if (!users.contains(u)) {
                        diags.error(g.where(), "userlist '" + ul.name() + "': no such user '" + u + "' specified in group '" + g.name() + "'"
                                + Suggestions.didYouMean(Suggestions.closest(u, users)) + ".");
                    }
                }
            }
        }
        for (Proxy p : built) {
            for (Acl a : p.acls()) {
                checkAuthFetch(a.where(), p, a.expr(), byName, diags);
            }
            List<HttpRule> rules = new ArrayList<>(p.httpRequestRules());
            rules.addAll(p.httpResponseRules());
            rules.addAll(p.httpAfterResponseRules());
            for (var r : rules) {
                checkAuthFetches(r.where(), p, r.condition(), byName, diags);
            }
            for (UseBackend u : p.useBackends()) {
                checkAuthFetches(u.where(), p, u.condition(), byName, diags);
            }
            for (Condition c : p.monitor().fail()) {
                checkAuthFetches(p.where(), p, c, byName, diags);
            }
        }
    }

    private static void checkAuthFetches(SourceRef at, Proxy p, Condition c, Map<String, Userlist> lists, Diagnostics diags) {
        if (c == null) {
            return;
        }
        for (List<Condition.Term> and : c.alternatives()) {
            for (Condition.Term t : and) {
                if (t.anonymous() != null) {
                    checkAuthFetch(at, p, t.anonymous(), lists, diags);
                }
            }
        }
    }

    private static void checkAuthFetch(SourceRef at, Proxy p, AclExpr e, Map<String, Userlist> lists, Diagnostics diags) {
        String s = e.sample();
        String kw = s.startsWith("http_auth(") || s.equals("http_auth") ? "http_auth"
                : s.startsWith("http_auth_group(") || s.equals("http_auth_group") ? "http_auth_group" : null;
        if (kw == null) {
            return;
        }
        int open = s.indexOf('(');
        int close = s.indexOf(')');
        String name = open < 0 || close < open ? "" : s.substring(open + 1, close);
        if (name.isEmpty()) {
            diags.error(at, "missing userlist name in arg 1 of ACL keyword '" + kw + "' in proxy '" + p.name() + "'.");
            return;
        }
        var ul = lists.get(name);
        if (ul == null) {
            diags.error(at, "unable to find userlist '" + name + "' referenced in arg 1 of ACL keyword '" + kw + "' in proxy '" + p.name() + "'"
                    + Suggestions.didYouMean(Suggestions.closest(name, lists.keySet())) + ".");
            return;
        }
        if (kw.equals("http_auth_group")) {
            if (e.values().isEmpty()) {
                diags.error(at, "proxy " + p.name() + ": acl http_auth_group(): no groups specified.");
            }
            Set<String> groups = new HashSet<>();
            ul.groups().forEach(g -> groups.add(g.name()));
            for (String g : e.values()) {
                if (!groups.contains(g)) {
                    diags.error(at, "proxy " + p.name() + ": acl http_auth_group(): invalid group '" + g + "'"
                            + Suggestions.didYouMean(Suggestions.closest(g, groups)) + ".");
                }
            }
        }
    }
}
