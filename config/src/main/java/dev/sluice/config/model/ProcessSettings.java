package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * What the {@code global} section asks of the process itself: the user and group to run as after the
 * listeners are bound ({@code user}/{@code group} by name, {@code uid}/{@code gid} by number; -1 and null
 * when not set), the directory to {@code chroot} into (null: none) and the file-descriptor limit
 * ({@code ulimit-n}, 0: unchanged); {@code hard-stop-after}: how long a graceful stop may last (0: until the last
 * connection closes); {@code noreuseport}: listeners do not share their port with another process (no reload with
 * {@code -sf} on the same ports then); {@code zero-warning}: a configuration with warnings does not start (nor pass
 * {@code -c}); {@code master-worker}: the process supervises a worker that runs the proxy (as {@code -W}), and exits
 * with it when it dies unless {@code no-exit-on-failure} ({@code exitOnFailure} false); {@code mworker-max-reloads}: how
 * many reloads a leaving worker may outlive before it gets a SIGTERM (-1: no limit). Names are resolved by the
 * daemon, not the parser, so {@code -c} reports an unknown user with the line that names it. {@code set-dumpable}: the
 * process may dump core (its core and file size limits raised, the dumpable flag set again after the identity change);
 * {@code insecure-fork-wanted}: the process may start other programs (external checks); {@code cpu-map}: the CPUs the
 * event-loop threads are pinned to, in order; {@code unix-bind}: the UNIX bind options it gives every bind (kept here too,
 * so that its user and group names are resolved, and an unknown one reported, with or without a bind).
 */
public record ProcessSettings(String user, SourceRef userAt, String group, SourceRef groupAt, int uid, int gid,
        String chroot, int ulimitN, long hardStopAfterMs, boolean noReusePort, boolean zeroWarning, boolean masterWorker,
        boolean exitOnFailure, int maxReloads, boolean dumpable, boolean insecureForkWanted, List<CpuMap> cpuMaps, UnixPerms unixBind) {

    public static final ProcessSettings DEFAULT = new ProcessSettings(null, null, null, null, -1, -1, null, 0, 0, false, false, false, true, -1);

    public ProcessSettings {
        cpuMaps = List.copyOf(cpuMaps);
    }

    public ProcessSettings(String user, SourceRef userAt, String group, SourceRef groupAt, int uid, int gid, String chroot, int ulimitN,
            long hardStopAfterMs, boolean noReusePort, boolean zeroWarning, boolean masterWorker, boolean exitOnFailure, int maxReloads) {
        this(user, userAt, group, groupAt, uid, gid, chroot, ulimitN, hardStopAfterMs, noReusePort, zeroWarning, masterWorker, exitOnFailure,
                maxReloads, false, false, List.of(), UnixPerms.NONE);
    }

    public ProcessSettings(String user, SourceRef userAt, String group, SourceRef groupAt, int uid, int gid, String chroot, int ulimitN) {
        this(user, userAt, group, groupAt, uid, gid, chroot, ulimitN, 0, false, false, false, true, -1);
    }

    /** True when anything changes the process's identity or root. */
    public boolean dropsPrivileges() {
        return user != null || group != null || uid >= 0 || gid >= 0 || chroot != null;
    }
}
