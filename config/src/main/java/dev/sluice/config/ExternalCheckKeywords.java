package dev.sluice.config;

import static dev.sluice.config.Section.BACKEND_SIDE;

import dev.sluice.config.model.Proxy;
import java.util.EnumSet;
import java.util.List;

/**
 * External checks as HAProxy 2.6 has them: the global {@code external-check}, {@code option external-check} (the last
 * check option of a section wins) and {@code external-check command|path}, with HAProxy's messages, and the checks once
 * a proxy is built (the global keyword and a command required, a command without '/' needs a path; without
 * {@code insecure-fork-wanted} a warning, and the checks fail at run time as HAProxy's, which may not fork then).
 */
final class ExternalCheckKeywords {
    private ExternalCheckKeywords() {
    }

    static void register(KeywordRegistry r) {
        EnumSet<Section> sections = EnumSet.copyOf(BACKEND_SIDE);
        sections.add(Section.GLOBAL);
        r.register(new Keyword("external-check", sections, "external-check (global) | external-check command <command> | external-check path <path>",
                "In the global section, allow external checks ('option external-check'; starting programs also needs"
                        + " 'insecure-fork-wanted'). In a proxy, the program 'option external-check' runs (a name without '/' is"
                        + " looked for in the path) and the PATH it gets (default: empty).",
                ExternalCheckKeywords::externalCheck));
        r.register(new Keyword("option external-check", BACKEND_SIDE, "option external-check",
                "Check servers by running 'external-check command' with the arguments <proxy_address> <proxy_port>"
                        + " <server_address> <server_port> (the first two are NOT_USED for a backend without listener) and"
                        + " HAProxy's HAPROXY_PROXY_* and HAPROXY_SERVER_* environment variables and PATH; exit status 0 passes,"
                        + " another fails (PROCERR, the status as check code); a program still running after inter (MIN(inter,"
                        + " timeout connect) with 'timeout check') is terminated (PROCTOUT). Needs the global 'external-check'"
                        + " and 'insecure-fork-wanted'.",
                ExternalCheckKeywords::option));
    }

    /** The global {@code external-check}, or a proxy's {@code external-check command|path <arg>}, with HAProxy's messages. */
    private static void externalCheck(KeywordContext c) {
        List<String> a = c.args();
        if (c.section() == Section.GLOBAL) {
            if (c.expectArgs(0, 0, "external-check")) {
                c.global().externalCheck = true;
            }
            return;
        }
        if (a.isEmpty() || a.get(0).isEmpty()) {
            c.lineError("missing argument after 'external-check'.");
            return;
        }
        String what = a.get(0);
        if (!what.equals("command") && !what.equals("path")) {
            c.lineError("'external-check' only supports 'command' and 'path'. but got '" + what + "'.");
            return;
        }
        if (a.size() < 2 || a.get(1).isEmpty()) {
            c.lineError("missing argument after '" + what + "'.");
            return;
        }
        if (a.size() > 2) {
            c.lineError("'external-check' cannot handle unexpected argument '" + a.get(2) + "'.");
            return;
        }
        if (what.equals("path")) {
            c.proxy().checks.externalPath = a.get(1);
        } else {
            c.proxy().checks.externalCommand = a.get(1);
        }
    }

    private static void option(KeywordContext c) {
        if (c.negated()) {
            c.lineError("negation/default is not supported for option 'external-check'.");
            return;
        }
        if (c.expectArgs(0, 0, "option external-check")) {
            CheckKeywords.Builder b = c.proxy().checks;
            b.external = true;
            b.httpchk = false;
            b.tcp.httpchk();
        }
    }

    /** HAProxy's check_config_validity for external checks, once a proxy is built. */
    static void afterBuild(ProxyBuilder b, Proxy p, GlobalBuilder global, Diagnostics diags) {
        if (!p.kind().hasBackend() || b.section == Section.DEFAULTS) {
            return;
        }
        CheckKeywords.Builder k = b.checks;
        String name = p.name();
        if (k.external) {
            if (!global.externalCheck) {
                diags.error(p.where(), "Proxy '" + name + "' : 'option external-check' unable to find required 'global.external-check'.");
            }
            if (k.externalCommand == null) {
                diags.error(p.where(), "Proxy '" + name + "' : 'option external-check' unable to find required 'external-check command'.");
            }
            if (!global.insecureForkWanted) {
                diags.warning(p.where(), "Proxy '" + name + "' : 'insecure-fork-wanted' not enabled in the global section, 'option external-check'"
                        + " will likely fail.");
            }
        }
        String what = p.kind().keyword() + " '" + name + "'";
        if (k.externalCommand != null) {
            if (!k.external) {
                diags.warning(p.where(), "'external-check command' will be ignored for " + what + " (requires 'option external-check').");
            }
            if (!k.externalCommand.startsWith("/") && k.externalPath == null) {
                diags.error(p.where(), "Proxy '" + name + "': 'external-check command' does not have a leading '/' and 'external-check path' is"
                        + " not set.");
            }
        }
        if (k.externalPath != null && !k.external) {
            diags.warning(p.where(), "'external-check path' will be ignored for " + what + " (requires 'option external-check').");
        }
    }
}
