package dev.sluice.proxy.cli;

import dev.sluice.config.Diagnostic;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.UnixPerms;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The user and group names of the UNIX bind options ({@code bind /path user <name> group <name>}) and of the global
 * {@code unix-bind}, resolved as {@link Privileges} resolves the global {@code user} and {@code group}: with the C
 * library's {@code getpwnam}/{@code getgrnam} ({@link Libc}), so every NSS source counts (files, LDAP, systemd-userdb).
 * HAProxy 2.6 resolves them while parsing; Sluice does it right after, before anything checks or runs the
 * configuration, so {@code -c} fails on an unknown name with HAProxy's message at the line that names it (once, however
 * many binds take it from {@code unix-bind}). Main thread only.
 */
final class UnixOwners {
    private UnixOwners() {
    }

    /** The configuration with every name replaced by its id (as parsed when a name is unknown), and the problems. */
    record Resolved(Config config, List<Diagnostic> problems) {
    }

    static Resolved resolve(Config config) {
        if (config == null) {
            return new Resolved(null, List.of());
        }
        Lookups l = new Lookups();
        l.perms(config.global().process().unixBind());
        List<Proxy> proxies = new ArrayList<>(config.proxies().size());
        boolean changed = false;
        for (Proxy p : config.proxies()) {
            List<Bind> binds = new ArrayList<>(p.binds().size());
            boolean named = false;
            for (Bind b : p.binds()) {
                UnixPerms u = b.socket().unix();
                if (u.hasNames()) {
                    named = true;
                    b = b.withSocket(b.socket().withUnix(l.perms(u)));
                }
                binds.add(b);
            }
            proxies.add(named ? p.withBinds(binds) : p);
            changed |= named;
        }
        return new Resolved(changed ? config.withProxies(proxies) : config, List.copyOf(l.problems));
    }

    /** Each name looked up once; each problem said once (a bind line with several addresses, binds under unix-bind). */
    private static final class Lookups {
        final Map<String, Integer> users = new HashMap<>();
        final Map<String, Integer> groups = new HashMap<>();
        final Set<Diagnostic> problems = new LinkedHashSet<>();

        UnixPerms perms(UnixPerms u) {
            if (!u.hasNames()) {
                return u;
            }
            int uid = u.user() == null ? -1 : id(u.user(), true);
            int gid = u.group() == null ? -1 : id(u.group(), false);
            return u.resolved(uid, gid);
        }

        private int id(UnixPerms.Name n, boolean user) {
            Map<String, Integer> cache = user ? users : groups;
            Integer known = cache.get(n.name());
            if (known == null) {
                try {
                    known = user ? Libc.userId(n.name()) : Libc.groupId(n.name());
                } catch (Libc.Failure e) {
                    problem(n, "cannot look up " + (user ? "user" : "group") + " '" + n.name() + "' (" + e.getMessage() + ")");
                    return -1;
                }
                cache.put(n.name(), known);
            }
            if (known < 0) {
                String kind = user ? "user" : "group";
                // HAProxy 2.6: cfgparse-unix.c for a bind, cfgparse-global.c for unix-bind
                problem(n, n.bind() != null ? n.bind() + " : '" + kind + "' : unknown " + kind + " name '" + n.name() + "'"
                        : "'unix-bind' : '" + n.name() + "' unknown " + kind + ".");
            }
            return known;
        }

        private void problem(UnixPerms.Name n, String message) {
            problems.add(new Diagnostic(n.at().file(), n.at().line(), Diagnostic.Severity.ERROR, message));
        }
    }
}
