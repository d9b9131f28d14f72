package dev.sluice.config;

import dev.sluice.config.model.UnixPerms;
import java.util.EnumSet;
import java.util.Set;

/**
 * Process-wide settings of the {@code global} section: limits, threads, daemon and master-worker mode, the
 * identity the daemon drops to (user, group, chroot), buffer tuning, node and description ({@code maxconn} and
 * {@code description} are proxy keywords too). Registered once at start-up; the parsers run on the parsing thread.
 */
final class ProcessKeywords {
    private ProcessKeywords() {
    }

    private static final Set<Section> GLOBAL = EnumSet.of(Section.GLOBAL);

    static void register(KeywordRegistry r) {
        r.register(new Keyword("maxconn", EnumSet.of(Section.GLOBAL, Section.DEFAULTS, Section.FRONTEND, Section.LISTEN), "maxconn <number>",
                "Maximum concurrent connections: for the whole process in global, per frontend elsewhere; excess connections wait in the kernel backlog.",
                ProcessKeywords::maxconn));
        r.register(new Keyword("nbthread", GLOBAL, "nbthread <number>",
                "Number of event-loop threads (default: one per available core).",
                c -> {
                    if (c.expectArgs(1, 1, "nbthread <number>")) {
                        c.global().nbthread = c.intArg(c.args().get(0), "nbthread", 1, 4096, 0);
                    }
                }));
        r.register(new Keyword("daemon", GLOBAL, "daemon", "Detach from the terminal and run in the background (same as -D).",
                c -> {
                    if (c.expectArgs(0, 0, "daemon")) {
                        c.global().daemon = true;
                    }
                }));
        r.register(new Keyword("pidfile", GLOBAL, "pidfile <path>", "Write the daemon's PID to this file (same as -p).",
                c -> {
                    if (c.expectArgs(1, 1, "pidfile <path>")) {
                        c.global().pidfile = c.args().get(0);
                    }
                }));

        processKeywords(r);
        r.register(new Keyword("unix-bind", GLOBAL, "unix-bind [prefix <path>] [mode <octal>] [user <name>] [uid <n>] [group <name>] [gid <n>]",
                "Defaults for the UNIX socket binds that follow (bind <path>, unix@<path>): prefix is put in front of each path (not of"
                        + " abns@ names nor of the stats socket's), mode, user/uid and group/gid are given to each socket file unless its bind"
                        + " line sets its own.",
                ProcessKeywords::unixBind));

        r.register(new Keyword("tune.bufsize", EnumSet.of(Section.GLOBAL), "tune.bufsize <bytes>",
                "Buffer size (default 16384): a request or response head must fit in it minus tune.maxrewrite (414/431/502 otherwise).",
                c -> {
                    if (c.expectArgs(1, 1, "tune.bufsize <bytes>")) {
                        c.global().bufsize = c.intArg(c.args().get(0), "tune.bufsize", 1024, 1 << 30, c.global().bufsize);
                    }
                }));
        r.register(new Keyword("tune.maxrewrite", EnumSet.of(Section.GLOBAL), "tune.maxrewrite <bytes>",
                "Room kept in the buffer for header rewrites (default 1024).", c -> {
                    if (c.expectArgs(1, 1, "tune.maxrewrite <bytes>")) {
                        c.global().maxrewrite = c.intArg(c.args().get(0), "tune.maxrewrite", 0, 1 << 29, c.global().maxrewrite);
                    }
                }));
        r.register(new Keyword("tune.http.maxhdr", EnumSet.of(Section.GLOBAL), "tune.http.maxhdr <number>",
                "Most header fields in a message (default 101, 1 to 32767); more gives 400 (502 for a response).", c -> {
                    if (c.expectArgs(1, 1, "tune.http.maxhdr <number>")) {
                        c.global().maxhdr = c.intArg(c.args().get(0), "tune.http.maxhdr", 1, 32767, c.global().maxhdr);
                    }
                }));

        r.register(new Keyword("description", EnumSet.of(Section.GLOBAL, Section.FRONTEND, Section.BACKEND, Section.LISTEN), "description <text>",
                "A description of the process (global: 'show info', the stats page with 'stats show-desc') or of a proxy (shown"
                        + " beside its name on the stats page); the words are joined by spaces.",
                c -> {
                    if (c.args().isEmpty()) {
                        c.error("expects a string argument.");
                        return;
                    }
                    String text = String.join(" ", c.args());
                    if (c.section() == Section.GLOBAL) {
                        c.global().description = text;
                    } else {
                        c.proxy().description = text;
                    }
                }));
        r.register(new Keyword("node", EnumSet.of(Section.GLOBAL), "node <name>",
                "The name of this process in a cluster, shown by 'show info' and on the stats page with 'stats show-node' (default:"
                        + " the host name).",
                c -> {
                    if (c.expectArgs(1, 1, "node <name>")) {
                        c.global().node = c.args().get(0);
                    }
                }));
    }

    private static void maxconn(KeywordContext c) {
        if (!c.expectArgs(1, 1, "maxconn <number>")) {
            return;
        }
        int v = c.intArg(c.args().get(0), "maxconn", 1, Integer.MAX_VALUE, 0);
        if (c.section() == Section.GLOBAL) {
            c.global().maxconn = v;
        } else {
            c.proxy().maxconn = v;
        }
    }

    /** The global {@code user} (a userlist's {@code user} is the same keyword: {@link UserlistKeywords}). */
    static void globalUser(KeywordContext c) {
        if (c.expectArgs(1, 1, "user <user name>")) {
            if (c.global().user != null || c.global().uid >= 0) {
                c.warning("user/uid already specified; the last one wins.");
            }
            c.global().user = c.args().get(0);
            c.global().userAt = c.at();
            c.global().uid = -1;
        }
    }

    /** The global {@code group} (a userlist's {@code group} is the same keyword: {@link UserlistKeywords}). */
    static void globalGroup(KeywordContext c) {
        if (c.expectArgs(1, 1, "group <group name>")) {
            if (c.global().group != null || c.global().gid >= 0) {
                c.warning("group/gid already specified; the last one wins.");
            }
            c.global().group = c.args().get(0);
            c.global().groupAt = c.at();
            c.global().gid = -1;
        }
    }

    /** uid, gid, chroot, ulimit-n (and user, group: see above): applied by the daemon once its listeners are bound. */
    /** HAProxy 2.6's {@code unix-bind} ({@code cfgparse-global.c}), with its messages. */
    private static void unixBind(KeywordContext c) {
        GlobalBuilder g = c.global();
        java.util.List<String> a = c.args();
        for (int i = 0; i < a.size(); i += 2) {
            String opt = a.get(i);
            String v = i + 1 < a.size() ? a.get(i + 1) : "";
            switch (opt) {
                case "prefix" -> {
                    if (g.unixBindPrefix != null) {
                        c.lineWarning("unix-bind '" + opt + "' already specified. Continuing.");
                        continue;
                    }
                    if (v.isEmpty()) {
                        c.lineError("unix_bind '" + opt + "' expects a path as an argument.");
                        return;
                    }
                    g.unixBindPrefix = v;
                }
                // strtol and atol as HAProxy: what does not read as a number is 0
                case "mode" -> g.unixBind = g.unixBind.withMode(Math.max(0, BindSocketOptions.octal(v.replaceFirst("[^0-7].*$", ""))));
                case "uid" -> g.unixBind = g.unixBind.withUid(BindSocketOptions.atol(v));
                case "gid" -> g.unixBind = g.unixBind.withGid(BindSocketOptions.atol(v));
                case "user", "group" -> {
                    // resolved by the daemon when it reads the configuration (NSS), which reports an unknown name at this line
                    UnixPerms.Name n = new UnixPerms.Name(v, c.at(), null);
                    g.unixBind = opt.equals("user") ? g.unixBind.withUser(n) : g.unixBind.withGroup(n);
                }
                default -> {
                    c.lineError("'unix-bind' only supports the 'prefix', 'mode', 'uid', 'gid', 'user' and 'group' options.");
                    return;
                }
            }
        }
    }

    private static void processKeywords(KeywordRegistry r) {
        r.register(new Keyword("uid", GLOBAL, "uid <number>", "Run with this numeric user id once the listeners are bound.",
                c -> {
                    if (c.expectArgs(1, 1, "uid <number>")) {
                        if (c.global().user != null || c.global().uid >= 0) {
                            c.warning("user/uid already specified; the last one wins.");
                        }
                        c.global().uid = c.intArg(c.args().get(0), "uid", 0, Integer.MAX_VALUE, -1);
                        c.global().user = null;
                    }
                }));
        r.register(new Keyword("gid", GLOBAL, "gid <number>", "Run with this numeric group id once the listeners are bound.",
                c -> {
                    if (c.expectArgs(1, 1, "gid <number>")) {
                        if (c.global().group != null || c.global().gid >= 0) {
                            c.warning("group/gid already specified; the last one wins.");
                        }
                        c.global().gid = c.intArg(c.args().get(0), "gid", 0, Integer.MAX_VALUE, -1);
                        c.global().group = null;
                    }
                }));
        r.register(new Keyword("chroot", GLOBAL, "chroot <directory>",
                "Change the root directory to this one once the listeners are bound and every file is read (needs root).",
                c -> {
                    if (c.expectArgs(1, 1, "chroot <directory>")) {
                        c.global().chroot = c.args().get(0);
                    }
                }));
        r.register(new Keyword("zero-warning", GLOBAL, "zero-warning",
                "Treat every configuration warning as fatal: the daemon does not start and -c fails.", c -> {
                    if (c.expectArgs(0, 0, "zero-warning")) {
                        c.global().zeroWarning = true;
                    }
                }));
        r.register(new Keyword("master-worker", GLOBAL, "master-worker [no-exit-on-failure]",
                "Run as a master that supervises a worker process (as -W): SIGUSR2 reloads, and the master exits with the "
                        + "worker when it dies, unless no-exit-on-failure.",
                c -> {
                    if (c.expectArgs(0, 1, "master-worker [no-exit-on-failure]")) {
                        if (c.args().isEmpty()) {
                            c.global().masterWorker = true;
                        } else if (c.args().get(0).equals("no-exit-on-failure")) {
                            c.global().masterWorker = true;
                            c.global().exitOnFailure = false;
                        } else {
                            c.error("'master-worker' only supports 'no-exit-on-failure' option.");
                        }
                    }
                }));
        r.register(new Keyword("mworker-max-reloads", GLOBAL, "mworker-max-reloads <number>",
                "In master-worker mode, a leaving worker still running after this many reloads gets a SIGTERM.", c -> {
                    if (c.expectArgs(1, 1, "mworker-max-reloads <number>")) {
                        c.global().maxReloads = c.intArg(c.args().get(0), "mworker-max-reloads", 0, Integer.MAX_VALUE, -1);
                    }
                }));
        r.register(new Keyword("noreuseport", GLOBAL, "noreuseport",
                "Listen without SO_REUSEPORT: a new process started with -sf then cannot bind the same ports while the old one runs.",
                c -> {
                    if (c.expectArgs(0, 0, "noreuseport")) {
                        c.global().noReusePort = true;
                    }
                }));
        r.register(new Keyword("nosplice", GLOBAL, "nosplice",
                "Never use kernel splicing, whatever the proxies' 'option splice-*' say.", c -> {
                    if (!c.args().isEmpty()) {
                        c.lineError("'nosplice' cannot handle unexpected argument '" + c.args().get(0) + "'.");
                        return;
                    }
                    c.global().noSplice = true;
                }));
        r.register(new Keyword("tune.pipesize", GLOBAL, "tune.pipesize <bytes>",
                "The size of the pipes kernel splicing moves data through (default: the system's, 64 kB on Linux).", c -> {
                    if (c.args().isEmpty()) {
                        c.lineError("'tune.pipesize' expects an integer argument.");
                        return;
                    }
                    // as HAProxy (atol): the leading digits, 0 when there are none
                    String v = c.args().get(0);
                    int end = 0;
                    while (end < v.length() && end < 9 && Character.isDigit(v.charAt(end))) {
                        end++;
                    }
                    c.global().pipesize = end == 0 ? 0 : Integer.parseInt(v.substring(0, end));
                }));
        r.register(new Keyword("hard-stop-after", GLOBAL, "hard-stop-after <time>",
                "The longest a graceful stop (SIGUSR1, -sf) may last: connections still open then are closed.", c -> {
                    if (c.expectArgs(1, 1, "hard-stop-after <time>")) {
                        long t = c.timeArg(c.args().get(0));
                        if (t >= 0) {
                            c.global().hardStopAfter = t;
                        }
                    }
                }));
        r.register(new Keyword("ulimit-n", GLOBAL, "ulimit-n <number>",
                "Set the process's file-descriptor limit (soft and hard) before anything is opened.",
                c -> {
                    if (c.expectArgs(1, 1, "ulimit-n <number>")) {
                        c.global().ulimitN = c.intArg(c.args().get(0), "ulimit-n", 1, Integer.MAX_VALUE, 0);
                    }
                }));
    }
}
