package dev.sluice.config;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.Condition;
import dev.sluice.config.model.FcgiApp;
import dev.sluice.config.model.LogTarget;
import dev.sluice.config.model.Mode;
import dev.sluice.config.model.Server;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The {@code fcgi-app} section (HAProxy 2.6's src/fcgi-app.c: {@code docroot}, {@code index}, {@code path-info},
 * {@code set-param}, {@code pass-header}, {@code log-stderr}, {@code acl}, the four options), the proxies' {@code
 * use-fcgi-app} and {@code filter fcgi-app}, and the checks HAProxy makes once everything is read, in its words.
 */
final class FcgiAppKeywords {
    private FcgiAppKeywords() {
    }

    private static final Set<Section> APP = EnumSet.of(Section.FCGI_APP);
    private static final Set<Section> BACKENDS = EnumSet.of(Section.DEFAULTS, Section.BACKEND, Section.LISTEN, Section.FRONTEND);

    /** The headers every application hides from the FastCGI params unless a {@code pass-header} lets one through. */
    static final List<String> HIDDEN = List.of("connection", "keep-alive", "authorization", "proxy", "proxy-authorization",
            "proxy-authenticate", "te", "trailers", "transfer-encoding", "upgrade");

    /** An {@code fcgi-app} section while it is parsed. */
    static final class Builder {
        final SourceRef where;
        final String name;
        String docroot;
        String index;
        String pathInfo;
        final List<FcgiApp.Rule> rules = new ArrayList<>();
        final List<Acl> acls = new ArrayList<>();
        boolean logGlobal;
        final List<LogTarget> logs = new ArrayList<>();
        boolean keepConn = true;
        boolean mpxsConns;
        int maxReqs = 1;
        boolean getValues;

        Builder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
            // as HAProxy: the authentication parameters, then the hop-by-hop and credential headers hidden
            rules.add(new FcgiApp.Rule(where, FcgiApp.Kind.SET_PARAM, paramName("REMOTE_USER"), "%[http_auth_user]", null, "REMOTE_USER"));
            rules.add(new FcgiApp.Rule(where, FcgiApp.Kind.SET_PARAM, paramName("AUTH_TYPE"), "%[http_auth_type]", null, "AUTH_TYPE"));
            for (String h : HIDDEN) {
                rules.add(new FcgiApp.Rule(where, FcgiApp.Kind.HIDE_HEADER, h, null, null, h));
            }
        }

        FcgiApp build() {
            return new FcgiApp(where, name, docroot, index, pathInfo, rules, acls, logGlobal, logs, keepConn, mpxsConns, maxReqs, getValues);
        }
    }

    /** HAProxy's name of a parameter: lower case, any character but a letter or a digit turned into '_'. */
    static String paramName(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            b.append(ch < 128 && Character.isLetterOrDigit(ch) ? Character.toLowerCase(ch) : '_');
        }
        return b.toString();
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("docroot", APP, "docroot <path>",
                "The document root on the FastCGI host (mandatory): DOCUMENT_ROOT, and the start of SCRIPT_FILENAME and PATH_TRANSLATED.",
                c -> {
                    if (one(c, "<path>")) {
                        app(c).docroot = c.args().get(0);
                    }
                }));
        r.register(new Keyword("index", APP, "index <script-name>",
                "The script appended to a path that ends with '/' to make SCRIPT_NAME (e.g. index.php).", c -> {
                    if (one(c, "<filename>")) {
                        app(c).index = c.args().get(0);
                    }
                }));
        r.register(new Keyword("path-info", APP, "path-info <regex>",
                "A regex on the URL-decoded path: its first capture is SCRIPT_NAME, its second (optional) PATH_INFO (and"
                        + " PATH_TRANSLATED); a decoded path with a line feed or a NUL is then refused. Without it SCRIPT_NAME is the whole path.",
                FcgiAppKeywords::pathInfo));
        r.register(new Keyword("set-param", APP, "set-param <name> <fmt> [if|unless <cond>]",
                "Set a FastCGI parameter to a log-format string when the condition holds (evaluated on the request at the backend,"
                        + " in declaration order, the last matching one for a name wins); an empty result sets nothing. It may"
                        + " override the default parameters (DOCUMENT_ROOT, SCRIPT_NAME, ...).",
                FcgiAppKeywords::setParam));
        r.register(new Keyword("pass-header", APP, "pass-header <name> [if|unless <cond>]",
                "Pass a request header that is hidden by default (Authorization, Proxy-Authorization and the hop-by-hop ones) to"
                        + " the application as an HTTP_* parameter when the condition holds.",
                FcgiAppKeywords::passHeader));
        r.register(new Keyword("log-stderr", APP, "log-stderr global | log-stderr <target> [len <n>] [format <fmt>] <facility> [<level> [<minlevel>]]",
                "Log what the application writes on its STDERR stream (one log line per message, level err); by default it is dropped.",
                FcgiAppKeywords::logStderr));
        r.register(new Keyword("option keep-conn", APP, "[no] option keep-conn",
                "Ask the application to keep the connection open after a response (the default), so that it waits in the server's"
                        + " idle pool for the next request; 'no option keep-conn': one connection per request.",
                c -> {
                    if (c.atMost(0)) {
                        app(c).keepConn = !c.negated();
                    }
                }));
        r.register(new Keyword("option mpxs-conns", APP, "[no] option mpxs-conns",
                "Declare that the application multiplexes requests on a connection (FCGI_MPXS_CONNS; off by default): with max-reqs"
                        + " above 1 a connection carries up to that many requests at once, each under its own request id, as HAProxy's"
                        + " (see docs/design.md).",
                c -> {
                    if (c.atMost(0)) {
                        app(c).mpxsConns = !c.negated();
                    }
                }));
        r.register(new Keyword("option get-values", APP, "[no] option get-values",
                "Send FCGI_GET_VALUES first on each new connection and send requests once it is answered: FCGI_MAX_REQS becomes the"
                        + " connection's limit of requests at once, 1 unless FCGI_MPXS_CONNS is 1 (off by default).",
                c -> {
                    if (c.atMost(0)) {
                        app(c).getValues = !c.negated();
                    }
                }));
        r.register(new Keyword("option max-reqs", APP, "option max-reqs <reqs>",
                "The most requests a connection carries at once (default 1; ignored, with a warning, without mpxs-conns or"
                        + " get-values); a further request opens another connection. With get-values the application's answer replaces it.",
                FcgiAppKeywords::maxReqs));
        r.register(new Keyword("use-fcgi-app", BACKENDS, "use-fcgi-app <name>",
                "The FastCGI application (an fcgi-app section) of this backend's 'proto fcgi' servers; one per backend.",
                FcgiAppKeywords::useFcgiApp));
        r.register(new Keyword("filter fcgi-app", EnumSet.of(Section.FRONTEND, Section.LISTEN, Section.BACKEND), "filter fcgi-app <name>",
                "Declare the FastCGI application's filter explicitly (use-fcgi-app declares it otherwise); same effect as use-fcgi-app.",
                FcgiAppKeywords::filter));
    }

    private static Builder app(KeywordContext c) {
        return c.currentFcgiApp();
    }

    /** One argument, HAProxy's words when it is missing ("'docroot' expects <path> as argument.") or followed by more. */
    private static boolean one(KeywordContext c, String what) {
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("'" + c.keyword() + "' expects " + what + " as argument.");
            return false;
        }
        return c.atMost(1);
    }

    private static void pathInfo(KeywordContext c) {
        if (!one(c, "<regex>")) {
            return;
        }
        String re = c.args().get(0);
        try {
            Pattern.compile(re);
        } catch (PatternSyntaxException e) {
            c.lineError("'" + re + "' : regex '" + re + "' is invalid: " + e.getDescription());
            return;
        }
        app(c).pathInfo = re;
    }

    private static void setParam(KeywordContext c) {
        List<String> a = c.args();
        if (a.size() < 2 || a.get(0).isEmpty() || a.get(1).isEmpty()) {
            c.lineError("'set-param' expects <name> and <value> as arguments.");
            return;
        }
        Condition cond = condition(c, 2);
        if (cond == BAD) {
            return;
        }
        app(c).rules.add(new FcgiApp.Rule(c.at(), FcgiApp.Kind.SET_PARAM, paramName(a.get(0)), a.get(1), cond, a.get(0)));
    }

    private static void passHeader(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.lineError("'pass-header' expects <name> as arguments.");
            return;
        }
        Condition cond = condition(c, 1);
        if (cond == BAD) {
            return;
        }
        app(c).rules.add(new FcgiApp.Rule(c.at(), FcgiApp.Kind.PASS_HEADER, a.get(0).toLowerCase(Locale.ROOT), null, cond, a.get(0)));
    }

    private static final Condition BAD = new Condition(false, List.of());

    /** The condition from word {@code from} on: null when none, {@link #BAD} after reporting a wrong one. */
    private static Condition condition(KeywordContext c, int from) {
        List<String> a = c.args();
        if (from >= a.size()) {
            return null;
        }
        String w = a.get(from);
        if (!w.equals("if") && !w.equals("unless")) {
            // HAProxy ignores what follows a rule that is not a condition; Sluice refuses it
            c.lineError("'" + a.get(0) + "' : unexpected argument '" + w + "' (expected 'if' or 'unless' followed by a condition).");
            return BAD;
        }
        Condition cond = c.conditionFrom(from);
        return cond == null ? BAD : cond;
    }

    private static void logStderr(KeywordContext c) {
        List<String> a = c.args();
        if (c.negated()) {
            app(c).logGlobal = false;
            app(c).logs.clear();
            return;
        }
        if (a.size() == 1 && a.get(0).equals("global")) {
            app(c).logGlobal = true;
            return;
        }
        LogTarget t = LogKeywords.target(c, a);
        if (t != null) {
            app(c).logs.add(t);
        }
    }

    private static void maxReqs(KeywordContext c) {
        if (c.negated()) {
            c.lineError("negation/default is not supported for option 'max-reqs'.");
            return;
        }
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("option 'max-reqs' expects an integer argument.");
            return;
        }
        if (!c.atMost(1)) {
            return;
        }
        long n = atol(c.args().get(0));
        if (n <= 0 || n > Integer.MAX_VALUE) {
            c.lineError("option 'max-reqs' expects a strictly positive integer argument.");
            return;
        }
        app(c).maxReqs = (int) n;
    }

    /** The digits {@code atol} reads at the start of {@code s} (0 when none). */
    private static long atol(String s) {
        int i = 0;
        while (i < s.length() && i < 18 && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i == 0 ? 0 : Long.parseLong(s.substring(0, i));
    }

    private static void useFcgiApp(KeywordContext c) {
        ProxyBuilder p = c.proxy();
        if (c.section() == Section.FRONTEND || c.section() == Section.DEFAULTS) {
            c.lineError("'use-fcgi-app' only available in backend or listen section");
            return;
        }
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("'use-fcgi-app' expects <name> as argument");
            return;
        }
        String name = c.args().get(0);
        if (p.fcgiApp != null && !p.fcgiApp.equals(name)) {
            c.lineError("'use-fcgi-app' : only one fcgi-app supported per backend");
            return;
        }
        p.fcgiApp = name;
        if (p.fcgiAppWhere == null) {
            p.fcgiAppWhere = c.at();
        }
    }

    private static void filter(KeywordContext c) {
        ProxyBuilder p = c.proxy();
        if (c.args().isEmpty() || c.args().get(0).isEmpty()) {
            c.lineError("'filter' : 'fcgi-app : expects a <name> argument'");
            return;
        }
        if (c.args().size() > 1) {
            c.lineError("'filter fcgi-app' : unknown keyword '" + c.args().get(1) + "'.");
            return;
        }
        String name = c.args().get(0);
        if (p.fcgiApp != null && !p.fcgiApp.equals(name)) {
            c.lineError("proxy '" + p.name + "' : only one fcgi-app supported per backend.");
            return;
        }
        p.fcgiApp = name;
        p.fcgiAppWhere = c.at();
    }

    // ---------------------------------------------------------------- section header and end

    /** The {@code fcgi-app <name>} line: a new builder, or null (reported) when the line is wrong. */
    static Builder header(SourceRef at, List<String> words, Map<String, Builder> done, Diagnostics diags) {
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "'fcgi-app' expects <name> as argument.");
            return null;
        }
        if (words.size() > 2) {
            diags.error(at, "'fcgi-app' cannot handle unexpected argument '" + words.get(2) + "'.");
            return null;
        }
        String name = words.get(1);
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (!(ch < 128 && Character.isLetterOrDigit(ch)) && ch != '-' && ch != '_' && ch != '.' && ch != ':') {
                diags.error(at, "character '" + ch + "' is not permitted in 'fcgi-app' name '" + name + "'.");
                return null;
            }
        }
        Builder before = done.get(name);
        if (before != null) {
            diags.error(at, "fcgi-app section '" + name + "' has the same name as another one declared at " + before.where.file() + ":"
                    + before.where.line() + ".");
            return null;
        }
        return new Builder(at, name);
    }

    /** HAProxy's checks of the applications once everything is read; the applications by name. */
    static Map<String, FcgiApp> finish(Map<String, Builder> apps, Diagnostics diags) {
        Map<String, FcgiApp> out = new java.util.LinkedHashMap<>();
        for (Builder b : apps.values()) {
            if (b.docroot == null || b.docroot.isEmpty()) {
                diags.error(b.where, "fcgi-app '" + b.name + "': no docroot configured.");
            }
            if (!b.mpxsConns && !b.getValues) {
                if (b.maxReqs > 1) {
                    diags.warning(b.where, "fcgi-app '" + b.name + "': multiplexing not supported, ignore the option 'max-reqs'.");
                }
                b.maxReqs = 1;
            }
            out.put(b.name, b.build());
        }
        return out;
    }

    /**
     * A proxy's application, checked as HAProxy does once all is read: it exists, the proxy is in HTTP mode, every
     * {@code proto fcgi} server has one and an application has at least one such server. Returns the application (null:
     * none, or a problem reported).
     */
    static FcgiApp resolve(ProxyBuilder p, Map<String, FcgiApp> apps, Diagnostics diags) {
        if (p.section == Section.DEFAULTS) {
            return null;
        }
        FcgiApp app = null;
        if (p.fcgiApp != null && p.kind().hasBackend()) {
            app = apps.get(p.fcgiApp);
            if (app == null) {
                diags.error(p.fcgiAppWhere, "proxy '" + p.name + "' : fcgi-app '" + p.fcgiApp + "' not found.");
                return null;
            }
            if (p.effectiveMode() != Mode.HTTP) {
                diags.error(p.where, "proxy '" + p.name + "': FCGI application cannot be used in non-HTTP mode.");
                return null;
            }
        }
        int fcgiServers = 0;
        for (Server s : p.servers) {
            if ("fcgi".equals(s.proto())) {
                fcgiServers++;
                if (app == null && p.fcgiApp == null) {
                    diags.error(s.where(), "proxy '" + p.name + "': FCGI server '" + s.name() + "' has no FCGI app configured.");
                    return null;
                }
            }
        }
        if (app != null && fcgiServers == 0) {
            diags.error(p.fcgiAppWhere, "proxy '" + p.name + "': FCGI app configured but no FCGI server found.");
            return null;
        }
        return app;
    }
}
