package dev.sluice.proxy.rules;

import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.FcgiApp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The rules of an {@code fcgi-app} section compiled for one backend: its {@code set-param} values (log-format
 * strings) and its {@code pass-header} and implicit header-hiding rules, with their conditions on the application's own
 * ACLs. Evaluated once per request on the stream's loop, as HAProxy 2.6's fcgi filter does on the request headers
 * (src/fcgi-app.c, fcgi_flt_http_headers): for each name the last rule whose condition holds wins.
 * Immutable, shared by the loops.
 */
public final class FcgiRules {
    private record Param(String name, Template value, Cond cond) {
    }

    private record Header(String name, boolean pass, Cond cond) {
    }

    private final List<Param> params;
    private final List<Header> headers;

    private FcgiRules(List<Param> params, List<Header> headers) {
        this.params = params;
        this.headers = headers;
    }

    /**
     * Compiles {@code app}'s rules for backend {@code proxy}; a problem is added to {@code problems} as
     * {@code file:line: error: ...} and the rule left out. The implicit REMOTE_USER and AUTH_TYPE parameters are the
     * FastCGI connection's (read from the Authorization field), not rules here.
     */
    public static FcgiRules compile(FcgiApp app, String proxy, String directory, StickTables tables, List<String> problems) {
        return CompileScope.in(tables, proxy, directory, () -> {
            Map<String, List<AclExpr>> named = new HashMap<>();
            for (dev.sluice.config.model.Acl a : app.acls()) {
                named.computeIfAbsent(a.name(), k -> new ArrayList<>()).add(a.expr());
            }
            RuleCompiler rc = new RuleCompiler(named);
            List<Param> params = new ArrayList<>();
            List<Header> headers = new ArrayList<>();
            for (FcgiApp.Rule r : app.rules()) {
                Cond c;
                try {
                    List<String> warnings = new ArrayList<>();
                    c = r.condition() == null ? null
                            : rc.condition(r.condition(), RuleCompiler.Phase.REQUEST, "fcgi-app '" + app.name() + "' rule", warnings);
                    warnings.forEach(w -> problems.add(r.where() + ": warning: " + w + "."));
                } catch (IllegalArgumentException e) {
                    // HAProxy reads the condition with the section, naming the parameter or header
                    problems.add(r.where() + ": error: '" + r.given() + "' : " + e.getMessage() + ".");
                    continue;
                }
                try {
                    switch (r.kind()) {
                        case SET_PARAM -> {
                            if (r.name().equals("remote_user") && r.value().equals("%[http_auth_user]")
                                    || r.name().equals("auth_type") && r.value().equals("%[http_auth_type]")) {
                                continue;
                            }
                            params.add(new Param(r.name(), Template.compile(r.value()), c));
                        }
                        case PASS_HEADER -> headers.add(new Header(r.name(), true, c));
                        case HIDE_HEADER -> headers.add(new Header(r.name(), false, c));
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(r.where() + ": error: proxy '" + proxy + "' : " + e.getMessage() + ".");
                }
            }
            return new FcgiRules(List.copyOf(params), List.copyOf(headers));
        });
    }

    /**
     * The parameters the {@code set-param} rules give this request, by name (lower case, '_' for other characters), in
     * the order HAProxy adds them (by name); a rule whose value renders empty sets nothing.
     */
    public Map<String, String> params(Txn t) {
        if (params.isEmpty()) {
            return Map.of();
        }
        Map<String, Param> last = new TreeMap<>();
        for (Param p : params) {
            if (p.cond == null || p.cond.test(t)) {
                last.put(p.name, p);
            }
        }
        Map<String, String> out = new TreeMap<>();
        for (Param p : last.values()) {
            String v = p.value.render(t);
            if (!v.isEmpty()) {
                out.put(p.name, v);
            }
        }
        return out;
    }

    /** The request header names (lower case) hidden from the application for this request. */
    public Set<String> hidden(Txn t) {
        Map<String, Boolean> last = new HashMap<>();
        for (Header h : headers) {
            if (h.cond == null || h.cond.test(t)) {
                last.put(h.name, h.pass);
            }
        }
        Set<String> out = new TreeSet<>();
        last.forEach((name, pass) -> {
            if (!pass) {
                out.add(name);
            }
        });
        return out;
    }
}
