package dev.sluice.config;

import dev.sluice.config.model.Environment;
import dev.sluice.config.model.ProcVar;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The global keywords that change what the following lines read: the environment ({@code setenv}, {@code presetenv},
 * {@code unsetenv}, {@code resetenv}, in order, seen by later lines' {@code "${VAR}"}, {@code .if defined()} and the
 * {@code env()} fetch), the process variables ({@code set-var}, {@code set-var-fmt}) and where relative paths start from
 * ({@code default-path}). Registered once at start-up; the parsers run on the parsing thread.
 */
final class EnvironmentKeywords {
    private EnvironmentKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);

    static void register(KeywordRegistry r) {
        r.register(new Keyword("setenv", GLOBAL, "setenv <name> <value>",
                "Set an environment variable (replacing its value): the following lines see it in \"${name}\", as do the env()"
                        + " fetch and .if defined().",
                c -> set(c, true)));
        r.register(new Keyword("presetenv", GLOBAL, "presetenv <name> <value>",
                "Set an environment variable unless it is set already (a default the inherited environment may override).",
                c -> set(c, false)));
        r.register(new Keyword("unsetenv", GLOBAL, "unsetenv <name>...",
                "Remove environment variables from what the following lines, the env() fetch and .if defined() see.", c -> {
                    if (c.args().isEmpty()) {
                        c.lineError("'unsetenv' expects at least one variable name.");
                        return;
                    }
                    for (String n : c.args()) {
                        if (!validName(c, n)) {
                            return;
                        }
                    }
                    c.global().environment = c.global().environment.without(c.args());
                }));
        r.register(new Keyword("resetenv", GLOBAL, "resetenv [<name>...]",
                "Remove every environment variable but the ones named (which keep their values) from what the following lines,"
                        + " the env() fetch and .if defined() see.",
                c -> c.global().environment = c.global().environment.keepOnly(c.settings().env(), c.args())));
        r.register(new Keyword("set-var", GLOBAL, "set-var proc.<name>[,<cond>...] <expr>",
                "Set a process-wide variable to a sample expression evaluated when the configuration is read (fetches of"
                        + " internal data only: str(), int(), env(), var(proc.x)...); rules then read and change it with var(proc.<name>).",
                c -> setVar(c, false)));
        r.register(new Keyword("set-var-fmt", GLOBAL, "set-var-fmt proc.<name>[,<cond>...] <format>",
                "Set a process-wide variable to a log-format string evaluated when the configuration is read (%pid, %[var(...)],"
                        + " ...).",
                c -> setVar(c, true)));
        r.register(new Keyword("default-path", GLOBAL, "default-path current|config|parent|origin <path>",
                "Where relative file paths of the following lines start from (certificates, CA files, errorfiles, return files,"
                        + " maps and pattern files): the start directory (current, the default), the directory of the configuration"
                        + " file being read (config), its parent (parent) or a given one (origin).",
                EnvironmentKeywords::defaultPath));
    }

    /** The conditions HAProxy 2.6's set-var takes after the variable name. */
    private static final List<String> CONDITIONS = List.of("ifexists", "ifnotexists", "ifempty", "ifnotempty", "ifset", "ifnotset",
            "ifgt", "iflt");

    /**
     * The global set-var lines, read as HAProxy reads "set-var(<name>)" with its first argument after it (words after
     * that are ignored, as HAProxy does); the expression is compiled and evaluated with the rules (runtime checks).
     */
    private static void setVar(KeywordContext c, boolean format) {
        List<String> a = c.args();
        String kw = c.keyword();
        if (a.size() < 2 || a.get(0).isEmpty() || a.get(1).isEmpty()) {
            c.lineError("'" + kw + "' requires a process-wide variable name ('proc.<name>') and " + (format ? "a format string." : "a sample"
                    + " expression."));
            return;
        }
        String[] parts = a.get(0).split(",", -1);
        String name = parts[0];
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (!(Character.isLetterOrDigit(ch) && ch < 128 || ch == '_' || ch == '.')) {
                c.lineError("invalid syntax at char '" + name.substring(i) + ")'");
                return;
            }
        }
        int dot = name.indexOf('.');
        String scope = dot < 0 ? "" : name.substring(0, dot);
        if (!List.of("proc", "sess", "txn", "req", "res", "check").contains(scope) || dot == name.length() - 1) {
            c.lineError("invalid variable name '" + name + "'. A variable name must be start by its scope. The scope can be 'proc', 'sess',"
                    + " 'txn', 'req', 'res' or 'check'");
            return;
        }
        List<String> conditions = List.of(parts).subList(1, parts.length);
        for (String cond : conditions) {
            if (!CONDITIONS.contains(cond)) {
                c.lineError("unknown condition \"" + cond + "\"");
                return;
            }
        }
        if (!scope.equals("proc")) {
            c.lineError("'" + kw + "': cannot set variable '" + a.get(0) + "', only scope 'proc' is permitted in the global section.");
            return;
        }
        c.global().vars.add(new ProcVar(name, conditions, a.get(1), format, c.at(), c.paths().directory()));
    }

    private static void defaultPath(KeywordContext c) {
        String m = c.args().isEmpty() ? "" : c.args().get(0);
        ConfigPaths.Mode mode = switch (m) {
            case "current" -> ConfigPaths.Mode.CURRENT;
            case "config" -> ConfigPaths.Mode.CONFIG;
            case "parent" -> ConfigPaths.Mode.PARENT;
            case "origin" -> ConfigPaths.Mode.ORIGIN;
            default -> null;
        };
        if (mode == null) {
            c.lineError((m.isEmpty() ? "missing" : "unsupported") + " default-path mode '" + m + "' for 'default-path', supported modes"
                    + " include 'current', 'config', 'parent', and 'origin'.");
            return;
        }
        String origin = c.args().size() > 1 ? c.args().get(1) : "";
        if (mode == ConfigPaths.Mode.ORIGIN && origin.isEmpty()) {
            c.lineError("'default-path origin' expects a directory as an argument.");
            return;
        }
        String problem = c.paths().set(mode, origin, c.at().file());
        if (problem != null) {
            c.lineError("couldn't set 'default-path' to " + (mode == ConfigPaths.Mode.ORIGIN ? "origin '" + origin + "'" : "'" + m + "'") + ": "
                    + problem + ".");
        }
    }

    private static void set(KeywordContext c, boolean overwrite) {
        if (!c.atMost(3)) {
            return;
        }
        List<String> a = c.args();
        if (a.size() < 2 || a.get(1).isEmpty()) {
            c.lineError("'" + c.keyword() + "' expects a name and a value.");
            return;
        }
        if (validName(c, a.get(0))) {
            Environment e = c.global().environment;
            c.global().environment = e.with(c.settings().env(), a.get(0), a.get(1), overwrite);
        }
    }

    /** What setenv(3) and unsetenv(3) refuse (EINVAL): an empty name or one with '='. */
    private static boolean validName(KeywordContext c, String name) {
        if (name.isEmpty() || name.indexOf('=') >= 0) {
            c.lineError("'" + c.keyword() + "' failed on variable '" + name + "' : Invalid argument.");
            return false;
        }
        return true;
    }
}
