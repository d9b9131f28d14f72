package dev.sluice.proxy.runtime;

import dev.sluice.config.Addresses;
import dev.sluice.config.model.Balance;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.HttpRule;
import dev.sluice.config.model.Logging;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.Tune;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.SavedServerState;
import dev.sluice.proxy.check.TcpCheckPlan;
import dev.sluice.proxy.http.h1.ErrorPageParser;
import dev.sluice.proxy.log.LogLine;
import dev.sluice.proxy.rules.Fetch;
import dev.sluice.proxy.rules.ProcScope;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.RuleCompiler;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.rules.Template;
import dev.sluice.proxy.runtime.ProxyRuntime.Prepared;
import dev.sluice.proxy.tls.ClientTlsContext;
import dev.sluice.proxy.tls.TlsConfigException;
import dev.sluice.proxy.tls.TlsContexts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks of a configuration model before anything runs ({@link ProxyRuntime#check}, what {@code -c} reports):
 * rules, log formats, capture ids, error pages, {@code balance hash} expressions and tcp-check rules compile; server addresses
 * resolve ({@code init-addr}); certificates load and {@code sni} expressions compile. The messages are HAProxy's
 * ({@code file:line: error: ...}). Static.
 */
final class RuntimeChecks {
    private RuntimeChecks() {
    }

    /**
     * What prevents this model from running, as messages (empty when it can run), with what running it
     * needs. Resolves server host names and loads certificates and keys (at start-up only, never on an
     * event loop): {@code -c} reports an unreadable or invalid certificate like any other error.
     */
    static Prepared check(Config config) {
        return check(config, null);
    }

    /** As {@link #check(Config)}, taking over the unchanged TLS contexts of {@code previousTls} (a reload; null: none). */
    static Prepared check(Config config, TlsContexts previousTls) {
        List<String> problems = new ArrayList<>();
        for (var s : config.global().statsSockets()) {
            if ((s.owner() != null || s.group() != null) && !dev.sluice.proxy.admin.UnixSocketFiles.isRoot()) {
                problems.add(s.where() + ": warning: 'stats socket' : 'user' and 'group' are ignored: Sluice does not run as root.");
            }
        }
        Tune tune = config.global().tune();
        if (tune.maxHeadBytes() < 1024) {
            problems.add("global: error: tune.maxrewrite (" + tune.maxrewrite() + ") must leave at least 1024 bytes of tune.bufsize ("
                    + tune.bufsize() + ").");
        }
        // the global set-var lines, evaluated in order now (as HAProxy evaluates them while it reads them)
        ProcScope process = ProcScope.of(config.global(), System::getenv, problems);
        StickTables tables = StickTables.of(config, problems);
        Map<String, List<Backend.ResolvedServer>> resolvedOut = new LinkedHashMap<>();
        // the server state files, read before the addresses are resolved: init-addr's 'last' takes their addresses
        List<String> stateWarnings = new ArrayList<>();
        Map<String, Map<String, SavedServerState>> states = ServerStateLoader.load(config, stateWarnings);
        TlsContexts tls = usesTls(config) ? new TlsContexts(config.global(), previousTls) : null;
        if (tls != null) {
            problems.addAll(tls.prepare(config));
        }
        for (Proxy p : config.proxies()) {
            ProxyRules.compile(p, problems, tables);
            if (p.fcgiApp() != null) {
                dev.sluice.proxy.rules.FcgiRules.compile(p.fcgiApp(), p.name(), p.directory(), tables, problems);
            }
            checkLogging(p, problems);
            if (p.stats().enabled()) {
                ProxyRules.conditions(p, p.stats().admin(), "stats admin", problems, tables);
                for (dev.sluice.config.model.StatsPage.Rule r : p.stats().rules()) {
                    if (r.condition() != null) {
                        ProxyRules.conditions(p, List.of(r.condition()), "stats http-request", problems, tables);
                    }
                }
            }
            for (var e : p.errors().pages().entrySet()) {
                if (e.getValue().length > 0) {
                    try {
                        ErrorPageParser.parse(e.getValue());
                    } catch (IllegalArgumentException ex) {
                        problems.add(p.where() + ": error: " + p.kind().keyword() + " '" + p.name() + "' : errorfile for status " + e.getKey()
                                + " is not a valid HTTP response (" + ex.getMessage() + ").");
                    }
                }
            }
            if (p.kind().hasBackend()) {
                checkBalance(p, problems);
                problems.addAll(TcpCheckPlan.problems(p));
                List<Backend.ResolvedServer> list = new ArrayList<>();
                for (Server s : p.servers()) {
                    InetAddress a = s.unix() ? dev.sluice.proxy.backend.Server.UNIX_ADDRESS.getAddress() : Addresses.literal(s.host());
                    boolean unresolved = false;
                    if (a == null) {
                        // init-addr: the first method that gives an address ('last': the state file's, when it has one)
                        SavedServerState saved = states.getOrDefault(p.name(), Map.of()).get(s.name());
                        for (String m : s.initAddr()) {
                            if (m.equals("last")) {
                                a = saved == null ? null : saved.address();
                                if (saved != null && saved.addr() != null && a == null) {
                                    stateWarnings.add(s.where() + ": warning: 'server " + p.name() + "/" + s.name()
                                            + "' : invalid address '" + saved.addr() + "' in the server state file.");
                                }
                            } else if (m.equals("libc")) {
                                try {
                                    a = InetAddress.getByName(s.host());
                                } catch (UnknownHostException e) {
                                    continue;
                                }
                            } else if (m.equals("none")) {
                                unresolved = true;
                            } else {
                                a = Addresses.literal(m);
                            }
                            if (a != null || unresolved) {
                                break;
                            }
                        }
                        if (unresolved) {
                            problems.add(s.where() + ": warning: 'server " + p.name() + "/" + s.name() + "' : could not resolve address '"
                                    + s.host() + "', disabling server.");
                        } else if (a == null) {
                            problems.add(s.where() + ": error: 'server " + p.name() + "/" + s.name() + "' : could not resolve address '"
                                    + s.host() + "'.");
                            continue;
                        }
                    }
                    dev.sluice.proxy.backend.Server.Tls st = null;
                    if (s.tls() != null) {
                        st = serverTls(tls, p, s, problems);
                        if (st == null) {
                            continue;
                        }
                    }
                    list.add(new Backend.ResolvedServer(s, unresolved ? dev.sluice.proxy.backend.Server.unresolvedAddress(s.port())
                            : new InetSocketAddress(a, s.port()), st));
                }
                resolvedOut.put(p.name(), list);
            }
        }
        // rule compilation reports warnings (never-matching ACLs) among the problems: sort them out
        List<String> warnings = new ArrayList<>(stateWarnings);
        warnings.addAll(tls == null ? List.of() : tls.warnings());
        problems.removeIf(m -> m.contains(": warning: ") && warnings.add(m));
        return new Prepared(resolvedOut, tls, problems, warnings, process, states);
    }

    private static boolean usesTls(Config config) {
        for (Proxy p : config.proxies()) {
            for (Bind b : p.binds()) {
                if (b.tls() != null) {
                    return true;
                }
            }
            for (Server s : p.servers()) {
                if (s.tls() != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The TLS side of a {@code server ... ssl}: its context and compiled {@code sni}; null after a problem (reported). */
    private static dev.sluice.proxy.backend.Server.Tls serverTls(TlsContexts tls, Proxy p, Server s, List<String> problems) {
        ClientTlsContext ctx;
        try {
            ctx = tls.forServer(p.name(), s);
        } catch (TlsConfigException e) {
            // already reported by TlsContexts.prepare
            return null;
        }
        Fetch sni = null;
        String expr = s.tls().sni();
        if (expr != null) {
            String subject = s.where() + ": error: 'server " + p.name() + "/" + s.name() + "' : ";
            try {
                RuleCompiler.checkPhase(expr, RuleCompiler.Phase.REQUEST);
                sni = RuleCompiler.sample(expr);
            } catch (IllegalArgumentException e) {
                problems.add(subject + "error detected while parsing sni expression '" + expr + "' : " + e.getMessage() + ".");
                return null;
            }
        }
        String hostName = Addresses.literal(s.host()) == null && !s.unix() ? s.host() : null;
        return new dev.sluice.proxy.backend.Server.Tls(ctx, sni, hostName);
    }

    /**
     * The sample expressions of {@code log-format} and {@code unique-id-format}, and the capture slots that
     * {@code capture ... id <n>} rules of a frontend name.
     */
    private static void checkLogging(Proxy p, List<String> problems) {
        Logging lg = p.logging();
        if (lg.format() != null && lg.formatWhere() != null) {
            String err = LogLine.check(lg.format());
            if (err != null) {
                problems.add(lg.formatWhere() + ": error: 'log-format' : failed to parse log-format : " + err + ".");
            }
        }
        if (lg.uniqueIdFormat() != null) {
            try {
                Template.uniqueId(lg.uniqueIdFormat().text());
            } catch (IllegalArgumentException e) {
                problems.add(lg.uniqueIdWhere() + ": error: 'unique-id-format' : failed to parse unique-id-format : " + e.getMessage() + ".");
            }
        }
        if (!p.kind().hasFrontend()) {
            return;
        }
        checkCaptureIds(p.httpRequestRules(), lg.captures().request().size(), "http-request", problems);
        checkCaptureIds(p.httpResponseRules(), lg.captures().response().size(), "http-response", problems);
        // HAProxy names an http-after-response capture "http-response capture rule" too
        checkCaptureIds(p.httpAfterResponseRules(), lg.captures().response().size(), "http-response", problems);
    }

    private static void checkCaptureIds(List<HttpRule> rules, int slots, String family, List<String> problems) {
        for (HttpRule r : rules) {
            if (r instanceof HttpRule.Action a && a.name().equals("capture") && a.args().get(1).equals("id")
                    && Integer.parseInt(a.args().get(2)) >= slots) {
                problems.add(a.where() + ": error: unable to find capture id '" + a.args().get(2) + "' referenced by " + family
                        + " capture rule.");
            }
        }
    }

    /** The sample expression of {@code balance hash} must compile and be known on the request. */
    private static void checkBalance(Proxy p, List<String> problems) {
        Balance b = p.balance();
        if (b.algorithm() != Balance.Algorithm.HASH) {
            return;
        }
        String what = b.where() + ": error: " + p.kind().keyword() + " '" + p.name() + "' : failed to parse 'balance hash' expression '"
                + b.argument() + "' : ";
        try {
            RuleCompiler.sample(b.argument());
            RuleCompiler.checkPhase(b.argument(), RuleCompiler.Phase.REQUEST);
        } catch (IllegalArgumentException e) {
            problems.add(what + e.getMessage() + ".");
        }
    }
}
