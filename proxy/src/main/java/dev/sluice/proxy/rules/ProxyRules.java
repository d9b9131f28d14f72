package dev.sluice.proxy.rules;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.UseBackend;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The compiled rules of one proxy: its {@code http-request}, {@code http-response} and
 * {@code http-after-response} rules and its {@code use_backend} switching rules. Compiling reports every
 * problem with the line it comes from (what {@code -c} prints). Immutable.
 */
public record ProxyRules(List<Rule> request, List<Rule> response, List<Rule> after, List<Switch> switching) {

    /** A {@code use_backend} rule: a condition and a static backend name or a dynamic one. */
    public record Switch(Cond cond, String backend, Template dynamic) {
    }

    public static final ProxyRules NONE = new ProxyRules(List.of(), List.of(), List.of(), List.of());

    /** Compiles a proxy's rules; each problem is appended to {@code problems} as "file:line: error: ...". */
    public static ProxyRules compile(Proxy p, List<String> problems) {
        Map<String, List<AclExpr>> named = new HashMap<>();
        for (Acl a : p.acls()) {
            named.computeIfAbsent(a.name(), k -> new ArrayList<>()).add(a.expr());
        }
        RuleCompiler rc = new RuleCompiler(named);
        for (Acl a : p.acls()) {
            try {
                RuleCompiler.acl(a.expr());
            } catch (IllegalArgumentException e) {
                problems.add(a.where() + ": error: error detected while parsing ACL '" + a.name() + "' : " + e.getMessage() + ".");
            }
        }
        List<Rule> req = rules(p.httpRequestRules(), rc, false, "http-request", problems);
        List<Rule> res = rules(p.httpResponseRules(), rc, true, "http-response", problems);
        List<Rule> after = rules(p.httpAfterResponseRules(), rc, true, "http-after-response", problems);
        List<Switch> sw = new ArrayList<>();
        for (UseBackend u : p.useBackends()) {
            try {
                Cond c = rc.condition(u.condition());
                Template dyn = u.isDynamic() ? Template.compile(u.backend()) : null;
                sw.add(new Switch(c, u.backend(), dyn));
            } catch (IllegalArgumentException e) {
                problems.add(u.where() + ": error: error detected while parsing switching rule : " + e.getMessage() + ".");
            }
        }
        return new ProxyRules(req, res, after, sw);
    }

    private static List<Rule> rules(List<HttpRule> list, RuleCompiler rc, boolean response, String family, List<String> problems) {
        List<Rule> out = new ArrayList<>();
        for (HttpRule r : list) {
            try {
                Cond c = rc.condition(r.condition());
                out.add(new Rule(c, Actions.compile(r, response)));
            } catch (IllegalArgumentException e) {
                String action = r instanceof HttpRule.Action a ? a.name() : "return";
                problems.add(r.where() + ": error: error detected while parsing a '" + family + " " + action + "' rule : " + e.getMessage()
                        + ".");
            }
        }
        return out;
    }
}
