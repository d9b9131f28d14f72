package dev.sluice.config;

import dev.sluice.config.model.Environment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The global keywords that change what the following lines read: the environment ({@code setenv}, {@code presetenv},
 * {@code unsetenv}, {@code resetenv}, in order, seen by later lines' {@code "${VAR}"}, {@code .if defined()} and the
 * {@code env()} fetch) and where relative paths start from ({@code default-path}). Registered once at start-up; the
 * parsers run on the parsing thread.
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
        r.register(new Keyword("default-path", GLOBAL, "default-path current|config|parent|origin <path>",
                "Where relative file paths of the following lines start from (certificates, CA files, errorfiles, return files,"
                        + " maps and pattern files): the start directory (current, the default), the directory of the configuration"
                        + " file being read (config), its parent (parent) or a given one (origin).",
                EnvironmentKeywords::defaultPath));
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
