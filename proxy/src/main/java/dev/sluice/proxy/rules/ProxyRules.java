package dev.sluice.proxy.rules;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import dev.sluice.config.LogFormats;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.LogFormat;
import dev.sluice.config.model.Mode;
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
public record ProxyRules(List<Rule> request, List<Rule> response, List<Rule> after, List<Switch> switching, List<Rule> connection,
        List<Rule> session, List<Rule> content, List<Rule> responseContent, List<Cond> monitorFail, List<Stick> stick,
        List<UseServer> useServer, List<Persist> persist, Map<Integer, Reply> errorReplies) {

    /** Without {@code http-error} replies. */
    public ProxyRules(List<Rule> request, List<Rule> response, List<Rule> after, List<Switch> switching, List<Rule> connection,
            List<Rule> session, List<Rule> content, List<Rule> responseContent, List<Cond> monitorFail, List<Stick> stick,
            List<UseServer> useServer, List<Persist> persist) {
        this(request, response, after, switching, connection, session, content, responseContent, monitorFail, stick, useServer, persist,
                Map.of());
    }

    /** Without {@code force-persist}/{@code ignore-persist} rules. */
    public ProxyRules(List<Rule> request, List<Rule> response, List<Rule> after, List<Switch> switching, List<Rule> connection,
            List<Rule> session, List<Rule> content, List<Rule> responseContent, List<Cond> monitorFail, List<Stick> stick,
            List<UseServer> useServer) {
        this(request, response, after, switching, connection, session, content, responseContent, monitorFail, stick, useServer, List.of());
    }

    /** Without {@code use-server} rules. */
    public ProxyRules(List<Rule> request, List<Rule> response, List<Rule> after, List<Switch> switching, List<Rule> connection,
            List<Rule> session, List<Rule> content, List<Rule> responseContent, List<Cond> monitorFail, List<Stick> stick) {
        this(request, response, after, switching, connection, session, content, responseContent, monitorFail, stick, List.of());
    }

    /** A {@code force-persist} ({@code force}) or {@code ignore-persist} rule. */
    public record Persist(Cond cond, boolean force) {
    }

    /** A {@code use-server} rule: its condition and a static server name or a dynamic one (a log-format). */
    public record UseServer(Cond cond, String server, Template dynamic) {
    }

    /**
     * A compiled {@code stick} rule: {@code match} (look the key up before load balancing), {@code store}
     * (keep the key with the chosen server) or both ({@code on}); {@code response} for store-response.
     */
    public record Stick(boolean match, boolean store, boolean response, SampleExpr key, dev.sluice.sticktable.StickTable table, Cond cond) {
    }

    /** A {@code use_backend} rule: a condition and a static backend name or a dynamic one. */
    public record Switch(Cond cond, String backend, Template dynamic) {
    }

    /**
     * What a listen section's backend side runs of these rules (its other rules run on its frontend side): the stick rules,
     * the {@code use-server}, {@code force-persist} and {@code ignore-persist} rules and the {@code tcp-response content} rules.
     */
    public ProxyRules backendSide() {
        return new ProxyRules(List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), responseContent, List.of(), stick,
                useServer, persist, errorReplies);
    }

    public static final ProxyRules NONE = new ProxyRules(List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
            List.of(), List.of());

    /**
     * Compiles a proxy's rules; each problem is appended to {@code problems} as "file:line: error: ..."
     * or "file:line: warning: ..." (an ACL that can never match where it is used, as HAProxy warns).
     */
    public static ProxyRules compile(Proxy p, List<String> problems) {
        return compile(p, problems, new StickTables());
    }

    /** The same, with the configuration's stick tables for track-sc rules and the stick-counter samples. */
    public static ProxyRules compile(Proxy p, List<String> problems, StickTables tables) {
        return CompileScope.in(tables, p.name(), p.directory(), () -> RuleCompiler.forMode(p.mode() == Mode.TCP, () -> compileIn(p, problems)));
    }

    private static ProxyRules compileIn(Proxy p, List<String> problems) {
        Map<String, List<AclExpr>> named = new HashMap<>();
        for (Acl a : p.acls()) {
            named.computeIfAbsent(a.name(), k -> new ArrayList<>()).add(a.expr());
        }
        RuleCompiler rc = new RuleCompiler(named, p.mode() == Mode.TCP);
        for (Acl a : p.acls()) {
            try {
                RuleCompiler.acl(a.expr());
            } catch (IllegalArgumentException e) {
                problems.add(a.where() + ": error: error detected while parsing ACL '" + a.name() + "' : " + e.getMessage() + ".");
            }
        }
        String kind = p.kind().keyword();
        List<Rule> req = rules(p, p.httpRequestRules(), rc, RuleCompiler.Phase.REQUEST, "http-request", problems);
        List<Rule> res = rules(p, p.httpResponseRules(), rc, RuleCompiler.Phase.RESPONSE, "http-response", problems);
        List<Rule> after = rules(p, p.httpAfterResponseRules(), rc, RuleCompiler.Phase.RESPONSE, "http-after-response", problems);
        List<Switch> sw = new ArrayList<>();
        for (UseBackend u : p.useBackends()) {
            try {
                List<String> warnings = new ArrayList<>();
                Cond c = rc.condition(u.condition(), RuleCompiler.Phase.REQUEST, kind + " switching rule", warnings);
                warnings.forEach(w -> problems.add(u.where() + ": warning: " + w + "."));
                Template dyn = u.isDynamic() ? Template.compile(u.backend()) : null;
                sw.add(new Switch(c, u.backend(), dyn));
            } catch (IllegalArgumentException e) {
                problems.add(u.where() + ": error: error detected while parsing switching rule : " + e.getMessage() + ".");
            }
        }
        List<Rule> connection = rules(p, p.tcpRules().connection(), rc, RuleCompiler.Phase.CONNECTION, "tcp-request connection", problems);
        List<Rule> session = rules(p, p.tcpRules().session(), rc, RuleCompiler.Phase.CONNECTION, "tcp-request session", problems);
        List<Rule> content = rules(p, p.tcpRules().content(), rc, RuleCompiler.Phase.REQUEST, "tcp-request content", problems);
        List<Rule> responseContent = rules(p, p.tcpRules().responseContent(), rc, RuleCompiler.Phase.RESPONSE, "tcp-response content", problems);
        List<Cond> monitor = new ArrayList<>();
        for (Condition c : p.monitor().fail()) {
            try {
                List<String> warnings = new ArrayList<>();
                monitor.add(rc.condition(c, RuleCompiler.Phase.REQUEST, kind + " monitor fail rule", warnings));
                warnings.forEach(w -> problems.add(p.where() + ": warning: " + w + "."));
            } catch (IllegalArgumentException e) {
                problems.add(p.where() + ": error: error detected while parsing a 'monitor fail' condition : " + e.getMessage() + ".");
            }
        }
        List<Stick> stick = new ArrayList<>();
        for (dev.sluice.config.model.StickRule r : p.stickRules()) {
            boolean response = r.kind().equals("store-response");
            try {
                RuleCompiler.Phase phase = response ? RuleCompiler.Phase.RESPONSE : RuleCompiler.Phase.REQUEST;
                List<String> warnings = new ArrayList<>();
                Cond c = rc.condition(r.condition(), phase, kind + " stick rule", warnings);
                warnings.forEach(w -> problems.add(r.where() + ": warning: " + w + "."));
                RuleCompiler.checkPhase(r.expr(), phase);
                SampleExpr key = RuleCompiler.sample(r.expr());
                dev.sluice.sticktable.StickTable table = StickTables.resolve(r.table());
                stick.add(new Stick(r.kind().equals("on") || r.kind().equals("match"), !r.kind().equals("match"), response, key, table, c));
            } catch (IllegalArgumentException e) {
                problems.add(r.where() + ": error: error detected while parsing a 'stick " + r.kind() + "' rule : " + e.getMessage() + ".");
            }
        }
        List<UseServer> useServer = new ArrayList<>();
        for (dev.sluice.config.model.UseServer u : p.useServers()) {
            try {
                List<String> warnings = new ArrayList<>();
                Cond c = rc.condition(u.condition(), RuleCompiler.Phase.REQUEST, kind + " switching rule", warnings);
                warnings.forEach(w -> problems.add(u.where() + ": warning: " + w + "."));
                useServer.add(new UseServer(c, u.server(), u.isDynamic() ? Template.compile(u.server()) : null));
            } catch (IllegalArgumentException e) {
                problems.add(u.where() + ": error: error detected while parsing switching rule : " + e.getMessage() + ".");
            }
        }
        List<Persist> persist = new ArrayList<>();
        for (dev.sluice.config.model.Persist.Rule r : p.options().persist().rules()) {
            String kw = r.force() ? "force-persist" : "ignore-persist";
            try {
                List<String> warnings = new ArrayList<>();
                Cond c = rc.condition(r.condition(), RuleCompiler.Phase.REQUEST, kw + " rule", warnings);
                warnings.forEach(w -> problems.add(r.where() + ": warning: " + w + "."));
                persist.add(new Persist(c, r.force()));
            } catch (IllegalArgumentException e) {
                problems.add(r.where() + ": error: error detected while parsing a '" + kw + "' rule : " + e.getMessage() + ".");
            }
        }
        Map<Integer, Reply> errorReplies = new HashMap<>();
        p.errors().replies().forEach((status, args) -> {
            try {
                errorReplies.put(status, Reply.compile(status, args));
            } catch (IllegalArgumentException e) {
                problems.add(p.where() + ": error: http-error status " + status + " : " + e.getMessage() + ".");
            }
        });
        return new ProxyRules(req, res, after, sw, connection, session, content, responseContent, monitor, stick, useServer, persist,
                Map.copyOf(errorReplies));
    }

    /**
     * Compiles conditions of a proxy outside its rule sets (the {@code stats admin} ones) with the proxy's
     * ACLs; a problem is reported with {@code what} naming the keyword.
     */
    public static List<Cond> conditions(Proxy p, List<Condition> conditions, String what, List<String> problems, StickTables tables) {
        return CompileScope.in(tables, p.name(), p.directory(), () -> {
            Map<String, List<AclExpr>> named = new HashMap<>();
            for (Acl a : p.acls()) {
                named.computeIfAbsent(a.name(), k -> new ArrayList<>()).add(a.expr());
            }
            RuleCompiler rc = new RuleCompiler(named);
            List<Cond> out = new ArrayList<>();
            for (Condition c : conditions) {
                try {
                    List<String> warnings = new ArrayList<>();
                    out.add(rc.condition(c, RuleCompiler.Phase.REQUEST, p.kind().keyword() + " " + what, warnings));
                    warnings.forEach(w -> problems.add(p.where() + ": warning: " + w + "."));
                } catch (IllegalArgumentException e) {
                    problems.add(p.where() + ": error: error detected while parsing a '" + what + "' condition : " + e.getMessage() + ".");
                }
            }
            return out;
        });
    }

    private static List<Rule> rules(Proxy p, List<HttpRule> list, RuleCompiler rc, RuleCompiler.Phase phase, String family,
            List<String> problems) {
        boolean response = phase == RuleCompiler.Phase.RESPONSE;
        String context = p.kind().keyword() + " " + switch (phase) {
            case CONNECTION -> "tcp-request connection rule";
            case REQUEST -> family.startsWith("tcp-") ? "tcp-request content rule" : "http-request header rule";
            case RESPONSE -> "http-response header rule";
            case LOG -> "log-format";
        };
        List<Rule> out = new ArrayList<>();
        for (HttpRule r : list) {
            HttpRule.Action a = (HttpRule.Action) r;
            try {
                List<String> warnings = new ArrayList<>();
                Cond c = rc.condition(r.condition(), phase, family.startsWith("tcp-") ? family : null, context, warnings);
                if (!family.startsWith("tcp-")) {
                    // the configuration reports a tcp rule's conflicts and every L6 fetch of an HTTP proxy (config.L6Fetches)
                    warnings.forEach(w -> problems.add(r.where() + ": warning: " + w + "."));
                }
                checkPhase(a, phase);
                out.add(new Rule(c, Actions.compile(r, response), r.where()));
            } catch (IllegalArgumentException e) {
                problems.add(r.where() + ": error: error detected while parsing a '" + family + " " + a.name() + "' rule : " + e.getMessage()
                        + ".");
            }
        }
        return out;
    }

    /** Every sample an action reads ({@code %[...]} in its formats, the expression of set-var) must exist in its phase. */
    private static void checkPhase(HttpRule.Action a, RuleCompiler.Phase phase) {
        if (a.name().startsWith("set-var(") && !a.args().isEmpty()) {
            RuleCompiler.checkPhase(a.args().get(0), phase);
        }
        for (String arg : a.args()) {
            if (!arg.contains("%[")) {
                continue;
            }
            for (LogFormat.Node n : LogFormats.parse(arg, true).nodes()) {
                if (n instanceof LogFormat.Sample sample) {
                    RuleCompiler.checkPhase(sample.expr(), phase);
                }
            }
        }
    }
}
