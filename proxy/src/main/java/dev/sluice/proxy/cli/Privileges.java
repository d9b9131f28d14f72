package dev.sluice.proxy.cli;

import dev.sluice.config.model.ProcessSettings;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;

/**
 * The process settings of the {@code global} section, applied as HAProxy applies them: {@code ulimit-n}
 * before anything is opened; once the listeners are bound and every file is read, {@code chroot}, then the
 * group (supplementary groups dropped), then the user. Names are resolved when the configuration is
 * checked, so {@code -c} reports an unknown user or group. Main thread only.
 */
final class Privileges {
    private Privileges() {
    }

    /** Numeric ids (-1: unchanged) and the directory to change root to (null: none). */
    record Resolved(int uid, int gid, String chroot, int ulimitN) {
        boolean dropsAnything() {
            return uid >= 0 || gid >= 0 || chroot != null;
        }
    }

    /** Resolves user and group names; each problem is added as {@code file:line: error: ...}. */
    static Resolved resolve(ProcessSettings p, List<String> problems) {
        int uid = p.uid();
        int gid = p.gid();
        try {
            if (p.user() != null) {
                uid = Libc.userId(p.user());
                if (uid < 0) {
                    problems.add(p.userAt() + ": error: 'user' : cannot find user id for '" + p.user() + "'.");
                }
            }
            if (p.group() != null) {
                gid = Libc.groupId(p.group());
                if (gid < 0) {
                    problems.add(p.groupAt() + ": error: 'group' : cannot find group id for '" + p.group() + "'.");
                }
            }
        } catch (Libc.Failure e) {
            problems.add("global: error: cannot look up users and groups: " + e.getMessage() + ".");
        }
        if (p.chroot() != null && !Files.isDirectory(Path.of(p.chroot()))) {
            problems.add("global: error: 'chroot' : '" + p.chroot() + "' is not a directory.");
        }
        return new Resolved(uid, gid, p.chroot(), p.ulimitN());
    }

    /** {@code ulimit-n}: a limit that cannot be set is a warning, as in HAProxy without strict-limits. */
    static void applyFdLimit(Resolved r, PrintStream err) {
        if (r.ulimitN() <= 0) {
            return;
        }
        try {
            Libc.setFdLimit(r.ulimitN());
        } catch (Libc.Failure e) {
            long limit = -1;
            try {
                limit = Libc.fdLimit()[0];
            } catch (Libc.Failure ignored) {
                // report the failure without the current limit
            }
            err.println("[WARNING] [sluice.main()] Cannot raise FD limit to " + r.ulimitN() + ", limit is " + limit + ".");
        }
    }

    /**
     * chroot, group, user. Returns an alert to print and exit with, or null when all was done. What the
     * JVM would read lazily from the file system afterwards (time-zone rules, locale data, the random
     * source) is read first.
     */
    static String drop(Resolved r, PrintStream err) {
        if (!r.dropsAnything()) {
            return null;
        }
        if (r.chroot() != null) {
            preload();
            try {
                Libc.chroot(r.chroot());
            } catch (Libc.Failure e) {
                return "[sluice.main()] Cannot chroot(" + r.chroot() + "): " + reason(e) + ".";
            }
        }
        if (r.gid() >= 0) {
            try {
                Libc.clearGroups();
            } catch (Libc.Failure e) {
                err.println("[WARNING] [sluice.main()] Failed to drop supplementary groups. Using 'gid'/'group' without"
                        + " 'uid'/'user' is generally useless.");
            }
            try {
                Libc.setgid(r.gid());
            } catch (Libc.Failure e) {
                return "[sluice.main()] Cannot set gid " + r.gid() + ": " + reason(e) + ".";
            }
        }
        if (r.uid() >= 0) {
            try {
                Libc.setuid(r.uid());
            } catch (Libc.Failure e) {
                return "[sluice.main()] Cannot set uid " + r.uid() + ": " + reason(e) + ".";
            }
        }
        return null;
    }

    /**
     * {@code set-dumpable}, once the identity is final (as HAProxy, after setuid): no file or core size limits, and the
     * dumpable flag that a change of user clears set again; each failure is HAProxy's warning.
     */
    static void setDumpable(boolean dumpable, PrintStream err) {
        if (!dumpable) {
            return;
        }
        try {
            Libc.unlimit(Libc.RLIMIT_FSIZE);
        } catch (Libc.Failure e) {
            err.println("[WARNING] [sluice.main()] Failed to set the raise the maximum file size.");
        }
        try {
            Libc.unlimit(Libc.RLIMIT_CORE);
        } catch (Libc.Failure e) {
            err.println("[WARNING] [sluice.main()] Failed to set the raise the core dump size.");
        }
        try {
            Libc.setDumpable();
        } catch (Libc.Failure e) {
            err.println("[WARNING] [sluice.main()] Failed to set the dumpable flag, no core will be dumped.");
        }
    }

    private static String reason(Libc.Failure e) {
        String m = e.getMessage();
        return m.substring(m.indexOf(": ") + 2);
    }

    /** Loads what the JDK reads from its installation or /dev on first use, before the root changes. */
    private static void preload() {
        ZonedDateTime now = ZonedDateTime.now();
        now.getZone().getRules();
        DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss.SSS EEE", Locale.ROOT).format(now);
        DateTimeFormatter.ofPattern("MMM dd HH:mm:ss", Locale.US).format(now);
        DateTimeFormatter.RFC_1123_DATE_TIME.format(now);
        TimeZone.getDefault();
        new SecureRandom().nextBytes(new byte[16]);
        try {
            InetAddress.getLocalHost();
        } catch (UnknownHostException e) {
            // no name for this host: nothing to cache
        }
    }
}
